// What an operator is told of a store file beyond what it serves: its tile rows, its bytes on disk, and where it
// came from (the upstream a mirror run recorded, an imported MBTiles file, the bundled sample).

import Database from 'better-sqlite3';
import { signatureOf } from './catalog/catalog';
import { fileBytes } from './data-dir/disk-space';
import { digestTag } from './bytes/etag';
import { MAIN_TABLE_KEY, metadataValue, TileTables } from './mbtiles/sql';

export type StoreOrigin = { type: 'upstream'; url: string } | { type: 'imported' } | { type: 'sample' };

export interface StoreFacts {
  /** Tile rows (every pyramid); null when the file cannot say cheaply (a PMTiles archive). */
  tiles: number | null;
  bytes: number;
  origin: StoreOrigin;
}

/** The version the server gives a store file (its content version for ETags), or undefined when it is gone. */
export function servedVersionOf(file: string): string | undefined {
  const s = signatureOf(file);
  return 'signature' in s ? digestTag(s.signature) : undefined;
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

/**
 * Facts read before, by file, with the signature (inode, size, modification time) the file had then: counting a
 * country's rows reads its whole tiles index (seconds for 5 GB), and the admin API lists every store on each call.
 * One entry per store file the catalog has served.
 */
const remembered = new Map<string, { signature: string; facts: StoreFacts }>();

/**
 * The facts of a store file (read-only), read again only when the file has changed since. A file that cannot be
 * read says what it can, its size, and is read again on the next call.
 */
export function storeFacts(file: string): StoreFacts {
  const s = signatureOf(file);
  const signature = 'signature' in s ? s.signature : undefined;
  const known = remembered.get(file);
  if (signature !== undefined && known?.signature === signature) return known.facts;
  const facts = readFacts(file);
  if (signature !== undefined && facts.tiles !== null) remembered.set(file, { signature, facts });
  else remembered.delete(file);
  return facts;
}

function readFacts(file: string): StoreFacts {
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
