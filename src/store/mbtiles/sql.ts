// The MBTiles form of a store file in one place: its schema, the TMS row flip, and every SQL statement on its
// tables. The writer, the staging store, a bundle's patch and file copy, content hashing, the MBTiles import, the
// readers (MbtilesStore, DocumentStore) and the sample's builder go through this module and spell no SQL on these
// tables themselves. The mirror's own tables in the same file (`tilemirror_mirror_*`) have theirs in mirror-sql.ts;
// a lock file's owner row (data-dir/lock.ts) stays in that module.
//
// The schema: MBTiles 1.3 (`metadata`, `tiles`) so GDAL, QGIS, tileserver-gl and @mapbox/mbtiles read the main
// pyramid as they read any MBTiles file, plus three tables of our own for what MBTiles has no place for. One file
// per resource keeps publishing one atomic rename.
//  - tilemirror_pyramids: every pyramid the store holds; the first row (ord 0) is the main one, held in `tiles`.
//  - tilemirror_tiles:    tiles of the other pyramids (e.g. a map's 256 px pyramid beside its 512 px main one).
//  - tilemirror_documents: documents that are not tiles (style.json, image.json, upstream TileJSON, ...), by path.
// Rows are TMS-ordered (tile_row counted from the south) in both tile tables, as MBTiles requires: the functions
// here take and return rows as stored; callers addressing tiles in XYZ flip with tmsRow.

import Database from 'better-sqlite3';
import type { ZoomPlan } from '../../geo/tile-bands';
import type { Pyramid } from '../types';

const MAIN_PYRAMID_SQL = `
CREATE TABLE IF NOT EXISTS metadata (name TEXT NOT NULL, value TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS metadata_name ON metadata (name);
CREATE TABLE IF NOT EXISTS tiles (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_data BLOB);
CREATE UNIQUE INDEX IF NOT EXISTS tile_index ON tiles (zoom_level, tile_column, tile_row);
`;

const EXTRA_TABLES_SQL = `
CREATE TABLE IF NOT EXISTS tilemirror_pyramids (
  name TEXT PRIMARY KEY, ord INTEGER NOT NULL, tile_size INTEGER NOT NULL, scale INTEGER NOT NULL,
  format TEXT NOT NULL, minzoom INTEGER NOT NULL, maxzoom INTEGER NOT NULL, bounds TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tilemirror_tiles (
  pyramid TEXT NOT NULL, zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_data BLOB,
  PRIMARY KEY (pyramid, zoom_level, tile_column, tile_row)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tilemirror_documents (path TEXT PRIMARY KEY, content_type TEXT NOT NULL, data BLOB NOT NULL) WITHOUT ROWID;
`;

/** Metadata keys of our own (MBTiles allows extra rows). */
export const META = {
  /** 'tiles' | 'maps' | 'images' */
  kind: 'tilemirror:kind',
  /** JSON {width,height} of an image resource */
  image: 'tilemirror:image',
  /** tile size in px of the main pyramid */
  tileSize: 'tilemirror:tile_size',
} as const;

/** Tables that are content, in a fixed order: `metadata` and `tiles` always, the others when the store has them. */
export const CONTENT_TABLES = ['metadata', 'tiles', 'tilemirror_pyramids', 'tilemirror_tiles', 'tilemirror_documents'] as const;
export type ContentTable = (typeof CONTENT_TABLES)[number];

/** The key of the main tile table among the pyramid keys of bundles (the others are `tilemirror_tiles.pyramid` values). */
export const MAIN_TABLE_KEY = '';

/** MBTiles stores its rows from the south (TMS); XYZ counts from the north. The flip is its own inverse. */
export function tmsRow(z: number, y: number): number {
  return 2 ** z - 1 - y;
}

/** Creates the tables a store has (those missing). */
export function createTables(db: Database.Database): void {
  db.exec(MAIN_PYRAMID_SQL + EXTRA_TABLES_SQL);
}

/** Names of the file's tables and views. */
export function tableNames(db: Database.Database): Set<string> {
  return new Set(db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").pluck().all());
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
    createTables(db);
    schemaColumns = new Map(CONTENT_TABLES.map((t) => [t, columnsOf(db, t)]));
  } finally {
    db.close();
  }
  return schemaColumns;
}

/**
 * Why the store's content tables are not laid out as our schema lays them out, or undefined: each present is a
 * table (not a view, as in de-duplicated MBTiles) with our columns, and `tiles` has its unique index on the tile
 * key. A store made by the mirror, an import or the sample always is; an MBTiles file made elsewhere and dropped
 * into the data directory may not be.
 */
export function schemaProblem(db: Database.Database): string | undefined {
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

/**
 * Drops every table, view and trigger that is not a content table (a mirror's progress tables, whatever a
 * hand-made file carries). secure_delete: the dropped rows' bytes are zeroed,
 * not left in free pages. IF EXISTS: a trigger of a dropped table went with it.
 */
export function dropAllButContent(db: Database.Database): void {
  const content = new Set<string>(CONTENT_TABLES);
  const objects = db
    .prepare<[], { type: string; name: string }>("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
    .all();
  const drops = objects.filter((o) => (o.type === 'table' || o.type === 'view' || o.type === 'trigger') && !(o.type === 'table' && content.has(o.name)));
  if (drops.length > 0) db.pragma('secure_delete = ON');
  const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;
  for (const o of drops) db.exec(`DROP ${o.type.toUpperCase()} IF EXISTS ${quote(o.name)}`);
}

/** Drops content tables (those the store a bundle was exported from does not have). */
export function dropTables(db: Database.Database, tables: readonly ContentTable[]): void {
  for (const t of tables) db.exec(`DROP TABLE IF EXISTS ${t}`);
}

/** Deletes every row of the named content tables the file has. */
export function clearTables(db: Database.Database, tables: readonly ContentTable[]): void {
  const present = tableNames(db);
  for (const t of tables) if (present.has(t)) db.exec(`DELETE FROM ${t}`);
}

// ---- metadata ----

/** The metadata rows by name (a NULL value reads as ''). */
export function readMetadata(db: Database.Database): Map<string, string> {
  return new Map(
    db
      .prepare<[], [string, string | null]>('SELECT name, value FROM metadata')
      .raw()
      .all()
      .map(([name, value]) => [name, value ?? ''] as const),
  );
}

/** The metadata rows as stored, [name, value] ordered by name. */
export function metadataRows(db: Database.Database): [string, string | null][] {
  return db.prepare<[], [string, string | null]>('SELECT name, value FROM metadata ORDER BY name').raw().all();
}

/** One metadata value; undefined when the row is absent or NULL. */
export function metadataValue(db: Database.Database, name: string): string | undefined {
  return db.prepare<[string], string | null>('SELECT value FROM metadata WHERE name = ?').pluck().get(name) ?? undefined;
}

/** Sets metadata rows: replacing rows of the same name, or (`replace` false) refusing a name already there. */
export function writeMetadata(db: Database.Database, rows: Iterable<readonly [string, string | null]>, replace = true): void {
  const put = db.prepare(`INSERT${replace ? ' OR REPLACE' : ''} INTO metadata (name, value) VALUES (?, ?)`);
  for (const [name, value] of rows) put.run(name, value);
}

// ---- pyramids ----

/** A row of tilemirror_pyramids. */
export interface PyramidRow {
  name: string;
  tile_size: number;
  scale: number;
  format: string;
  minzoom: number;
  maxzoom: number;
  /** JSON [w, s, e, n] */
  bounds: string;
}

/** The pyramid rows in their order (the main one first). */
export function pyramidRows(db: Database.Database): PyramidRow[] {
  return db.prepare<[], PyramidRow>('SELECT * FROM tilemirror_pyramids ORDER BY ord').all();
}

/** The pyramid rows as stored, every column, ordered by name (how bundles compare headers). */
export function storedPyramidRows(db: Database.Database): Record<string, unknown>[] {
  return db.prepare<[], Record<string, unknown>>('SELECT * FROM tilemirror_pyramids ORDER BY name').all();
}

/** Writes the pyramids in their order (the first is the main one). */
export function writePyramids(db: Database.Database, pyramids: readonly Pyramid[]): void {
  const put = db.prepare(
    'INSERT OR REPLACE INTO tilemirror_pyramids (name, ord, tile_size, scale, format, minzoom, maxzoom, bounds) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  pyramids.forEach((p, i) => put.run(p.name, i, p.tileSize, p.scale, p.format, p.minzoom, p.maxzoom, JSON.stringify(p.bounds)));
}

/** Inserts pyramid rows as another store stored them (whatever their columns). */
export function insertStoredPyramidRows(db: Database.Database, rows: readonly Record<string, unknown>[]): void {
  for (const row of rows) {
    const cols = Object.keys(row);
    db.prepare(`INSERT INTO tilemirror_pyramids (${cols.map((c) => `"${c.replace(/"/g, '""')}"`).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(
      ...cols.map((c) => row[c]),
    );
  }
}

// ---- tiles ----

/** A tile row as stored: TMS row, and the data as it is (NULL included). */
export interface TileRow {
  z: number;
  x: number;
  /** TMS row, as stored. */
  row: number;
  data: Buffer | null;
}

/** The lowest and highest zoom with rows in the main table `tiles` (null when it is empty). */
export function mainZoomRange(db: Database.Database): { lo: number | null; hi: number | null } {
  return db.prepare<[], { lo: number | null; hi: number | null }>('SELECT MIN(zoom_level) AS lo, MAX(zoom_level) AS hi FROM tiles').get() ?? { lo: null, hi: null };
}

/** z, column, TMS row of a stored tile. */
export type TileKey = [z: number, x: number, row: number];

type Stmt = Database.Statement<unknown[], unknown>;

/**
 * SQL condition selecting the rows of one zoom's plan. `tms`: the table counts rows from the south (the tile
 * tables), else from the north (the mirror's own tables); `rowCol`/`colCol` name its row and column columns.
 */
export function bandCondition(p: ZoomPlan, tms: boolean, rowCol: string, colCol: string): string {
  const parts = p.bands.map((b) => {
    const [r0, r1] = tms ? [tmsRow(p.z, b.y1), tmsRow(p.z, b.y0)] : [b.y0, b.y1];
    const cols = b.xs.map(([lo, hi]) => `${colCol} BETWEEN ${lo} AND ${hi}`).join(' OR ');
    return `(${rowCol} BETWEEN ${r0} AND ${r1} AND (${cols}))`;
  });
  return parts.length ? parts.join(' OR ') : '0';
}

const quoteText = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/**
 * The two tile tables of one connection: the main pyramid's rows in `tiles`, the other pyramids' in
 * `tilemirror_tiles`, each addressed by its pyramid key (`main` names the one in `tiles`: the main pyramid's name,
 * or MAIN_TABLE_KEY for bundles). A file without `tilemirror_tiles` (a plain MBTiles file) holds no tiles of other
 * pyramids. The reads of a tile are prepared at once (a file whose tables cannot answer them fails here, when it is
 * opened, not at its first tile); the other statements on first use, then kept.
 */
export class TileTables {
  private readonly extra: boolean;
  private readonly stmts = new Map<string, Stmt>();
  private readonly getMain: Database.Statement<[number, number, number], Buffer | null>;
  private readonly getExtra?: Database.Statement<[string, number, number, number], Buffer | null>;
  private putMain?: Stmt;
  private putExtra?: Stmt;

  constructor(private readonly db: Database.Database, readonly main: string) {
    this.extra = tableNames(db).has('tilemirror_tiles');
    this.getMain = db.prepare<[number, number, number], Buffer | null>('SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?').pluck();
    if (this.extra) {
      this.getExtra = db
        .prepare<[string, number, number, number], Buffer | null>('SELECT tile_data FROM tilemirror_tiles WHERE pyramid = ? AND zoom_level = ? AND tile_column = ? AND tile_row = ?')
        .pluck();
    }
  }

  private stmt(sql: string): Stmt {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** The stored bytes of a tile; undefined when there is no row (or its data is NULL). */
  get(key: string, z: number, x: number, row: number): Buffer | undefined {
    if (key === this.main) return this.getMain.get(z, x, row) ?? undefined;
    return this.getExtra?.get(key, z, x, row) ?? undefined;
  }

  /** Whether the tile has a row. */
  has(key: string, z: number, x: number, row: number): boolean {
    if (key === this.main) return !!this.stmt('SELECT 1 FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?').pluck().get(z, x, row);
    if (!this.extra) return false;
    return !!this.stmt('SELECT 1 FROM tilemirror_tiles WHERE pyramid = ? AND zoom_level = ? AND tile_column = ? AND tile_row = ?').pluck().get(key, z, x, row);
  }

  /** Stores a tile (replacing the row of the same address). */
  put(key: string, z: number, x: number, row: number, data: Buffer | null): void {
    if (key === this.main) {
      this.putMain ??= this.db.prepare('INSERT OR REPLACE INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)');
      this.putMain.run(z, x, row, data);
    } else {
      this.putExtra ??= this.db.prepare('INSERT OR REPLACE INTO tilemirror_tiles (pyramid, zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?, ?)');
      this.putExtra.run(key, z, x, row, data);
    }
  }

  delete(key: string, z: number, x: number, row: number): void {
    if (key === this.main) this.stmt('DELETE FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?').run(z, x, row);
    else if (this.extra) this.stmt('DELETE FROM tilemirror_tiles WHERE pyramid = ? AND zoom_level = ? AND tile_column = ? AND tile_row = ?').run(key, z, x, row);
  }

  /** Rows in both tile tables. */
  count(): number {
    const main = this.stmt('SELECT count(*) FROM tiles').pluck().get() as number;
    return main + (this.extra ? (this.stmt('SELECT count(*) FROM tilemirror_tiles').pluck().get() as number) : 0);
  }

  /** Rows in the main table. */
  countMain(): number {
    return this.stmt('SELECT count(*) FROM tiles').pluck().get() as number;
  }

  /** Rows of one pyramid in a rectangle of zoom z: TMS rows and columns, inclusive. */
  countIn(key: string, z: number, rows: [number, number], cols: [number, number]): number {
    if (key === this.main) {
      return this.stmt('SELECT count(*) FROM tiles WHERE zoom_level = ? AND tile_row BETWEEN ? AND ? AND tile_column BETWEEN ? AND ?')
        .pluck()
        .get(z, rows[0], rows[1], cols[0], cols[1]) as number;
    }
    if (!this.extra) return 0;
    return this.stmt('SELECT count(*) FROM tilemirror_tiles WHERE pyramid = ? AND zoom_level = ? AND tile_row BETWEEN ? AND ? AND tile_column BETWEEN ? AND ?')
      .pluck()
      .get(key, z, rows[0], rows[1], cols[0], cols[1]) as number;
  }

  /** [column, TMS row] of every row of one pyramid at zoom z, streamed (the connection cannot be closed until the iteration ends). */
  columnsRows(key: string, z: number): Iterable<[number, number]> {
    if (key === this.main) return this.db.prepare('SELECT tile_column, tile_row FROM tiles WHERE zoom_level = ?').raw().iterate(z) as Iterable<[number, number]>;
    if (!this.extra) return [];
    return this.db.prepare('SELECT tile_column, tile_row FROM tilemirror_tiles WHERE pyramid = ? AND zoom_level = ?').raw().iterate(key, z) as Iterable<[number, number]>;
  }

  /** The keys of the other pyramids holding rows, by name. */
  extraKeys(): string[] {
    if (!this.extra) return [];
    return this.db.prepare<[], string>('SELECT DISTINCT pyramid FROM tilemirror_tiles ORDER BY pyramid').pluck().all();
  }

  /** Every row of one pyramid in key order (z, x, TMS row), streamed (the connection cannot be closed until the iteration ends). */
  rows(key: string): IterableIterator<TileRow> {
    const select = 'SELECT zoom_level AS z, tile_column AS x, tile_row AS row, tile_data AS data';
    if (key === this.main) return this.db.prepare(`${select} FROM tiles ORDER BY 1, 2, 3`).iterate() as IterableIterator<TileRow>;
    if (!this.extra) return [][Symbol.iterator]();
    return this.db.prepare(`${select} FROM tilemirror_tiles WHERE pyramid = ? ORDER BY 1, 2, 3`).iterate(key) as IterableIterator<TileRow>;
  }

  /**
   * Up to `limit` tiles of one pyramid with bytes (rows with NULL or empty data are absent tiles), in key order,
   * after `after` and up to zoom `maxzoom`: one page of a scan that keeps no statement open between pages.
   */
  page(key: string, after: TileKey, maxzoom: number, limit: number): [number, number, number, Buffer][] {
    const select = 'SELECT zoom_level, tile_column, tile_row, tile_data';
    const where = '(zoom_level, tile_column, tile_row) > (?, ?, ?) AND zoom_level <= ? AND length(tile_data) > 0 ORDER BY zoom_level, tile_column, tile_row LIMIT ?';
    if (key === this.main) return this.stmt(`${select} FROM tiles WHERE ${where}`).raw().all(...after, maxzoom, limit) as [number, number, number, Buffer][];
    if (!this.extra) return [];
    return this.stmt(`${select} FROM tilemirror_tiles WHERE pyramid = ? AND ${where}`).raw().all(key, ...after, maxzoom, limit) as [number, number, number, Buffer][];
  }

  /** The address of every tile of one pyramid with bytes, read without the bytes. */
  addresses(key: string): TileKey[] {
    if (key === this.main) return this.db.prepare<[], TileKey>('SELECT zoom_level, tile_column, tile_row FROM tiles WHERE length(tile_data) > 0').raw().all();
    if (!this.extra) return [];
    return this.db
      .prepare<[string], TileKey>('SELECT zoom_level, tile_column, tile_row FROM tilemirror_tiles WHERE pyramid = ? AND length(tile_data) > 0')
      .raw()
      .all(key);
  }

  /** Deletes the rows of every pyramid not named in `keep`. */
  deleteOtherPyramids(keep: readonly string[]): void {
    if (this.extra) this.db.exec(`DELETE FROM tilemirror_tiles WHERE pyramid NOT IN (${keep.map(quoteText).join(',')})`);
    if (!keep.includes(this.main)) this.db.exec('DELETE FROM tiles');
  }

  /** Deletes the rows of one pyramid at zooms not in `zooms`. */
  deleteOtherZooms(key: string, zooms: readonly number[]): void {
    this.db.exec(`DELETE FROM ${this.tableOf(key)} WHERE ${this.pyramidIs(key)}zoom_level NOT IN (${zooms.join(',')})`);
  }

  /** Deletes the rows of one pyramid at the plan's zoom that lie outside the plan's bands. */
  deleteOutside(key: string, zp: ZoomPlan): void {
    this.db.exec(`DELETE FROM ${this.tableOf(key)} WHERE ${this.pyramidIs(key)}zoom_level = ${zp.z} AND NOT (${bandCondition(zp, true, 'tile_row', 'tile_column')})`);
  }

  private tableOf(key: string): string {
    return key === this.main ? 'tiles' : 'tilemirror_tiles';
  }

  private pyramidIs(key: string): string {
    return key === this.main ? '' : `pyramid = ${quoteText(key)} AND `;
  }
}

// ---- documents ----

/** A document row as stored. */
export interface DocumentRow {
  path: string;
  contentType: string;
  data: Buffer;
}

/**
 * The documents table of one connection (`tilemirror_documents`), by path; a file without the table holds no
 * documents. The read of a document is prepared at once, the other statements on first use.
 */
export class DocumentTable {
  readonly present: boolean;
  private readonly getStmt?: Database.Statement<[string], { content_type: string; data: Buffer }>;
  private putStmt?: Stmt;

  constructor(private readonly db: Database.Database) {
    this.present = tableNames(db).has('tilemirror_documents');
    if (this.present) this.getStmt = db.prepare('SELECT content_type, data FROM tilemirror_documents WHERE path = ?');
  }

  get(path: string): { contentType: string; data: Buffer } | undefined {
    const row = this.getStmt?.get(path);
    return row ? { contentType: row.content_type, data: row.data } : undefined;
  }

  put(path: string, contentType: string, data: Buffer): void {
    this.putStmt ??= this.db.prepare('INSERT OR REPLACE INTO tilemirror_documents (path, content_type, data) VALUES (?, ?, ?)');
    this.putStmt.run(path, contentType, data);
  }

  delete(path: string): void {
    if (this.present) this.db.prepare('DELETE FROM tilemirror_documents WHERE path = ?').run(path);
  }

  /** Every path, sorted. */
  paths(): string[] {
    if (!this.present) return [];
    return this.db.prepare<[], string>('SELECT path FROM tilemirror_documents ORDER BY path').pluck().all();
  }

  count(): number {
    return this.present ? (this.db.prepare('SELECT count(*) FROM tilemirror_documents').pluck().get() as number) : 0;
  }

  /** Every document by path, streamed (the connection cannot be closed until the iteration ends). */
  rows(): IterableIterator<DocumentRow> {
    if (!this.present) return [][Symbol.iterator]();
    return this.db.prepare('SELECT path, content_type AS contentType, data FROM tilemirror_documents ORDER BY path').iterate() as IterableIterator<DocumentRow>;
  }
}

// ---- MBTiles files made elsewhere ----

/**
 * The tiles of an MBTiles file made elsewhere, whichever schema holds them: the plain `tiles` table, or mbutil's
 * de-duplicated `map` and `images` tables. Undefined when the file has neither.
 */
export function foreignTilesQuery(tables: Set<string>): string | undefined {
  if (tables.has('tiles')) return 'SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles';
  if (tables.has('map') && tables.has('images')) {
    return 'SELECT map.zoom_level, map.tile_column, map.tile_row, images.tile_data FROM map JOIN images ON images.tile_id = map.tile_id';
  }
  return undefined;
}

/** How many tiles with bytes a foreign file's tile query holds, and their zoom range. */
export function foreignTileStats(db: Database.Database, query: string): { n: number; lo: number | null; hi: number | null } | undefined {
  return db
    .prepare<[], { n: number; lo: number | null; hi: number | null }>(`SELECT COUNT(*) AS n, MIN(zoom_level) AS lo, MAX(zoom_level) AS hi FROM (${query}) WHERE length(tile_data) > 0`)
    .get();
}

/** The bytes of the first tile with bytes of a foreign file's tile query. */
export function foreignFirstTile(db: Database.Database, query: string): Buffer | undefined {
  return db.prepare<[], Buffer>(`SELECT tile_data FROM (${query}) WHERE length(tile_data) > 0 LIMIT 1`).pluck().get();
}

/** [z, column, TMS row, data] of every tile with bytes of a foreign file's tile query, streamed. */
export function foreignTiles(db: Database.Database, query: string): IterableIterator<[number, number, number, Buffer]> {
  return db.prepare<[], [number, number, number, Buffer]>(`${query} WHERE length(tile_data) > 0`).raw().iterate();
}
