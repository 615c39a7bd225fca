// One writer per store at a time: a mirror run or a bundle import (both write stores, so the lock lives with the
// stores and neither imports the other). The lock is a kernel lock, not a file's existence: `{data}/{kind}/.{id}.lock`
// is a tiny SQLite database and the holder keeps a write transaction open on it (SQLite's RESERVED lock, a POSIX
// record lock). The kernel drops record locks when their process dies, SIGKILL included, so a crashed run leaves
// no stale lock to detect and take over: the next run's BEGIN IMMEDIATE simply succeeds. An O_EXCL pid file would
// race on its takeover (read pid, see it dead, unlink, create): two takers could both see the stale pid and the
// slower one unlink the faster one's fresh lock. Here there is no check-then-act step at all.
//
// The file itself is removed on release (nothing is left behind in the data directory). That reopens one race,
// closed by checking the inode: a contender may open the file just before the holder unlinks it and then lock
// the unlinked inode. The holder unlinks while still holding the lock, so a lock taken on an inode that is no
// longer the one at the path is worthless: the contender sees the mismatch and tries again.
// The holder's pid is committed in the file so that a refused run can say who holds the store, and what it is
// doing: a mirror run, or an import of a bundle (src/bundle/import.ts takes the same lock, so the two never
// overlap on one store).

import Database from 'better-sqlite3';
import { closeSync, openSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { pidAlive } from './pid';

/** Another run or import holds the store's lock. */
export class LockError extends Error {}

/** What holds a store: a mirror run (the default) or a bundle import. */
export type LockTask = 'mirror' | 'import';

const BUSY: Record<LockTask, string> = { mirror: 'another mirror of this store is running', import: 'an import into this store is running' };

export interface Lock {
  file: string;
  release(): void;
}

/** Lock files held by this process: SQLite would tell a second connection BUSY too, this says it sooner. */
const heldHere = new Map<string, LockTask>();

function inodeOf(file: string): bigint | undefined {
  try {
    return statSync(file, { bigint: true }).ino;
  } catch {
    return undefined;
  }
}

function owner(db: Database.Database): { text?: string; task: LockTask } {
  try {
    // SELECT *: a lock file left by an older tilemirror has no `task` column (its holder was a mirror).
    const row = db.prepare('SELECT * FROM owner').get() as { pid: number; host: string; task?: string } | undefined;
    const task: LockTask = row?.task === 'import' ? 'import' : 'mirror';
    return { text: row ? `pid ${row.pid}${row.host === hostname() ? '' : ` on ${row.host}`}` : undefined, task };
  } catch {
    return { task: 'mirror' };
  }
}

const sqliteCode = (err: unknown): string | undefined => (err as { code?: string }).code;

/**
 * A lock file in the pid-file form (`pid host` as text, as older tilemirror versions wrote it): refused while that
 * process lives, else removed so the caller can try again. Only a store locked by such a version that died has one.
 */
function handleLegacy(file: string): void {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  const [pidText, host] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  const sameHost = !host || host === hostname();
  if (Number.isInteger(pid) && pid > 0 && (!sameHost || pidAlive(pid))) {
    throw new LockError(`another mirror of this store is running (pid ${pid}${sameHost ? '' : ` on ${host}`}; lock ${file})`);
  }
  try {
    unlinkSync(file);
  } catch {
    /* gone already */
  }
}

/** Takes the lock or throws a LockError naming the holder (a mirror run or an import) and its pid. */
export function acquireLock(file: string, task: LockTask = 'mirror'): Lock {
  const here = heldHere.get(file);
  if (here) throw new LockError(`${BUSY[here]} (in this process; lock ${file})`);
  for (let attempt = 0; attempt < 5; attempt++) {
    // The file must exist before its inode is noted, so the inode check below compares like with like.
    closeSync(openSync(file, 'a'));
    const before = inodeOf(file);
    let db: Database.Database;
    try {
      db = new Database(file, { fileMustExist: true, timeout: 0 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || sqliteCode(err) === 'SQLITE_CANTOPEN') continue;
      throw err;
    }
    let holding = false;
    try {
      db.pragma('journal_mode = DELETE');
      db.exec('BEGIN IMMEDIATE');
      holding = true;
    } catch (err) {
      const code = sqliteCode(err);
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
        const who = owner(db);
        db.close();
        throw new LockError(`${BUSY[who.task]} (${who.text ? `${who.text}; ` : ''}lock ${file})`);
      }
      db.close();
      if (code === 'SQLITE_NOTADB') {
        handleLegacy(file);
        continue;
      }
      throw err;
    }
    if (!holding || inodeOf(file) !== before) {
      // Locked an inode that a releasing holder unlinked meanwhile: worthless, try again.
      db.close();
      continue;
    }
    try {
      // Who holds it, committed so contenders can read it; then the lock is held again at once. Whoever slips
      // into that instant holds the lock rightfully, and this run gives up below.
      // Made afresh: a file left by a killed older tilemirror may hold the table without its `task` column.
      db.exec('DROP TABLE IF EXISTS owner');
      db.exec('CREATE TABLE owner (pid INTEGER NOT NULL, host TEXT NOT NULL, since TEXT NOT NULL, task TEXT NOT NULL)');
      db.prepare('INSERT INTO owner (pid, host, since, task) VALUES (?, ?, ?, ?)').run(process.pid, hostname(), new Date().toISOString(), task);
      // Committing needs readers gone for a moment: wait for them briefly rather than fail.
      db.pragma('busy_timeout = 2000');
      db.exec('COMMIT');
      db.pragma('busy_timeout = 0');
      db.exec('BEGIN IMMEDIATE');
    } catch (err) {
      db.close();
      const code = sqliteCode(err);
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') throw new LockError(`another mirror of this store is running (lock ${file})`);
      throw err;
    }
    heldHere.set(file, task);
    let released = false;
    return {
      file,
      release: () => {
        if (released) return;
        released = true;
        heldHere.delete(file);
        // Unlink while still holding, then let go: see the inode check above.
        try {
          unlinkSync(file);
        } catch {
          /* already gone */
        }
        try {
          db.exec('ROLLBACK');
        } catch {
          /* nothing to roll back */
        }
        db.close();
      },
    };
  }
  throw new LockError(`could not take ${file} (it kept changing under this process)`);
}
