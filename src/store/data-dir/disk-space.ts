// Room on the data volume: how much a run of a store needs (its estimated size, less what its staging file
// already holds, plus a margin) against what the volume has free (statfs), said in one line with both figures;
// and how a write that found the volume full is told apart from other failures (SQLITE_FULL, ENOSPC).

import Database from 'better-sqlite3';
import { existsSync, statfsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { MAIN_TABLE_KEY, TileTables } from '../mbtiles/sql';
import { formatBytes } from '../units';

/**
 * The margin over the estimate: the staging file's rollback journal or WAL and SQLite's page slack, and the
 * published store's own journal when publishing switches the file back to rollback mode. A tenth of the estimate,
 * at least 4 MB (a WAL checkpoint of 16,384 pages is 64 MB at most, but a small run never grows one that large).
 */
export function spaceMargin(estimatedBytes: number): number {
  return Math.max(4 * 1024 * 1024, Math.ceil(estimatedBytes * 0.1));
}

/** Bytes free for an unprivileged writer on the volume that holds `path` (its nearest existing ancestor). */
export function freeBytes(path: string): number {
  let dir = path;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}

/** Size of a file, 0 when it does not exist. */
export function fileBytes(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * What one stored tile costs on disk in a store file: the file's size over its tile rows (the index, the
 * validators and SQLite's page slack included). Undefined for a missing or unreadable file, or one with no tiles.
 */
export function bytesPerStoredTile(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const tiles = new TileTables(db, MAIN_TABLE_KEY).count();
    return tiles > 0 ? fileBytes(file) / tiles : undefined;
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

/**
 * A store file's size over the bytes of its tiles: the tile index, the mirror's validators and SQLite's page slack.
 * Measured on stores mirrored from the sample: 25.7 MB for 21.4 MB of PNG tiles (maps/sample z0-5), 741 KB for
 * 582 KB of vector tiles (tiles/sample-vector z0-4).
 */
export const STORE_OVERHEAD = 1.25;

/** The size of a store file that holds `tileBytes` of tiles. */
export const storeBytesFor = (tileBytes: number): number => Math.round(tileBytes * STORE_OVERHEAD);

export interface SpaceCheck {
  /** What the store is expected to hold once published. */
  estimatedBytes: number;
  /** What the run still needs on the volume: the estimate less what its staging file holds, plus the margin. */
  requiredBytes: number;
  freeBytes: number;
  fits: boolean;
  /** One line naming both figures. */
  message: string;
}

/**
 * Compares a run's need with the free space of `dataDir`'s volume. The staging file grows to the whole store
 * beside the published one (a run that extends a store starts from a copy of it), so the estimate counts in full;
 * a staging file a previous run left (`stagedBytes`) is already on the volume and counts against it.
 */
export function checkSpace(dataDir: string, estimatedBytes: number, stagedBytes = 0, what = 'the run'): SpaceCheck {
  const free = freeBytes(dataDir);
  const required = Math.max(0, estimatedBytes - stagedBytes) + spaceMargin(estimatedBytes);
  const fits = required <= free;
  const need = `${what} needs ~${formatBytes(required)} (${formatBytes(estimatedBytes)} estimated for the store file${stagedBytes > 0 ? `, ${formatBytes(stagedBytes)} already staged` : ''}, plus a margin for the staging journal)`;
  const message = fits
    ? `${need}; the data volume has ${formatBytes(free)} free`
    : `not enough space on the data volume: ${need}, but only ${formatBytes(free)} is free on ${dataDir}`;
  return { estimatedBytes, requiredBytes: required, freeBytes: free, fits, message };
}

/** True when an error says the volume is full: SQLite's SQLITE_FULL (any extended code) or the system's ENOSPC. */
export function isDiskFull(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (code.startsWith('SQLITE_FULL') || code === 'ENOSPC')) return true;
  return err instanceof Error && /database or disk is full|no space left on device/i.test(err.message);
}

/** The one line a run stops with when the volume filled while it ran. */
export function diskFullLine(dataDir: string): string {
  let free = '';
  try {
    free = `, ${formatBytes(freeBytes(dataDir))} free`;
  } catch {
    /* the figure is a courtesy */
  }
  return `the data volume is full: ${dataDir}${free}; the run stopped, its progress is kept and the published store is untouched: free some space and run it again to resume`;
}
