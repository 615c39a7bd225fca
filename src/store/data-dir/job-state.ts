// Persisted state of the configured mirror jobs: `{data}/.tilemirror-jobs.json`, one entry per job (last run,
// result, tile counts, errors, next run, skipped firings). Written atomically (temporary file + rename) and
// merged per job on every write, so the server and a `tilemirror mirror --config` process can share it. Servers
// that share their schedules (several instances, one data directory) also hold a kernel lock over each
// read-change-write (a write transaction on `.tilemirror-jobs.lock`, a tiny SQLite file): the loser of a firing
// records its skip at the instant the winner records its start, and neither may undo the other's change.
// Every message stored here is redacted before it arrives; the upstream key is never part of a record.

import Database from 'better-sqlite3';
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobState } from '../../job-contracts';

export const JOB_STATE_FILE = '.tilemirror-jobs.json';
const LOCK_FILE = '.tilemirror-jobs.lock';

/** How many runs a job's history keeps. */
export const HISTORY_RUNS = 20;

export interface JobStates {
  version: 1;
  updatedAt: string;
  jobs: Record<string, JobState>;
}

export const emptyJobState = (): JobState => ({ runs: 0, failures: 0, skipped: 0 });

export function jobStateFilePath(dataDir: string): string {
  return join(dataDir, JOB_STATE_FILE);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads the state file; a missing or unreadable file reads as no state (it is rewritten on the next run). */
export function readJobStates(dataDir: string): JobStates {
  try {
    const raw: unknown = JSON.parse(readFileSync(jobStateFilePath(dataDir), 'utf8'));
    if (isObject(raw) && isObject(raw.jobs)) {
      const jobs: Record<string, JobState> = {};
      for (const [name, st] of Object.entries(raw.jobs)) if (isObject(st)) jobs[name] = { ...emptyJobState(), ...(st as Partial<JobState>) };
      return { version: 1, updatedAt: String(raw.updatedAt ?? ''), jobs };
    }
  } catch {
    /* missing or corrupt: start afresh */
  }
  return { version: 1, updatedAt: '', jobs: {} };
}

let tmpCounter = 0;

/** Writes `value` as JSON to `file` atomically: readers see the old or the new file, never a partial one. */
function writeJsonAtomic(file: string, value: unknown): void {
  const tmp = `${file}.${process.pid}.${++tmpCounter}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      /* never created */
    }
    throw err;
  }
}

/**
 * The job state file of one data directory. `update` re-reads the file and changes only the named job, so two
 * processes updating different jobs do not undo each other's writes.
 */
export class JobStateFile {
  readonly file: string;

  constructor(
    readonly dataDir: string,
    private readonly onError: (err: Error) => void = () => undefined,
    /** Serialize updates across processes (several servers write this file at the same moments). */
    private readonly shared = false,
  ) {
    this.file = jobStateFilePath(dataDir);
  }

  read(): JobStates {
    return readJobStates(this.dataDir);
  }

  job(name: string): JobState {
    return this.read().jobs[name] ?? emptyJobState();
  }

  update(name: string, change: (st: JobState) => void): JobState {
    const lock = this.shared ? this.lock() : undefined;
    try {
      return this.change(name, change);
    } finally {
      lock?.close();
    }
  }

  /** Waits (up to 5 s) for the other writers of this data directory; undefined when the lock cannot be made (read-only). */
  private lock(): Database.Database | undefined {
    let db: Database.Database | undefined;
    try {
      mkdirSync(this.dataDir, { recursive: true });
      db = new Database(join(this.dataDir, LOCK_FILE), { timeout: 5000 });
      db.exec('BEGIN IMMEDIATE');
      return db;
    } catch {
      // The write below reports the real problem (a read-only or full disk); a lock timeout writes unlocked.
      db?.close();
      return undefined;
    }
  }

  private change(name: string, change: (st: JobState) => void): JobState {
    const file = this.read();
    const st = file.jobs[name] ?? emptyJobState();
    change(st);
    file.jobs[name] = st;
    file.updatedAt = new Date().toISOString();
    try {
      mkdirSync(this.dataDir, { recursive: true });
      writeJsonAtomic(this.file, file);
    } catch (err) {
      // A full disk must not stop the server or a run: the state is informational.
      this.onError(err as Error);
    }
    return st;
  }
}
