// One mirror per store at a time: `{data}/{kind}/.{id}.lock` is created exclusively (O_EXCL) and holds the
// owner's pid. A lock whose pid is dead (a crashed or SIGKILLed run) is taken over; a live one is refused.
// O_EXCL creation is atomic on local file systems, so two processes racing for a stale lock cannot both win:
// each removes the stale file and retries the exclusive create, and only one create succeeds.

import { openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { hostname } from 'node:os';

export class LockError extends Error {}

export interface Lock {
  file: string;
  release(): void;
}

/** Held by this process (pid and host as written in the lock). */
const heldHere = new Set<string>();

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(file: string): { pid: number; host: string } | undefined {
  try {
    const [pid, host] = readFileSync(file, 'utf8').trim().split(/\s+/);
    return { pid: Number(pid), host: host ?? '' };
  } catch {
    return undefined;
  }
}

/** Takes the lock or throws a LockError naming the holder. */
export function acquireLock(file: string): Lock {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      try {
        writeSync(fd, `${process.pid} ${hostname()}\n`);
      } finally {
        closeSync(fd);
      }
      heldHere.add(file);
      let released = false;
      return {
        file,
        release: () => {
          if (released) return;
          released = true;
          heldHere.delete(file);
          try {
            unlinkSync(file);
          } catch {
            /* already gone */
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = readOwner(file);
    // A file being written this very moment reads empty: treat as held.
    if (!owner || !Number.isInteger(owner.pid) || owner.pid <= 0) throw new LockError(`${file} is held by another process`);
    const sameHost = owner.host === '' || owner.host === hostname();
    if (heldHere.has(file) || !sameHost || pidAlive(owner.pid)) {
      throw new LockError(`another mirror of this store is running (pid ${owner.pid}${sameHost ? '' : ` on ${owner.host}`}; lock ${file})`);
    }
    // The owner died without releasing: remove its lock and race for a fresh one.
    try {
      unlinkSync(file);
    } catch {
      /* someone else removed it first */
    }
  }
  throw new LockError(`could not take ${file}`);
}
