// The gazetteer's form in one place: its file name, its tables and every SQL statement on them. The builder
// (gazetteer-index.ts) and the reader (gazetteer.ts) go through this module and spell no SQL on these tables
// themselves, as store/mbtiles-sql.ts is for stores.
//
// The tables:
//  - meta:        key, value: `source` (the versions of the npm data it was built from), `built`, `features`.
//  - features:    one row a feature; its id is the N of `type.N`.
//  - polygons:    each polygon part of a feature (rings and coordinates encoded by polygons.ts), and poly_rtree,
//                 their bboxes (reverse lookups, by-id geometry).
//  - place_rtree: places as points (nearest place).
//  - names:       every name of a feature with its normalised form, rowids in decreasing importance, so the first
//                 full-text matches are the most important; names_fts, contentless FTS5 over them with 2/3-character
//                 prefix indexes; names_tri, FTS5 trigrams over main names (typo candidates).

import type Database from 'better-sqlite3';
import type { GazetteerType } from './types';

export const GAZETTEER_FILE = 'gazetteer.sqlite';

/** A feature as stored (its names as JSON; country and region as feature ids, or null). */
export interface FeatureRecord {
  id: number;
  type: GazetteerType;
  name: string;
  names: string;
  country_code: string;
  country_id: number | null;
  region_id: number | null;
  lon: number;
  lat: number;
  w: number;
  s: number;
  e: number;
  n: number;
  population: number;
  importance: number;
  ref: string;
  wikidata: string | null;
  designation: string;
  region_code: string | null;
}

// ---- the builder's side ----

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE features (id INTEGER PRIMARY KEY, type TEXT NOT NULL, name TEXT NOT NULL, names TEXT NOT NULL,
  country_code TEXT NOT NULL, country_id INTEGER, region_id INTEGER, lon REAL NOT NULL, lat REAL NOT NULL,
  w REAL NOT NULL, s REAL NOT NULL, e REAL NOT NULL, n REAL NOT NULL, population INTEGER NOT NULL,
  importance REAL NOT NULL, ref TEXT NOT NULL, wikidata TEXT, designation TEXT NOT NULL, region_code TEXT);
CREATE TABLE polygons (id INTEGER PRIMARY KEY, feature_id INTEGER NOT NULL, rings TEXT NOT NULL, coords BLOB NOT NULL);
CREATE INDEX polygons_feature ON polygons(feature_id);
CREATE VIRTUAL TABLE poly_rtree USING rtree(id, minX, maxX, minY, maxY);
CREATE VIRTUAL TABLE place_rtree USING rtree(id, minX, maxX, minY, maxY);
CREATE TABLE names (id INTEGER PRIMARY KEY, feature_id INTEGER NOT NULL, name TEXT NOT NULL, norm TEXT NOT NULL);
CREATE VIRTUAL TABLE names_fts USING fts5(norm, content='', prefix='2 3', tokenize='unicode61');
CREATE VIRTUAL TABLE names_tri USING fts5(norm, content='', tokenize='trigram');
`;

/** Creates the tables in a new file and prepares the builder's statements. */
export function gazetteerWriter(db: Database.Database) {
  db.exec(SCHEMA);
  return {
    feature: db.prepare<[FeatureRecord]>(`INSERT INTO features VALUES (@id, @type, @name, @names, @country_code, @country_id, @region_id, @lon, @lat,
      @w, @s, @e, @n, @population, @importance, @ref, @wikidata, @designation, @region_code)`),
    /** id, feature id, rings, coordinates */
    polygon: db.prepare<[number, number, string, Buffer]>('INSERT INTO polygons VALUES (?, ?, ?, ?)'),
    /** polygon id, minX, maxX, minY, maxY */
    polygonBox: db.prepare<[number, number, number, number, number]>('INSERT INTO poly_rtree VALUES (?, ?, ?, ?, ?)'),
    /** feature id, minX, maxX, minY, maxY (a point: min = max) */
    placePoint: db.prepare<[number, number, number, number, number]>('INSERT INTO place_rtree VALUES (?, ?, ?, ?, ?)'),
    /** rowid, feature id, name, normalised name */
    name: db.prepare<[number, number, string, string]>('INSERT INTO names VALUES (?, ?, ?, ?)'),
    /** rowid (the name's), normalised name */
    nameWords: db.prepare<[number, string]>('INSERT INTO names_fts (rowid, norm) VALUES (?, ?)'),
    /** rowid (the name's), normalised main name */
    nameTrigrams: db.prepare<[number, string]>('INSERT INTO names_tri (rowid, norm) VALUES (?, ?)'),
    meta: db.prepare<[string, string]>('INSERT INTO meta VALUES (?, ?)'),
  };
}

/** Merges the full-text indexes' segments, once every name is written. */
export function optimizeGazetteer(db: Database.Database): void {
  db.exec("INSERT INTO names_fts(names_fts) VALUES ('optimize'); INSERT INTO names_tri(names_tri) VALUES ('optimize');");
}

// ---- the reader's side ----

/** A name matched: its feature, the name and its normalised form. */
export interface NameHit {
  featureId: number;
  name: string;
  norm: string;
}

/** The reader's statements, prepared once. */
export function gazetteerStatements(db: Database.Database) {
  return {
    feature: db.prepare<[number], FeatureRecord>('SELECT * FROM features WHERE id = ?'),
    /** Names matching an FTS5 query of words (the last one may be a prefix), most important first; then the limit. */
    fts: db.prepare<[string, number], NameHit>('SELECT n.feature_id AS featureId, n.name, n.norm FROM names_fts f JOIN names n ON n.id = f.rowid WHERE names_fts MATCH ? ORDER BY f.rowid LIMIT ?'),
    /** Main names matching an FTS5 query of trigrams, most important first; then the limit. */
    tri: db.prepare<[string, number], NameHit>('SELECT n.feature_id AS featureId, n.name, n.norm FROM names_tri t JOIN names n ON n.id = t.rowid WHERE names_tri MATCH ? ORDER BY t.rowid LIMIT ?'),
    /** Polygon parts whose bbox holds the point, with their feature and its type. */
    polygonsAt: db.prepare<[{ x: number; y: number }], { id: number; featureId: number; type: GazetteerType }>(`SELECT p.id, p.feature_id AS featureId, f.type FROM poly_rtree r JOIN polygons p ON p.id = r.id JOIN features f ON f.id = p.feature_id
      WHERE r.minX <= @x AND r.maxX >= @x AND r.minY <= @y AND r.maxY >= @y`),
    polygon: db.prepare<[number], { rings: string; coords: Buffer }>('SELECT rings, coords FROM polygons WHERE id = ?'),
    polygonsOf: db.prepare<[number], { id: number }>('SELECT id FROM polygons WHERE feature_id = ? ORDER BY id'),
    /** Places in a box: east, west, north, south. */
    placesIn: db.prepare<[number, number, number, number], { id: number }>('SELECT id FROM place_rtree WHERE minX <= ? AND maxX >= ? AND minY <= ? AND maxY >= ?'),
    source: db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'source'"),
  };
}
