// What a store holds, as bundles see it: its header (the tables it has, its metadata rows, its pyramid rows),
// its tiles per tile table (the main `tiles` table and each pyramid of `tilemirror_tiles`), and its documents.
// The mirror's own bookkeeping (tilemirror_mirror_*) is not content: it is never carried nor compared.
// Rows are read as stored (TMS rows), in key order, so two stores with the same content read the same.

import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { KIND_DIRS } from '../catalog/catalog';
import {
  CONTENT_TABLES,
  DocumentTable,
  MAIN_TABLE_KEY,
  metadataRows,
  storedPyramidRows,
  tableNames,
  TileTables,
  type ContentTable,
  type DocumentRow,
  type TileRow,
} from '../mbtiles/sql';
import { isStoreId, type StoreKind } from '../types';

export interface StoreHeader {
  tables: ContentTable[];
  /** [name, value] by name. */
  metadata: [string, string | null][];
  /** Rows of tilemirror_pyramids as stored, by name. */
  pyramids: Record<string, unknown>[];
}

export interface StoreRef {
  kind: StoreKind;
  id: string;
  file: string;
}

/** `kind/id`, how stores are named on the command line, in manifests and in versions files. */
export const storeName = (s: { kind: string; id: string }): string => `${s.kind}/${s.id}`;

/** Every published store of the data directory, by kind then id. */
export function listStores(dataDir: string): StoreRef[] {
  const out: StoreRef[] = [];
  for (const kind of KIND_DIRS) {
    let names: string[];
    try {
      names = readdirSync(join(dataDir, kind)).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const id = name.endsWith('.mbtiles') ? name.slice(0, -'.mbtiles'.length) : '';
      if (isStoreId(id)) out.push({ kind, id, file: join(dataDir, kind, name) });
    }
  }
  return out;
}

export function openReadOnly(file: string): Database.Database {
  return new Database(file, { readonly: true, fileMustExist: true });
}

export function readHeader(db: Database.Database): StoreHeader {
  const present = tableNames(db);
  for (const t of ['metadata', 'tiles'] as const) if (!present.has(t)) throw new Error(`not an MBTiles store: no ${t} table`);
  const tables = CONTENT_TABLES.filter((t) => present.has(t));
  const pyramids = present.has('tilemirror_pyramids') ? storedPyramidRows(db) : [];
  return { tables, metadata: metadataRows(db), pyramids };
}

/** Keys of the tile tables holding rows: MAIN_TABLE_KEY, then the extra pyramids by name. */
export function tileTableKeys(db: Database.Database, header: StoreHeader): string[] {
  const extra = header.tables.includes('tilemirror_tiles') ? new TileTables(db, MAIN_TABLE_KEY).extraKeys() : [];
  return [MAIN_TABLE_KEY, ...extra];
}

/** The tiles of one tile table in key order (z, x, row). */
export function iterateTiles(db: Database.Database, key: string): IterableIterator<TileRow> {
  return new TileTables(db, MAIN_TABLE_KEY).rows(key);
}

export function iterateDocuments(db: Database.Database, header: StoreHeader): IterableIterator<DocumentRow> {
  if (!header.tables.includes('tilemirror_documents')) return [][Symbol.iterator]();
  return new DocumentTable(db).rows();
}

/** SHA-256 of a tile's bytes; a NULL tile hashes as 32 zero bytes (no SHA-256 output is that, in practice). */
export function tileHash(data: Buffer | null): Buffer {
  return data === null ? Buffer.alloc(32) : createHash('sha256').update(data).digest();
}

export function documentHash(contentType: string, data: Buffer): Buffer {
  return createHash('sha256').update(contentType).update('\0').update(data).digest();
}

/** SHA-256 of the header in a canonical form (tables, metadata and pyramid rows, each sorted). */
export function headerHash(header: StoreHeader): Buffer {
  const pyramids = header.pyramids.map((p) => Object.fromEntries(Object.entries(p).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
  return createHash('sha256').update(JSON.stringify({ tables: header.tables, metadata: header.metadata, pyramids })).digest();
}

/** Orders tile keys as SQLite does: z, then x, then row. */
export function compareTileKeys(a: { z: number; x: number; row: number }, b: { z: number; x: number; row: number }): number {
  return a.z - b.z || a.x - b.x || a.row - b.row;
}
