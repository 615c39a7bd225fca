// Publishing: only a complete, verified staging store replaces the served one, by ONE rename in the same
// directory (atomic on POSIX file systems). Readers holding the old file keep reading it (its inode lives on
// until they close it); the catalog notices the new inode and reopens. Nothing else is ever written to a
// published path, so a failed run leaves the last good store exactly as it was.

import { closeSync, fsyncSync, openSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import type { PyramidPlan } from '../../geo/tile-bands';
import { STATE } from './mirror-sql';
import type { StagingStore } from './staging';

export interface Verification {
  ok: boolean;
  planned: number;
  stored: number;
  empty: number;
  problems: string[];
}

/** Checks a staging store against its plan: SQLite integrity, and stored + empty == planned with nothing extra. */
export function verifyStaging(staging: StagingStore, plans: PyramidPlan[]): Verification {
  staging.flush();
  const planned = plans.reduce((n, p) => n + p.count, 0);
  const { stored, empty } = staging.countPlanned(plans);
  const problems: string[] = [];
  const integrity = staging.integrityOk();
  if (!integrity.ok) problems.push(`integrity_check: ${integrity.detail}`);
  if (stored + empty !== planned) problems.push(`${planned - stored - empty} of ${planned} planned tiles are missing`);
  const all = staging.countAll();
  if (all !== stored + empty) problems.push(`${all - stored - empty} tiles outside the plan`);
  return { ok: problems.length === 0, planned, stored, empty, problems };
}

/** Flushes a file (or a directory entry) to disk before and after the publishing rename. */
export function fsyncPath(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on directories; the rename is still atomic, only less durable.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Closes the staging store and renames it onto the published path. The caller verified it. */
export function publishStaging(staging: StagingStore, target: string): void {
  staging.setState(STATE.publishedAt, new Date().toISOString());
  // One self-contained file in rollback-journal mode: read-only readers need no -wal/-shm beside it.
  staging.settle();
  staging.close();
  publishFile(staging.file, target);
}

/** Renames a complete, closed store file onto the published path, durably. */
export function publishFile(file: string, target: string): void {
  // The bytes reach the disk before the name does: a crash right after the rename cannot publish a torn file.
  fsyncPath(file);
  renameSync(file, target);
  fsyncPath(dirname(target));
}
