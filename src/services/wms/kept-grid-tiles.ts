// Tiles of the grids besides Web Mercator, drawn once: a tile GridTiles drew (the WMS warp of the resource's Web
// Mercator tiles) is kept in a GeoPackage per resource, grid and version, `{data}/.grids/{kind}/{id}/{grid}/{version}.gpkg`,
// and read from there the next time. The version is a digest of what the drawing reads and how: the resource's store
// file, for a map the files its renders come from (RenderedTiles' render version), the grid's definition and the
// warp's settings. A new version starts an empty file and the older files of that resource and grid are deleted, so
// a tile of old data or of another grid definition is never served. A pre-render run (grid-prerender.ts) fills the
// same file. A data directory that cannot be written serves drawn tiles without keeping them (said once).

import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Grid, GridMatrix } from '../../geo/grids';
import { ByteLru } from '../../store/bytes/lru';
import { gpkgGridOf, type GpkgGrid, type GpkgSrs } from '../../store/gpkg/grid';
import { GpkgTileCache } from '../../store/gpkg/tile-cache';
import type { TileStore } from '../../store/tile-reader';
import type { RenderedTiles } from '../rendered-tiles';
import { boundsInGrid, gpkgSrsOf, type TransformXY } from './grid-bounds';
import type { GridTiles } from './grid-tiles';

/** The folder of the kept grid tiles, in the data directory (hidden: the catalog lists no store there). */
export const GRID_TILES_DIR = '.grids';

export type GridTileFormat = 'png' | 'jpg' | 'webp';

/** GeoPackages kept open at once (the least recently used is closed, and opened again when asked for). */
const MAX_OPEN_FILES = 32;

/** What a grid tile is drawn from: a resource's store, the pyramid a WMTS layer names, the layer's name for logs. */
export interface GridTileSource {
  store: TileStore;
  pyramidName: string;
  name: string;
}

export interface GridTileAnswer {
  data: Buffer;
  /** The Web Mercator levels it was drawn from; empty when it was read from the kept tiles. */
  levels: string[];
  kept: boolean;
}

export interface KeptGridTilesOptions {
  dataDir: string;
  /** Keep drawn tiles (`wms.keepGridTiles`). */
  keep: boolean;
  tiles: GridTiles;
  renderedTiles: RenderedTiles;
  transform: TransformXY;
  /** PROJ's WKT 1 of an EPSG CRS (the GeoPackage's spatial reference row). */
  wkt1: (code: number) => Promise<string>;
  /** How tiles are drawn (resampling, error bound): part of the version. */
  drawing: string;
  warn?: (message: string) => void;
}

interface OpenCache {
  version: string;
  cache: GpkgTileCache;
  grid: GpkgGrid;
  /** The resource's area in the grid's CRS (gpkg_contents' bounds of a new table). */
  bounds: [number, number, number, number];
}

/** A kept tile's key in the byte cache: the version, table and address. */
const memoKey = (version: string, table: string, zoom: number, col: number, row: number): string => `${version}/${table}/${zoom}/${col}/${row}`;

/** The tiles table of a source pyramid and format: a map's grid tiles come from all its pyramids and renders. */
export function gridTilesTable(source: GridTileSource, format: GridTileFormat): string {
  const pyramid = source.store.info.kind === 'maps' ? 'map' : source.pyramidName.replace(/[^A-Za-z0-9_]/g, '_');
  return `tiles_${pyramid}_${format}`;
}

export class KeptGridTiles {
  private readonly open = new Map<string, Promise<OpenCache>>();
  /** The open files whose opening is done, by the same key: a request for a kept tile awaits nothing. */
  private readonly ready = new Map<string, OpenCache>();
  /** Kept tiles read lately: the same buffers each time, so their replies (ETag, headers) are built once. */
  private readonly bytes = new ByteLru(32 * 1024 * 1024);
  /** Versions by what they are a digest of (computed once per store file, render version and grid). */
  private readonly versions = new Map<string, string>();
  /** The grids' CRS rows, by EPSG code (PROJ's WKT, asked once). */
  private readonly srs = new Map<number, Promise<GpkgSrs>>();
  private writable: boolean | undefined;

  constructor(private readonly options: KeptGridTilesOptions) {}

  /** PROJ, as the tiles are drawn with it (a pre-render plans its tiles in the grid's CRS). */
  get transform(): TransformXY {
    return this.options.transform;
  }

  /** The folder of one resource's kept tiles in one grid. */
  folder(source: GridTileSource, grid: Grid): string {
    const { kind, id } = source.store.info;
    return join(this.options.dataDir, GRID_TILES_DIR, kind, id, grid.id);
  }

  /** The version of the tiles of `source` in `grid`: changes with the files they are drawn from and how. */
  version(source: GridTileSource, grid: Grid): string {
    const { store } = source;
    const render = store.info.kind === 'maps' ? (this.options.renderedTiles.style(store)?.version ?? '') : '';
    // A grid's definition and the drawing settings are fixed for the process: its id stands for them in the key.
    const key = `${store.signature}|${render}|${grid.id}`;
    let version = this.versions.get(key);
    if (version === undefined) {
      version = createHash('sha256')
        .update(JSON.stringify([store.signature, render, grid, this.options.drawing]))
        .digest('hex')
        .slice(0, 16);
      if (this.versions.size >= 4096) this.versions.clear();
      this.versions.set(key, version);
    }
    return version;
  }

  /** Tile `row`/`col` of `matrix` when it is kept and in memory (the same buffer each time), else undefined. */
  hot(source: GridTileSource, grid: Grid, matrix: GridMatrix, row: number, col: number, format: GridTileFormat): Buffer | undefined {
    return this.bytes.get(memoKey(this.version(source, grid), gridTilesTable(source, format), Number(matrix.id), col, row));
  }

  /** Tile `row`/`col` of `matrix`: the kept one, else drawn (and kept when this process keeps tiles). */
  async tile(source: GridTileSource, grid: Grid, matrix: GridMatrix, row: number, col: number, format: GridTileFormat, signal?: AbortSignal): Promise<GridTileAnswer> {
    const version = this.version(source, grid);
    const table = gridTilesTable(source, format);
    const zoom = Number(matrix.id);
    const key = memoKey(version, table, zoom, col, row);
    const remembered = this.bytes.get(key);
    if (remembered) return { data: remembered, levels: [], kept: true };
    let kept: OpenCache | undefined;
    if (this.keeps()) {
      const ready = this.ready.get(this.keyOf(source, grid));
      kept = ready?.version === version && ready.cache.isOpen ? ready : await this.cacheOf(source, grid);
    }
    const hit = kept?.cache.get(table, zoom, col, row);
    if (hit) {
      this.bytes.set(key, hit);
      return { data: hit, levels: [], kept: true };
    }
    const base = this.options.renderedTiles.rasterBase(source.store, source.pyramidName);
    const drawn = await this.options.tiles.tile({ name: source.name, base }, grid, matrix, row, col, format === 'jpg' ? 'jpeg' : format, { signal, stored: kept !== undefined });
    if (kept) this.keep(kept, source, table, format, zoom, col, row, drawn.data);
    return { data: drawn.data, levels: drawn.levels, kept: false };
  }

  /** Tiles kept per zoom of `source` in `grid` as `format` (the current version's file only). */
  async counts(source: GridTileSource, grid: Grid, format: GridTileFormat): Promise<{ zoom: number; tiles: number }[]> {
    const kept = await this.existing(source, grid);
    return kept ? kept.cache.counts(gridTilesTable(source, format)) : [];
  }

  /** The tiles of `source` kept in `grid` at `matrix` as `format`, at most `limit` (the current version's file only). */
  async tilesAt(source: GridTileSource, grid: Grid, matrix: GridMatrix, format: GridTileFormat, limit: number): Promise<{ row: number; col: number }[]> {
    const kept = await this.existing(source, grid);
    if (!kept) return [];
    return kept.cache.tilesAt(gridTilesTable(source, format), Number(matrix.id), limit).map((t) => ({ row: t.row, col: t.column }));
  }

  private keep(kept: OpenCache, source: GridTileSource, table: string, format: GridTileFormat, zoom: number, col: number, row: number, data: Buffer): void {
    // Closed while the tile was drawn (too many files open, or a new version): kept the next time it is drawn.
    if (!kept.cache.isOpen) return;
    try {
      const content = { table, identifier: `${source.name} (${format})`, description: `${source.name} in ${kept.grid.name}, drawn from its Web Mercator tiles`, bounds: () => kept.bounds };
      kept.cache.put(content, zoom, col, row, data, format === 'webp');
    } catch (err) {
      // A full disk or a locked file: the tile is served anyway, and drawn again next time.
      this.options.warn?.(`grid tile ${source.name} ${kept.grid.name} ${zoom}/${row}/${col} not kept: ${(err as Error).message}`);
    }
  }

  keeps(): boolean {
    if (!this.options.keep) return false;
    if (this.writable === undefined) {
      try {
        accessSync(this.options.dataDir, constants.W_OK);
        this.writable = true;
      } catch {
        this.writable = false;
        this.options.warn?.(`the data directory ${this.options.dataDir} is not writable: tiles of other grids are drawn on every request, not kept`);
      }
    }
    return this.writable;
  }

  /**
   * The current version's file when it exists: a reader of what is kept (the admin console) makes no file, as
   * cacheOf would, for a resource whose tiles in the grid were never drawn. Nothing when tiles are not kept here.
   */
  private async existing(source: GridTileSource, grid: Grid): Promise<OpenCache | undefined> {
    if (!this.keeps() || !existsSync(join(this.folder(source, grid), `${this.version(source, grid)}.gpkg`))) return undefined;
    return this.cacheOf(source, grid);
  }

  private keyOf(source: GridTileSource, grid: Grid): string {
    return `${source.store.info.kind}/${source.store.info.id}/${grid.id}`;
  }

  /** The open file of the current version (made when missing, older versions deleted). */
  private cacheOf(source: GridTileSource, grid: Grid): Promise<OpenCache> {
    const key = this.keyOf(source, grid);
    const version = this.version(source, grid);
    const current = this.open.get(key);
    if (current) {
      // Most recently used last: the first one is closed when too many are open.
      this.open.delete(key);
      this.open.set(key, current);
      const replaced = current.then((c) => (c.version === version ? undefined : c));
      return replaced.then((old) => {
        if (!old) return current;
        if (this.open.get(key) === current) {
          this.open.delete(key);
          this.ready.delete(key);
          old.cache.close();
        }
        return this.cacheOf(source, grid);
      });
    }
    const opening = this.openVersion(source, grid, version);
    this.open.set(key, opening);
    if (this.open.size > MAX_OPEN_FILES) {
      // Three descriptors each (the file, its -wal and -shm): many resources times many grids would hold thousands.
      const [oldestKey, oldest] = this.open.entries().next().value as [string, Promise<OpenCache>];
      this.open.delete(oldestKey);
      this.ready.delete(oldestKey);
      oldest.then((c) => c.cache.close()).catch(() => undefined);
    }
    opening.then(
      (c) => void (this.open.get(key) === opening && this.ready.set(key, c)),
      () => this.open.get(key) === opening && this.open.delete(key),
    );
    return opening;
  }

  private async openVersion(source: GridTileSource, grid: Grid, version: string): Promise<OpenCache> {
    const dir = this.folder(source, grid);
    const file = join(dir, `${version}.gpkg`);
    const srs: GpkgSrs = await this.srsOf(grid);
    const gpkg = gpkgGridOf(grid, srs, [Number(grid.matrices[0].id), Number(grid.matrices[grid.matrices.length - 1].id)]);
    const bounds = await boundsInGrid(this.options.transform, grid, source.store.info.bounds);
    mkdirSync(dir, { recursive: true });
    if (!existsSync(file)) GpkgTileCache.create(file, gpkg);
    for (const name of readdirSync(dir)) {
      if (name.startsWith(version)) continue;
      // Another version's file (and its -wal, -shm): tiles of data or of a definition no longer served.
      if (name.endsWith('.gpkg') || name.endsWith('.gpkg-wal') || name.endsWith('.gpkg-shm')) rmSync(join(dir, name), { force: true });
    }
    return { version, cache: new GpkgTileCache(file, gpkg), grid: gpkg, bounds };
  }

  private srsOf(grid: Grid): Promise<GpkgSrs> {
    let s = this.srs.get(grid.epsg);
    if (!s) {
      s = gpkgSrsOf(grid, this.options.wkt1);
      this.srs.set(grid.epsg, s);
      s.catch(() => this.srs.delete(grid.epsg));
    }
    return s;
  }

  close(): void {
    for (const p of this.open.values()) p.then((c) => c.cache.close()).catch(() => undefined);
    this.open.clear();
    this.ready.clear();
  }
}
