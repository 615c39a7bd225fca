// The label index's form in one place: its tables, how its columns encode a position's cell and a label's
// categories, and every SQL statement on them. The builder (labels-build.ts) and the reader (labels-index.ts) go
// through this module and spell no SQL on these tables themselves, as store/mbtiles-sql.ts is for stores.
//
// The tables:
//  - meta:   key, value: the format, the tile set's id, content version and attribution, the zoom read, counts.
//  - labels: one row a label in its final form, with the cell of its position (POSITION_CELL_DEG grid, row-major):
//            positions are found by a B-tree on (cell, lon, lat), one range of cells a row of the grid. Labels are
//            numbered in that order, so the labels of a range of cells are a range of ids: a full-text match near
//            a point is a match within the ids of the grid rows around it (FTS5 seeks a rowid range).
//  - label_category: (category, cell, id) of each label with categories, its cell one of the coarser grid of
//            CATEGORY_CELL_DEG: a category near a point, a row of that grid at a time.
//  - fts:    FTS5 over the label's normalised main name and its other names (contentless: rowid = labels.id), with
//            prefix indexes of 1 to 4 letters (a one-letter prefix reads one doclist).
//  - terms:  the vocabulary of fts, keyed for typo candidates by first letter and last two, with lengths.
// The build's own scratch tables (temp: road pieces, their segments by street-lookup cell, house numbers waiting
// for a street) live only while it runs and are dropped before the file is renamed into place.

import type Database from 'better-sqlite3';
import type { LabelType } from './labels';

/** Bump when the index's schema or rules change: indexes of another format are rebuilt. */
export const LABEL_INDEX_FORMAT = '4';

/**
 * Side of the grid cells of the position index (degrees): labels are found near a point by a B-tree on
 * (cell, lon, lat), one range of cells per row of the grid. ~220 m of latitude: the first box of a reverse lookup
 * (50 m) touches one to four cells; the largest (1 km), ~10 rows.
 */
export const POSITION_CELL_DEG = 0.002;
const POSITION_COLUMNS = 180_000;
/** The position index's column of a longitude and row of a latitude (clamped to the grid). */
export const positionColumn = (lon: number) => Math.max(0, Math.min(POSITION_COLUMNS - 1, Math.floor((lon + 180) / POSITION_CELL_DEG)));
export const positionRow = (lat: number) => Math.max(0, Math.min(90_000 - 1, Math.floor((lat + 90) / POSITION_CELL_DEG)));
/** The position index's cell (row-major). */
export const positionCell = (column: number, row: number) => row * POSITION_COLUMNS + column;

/** A row-major grid of cells over the world: the column of a longitude, the row of a latitude, the cell of both. */
export interface CellGrid {
  column(lon: number): number;
  row(lat: number): number;
  cell(column: number, row: number): number;
}

export const POSITION_GRID: CellGrid = { column: positionColumn, row: positionRow, cell: positionCell };

/**
 * The cells label_category is keyed by: ten position cells a side (~2.2 km). Categories are sparse (a class of POI
 * every few km² at most), so their nearest are kilometres away: a few rows of these cells, not a hundred of the
 * position grid's.
 */
const CATEGORY_CELL_DEG = POSITION_CELL_DEG * 10;
const CATEGORY_COLUMNS = POSITION_COLUMNS / 10;
export const CATEGORY_GRID: CellGrid = {
  column: (lon) => Math.max(0, Math.min(CATEGORY_COLUMNS - 1, Math.floor((lon + 180) / CATEGORY_CELL_DEG))),
  row: (lat) => Math.max(0, Math.min(180 / CATEGORY_CELL_DEG - 1, Math.floor((lat + 90) / CATEGORY_CELL_DEG))),
  cell: (column, row) => row * CATEGORY_COLUMNS + column,
};

/** `|a|b|` so a category is matched with LIKE '%|a|%'. */
export function categoryColumn(categories: string[]): string {
  return categories.length ? `|${categories.join('|')}|` : '';
}

/** The categories of a category column, lower case (as label_category keeps them). */
export function categoryList(column: string): string[] {
  return column ? column.split('|').filter(Boolean).map((c) => c.toLowerCase()) : [];
}

// ---- the builder's side ----

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE labels (id INTEGER PRIMARY KEY, type TEXT NOT NULL, place_type TEXT NOT NULL, name TEXT NOT NULL,
  names TEXT NOT NULL, categories TEXT NOT NULL, housenumber TEXT, street TEXT, lon REAL NOT NULL, lat REAL NOT NULL,
  cell INTEGER NOT NULL);
CREATE VIRTUAL TABLE fts USING fts5(name, alt, content='', tokenize='unicode61 remove_diacritics 0', prefix='1 2 3 4');
CREATE TABLE label_category (category TEXT NOT NULL, cell INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (category, cell, id)) WITHOUT ROWID;
CREATE TEMP TABLE staged (cell INTEGER NOT NULL, lon REAL NOT NULL, lat REAL NOT NULL, type TEXT NOT NULL, place_type TEXT NOT NULL,
  name TEXT NOT NULL, names TEXT NOT NULL, categories TEXT NOT NULL, housenumber TEXT, street TEXT, main TEXT NOT NULL, alt TEXT NOT NULL);
CREATE TABLE terms (term TEXT PRIMARY KEY, len INTEGER NOT NULL, first TEXT NOT NULL, last2 TEXT NOT NULL) WITHOUT ROWID;
CREATE TEMP TABLE piece (id INTEGER PRIMARY KEY, name TEXT NOT NULL, names TEXT NOT NULL, categories TEXT NOT NULL,
  minx REAL, miny REAL, maxx REAL, maxy REAL, coords TEXT NOT NULL);
CREATE INDEX temp.piece_name ON piece (name);
CREATE TABLE temp.seg (cell INTEGER NOT NULL, name TEXT NOT NULL, coords BLOB NOT NULL);
CREATE TEMP TABLE house (id INTEGER PRIMARY KEY, place_type TEXT NOT NULL, names TEXT NOT NULL, categories TEXT NOT NULL,
  housenumber TEXT NOT NULL, street TEXT, lon REAL NOT NULL, lat REAL NOT NULL);
`;

/** Creates the index's tables and the build's scratch tables in a new file. */
export function createLabelTables(db: Database.Database): void {
  db.exec(SCHEMA);
  // FTS5 merges its segments once, at the end ('optimize'), rather than while labels are written too, and keeps up
  // to 32 MB of terms in memory before it writes a segment (1 MB by default): fewer, larger segments. It still
  // merges a level of 16 segments when it has to ('crisismerge'), so short transactions leave no pile.
  db.exec("INSERT INTO fts (fts, rank) VALUES ('automerge', 0); INSERT INTO fts (fts, rank) VALUES ('hashsize', 33554432)");
}

/** A road piece as the build keeps it until its street is merged: names and categories as stored, its extent, its line (JSON). */
export interface PieceRow {
  names: string;
  categories: string;
  minx: number;
  miny: number;
  maxx: number;
  maxy: number;
  coords: string;
}

/** A waiting house number, as an array (no object a row): id, place_type, names, categories, housenumber, street, lon, lat. */
export type HouseRow = [number, string, string, string, string, string | null, number, number];

/** The build's statements, prepared once on its file. */
export function labelBuildStatements(db: Database.Database) {
  return {
    /** A label as the steps find it, before it is numbered: cell, lon, lat, type, place_type, name, names, categories, housenumber, street, main and other names as indexed */
    stageLabel: db.prepare<[number, number, number, string, string, string, string, string, string | null, string | null, string, string]>(
      'INSERT INTO staged (cell, lon, lat, type, place_type, name, names, categories, housenumber, street, main, alt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    /** category, cell, id */
    insertCategory: db.prepare<[string, number, number]>('INSERT INTO label_category (category, cell, id) VALUES (?, ?, ?)'),
    /** id, type, place_type, name, names, categories, housenumber, street, lon, lat, cell */
    insertLabel: db.prepare<[number, string, string, string, string, string, string | null, string | null, number, number, number]>(
      'INSERT INTO labels (id, type, place_type, name, names, categories, housenumber, street, lon, lat, cell) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    /** rowid (the label's id), main name, other names */
    insertFts: db.prepare<[number, string, string]>('INSERT INTO fts (rowid, name, alt) VALUES (?, ?, ?)'),
    insertHouse: db.prepare<[string, string, string, string, string | null, number, number]>(
      'INSERT INTO house (place_type, names, categories, housenumber, street, lon, lat) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    insertPiece: db.prepare<[string, string, string, number, number, number, number, string]>(
      'INSERT INTO piece (name, names, categories, minx, miny, maxx, maxy, coords) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    /** The segments of one piece within one street-lookup cell: cell, street name, x1, y1, x2, y2 of each as float64s. */
    insertSeg: db.prepare<[number, string, Buffer]>('INSERT INTO seg (cell, name, coords) VALUES (?, ?, ?)'),
  };
}

/** The statements of the steps after the tiles are read: streets from their pieces, house numbers from their streets. */
export function labelMergeStatements(db: Database.Database) {
  // Once every segment is written: one sort, then point lookups by cell.
  db.exec('CREATE INDEX temp.seg_cell ON seg (cell)');
  return {
    /** Street names after a name, in order, a page at a time. */
    streetNamesAfter: db.prepare<[string, number], { name: string }>('SELECT DISTINCT name FROM piece WHERE name > ? ORDER BY name LIMIT ?'),
    piecesOf: db.prepare<[string], PieceRow>('SELECT names, categories, minx, miny, maxx, maxy, coords FROM piece WHERE name = ? ORDER BY minx, id'),
    housesAfter: db
      .prepare<[number, number], HouseRow>('SELECT id, place_type, names, categories, housenumber, street, lon, lat FROM house WHERE id > ? ORDER BY id LIMIT ?')
      .raw(),
    /** A cell's segments: street name and coordinates blob. */
    segmentsInCell: db.prepare<[number], [string, Buffer]>('SELECT name, coords FROM seg WHERE cell = ?').raw(),
  };
}

/** A staged label, as an array: cell, lon, lat, type, place_type, name, names, categories, housenumber, street, main, alt, rowid. */
export type StagedRow = [number, number, number, string, string, string, string, string, string | null, string | null, string, string, number];

/** The staged labels in position order (cell, lon, lat), a page at a time after the last one read. */
export function stagedInPositionOrder(db: Database.Database) {
  db.exec('CREATE INDEX temp.staged_position ON staged (cell, lon, lat)');
  return db
    .prepare<[number, number, number, number, number], StagedRow>(
      `SELECT cell, lon, lat, type, place_type, name, names, categories, housenumber, street, main, alt, rowid FROM staged INDEXED BY staged_position
       WHERE (cell, lon, lat, rowid) > (?, ?, ?, ?) ORDER BY cell, lon, lat, rowid LIMIT ?`,
    )
    .raw();
}

/** The vocabulary and the indexes on type and position, once every label is written. */
export function indexLabels(db: Database.Database): void {
  db.exec(`
    CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'fts', 'row');
    INSERT INTO terms (term, len, first, last2) SELECT term, length(term), substr(term, 1, 1), substr(term, -2) FROM temp.vocab;
    CREATE INDEX terms_first ON terms (first, len);
    CREATE INDEX terms_last2 ON terms (last2, len);
    CREATE INDEX labels_type ON labels (type);
    CREATE INDEX labels_position ON labels (cell, lon, lat);
  `);
}

/** Labels by type, in type order. */
export function labelCounts(db: Database.Database): Record<string, number> {
  return Object.fromEntries(
    db
      .prepare<[], { type: string; n: number }>('SELECT type, COUNT(*) AS n FROM labels GROUP BY type ORDER BY type')
      .all()
      .map((r) => [r.type, r.n]),
  );
}

/** Writes the meta table, drops the build's scratch tables and merges FTS5's segments: the file is complete. */
export function finishLabelIndex(db: Database.Database, meta: Record<string, string>): void {
  const putMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
  db.transaction(() => Object.entries(meta).forEach(([k, v]) => putMeta.run(k, v)))();
  db.exec('DROP TABLE temp.piece; DROP TABLE temp.seg; DROP TABLE temp.house; DROP TABLE temp.staged;');
  db.exec("INSERT INTO fts (fts) VALUES ('optimize'); INSERT INTO fts (fts, rank) VALUES ('automerge', 4)");
}

// ---- the reader's side ----

/** A label as stored. */
export interface LabelRow {
  id: number;
  type: LabelType;
  place_type: string;
  name: string;
  names: string;
  categories: string;
  housenumber: string | null;
  street: string | null;
  lon: number;
  lat: number;
}

/** The meta table as a map. */
export function readLabelMeta(db: Database.Database): Map<string, string> {
  return new Map(
    db
      .prepare<[], { key: string; value: string }>('SELECT key, value FROM meta')
      .all()
      .map((r) => [r.key, r.value]),
  );
}

/** The reader's fixed statements; `maxCompared` bounds the vocabulary words read per typo lookup and end. */
export function labelReadStatements(db: Database.Database, maxCompared: number) {
  return {
    byId: db.prepare<[number], LabelRow>('SELECT * FROM labels WHERE id = ?'),
    exactTerm: db.prepare<[string], { term: string }>('SELECT term FROM terms WHERE term = ?'),
    /** Vocabulary words of a first letter and a length range. */
    termsByFirst: db.prepare<[string, number, number], string>(`SELECT term FROM terms WHERE first = ? AND len BETWEEN ? AND ? LIMIT ${maxCompared}`).pluck(),
    /** Vocabulary words of a last two letters and a length range. */
    termsByLast: db.prepare<[string, number, number], string>(`SELECT term FROM terms WHERE last2 = ? AND len BETWEEN ? AND ? LIMIT ${maxCompared}`).pluck(),
  };
}

export interface LabelFilter {
  bbox?: [number, number, number, number];
  types?: LabelType[];
  categories?: string[];
}

/** The filters shared by search and nearest (bbox, types, categories) as SQL to append, their values pushed onto `args`. */
export function labelFilters(opts: LabelFilter, args: unknown[]): string {
  const where: string[] = [];
  if (opts.types?.length) {
    where.push(`l.type IN (${opts.types.map(() => '?').join(',')})`);
    args.push(...opts.types);
  }
  if (opts.bbox) {
    where.push('l.lon BETWEEN ? AND ? AND l.lat BETWEEN ? AND ?');
    args.push(opts.bbox[0], opts.bbox[2], opts.bbox[1], opts.bbox[3]);
  }
  if (opts.categories?.length) {
    where.push(`(${opts.categories.map(() => 'l.categories LIKE ?').join(' OR ')})`);
    args.push(...opts.categories.map((c) => `%${categoryColumn([c.toLowerCase()])}%`));
  }
  return where.length ? ` AND ${where.join(' AND ')}` : '';
}

/** Labels of the categories (the first parameters, one each) passing `filters`, in position order; the last parameter is the limit. */
export const inCategoriesSql = (categories: number, filters: string): string =>
  `SELECT l.* FROM label_category c CROSS JOIN labels l ON l.id = c.id WHERE c.category IN (${Array(categories).fill('?').join(',')})${filters} LIMIT ?`;

/**
 * Labels of the categories (the first parameters) in one row of the position grid inside a box: first cell, last
 * cell, west, east, south, north; then `filters`.
 */
export const categoriesInBoxSql = (categories: number, filters: string): string =>
  `SELECT l.* FROM label_category c CROSS JOIN labels l ON l.id = c.id WHERE c.category IN (${Array(categories).fill('?').join(',')}) AND c.cell BETWEEN ? AND ? AND l.lon BETWEEN ? AND ? AND l.lat BETWEEN ? AND ?${filters}`;

/** Labels whose full-text entry matches the first parameter (an FTS5 query), passing `filters`, in id order. */
export const matchingSql = (filters: string, limit: number): string =>
  `SELECT l.* FROM fts CROSS JOIN labels l ON l.id = fts.rowid WHERE fts MATCH ?${filters} LIMIT ${limit}`;

/** The ids of the labels whose full-text entry matches the parameter (an FTS5 query), in id order; a LIMIT may follow. */
export const matchingIdsSql = 'SELECT rowid AS id FROM fts WHERE fts MATCH ?';

/** As matchingSql, only the id and position of each (rows as arrays: id, lon, lat). */
export const matchingPositionsSql = (filters: string, limit: number): string =>
  `SELECT l.id, l.lon, l.lat FROM fts CROSS JOIN labels l ON l.id = fts.rowid WHERE fts MATCH ?${filters} LIMIT ${limit}`;

/**
 * Labels whose full-text entry matches the first parameter, among the ids of one row of the position grid (the
 * labels are numbered in position order): FTS query, first cell, last cell, west, east, south, north; then `filters`.
 */
export const matchingInBoxSql = (filters: string): string =>
  `SELECT l.* FROM fts CROSS JOIN labels l ON l.id = fts.rowid WHERE fts MATCH ?
     AND fts.rowid BETWEEN (SELECT id FROM labels INDEXED BY labels_position WHERE cell >= ? ORDER BY cell, lon, lat LIMIT 1)
                       AND (SELECT id FROM labels INDEXED BY labels_position WHERE cell <= ? ORDER BY cell DESC, lon DESC, lat DESC LIMIT 1)
     AND l.lon BETWEEN ? AND ? AND l.lat BETWEEN ? AND ?${filters}`;

/** Labels of one row of the position grid inside a box: first cell, last cell, west, east, south, north; then `filters`. */
export const inBoxSql = (filters: string): string =>
  `SELECT l.* FROM labels l INDEXED BY labels_position WHERE l.cell BETWEEN ? AND ? AND l.lon BETWEEN ? AND ? AND l.lat BETWEEN ? AND ?${filters}`;
