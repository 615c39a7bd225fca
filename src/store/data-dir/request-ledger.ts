// The upstream requests a data directory's runs spent, per calendar month (UTC) and upstream (its key-free
// origin): `{data}/.tilemirror-requests.sqlite`. Every mirror process of the data directory (the server's jobs,
// `tilemirror mirror` runs, plans) adds to it, so a monthly budget counts them all. Runs reserve requests in
// blocks (`reserve`) and give back what they did not send (`release`), so the file is written a few times a
// second at most, and two processes can never together send more than the month's budget. SQLite does the
// cross-process part: each change is one write transaction (BEGIN IMMEDIATE, waiting up to 5 s for the other
// writers), atomic by its write-ahead log. Also kept per upstream: the requests and retries of the last finished run, the
// rate a plan expects retries at. Never holds a key: the upstream is named by its origin only.

import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const REQUEST_LEDGER_FILE = '.tilemirror-requests.sqlite';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS month_requests (month TEXT NOT NULL, upstream TEXT NOT NULL, spent INTEGER NOT NULL, PRIMARY KEY (month, upstream)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS last_run (upstream TEXT PRIMARY KEY, requests INTEGER NOT NULL, retries INTEGER NOT NULL, ended_at TEXT NOT NULL) WITHOUT ROWID;
`;

/** The last finished run against an upstream: what a plan expects retries from. */
export interface LastRunRequests {
  requests: number;
  retries: number;
}

export class RequestLedger {
  readonly file: string;
  private db: Database.Database | undefined;

  constructor(readonly dataDir: string) {
    this.file = join(dataDir, REQUEST_LEDGER_FILE);
  }

  private open(): Database.Database {
    if (!this.db) {
      mkdirSync(this.dataDir, { recursive: true });
      const db = new Database(this.file, { timeout: 5000 });
      try {
        // A commit without fsync (WAL, synchronous NORMAL): a reservation cost ~36 ms with the default fsyncs on a
        // busy disk, in the run's event loop. A killed process loses nothing; a crash of the machine may lose the
        // last commits (the month then counts a few blocks short), never the file.
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        // Every write in a transaction that takes the write lock first (IMMEDIATE): a write that began as a read
        // would be refused at once, not waited for, when another process writes (SQLite's deadlock rule).
        db.transaction(() => db.exec(SCHEMA)).immediate();
      } catch (err) {
        db.close();
        throw err;
      }
      this.db = db;
    }
    return this.db;
  }

  /**
   * Reserves up to `wanted` requests of the month for the upstream; with a budget, no more than it leaves.
   * Returns how many were granted (0: the month's budget is spent).
   */
  reserve(month: string, upstream: string, wanted: number, perMonth: number | null): number {
    const db = this.open();
    return db.transaction(() => {
      const spent = spentIn(db, month, upstream);
      const granted = Math.max(0, Math.min(wanted, perMonth === null ? wanted : perMonth - spent));
      if (granted > 0) add(db, month, upstream, granted);
      return granted;
    }).immediate();
  }

  /** Gives back reserved requests that were not sent. */
  release(month: string, upstream: string, unsent: number): void {
    if (unsent <= 0) return;
    const db = this.open();
    db.transaction(() => add(db, month, upstream, -Math.min(unsent, spentIn(db, month, upstream)))).immediate();
  }

  /** Records a finished run's requests and retries (the rate the next plan expects retries at). */
  recordRun(upstream: string, run: LastRunRequests): void {
    if (run.requests <= 0) return;
    const db = this.open();
    const put = db.prepare('INSERT OR REPLACE INTO last_run (upstream, requests, retries, ended_at) VALUES (?, ?, ?, ?)');
    db.transaction(() => put.run(upstream, run.requests, run.retries, new Date().toISOString())).immediate();
  }

  /** Requests spent (sent or reserved by a run still going) in the month, per upstream. */
  spent(month: string): Map<string, number> {
    const rows = this.read((db) => db.prepare('SELECT upstream, spent FROM month_requests WHERE month = ?').all(month) as { upstream: string; spent: number }[]) ?? [];
    return new Map(rows.map((r) => [r.upstream, r.spent]));
  }

  lastRun(upstream: string): LastRunRequests | undefined {
    return this.read((db) => db.prepare('SELECT requests, retries FROM last_run WHERE upstream = ?').get(upstream) as LastRunRequests | undefined);
  }

  /** A read through the open connection, or a read-only one; undefined when there is no ledger yet. */
  private read<T>(q: (db: Database.Database) => T): T | undefined {
    if (this.db) return q(this.db);
    let db: Database.Database | undefined;
    try {
      // Not read-only: a reader of a WAL file may have to open its shared-memory index.
      db = new Database(this.file, { fileMustExist: true, timeout: 5000 });
      return q(db);
    } catch (err) {
      // No ledger yet (nothing mirrored), or one without a table yet: nothing spent.
      if (/unable to open|no such table/i.test((err as Error).message)) return undefined;
      throw err;
    } finally {
      db?.close();
    }
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
  }
}

function spentIn(db: Database.Database, month: string, upstream: string): number {
  return (db.prepare('SELECT spent FROM month_requests WHERE month = ? AND upstream = ?').pluck().get(month, upstream) as number | undefined) ?? 0;
}

function add(db: Database.Database, month: string, upstream: string, n: number): void {
  db.prepare('INSERT INTO month_requests (month, upstream, spent) VALUES (?, ?, ?) ON CONFLICT (month, upstream) DO UPDATE SET spent = spent + excluded.spent').run(month, upstream, n);
}
