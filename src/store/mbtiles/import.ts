// MBTiles files made elsewhere (GDAL's `gdal_translate -of MBTiles`, OpenMapTiles and tippecanoe vector files
// with a `json` metadata row, the plain `tiles` table or mbutil's de-duplicated `map`/`images` schema) turned
// into a store of ours: the metadata is checked field by field (a bad one is refused with a message naming the
// field, before anything is written), the description derived from it (zooms from the tiles when the metadata
// has none), and the tiles copied into a hidden staging file of the data directory that is verified, then
// published by one rename like a mirror run's.

import Database from 'better-sqlite3';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { MAX_ZOOM } from '../../geo/mercator';
import type { Bounds } from '../../geo/bounds';
import { imageWidth, isGzip, sniffImageFormat } from '../bytes/formats';
import { foreignFirstTile, foreignTiles, foreignTilesQuery, foreignTileStats, readMetadata, tableNames, tmsRow } from './sql';
import { fsyncPath } from './publish';
import { StoreWriter, type StoreHeader } from './writer';
import type { Pyramid, ResourceKind, TileFormat, VectorLayer } from '../types';

/** A file refused for its content: `field` names the metadata field (or `tiles`) at fault. */
export class MbtilesImportError extends Error {
  constructor(readonly field: string, message: string) {
    super(`${field}: ${message}`);
  }
}

const FORMATS: Record<string, TileFormat> = { png: 'png', jpg: 'jpg', jpeg: 'jpg', webp: 'webp', pbf: 'pbf', mvt: 'pbf' };
/** Web Mercator stops here; bounds beyond are clamped for serving. */
const MERCATOR_LAT = 85.0511287798066;
const BATCH = 2000;

/** The tiles of the file imported, whichever schema holds them: (z, column, TMS row, data). */
function tileQuery(tables: Set<string>): string {
  const query = foreignTilesQuery(tables);
  if (query === undefined) throw new MbtilesImportError('tiles', 'the file has no tiles table (nor map and images tables)');
  return query;
}

function numbers(meta: Map<string, string>, field: string, count: number[]): number[] | undefined {
  const raw = meta.get(field);
  if (raw === undefined || raw.trim() === '') return undefined;
  const parts = raw.split(',').map((s) => Number(s.trim()));
  if (!count.includes(parts.length) || !parts.every(Number.isFinite)) {
    throw new MbtilesImportError(field, `"${raw}" is not ${count.join(' or ')} comma-separated numbers`);
  }
  return parts;
}

function zoom(meta: Map<string, string>, field: string): number | undefined {
  const raw = meta.get(field);
  if (raw === undefined || raw.trim() === '') return undefined;
  const z = Number(raw);
  if (!Number.isInteger(z) || z < 0 || z > MAX_ZOOM) throw new MbtilesImportError(field, `"${raw}" is not a zoom level 0-${MAX_ZOOM}`);
  return z;
}

function checkBounds(b: number[]): Bounds {
  const [w, s, e, n] = b;
  if (w < -180 || e > 180 || s < -90 || n > 90) throw new MbtilesImportError('bounds', `${b.join(',')} lies outside -180,-90,180,90`);
  if (w >= e || s >= n) throw new MbtilesImportError('bounds', `${b.join(',')} is empty or inverted (need west < east, south < north)`);
  return [w, Math.max(s, -MERCATOR_LAT), e, Math.min(n, MERCATOR_LAT)];
}

function vectorLayers(meta: Map<string, string>): VectorLayer[] | undefined {
  const raw = meta.get('json');
  if (raw === undefined || raw.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new MbtilesImportError('json', `not parseable JSON (${(err as Error).message})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new MbtilesImportError('json', 'is not a JSON object');
  const layers = (parsed as { vector_layers?: unknown }).vector_layers;
  if (layers === undefined) return undefined;
  if (!Array.isArray(layers) || !layers.every((l) => l && typeof l === 'object' && typeof (l as VectorLayer).id === 'string')) {
    throw new MbtilesImportError('json', 'vector_layers is not a list of layers with an id');
  }
  return (layers as VectorLayer[]).map((l) => ({ ...l, fields: l.fields ?? {} }));
}

/** The format from the metadata, else from the first tile's bytes (an image's magic number, or gzip: vector). */
function tileFormat(meta: Map<string, string>, first: Buffer): TileFormat {
  const raw = meta.get('format');
  if (raw !== undefined && raw.trim() !== '') {
    const f = FORMATS[raw.trim().toLowerCase()];
    if (!f) throw new MbtilesImportError('format', `"${raw}" is not a tile format served (png, jpg, webp, pbf)`);
    return f;
  }
  const sniffed = sniffImageFormat(first) ?? (isGzip(first) ? 'pbf' : undefined);
  if (!sniffed) throw new MbtilesImportError('format', 'missing, and the first tile is neither an image nor gzipped vector data');
  return sniffed;
}

export interface MbtilesImportPlan {
  header: StoreHeader;
  tiles: number;
}

interface ForeignFile {
  db: Database.Database;
  query: string;
  meta: Map<string, string>;
}

function openForeign(file: string): ForeignFile {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.prepare('SELECT 1 FROM sqlite_master').get();
  } catch (err) {
    throw new MbtilesImportError('file', `${file} is not a readable SQLite file (${(err as Error).message})`);
  }
  try {
    const tables = tableNames(db);
    if (!tables.has('metadata')) throw new MbtilesImportError('metadata', 'the file has no metadata table');
    const query = tileQuery(tables);
    return { db, query, meta: readMetadata(db) };
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Checks the file and describes the store it becomes; throws MbtilesImportError naming the bad field. */
function plan(foreign: ForeignFile, kind: ResourceKind, id: string): MbtilesImportPlan {
  const { db, query, meta } = foreign;
  const stats = foreignTileStats(db, query);
  if (!stats || stats.n === 0) throw new MbtilesImportError('tiles', 'the file holds no tiles');
  const first = foreignFirstTile(db, query);
  const format = tileFormat(meta, first ?? Buffer.alloc(0));
  const minzoom = zoom(meta, 'minzoom') ?? stats.lo ?? 0;
  const maxzoom = zoom(meta, 'maxzoom') ?? stats.hi ?? 0;
  if (minzoom > maxzoom) throw new MbtilesImportError('minzoom', `minzoom ${minzoom} is above maxzoom ${maxzoom}`);
  if (stats.lo !== null && stats.hi !== null && (stats.hi < minzoom || stats.lo > maxzoom)) {
    throw new MbtilesImportError('maxzoom', `the tiles are at zooms ${stats.lo}-${stats.hi}, outside ${minzoom}-${maxzoom}`);
  }
  const boundsList = numbers(meta, 'bounds', [4]);
  const bounds = boundsList ? checkBounds(boundsList) : ([-180, -MERCATOR_LAT, 180, MERCATOR_LAT] as Bounds);
  const centerList = numbers(meta, 'center', [2, 3]);
  if (centerList && (Math.abs(centerList[0]) > 180 || Math.abs(centerList[1]) > 90)) {
    throw new MbtilesImportError('center', `${centerList.join(',')} is not a longitude, latitude`);
  }
  const [w, s, e, n] = bounds;
  const centerZoom = Math.min(maxzoom, Math.max(minzoom, Math.round(centerList?.[2] ?? minzoom)));
  const center: [number, number, number] = [centerList?.[0] ?? (w + e) / 2, centerList?.[1] ?? (s + n) / 2, centerZoom];
  const layers = vectorLayers(meta);
  const tileSize = format === 'pbf' ? 512 : (imageWidth(first ?? Buffer.alloc(0)) ?? 256);
  const pyramid: Pyramid = { name: kind === 'maps' ? String(tileSize) : 'main', tileSize, scale: 1, format, minzoom, maxzoom, bounds };
  const type = meta.get('type') === 'overlay' ? 'overlay' : 'baselayer';
  const header: StoreHeader = {
    kind,
    name: meta.get('name') || id,
    description: meta.get('description') ?? '',
    attribution: meta.get('attribution') ?? '',
    type,
    center,
    pyramids: [pyramid],
    vectorLayers: format === 'pbf' ? (layers ?? []) : undefined,
  };
  return { header, tiles: stats.n };
}

export interface ImportedStore {
  file: string;
  tiles: number;
  header: StoreHeader;
}

/**
 * Imports the MBTiles file `file` as the store `kind/id` of `dataDir`: checked, copied into a hidden staging
 * file, verified (SQLite integrity, tile count), then published by rename. The caller holds the store's lock.
 */
export function importMbtiles(file: string, dataDir: string, kind: ResourceKind, id: string): ImportedStore {
  const foreign = openForeign(file);
  const target = join(dataDir, kind, `${id}.mbtiles`);
  const staging = join(dataDir, kind, `.${id}.mbtiles.import-${process.pid}`);
  try {
    const { header, tiles } = plan(foreign, kind, id);
    header.extraMetadata = { 'tilemirror:imported_from': basename(file) };
    mkdirSync(join(dataDir, kind), { recursive: true });
    rmSync(staging, { force: true });
    const writer = new StoreWriter(staging, header);
    let copied = 0;
    try {
      const main = header.pyramids[0].name;
      let batch: [number, number, number, Buffer][] = [];
      const flush = (): void => {
        const part = batch;
        writer.batch(() => {
          for (const [z, x, row, data] of part) writer.putTile(main, z, x, tmsRow(z, row), data);
        });
        copied += part.length;
        batch = [];
      };
      for (const r of foreignTiles(foreign.db, foreign.query)) {
        batch.push(r);
        if (batch.length >= BATCH) flush();
      }
      flush();
      const check = writer.db.pragma('integrity_check') as { integrity_check: string }[];
      const stored = writer.tiles.countMain();
      if (check.length !== 1 || check[0].integrity_check !== 'ok') throw new Error(`the copy failed its integrity check: ${check[0]?.integrity_check}`);
      if (stored !== tiles) throw new Error(`the copy holds ${stored} tiles of ${tiles} (duplicate addresses in the source?)`);
    } finally {
      writer.close();
    }
    fsyncPath(staging);
    renameSync(staging, target);
    fsyncPath(join(dataDir, kind));
    return { file: target, tiles: copied, header };
  } catch (err) {
    rmSync(staging, { force: true });
    rmSync(`${staging}-journal`, { force: true });
    throw err;
  } finally {
    foreign.db.close();
  }
}
