// The coordinates index's form in one place: its file name, its tables and every SQL statement on them. The
// builders (registry-index.ts, search-tables.ts) and the readers (search.ts, term-index.ts) go through this module
// and spell no SQL on these tables themselves, as store/mbtiles-sql.ts is for stores. What the builders read from
// PROJ's own registry (proj.db) is PROJ's schema, not this one, and stays with them.
//
// The tables:
//  - meta:         key, value: `version` (our layout's, EPSG's and PROJ's versions).
//  - obj:          one row an EPSG object of the registry (CRS, operation, datum, ellipsoid, area, ...), with its
//                  area of use, and what the search reads: its usage weight, its name and alias words, the extents
//                  whose text is its area of use, and its spread over countries; default_op: the transformation
//                  PROJ binds a CRS to WGS 84 with.
//  - area_words:   the words of each used extent's text.
//  - obj_country:  how well each object's area fits each country it names.
//  - country_word: the words that name a country.

import type Database from 'better-sqlite3';

export const COORDINATES_INDEX = 'coordinates.sqlite';

/** An object as stored. */
export interface ObjRow {
  id: number;
  code: number;
  kind: string;
  tbl: string;
  name: string;
  aliases: string;
  deprecated: number;
  area: string | null;
  west: number | null;
  south: number | null;
  east: number | null;
  north: number | null;
  accuracy: number | null;
  unit: string | null;
  base: number | null;
  src: number | null;
  tgt: number | null;
  grids: string | null;
  method: string | null;
  default_op: number | null;
  weight: number;
  words: string;
  extents: string;
  spread: number;
}

// ---- the builders' side ----

const OBJ_SQL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE obj (
  id INTEGER PRIMARY KEY, code INTEGER NOT NULL, kind TEXT NOT NULL, tbl TEXT NOT NULL, name TEXT NOT NULL,
  aliases TEXT NOT NULL, deprecated INTEGER NOT NULL, area TEXT, west REAL, south REAL, east REAL, north REAL,
  accuracy REAL, unit TEXT, base INTEGER, src INTEGER, tgt INTEGER, grids TEXT, method TEXT,
  default_op INTEGER, weight REAL NOT NULL DEFAULT 0, words TEXT NOT NULL DEFAULT '', extents TEXT NOT NULL DEFAULT '',
  spread REAL NOT NULL DEFAULT 1);
CREATE INDEX obj_code ON obj(code);
CREATE INDEX obj_kind ON obj(kind);
CREATE INDEX obj_src ON obj(src, tgt);
`;

/** An object as the registry gives it, before the search columns are filled. */
export type ObjInsert = Omit<ObjRow, 'id' | 'default_op' | 'weight' | 'words' | 'extents' | 'spread'>;

/** Creates `meta` and `obj` in a new file; returns the statement inserting an object. */
export function registryWriter(db: Database.Database): Database.Statement<[ObjInsert]> {
  db.exec(OBJ_SQL);
  return db.prepare<[ObjInsert]>(`INSERT INTO obj (code, kind, tbl, name, aliases, deprecated, area, west, south, east, north, accuracy, unit, base, src, tgt, grids, method)
    VALUES (@code, @kind, @tbl, @name, @aliases, @deprecated, @area, @west, @south, @east, @north, @accuracy, @unit, @base, @src, @tgt, @grids, @method)`);
}

/** The CRS whose geodetic base is not WGS 84's own (which PROJ never binds): those with a default transformation to ask for. */
export function crsBoundToWgs84(db: Database.Database): { id: number; code: number; base: number }[] {
  return db
    .prepare<[], { id: number; code: number; base: number }>(
      `SELECT o.id, o.code, o.base FROM obj o WHERE o.kind IN ('CRS-PROJCRS','CRS-GEOGCRS','CRS-GEOG3DCRS','CRS-GCENCRS','CRS-COMPOUNDCRS')
       AND o.base IS NOT NULL AND o.base NOT IN (4326, 4979, 4978)`,
    )
    .all();
}

/** Sets an object's default transformation: the operation's code, the object's id. */
export function defaultOpWriter(db: Database.Database): Database.Statement<[number, number]> {
  return db.prepare<[number, number]>('UPDATE obj SET default_op=? WHERE id=?');
}

/** Records the version the file was built for and gathers the planner's statistics: the file is complete. */
export function finishRegistry(db: Database.Database, version: string): void {
  db.prepare('INSERT INTO meta VALUES (?, ?)').run('version', version);
  db.exec('ANALYZE');
}

const SEARCH_TABLES_SQL = `
CREATE TABLE area_words (code INTEGER PRIMARY KEY, words TEXT NOT NULL);
CREATE TABLE obj_country (id INTEGER NOT NULL, iso TEXT NOT NULL, fit REAL NOT NULL, PRIMARY KEY (iso, id)) WITHOUT ROWID;
CREATE TABLE country_word (word TEXT PRIMARY KEY, isos TEXT NOT NULL) WITHOUT ROWID;
`;

/** An object as the search's builder reads it back. */
export interface ObjRef {
  id: number;
  code: number;
  kind: string;
  tbl: string;
  deprecated: number;
  base: number | null;
  name: string;
  aliases: string;
}

/** Creates the search's tables (obj already written); returns every object and the statements filling them. */
export function searchTablesWriter(db: Database.Database) {
  db.exec(SEARCH_TABLES_SQL);
  return {
    objects: db.prepare<[], ObjRef>('SELECT id, code, kind, tbl, deprecated, base, name, aliases FROM obj').all(),
    /** weight, words, extents, spread; the object's id */
    setSearchColumns: db.prepare<[number, string, string, number, number]>('UPDATE obj SET weight = ?, words = ?, extents = ?, spread = ? WHERE id = ?'),
    /** object id, ISO country code, fit */
    countryFit: db.prepare<[number, string, number]>('INSERT INTO obj_country (id, iso, fit) VALUES (?, ?, ?)'),
    /** extent code, its words */
    areaWords: db.prepare<[number, string]>('INSERT INTO area_words (code, words) VALUES (?, ?)'),
    /** word, the ISO codes of the countries it names */
    countryWord: db.prepare<[string, string]>('INSERT INTO country_word (word, isos) VALUES (?, ?)'),
  };
}

// ---- the readers' side ----

/** The statements of lookups by code, prepared once. */
export function registryStatements(db: Database.Database) {
  return {
    byCode: db.prepare<[number], ObjRow>('SELECT * FROM obj WHERE code = ?'),
    /** Transformations from a geographic CRS to WGS 84, best first (not deprecated, most accurate, then code). */
    transformationsToWgs84: db.prepare<[number], ObjRow>(
      `SELECT * FROM obj WHERE kind = 'COORDOP-COPTRAN' AND src = ? AND tgt = 4326 ORDER BY deprecated, accuracy IS NULL, accuracy, code`,
    ),
  };
}

/** Reads the rows of `n` ids (in any order). */
export function rowsByIds(db: Database.Database, n: number): Database.Statement<number[], ObjRow> {
  return db.prepare<number[], ObjRow>(`SELECT * FROM obj WHERE id IN (${Array.from({ length: n }, () => '?').join(',')})`);
}

/** What the search keeps in memory of each object, by id: id, code, kind, deprecated, base CRS, source CRS, weight, words, extents, spread. */
export type TermRow = [id: number, code: number, kind: string, deprecated: number, base: number | null, src: number | null, weight: number, words: string, extents: string, spread: number];

/** Everything the search reads into memory on its first query: objects, area words, country fits and country words, as arrays. */
export function searchTables(db: Database.Database) {
  return {
    objects: db.prepare<[], TermRow>('SELECT id, code, kind, deprecated, base, src, weight, words, extents, spread FROM obj ORDER BY id').raw().all(),
    areaWords: db.prepare<[], [code: number, words: string]>('SELECT code, words FROM area_words').raw().all(),
    countryFits: db.prepare<[], [id: number, iso: string, fit: number]>('SELECT id, iso, fit FROM obj_country').raw().all(),
    countryWords: db.prepare<[], [word: string, isos: string]>('SELECT word, isos FROM country_word').raw().all(),
  };
}
