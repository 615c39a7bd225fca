// Writes one tile pyramid as an OGC GeoPackage 1.3 file (OGC 12-128r18): the required tables (clauses 1.1.2-1.1.3),
// the tile matrix set and matrices of the grid (2.2.6-2.2.7), the tiles table (2.2.8), and the gpkg_webp extension
// row (F.6) when a tile is WebP. The tiles table has the UNIQUE (zoom_level, tile_column, tile_row) of the spec's
// table definition and none of the optional triggers (GeoPackage 1.2 dropped them from the core; GDAL writes none).
// The file is built beside the target under a temporary name, synced and renamed onto it: a failure leaves no
// partial file.

import Database from 'better-sqlite3';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { sniffImageFormat } from '../bytes/formats';
import { SRS_4326, type GpkgGrid, type GpkgSrs, type GpkgTileMatrix, type GpkgTileSource } from './grid';

/** 'GPKG' in the SQLite header's application_id (requirement 2). */
export const GPKG_APPLICATION_ID = 0x47504b47;
/** GeoPackage 1.3.0 as user_version (requirement 2: MMmmPP). */
export const GPKG_USER_VERSION = 10300;

/** The two undefined systems of requirement 11 (EPSG:4326 is the third). */
const UNDEFINED_SRS: GpkgSrs[] = [
  {
    srsId: -1,
    name: 'Undefined cartesian SRS',
    organization: 'NONE',
    organizationCoordsysId: -1,
    definition: 'undefined',
    description: 'undefined cartesian coordinate reference system',
  },
  {
    srsId: 0,
    name: 'Undefined geographic SRS',
    organization: 'NONE',
    organizationCoordsysId: 0,
    definition: 'undefined',
    description: 'undefined geographic coordinate reference system',
  },
];

const SCHEMA = `
CREATE TABLE gpkg_spatial_ref_sys (
  srs_name TEXT NOT NULL,
  srs_id INTEGER NOT NULL PRIMARY KEY,
  organization TEXT NOT NULL,
  organization_coordsys_id INTEGER NOT NULL,
  definition TEXT NOT NULL,
  description TEXT
);
CREATE TABLE gpkg_contents (
  table_name TEXT NOT NULL PRIMARY KEY,
  data_type TEXT NOT NULL,
  identifier TEXT UNIQUE,
  description TEXT DEFAULT '',
  last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  min_x DOUBLE,
  min_y DOUBLE,
  max_x DOUBLE,
  max_y DOUBLE,
  srs_id INTEGER,
  CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id)
);
CREATE TABLE gpkg_tile_matrix_set (
  table_name TEXT NOT NULL PRIMARY KEY,
  srs_id INTEGER NOT NULL,
  min_x DOUBLE NOT NULL,
  min_y DOUBLE NOT NULL,
  max_x DOUBLE NOT NULL,
  max_y DOUBLE NOT NULL,
  CONSTRAINT fk_gtms_table_name FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
  CONSTRAINT fk_gtms_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id)
);
CREATE TABLE gpkg_tile_matrix (
  table_name TEXT NOT NULL,
  zoom_level INTEGER NOT NULL,
  matrix_width INTEGER NOT NULL,
  matrix_height INTEGER NOT NULL,
  tile_width INTEGER NOT NULL,
  tile_height INTEGER NOT NULL,
  pixel_x_size DOUBLE NOT NULL,
  pixel_y_size DOUBLE NOT NULL,
  CONSTRAINT pk_ttm PRIMARY KEY (table_name, zoom_level),
  CONSTRAINT fk_tmm_table_name FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name)
);
CREATE TABLE gpkg_extensions (
  table_name TEXT,
  column_name TEXT,
  extension_name TEXT NOT NULL,
  definition TEXT NOT NULL,
  scope TEXT NOT NULL,
  CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name)
);
`;

/** What the pyramid is and where its data lies. */
export interface GpkgContent {
  /** The tiles table's name: a plain SQL identifier, not starting with gpkg_ or sqlite_. */
  table: string;
  /** gpkg_contents.identifier: a human-readable name. */
  identifier: string;
  description: string;
  /** Where the data lies, in the grid's CRS: gpkg_contents' bounds, and the tiles asked of the source. */
  bounds: [number, number, number, number];
}

export interface GpkgWriteStats {
  tiles: number;
  /** Tiles written per zoom, ascending zooms (every matrix of the grid). */
  perZoom: { zoom: number; tiles: number }[];
  webp: boolean;
  bytes: number;
}

/** Columns and rows (from the top) of a matrix that cover `bounds`, inclusive; an edge on a tile edge takes no neighbour. */
export function matrixRange(grid: GpkgGrid, m: GpkgTileMatrix, bounds: [number, number, number, number]): { minCol: number; maxCol: number; minRow: number; maxRow: number } {
  const [ex0, , , ey1] = grid.extent;
  const tw = m.tileWidth * m.pixelXSize;
  const th = m.tileHeight * m.pixelYSize;
  // Bounds on a tile edge, converted from degrees, come back a hair off it: snapped, as geo/mercator's tileRange does.
  const snap = (v: number): number => (Math.abs(v - Math.round(v)) < 1e-9 ? Math.round(v) : v);
  const clamp = (v: number, hi: number): number => Math.min(hi, Math.max(0, v));
  const minCol = clamp(Math.floor(snap((bounds[0] - ex0) / tw)), m.matrixWidth - 1);
  const maxCol = clamp(Math.max(minCol, Math.ceil(snap((bounds[2] - ex0) / tw)) - 1), m.matrixWidth - 1);
  const minRow = clamp(Math.floor(snap((ey1 - bounds[3]) / th)), m.matrixHeight - 1);
  const maxRow = clamp(Math.max(minRow, Math.ceil(snap((ey1 - bounds[1]) / th)) - 1), m.matrixHeight - 1);
  return { minCol, maxCol, minRow, maxRow };
}

const RESERVED_TABLE = /^(gpkg_|sqlite_)/i;

/** Tiles asked of the source at once: a source that reprojects may work on several while the others wait. */
const BATCH = 16;

/** The GeoPackage's required tables (clauses 1.1.2-1.1.3) and the spatial reference systems of requirement 11 and of `srs`. */
export function createGeopackageSchema(db: Database.Database, srs: GpkgSrs): void {
  db.pragma(`application_id = ${GPKG_APPLICATION_ID}`);
  db.pragma(`user_version = ${GPKG_USER_VERSION}`);
  db.exec(SCHEMA);
  const insert = db.prepare('INSERT INTO gpkg_spatial_ref_sys (srs_name, srs_id, organization, organization_coordsys_id, definition, description) VALUES (?, ?, ?, ?, ?, ?)');
  const rows = [...UNDEFINED_SRS, SRS_4326];
  if (!rows.some((s) => s.srsId === srs.srsId)) rows.push(srs);
  for (const s of rows) insert.run(s.name, s.srsId, s.organization, s.organizationCoordsysId, s.definition, s.description);
}

/** Makes a finished file durable, then puts it in place: a reader sees the whole file or the previous one. */
export function syncAndRename(tmp: string, out: string): void {
  const fd = openSync(tmp, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, out);
}

/** True when `table` may name a tiles table: a plain SQL identifier, not starting with gpkg_ or sqlite_. */
export function isTilesTableName(table: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(table) && !RESERVED_TABLE.test(table);
}

/** One tiles table (2.2.8) laid on `grid`: its contents row, tile matrix set and matrices. */
export function addTilesTable(db: Database.Database, grid: GpkgGrid, content: GpkgContent): void {
  if (!isTilesTableName(content.table)) throw new Error(`"${content.table}" cannot name a tiles table`);
  const q = `"${content.table}"`;
  db.exec(`CREATE TABLE ${q} (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    zoom_level INTEGER NOT NULL,
    tile_column INTEGER NOT NULL,
    tile_row INTEGER NOT NULL,
    tile_data BLOB NOT NULL,
    UNIQUE (zoom_level, tile_column, tile_row)
  )`);
  const [x0, y0, x1, y1] = content.bounds;
  db.prepare(
    'INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change, min_x, min_y, max_x, max_y, srs_id) ' +
      "VALUES (?, 'tiles', ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ','now'), ?, ?, ?, ?, ?)",
  ).run(content.table, content.identifier, content.description, x0, y0, x1, y1, grid.srs.srsId);
  const [ex0, ey0, ex1, ey1] = grid.extent;
  db.prepare('INSERT INTO gpkg_tile_matrix_set (table_name, srs_id, min_x, min_y, max_x, max_y) VALUES (?, ?, ?, ?, ?, ?)').run(content.table, grid.srs.srsId, ex0, ey0, ex1, ey1);
  const matrix = db.prepare(
    'INSERT INTO gpkg_tile_matrix (table_name, zoom_level, matrix_width, matrix_height, tile_width, tile_height, pixel_x_size, pixel_y_size) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  for (const m of grid.matrices) matrix.run(content.table, m.zoom, m.matrixWidth, m.matrixHeight, m.tileWidth, m.tileHeight, m.pixelXSize, m.pixelYSize);
}

/** The gpkg_webp extension row (F.6) of a tiles table holding WebP tiles. */
export function declareWebp(db: Database.Database, table: string): void {
  db.prepare("INSERT OR IGNORE INTO gpkg_extensions (table_name, column_name, extension_name, definition, scope) VALUES (?, 'tile_data', 'gpkg_webp', ?, 'read-write')").run(
    table,
    'http://www.geopackage.org/spec130/#extension_tiles_webp',
  );
}

/**
 * Writes the tiles `source` gives for every matrix of `grid` over `content.bounds` as the GeoPackage `out` (any file
 * there is replaced, only once the new one is complete). Throws, leaving nothing behind, when a tile is not a PNG,
 * JPEG or WebP image, or when no tile at all comes.
 */
export async function writeGeopackage(out: string, grid: GpkgGrid, content: GpkgContent, source: GpkgTileSource): Promise<GpkgWriteStats> {
  if (!isTilesTableName(content.table)) throw new Error(`"${content.table}" cannot name a tiles table`);
  if (grid.matrices.length === 0) throw new Error('the grid has no tile matrix');
  const tmp = `${out}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  let db: Database.Database | undefined;
  try {
    db = new Database(tmp);
    // A file nobody else sees until the rename: no journal, no syncs until the one before the rename.
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec('BEGIN');
    createGeopackageSchema(db, grid.srs);
    addTilesTable(db, grid, content);
    const insert = db.prepare(`INSERT INTO "${content.table}" (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)`);
    const perZoom: GpkgWriteStats['perZoom'] = [];
    let webp = false;
    let tiles = 0;
    for (const m of grid.matrices) {
      const r = matrixRange(grid, m, content.bounds);
      let count = 0;
      let batch: [number, number][] = [];
      const flush = async (): Promise<void> => {
        const got = await Promise.all(batch.map(([col, row]) => source(m.zoom, col, row)));
        got.forEach((data, i) => {
          if (data === undefined || data.length === 0) return;
          const [col, row] = batch[i];
          const format = sniffImageFormat(data);
          if (format === undefined) throw new Error(`tile ${m.zoom}/${col}/${row} is not a PNG, JPEG or WebP image`);
          webp ||= format === 'webp';
          insert.run(m.zoom, col, row, data);
          count++;
        });
        batch = [];
      };
      for (let row = r.minRow; row <= r.maxRow; row++) {
        for (let col = r.minCol; col <= r.maxCol; col++) {
          batch.push([col, row]);
          if (batch.length === BATCH) await flush();
        }
      }
      await flush();
      perZoom.push({ zoom: m.zoom, tiles: count });
      tiles += count;
    }
    if (tiles === 0) throw new Error('no tile to write in the zooms and bounds asked for');
    if (webp) declareWebp(db, content.table);
    db.exec('COMMIT');
    db.pragma('journal_mode = DELETE');
    db.close();
    db = undefined;
    syncAndRename(tmp, out);
    return { tiles, perZoom, webp, bytes: statSync(out).size };
  } catch (err) {
    if (db?.open) db.close();
    rmSync(tmp, { force: true });
    throw err;
  }
}
