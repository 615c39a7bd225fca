// The derived indexes' files (`npm run indexes`: the EPSG registry, the gazetteer): how one is built and when it is
// current. Each records the versions of the data it was built from in its `meta` table (key, value); a file that
// records the same is not built again, and a new one is written beside it and renamed over it, so a server reading
// the old one, or a build killed half-way, never sees a torn file.

import Database from 'better-sqlite3';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

export interface IndexBuildResult {
  file: string;
  /** False when the file was current and left alone. */
  built: boolean;
  /** Rows written (0 when not built). */
  rows: number;
  mb: number;
  seconds: number;
}

/** A value of an index file's `meta` table; undefined when the file, the table or the key is absent or unreadable. */
export function metaValue(file: string, key: string): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
}

/**
 * Builds `file` unless its `meta` already records `version` under `key` (or `force`): `write` fills a temporary
 * file beside it (and stores the version there) and returns the rows written; the file is then renamed into place.
 * A failed write leaves the previous file as it was and removes the temporary one.
 */
export async function buildIndexFile(
  file: string,
  stamp: { key: string; version: string },
  force: boolean,
  write: (tmp: string) => number | Promise<number>,
): Promise<IndexBuildResult> {
  const started = performance.now();
  const seconds = (): number => (performance.now() - started) / 1000;
  if (!force && metaValue(file, stamp.key) === stamp.version) return { file, built: false, rows: 0, mb: statSync(file).size / 1e6, seconds: seconds() };
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  try {
    const rows = await write(tmp);
    renameSync(tmp, file);
    return { file, built: true, rows, mb: statSync(file).size / 1e6, seconds: seconds() };
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
