// The command-line side of moving tile sets in and out of the data directory in other tools' formats: PMTiles
// export (`export --format pmtiles`: the store's main pyramid as an archive whose metadata is the store's TileJSON),
// GeoPackage export (`export --format gpkg`: one raster pyramid as an OGC GeoPackage tile pyramid) and MBTiles
// import (`import --mbtiles`: a file made elsewhere, checked and published as a store, under the store's lock).
// Resolves the resource, reports in lines to print; src/cli.ts calls these.

import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { DEFAULT_INDEX_DIR } from './config/load';
import { registeredGrid, type Grid } from './geo/grids';
import { parseZoomRange } from './mirror/plan';
import { exportGridGeopackage } from './services/wms/grid-export';
import { exportGeopackage, GPKG_GRIDS, type GpkgGridName } from './store/gpkg/export';
import { openTileStore, signatureOf } from './store/open';
import type { TileStore } from './store/tile-reader';
import { acquireLock, LockError } from './store/data-dir/lock';
import { buildTileJson } from './ogc/tilejson';
import { MbtilesStore } from './store/mbtiles/reader';
import { importMbtiles, MbtilesImportError } from './store/mbtiles/import';
import { exportPmtiles } from './store/pmtiles/export';
import { TILE_SIZE_KEY } from './store/pmtiles/store';
import { storePaths } from './store/mbtiles/staging';
import { isStoreId, type Pyramid, type ResourceKind } from './store/types';

/** A refusal worth one line on stderr and exit status 1 (no stack: the message says it all). */
export class InterchangeError extends Error {}

const KINDS: readonly ResourceKind[] = ['tiles', 'maps', 'images'];

/** `tiles/ID`, `maps/ID` or `images/ID` (the kinds allowed may be narrowed). */
export function parseResource(value: string, kinds: readonly ResourceKind[] = KINDS): { kind: ResourceKind; id: string } {
  const slash = value.indexOf('/');
  const kind = value.slice(0, slash) as ResourceKind;
  const id = value.slice(slash + 1);
  if (slash < 0 || !kinds.includes(kind) || !isStoreId(id)) {
    throw new InterchangeError(`"${value}" is not a resource: expected ${kinds.map((k) => `${k}/ID`).join(' or ')}`);
  }
  return { kind, id };
}

/** The archive's JSON metadata: the store's TileJSON without tile URLs (they belong to whoever hosts it). */
export function pmtilesMetadata(store: MbtilesStore): Record<string, unknown> {
  const main = store.info.pyramids[0];
  const { tiles: _urls, ...doc } = buildTileJson(store.info, main, { tilesUrl: '' });
  return { ...doc, type: store.info.type, [TILE_SIZE_KEY]: main.tileSize };
}

export interface ExportPmtilesOptions {
  data: string;
  resource: string;
  out: string;
}

/** `tilemirror export --format pmtiles RESOURCE --out FILE`: returns the lines to print. */
export function exportPmtilesCommand(opts: ExportPmtilesOptions): string[] {
  const { kind, id } = parseResource(opts.resource);
  const file = storePaths(resolve(opts.data), kind, id).published;
  let store: MbtilesStore;
  try {
    store = new MbtilesStore(file, kind, id, 'export');
  } catch (err) {
    throw new InterchangeError(`cannot read ${kind}/${id} (${file}): ${(err as Error).message}`);
  }
  try {
    const started = process.hrtime.bigint();
    const out = resolve(opts.out);
    let stats;
    try {
      stats = exportPmtiles(store, out, pmtilesMetadata(store));
    } catch (err) {
      throw new InterchangeError(`cannot export ${kind}/${id}: ${(err as Error).message}`);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const mbtilesBytes = statSync(file).size;
    const lines = [
      `${kind}/${id} -> ${out}: ${stats.addressed} tiles, ${stats.contents} distinct, ${stats.entries} directory entries` +
        `${stats.leaves ? ` in ${stats.leaves} leaf directories` : ''}`,
      `${stats.bytes} bytes (the MBTiles store: ${mbtilesBytes} bytes), written in ${seconds.toFixed(2)} s ` +
        `(${Math.round(stats.addressed / Math.max(seconds, 1e-6))} tiles/s)`,
    ];
    if (store.info.pyramids.length > 1) lines.push(`only the main pyramid (${store.info.pyramids[0].name}) is written; PMTiles holds one`);
    return lines;
  } finally {
    store.close();
  }
}

export interface ExportGpkgOptions {
  data: string;
  /** `maps/ID` (its main pyramid), `maps/ID/PYRAMID` (`maps/ID/256`), `tiles/ID` or `images/ID`. */
  resource: string;
  out: string;
  /** `A-B` or `Z`; default the pyramid's zooms. */
  zoom?: string;
  /** Default WebMercatorQuad. */
  grid?: string;
}

/** The store file of a resource: its MBTiles store, or a PMTiles archive where tiles/ serves one. */
function storeFile(data: string, kind: 'tiles' | 'maps' | 'images', id: string): string {
  const mbtiles = storePaths(data, kind, id).published;
  const pmtiles = join(data, kind, `${id}.pmtiles`);
  return kind === 'tiles' && !existsSync(mbtiles) && existsSync(pmtiles) ? pmtiles : mbtiles;
}

/** A name for the tiles table (a plain SQL identifier, as GDAL's layer name) made from the resource's id. */
function tableName(id: string): string {
  const t = id.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z]/.test(t) && !/^(gpkg_|sqlite_)/i.test(t) ? t : `t_${t}`;
}

/** Refuses an --out whose folder does not exist or cannot be written, before any tile is read. */
function checkOut(out: string): void {
  if (!out.toLowerCase().endsWith('.gpkg')) throw new InterchangeError(`--out ${out}: a GeoPackage file name ends in .gpkg (requirement 3 of the standard)`);
  const dir = dirname(out);
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a folder');
    accessSync(dir, constants.W_OK);
  } catch (err) {
    throw new InterchangeError(`--out ${out}: cannot write in ${dir} (${(err as Error).message})`);
  }
  if (existsSync(out) && statSync(out).isDirectory()) throw new InterchangeError(`--out ${out} is a folder`);
}

/** The GeoPackage of a pyramid in a registered grid besides Web Mercator (--zoom: that grid's zooms). */
async function exportInGrid(store: TileStore, pyramid: Pyramid, grid: Grid, out: string, opts: ExportGpkgOptions, resource: string, table: string, file: string): Promise<string[]> {
  let zooms: [number, number] | undefined;
  if (opts.zoom !== undefined) {
    try {
      zooms = parseZoomRange(opts.zoom);
    } catch (err) {
      throw new InterchangeError(`--zoom: ${(err as Error).message}`);
    }
    const ids = grid.matrices.map((m) => Number(m.id));
    if (zooms[0] < ids[0] || zooms[1] > ids[ids.length - 1]) throw new InterchangeError(`--zoom ${opts.zoom} is outside ${grid.id}: its zooms are ${ids[0]}-${ids[ids.length - 1]}`);
  }
  const started = process.hrtime.bigint();
  let stats;
  try {
    stats = await exportGridGeopackage(store, out, { pyramid, grid, zooms, table, indexDir: DEFAULT_INDEX_DIR });
  } catch (err) {
    throw new InterchangeError(`cannot export ${resource}: ${(err as Error).message}`);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return [
    `${resource} (pyramid ${pyramid.name}) -> ${out}: ${stats.tiles} tiles drawn in zooms ${stats.zooms[0]}-${stats.zooms[1]} on ${grid.id} (EPSG:${grid.epsg}), table ${table}`,
    `${stats.bytes} bytes (the store: ${statSync(file).size} bytes), written in ${seconds.toFixed(2)} s (${Math.round(stats.tiles / Math.max(seconds, 1e-6))} tiles/s)`,
  ];
}

/** `tilemirror export --format gpkg RESOURCE [--zoom A-B] [--grid NAME] --out FILE`: returns the lines to print. */
export async function exportGpkgCommand(opts: ExportGpkgOptions): Promise<string[]> {
  const slash = opts.resource.indexOf('/', opts.resource.indexOf('/') + 1);
  const [resource, pyramidName] = opts.resource.startsWith('maps/') && slash > 0 ? [opts.resource.slice(0, slash), opts.resource.slice(slash + 1)] : [opts.resource, undefined];
  const { kind, id } = parseResource(resource);
  const gridName = opts.grid ?? 'WebMercatorQuad';
  // Another grid than the stores' own: a registered one, its tiles drawn from the stored ones (the WMTS's).
  const other = gridName === 'WebMercatorQuad' ? undefined : registeredGrid(gridName);
  if (!(GPKG_GRIDS as readonly string[]).includes(gridName) && !other) {
    throw new InterchangeError(`--grid ${gridName} is not known: the grids are ${GPKG_GRIDS.join(', ')}, WorldCRS84Quad, EuropeanETRS89_LAEAQuad, UTM01WGS84Quad .. UTM60WGS84Quad`);
  }
  const out = resolve(opts.out);
  checkOut(out);
  const file = storeFile(resolve(opts.data), kind, id);
  const sig = signatureOf(file);
  if ('gone' in sig) throw new InterchangeError(`${kind}/${id} is not in ${resolve(opts.data)} (no ${basename(file)} in ${dirname(file)})`);
  let store: TileStore;
  try {
    if ('error' in sig) throw sig.error;
    store = openTileStore(file, kind, id, sig.signature);
  } catch (err) {
    throw new InterchangeError(`cannot read ${kind}/${id} (${file}): ${(err as Error).message}`);
  }
  try {
    const info = store.info;
    const pyramid = pyramidName === undefined ? info.pyramids[0] : store.pyramid(pyramidName);
    if (!pyramid) throw new InterchangeError(`${kind}/${id} has no pyramid ${pyramidName}: it has ${info.pyramids.map((p) => p.name).join(', ')}`);
    if (pyramid.format === 'pbf' || pyramid.format === 'basis') {
      throw new InterchangeError(
        `${kind}/${id} holds ${pyramid.format === 'pbf' ? 'vector' : 'Basis Universal'} tiles: a GeoPackage export writes raster tiles ` +
          '(PNG, JPEG, WebP) only; vector tiles in a GeoPackage are an extension tilemirror does not write',
      );
    }
    if (info.raster === 'render') throw new InterchangeError(`${kind}/${id} keeps no raster tiles (it was mirrored with --raster render: they are drawn on request from its style)`);
    if (other) return await exportInGrid(store, pyramid, other, out, opts, `${kind}/${id}`, tableName(id), file);
    let zooms: [number, number] = [pyramid.minzoom, pyramid.maxzoom];
    if (opts.zoom !== undefined) {
      try {
        zooms = parseZoomRange(opts.zoom);
      } catch (err) {
        throw new InterchangeError(`--zoom: ${(err as Error).message}`);
      }
      if (zooms[0] < pyramid.minzoom || zooms[1] > pyramid.maxzoom) {
        throw new InterchangeError(`--zoom ${opts.zoom} is outside ${kind}/${id}${pyramidName ? `/${pyramidName}` : ''}: its zooms are ${pyramid.minzoom}-${pyramid.maxzoom}`);
      }
    }
    const started = process.hrtime.bigint();
    let stats;
    try {
      stats = await exportGeopackage(store, out, { pyramid, zooms, grid: gridName as GpkgGridName, table: tableName(id) });
    } catch (err) {
      throw new InterchangeError(`cannot export ${kind}/${id}: ${(err as Error).message}`);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const size = stats.grid.matrices[0].tileWidth;
    return [
      `${kind}/${id} (pyramid ${pyramid.name}, ${size} px ${pyramid.format} tiles) -> ${out}: ${stats.tiles} tiles in zooms ${zooms[0]}-${zooms[1]} ` +
        `on ${stats.grid.name} (EPSG:${stats.grid.srs.organizationCoordsysId}), table ${tableName(id)}${stats.webp ? ', with the gpkg_webp extension' : ''}`,
      `${stats.bytes} bytes (the store: ${statSync(file).size} bytes), written in ${seconds.toFixed(2)} s (${Math.round(stats.tiles / Math.max(seconds, 1e-6))} tiles/s)`,
    ];
  } finally {
    store.close();
  }
}

export interface ImportMbtilesOptions {
  data: string;
  file: string;
  as: string;
}

/** `tilemirror import --mbtiles FILE --as tiles/ID|maps/ID`: returns the lines to print. */
export function importMbtilesCommand(opts: ImportMbtilesOptions): string[] {
  const { kind, id } = parseResource(opts.as, ['tiles', 'maps']);
  const data = resolve(opts.data);
  const paths = storePaths(data, kind, id);
  mkdirSync(paths.dir, { recursive: true });
  let lock;
  try {
    lock = acquireLock(paths.lock, 'import');
  } catch (err) {
    if (err instanceof LockError) throw new InterchangeError(`${kind}/${id} is busy: ${err.message}`);
    throw err;
  }
  try {
    const done = importMbtiles(resolve(opts.file), data, kind, id);
    const p = done.header.pyramids[0];
    return [
      `${opts.file} -> ${join(kind, `${id}.mbtiles`)}: ${done.tiles} ${p.format} tiles, zooms ${p.minzoom}-${p.maxzoom}, ` +
        `bounds ${p.bounds.join(',')}, published`,
    ];
  } catch (err) {
    if (err instanceof MbtilesImportError) throw new InterchangeError(`${opts.file} refused, nothing imported: ${err.message}`);
    throw err;
  } finally {
    lock.release();
  }
}
