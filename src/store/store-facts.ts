// What an operator is told of a store file beyond what it serves: its tile rows, its bytes on disk, and where it
// came from (the upstream a mirror run recorded, an imported MBTiles file, the bundled sample).

import Database from 'better-sqlite3';
import { fileBytes } from './disk-space';
import { MAIN_TABLE_KEY, metadataValue, TileTables } from './mbtiles-sql';

export type StoreOrigin = { type: 'upstream'; url: string } | { type: 'imported' } | { type: 'sample' };

export interface StoreFacts {
  /** Tile rows (every pyramid); null when the file cannot say cheaply (a PMTiles archive). */
  tiles: number | null;
  bytes: number;
  origin: StoreOrigin;
}

/** The upstream URL as an operator may see it: no key, no query, no user info. */
function withoutSecrets(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '';
  }
}

/** Reads the facts of a store file (read-only). A file that cannot be read says what it can: its size. */
export function storeFacts(file: string): StoreFacts {
  const bytes = fileBytes(file);
  if (!file.endsWith('.mbtiles')) return { tiles: null, bytes, origin: { type: 'imported' } };
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const tiles = new TileTables(db, MAIN_TABLE_KEY).count();
    let upstream: string | undefined;
    try {
      upstream = (db.prepare("SELECT value FROM tilemirror_mirror_state WHERE name = 'upstream'").pluck().get() as string | undefined) ?? undefined;
    } catch {
      /* not written by a mirror run */
    }
    const origin: StoreOrigin = upstream
      ? { type: 'upstream', url: withoutSecrets(upstream) }
      : metadataValue(db, 'tilemirror:sample_version') !== undefined
        ? { type: 'sample' }
        : { type: 'imported' };
    return { tiles, bytes, origin };
  } catch {
    return { tiles: null, bytes, origin: { type: 'imported' } };
  } finally {
    db?.close();
  }
}
