// What a store holds, as bundles see it: its header (the tables it has, its metadata rows, its pyramid rows),
// its tiles per tile table (the main `tiles` table and each pyramid of `tilemirror_tiles`), and its documents.
// The mirror's own bookkeeping (tilemirror_mirror_*) is not content: it is never carried nor compared.
// Rows are read as stored (TMS rows), in key order, so two stores with the same content read the same.

import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { KIND_DIRS } from './catalog';
import { EXTRA_TABLES_SQL, MAIN_PYRAMID_SQL } from './schema';
import { isStoreId, type StoreKind } from './types';

/** Tables that are content, in a fixed order: `metadata` and `tiles` always, the others when the store has them. */
export const CONTENT_TABLES = ['metadata', 'tiles', 'tilemirror_pyramids', 'tilemirror_tiles', 'tilemirror_documents'] as const;
export type ContentTable = (typeof CONTENT_TABLES)[number];

/** The key of the main tile table among the pyramid keys (the others are `tilemirror_tiles.pyramid` values). */
export const MAIN_TABLE_KEY = '';

export interface StoreHeader {
  tables: ContentTable[];
  /** [name, value] by name. */
  metadata: [string, string | null][];
  /** Rows of tilemirror_pyramids as stored, by name. */
  pyramids: Record<string, unknown>[];
}

export interface TileRow {
  z: number;
  x: number;
  /** TMS row, as stored. */
  row: number;
  data: Buffer | null;
}

export interface DocumentRow {
  path: string;
  contentType: string;
  data: Buffer;
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
  const present = new Set(
    db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").pluck().all(),
  );
  for (const t of ['metadata', 'tiles'] as const) if (!present.has(t)) throw new Error(`not an MBTiles store: no ${t} table`);
  const tables = CONTENT_TABLES.filter((t) => present.has(t));
  const metadata = db
    .prepare<[], [string, string | null]>('SELECT name, value FROM metadata ORDER BY name')
    .raw()
    .all();
  const pyramids = present.has('tilemirror_pyramids')
    ? db.prepare<[], Record<string, unknown>>('SELECT * FROM tilemirror_pyramids ORDER BY name').all()
    : [];
  return { tables, metadata, pyramids };
}

const columnsOf = (db: Database.Database, table: string): string =>
  db
    .prepare<[string], string | null>("SELECT group_concat(name || ' ' || type || ' ' || pk, ', ') FROM pragma_table_info(?)")
    .pluck()
    .get(table) ?? '';

let schemaColumns: Map<string, string> | undefined;

/** The columns of each content table as our schema creates them (read from a database made with it). */
function ourColumns(): Map<string, string> {
  if (schemaColumns) return schemaColumns;
  const db = new Database(':memory:');
  try {
    db.exec(MAIN_PYRAMID_SQL + EXTRA_TABLES_SQL);
    schemaColumns = new Map(CONTENT_TABLES.map((t) => [t, columnsOf(db, t)]));
  } finally {
    db.close();
  }
  return schemaColumns;
}

/**
 * Why the store's content tables are not laid out as our schema lays them out (store/schema.ts), or undefined:
 * each present is a table (not a view, as in de-duplicated MBTiles) with our columns, and `tiles` has its unique
 * index on the tile key. A store made by the mirror, an import or the sample always is; an MBTiles file made
 * elsewhere and dropped into the data directory may not be.
 */
export function storeSchemaProblem(db: Database.Database): string | undefined {
  const want = ourColumns();
  const present = db.prepare<[], { name: string; type: string }>("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')").all();
  for (const { name, type } of present) {
    if (!want.has(name)) continue;
    if (type !== 'table') return `${name} is a ${type}, not a table`;
    const got = columnsOf(db, name);
    if (got !== want.get(name)) return `table ${name} has the columns (${got}), not (${want.get(name)})`;
  }
  const keyed = db
    .prepare("SELECT count(*) FROM pragma_index_list('tiles') AS l WHERE l.\"unique\" AND (SELECT group_concat(name) FROM pragma_index_info(l.name)) = 'zoom_level,tile_column,tile_row'")
    .pluck()
    .get() as number;
  return keyed === 0 ? 'table tiles has no unique index on (zoom_level, tile_column, tile_row)' : undefined;
}

/** Keys of the tile tables holding rows: MAIN_TABLE_KEY, then the extra pyramids by name. */
export function tileTableKeys(db: Database.Database, header: StoreHeader): string[] {
  const extra = header.tables.includes('tilemirror_tiles')
    ? db.prepare<[], string>('SELECT DISTINCT pyramid FROM tilemirror_tiles ORDER BY pyramid').pluck().all()
    : [];
  return [MAIN_TABLE_KEY, ...extra];
}

/** The tiles of one tile table in key order (z, x, row). */
export function iterateTiles(db: Database.Database, key: string): IterableIterator<TileRow> {
  const rows =
    key === MAIN_TABLE_KEY
      ? db.prepare('SELECT zoom_level AS z, tile_column AS x, tile_row AS row, tile_data AS data FROM tiles ORDER BY 1, 2, 3').iterate()
      : db
          .prepare('SELECT zoom_level AS z, tile_column AS x, tile_row AS row, tile_data AS data FROM tilemirror_tiles WHERE pyramid = ? ORDER BY 1, 2, 3')
          .iterate(key);
  return rows as IterableIterator<TileRow>;
}

export function iterateDocuments(db: Database.Database, header: StoreHeader): IterableIterator<DocumentRow> {
  if (!header.tables.includes('tilemirror_documents')) return [][Symbol.iterator]();
  return db
    .prepare('SELECT path, content_type AS contentType, data FROM tilemirror_documents ORDER BY path')
    .iterate() as IterableIterator<DocumentRow>;
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
