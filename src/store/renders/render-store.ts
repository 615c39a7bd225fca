// The renders of one map kept on disk: an MBTiles file per map and render version,
// `{data}/.renders/maps/{mapId}/{version}.mbtiles`, where the version is a digest of the map's style and of the
// tile sets its style draws from (rendered-tiles.ts), so that a new style or new data never serves old renders.
// One pyramid per variant a client can ask for: '512', '256', '512@2x', '256.webp', … (png is the base format).
// The writer instance writes renders as they are made (one transaction per metatile); a read-only instance (its
// data volume mounted read-only) opens the file read-only and serves what the writer kept. The render job writes
// a copy and publishes it by rename: an open store sees the new file at its next check (`current`).

import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MAX_ZOOM } from '../../geo/mercator';
import { TileTables, tmsRow } from '../mbtiles/sql';
import { StoreWriter } from '../mbtiles/writer';
import type { Pyramid } from '../types';

export type RenderFormat = 'png' | 'jpg' | 'webp';

/** One variant of a map's rendered tiles: the served path's size, scale and format. */
export interface RenderVariant {
  tileSize: 256 | 512;
  scale: 1 | 2;
  format: RenderFormat;
}

/** A rendered tile to keep: its variant, XYZ address and encoded bytes. */
export interface KeptRender extends RenderVariant {
  z: number;
  x: number;
  y: number;
  data: Buffer;
}

const FORMATS: readonly RenderFormat[] = ['png', 'jpg', 'webp'];

/** The pyramid name of a variant, as a mirrored map names its pyramids: '512', '256@2x', '512.webp'. */
export function renderPyramidName(v: RenderVariant): string {
  return `${v.tileSize}${v.scale === 2 ? '@2x' : ''}${v.format === 'png' ? '' : `.${v.format}`}`;
}

/** Every variant's pyramid, the whole world at every zoom (a render store holds what was asked, nothing planned). */
export const RENDER_PYRAMIDS: readonly Pyramid[] = ([512, 256] as const).flatMap((tileSize) =>
  ([1, 2] as const).flatMap((scale) =>
    FORMATS.map((format) => ({
      name: renderPyramidName({ tileSize, scale, format }),
      tileSize,
      scale,
      format,
      minzoom: 0,
      maxzoom: MAX_ZOOM,
      bounds: [-180, -85.0511287798066, 180, 85.0511287798066] as [number, number, number, number],
    })),
  ),
);

/** The folder of a map's render stores. */
export function renderDir(dataDir: string, mapId: string): string {
  return join(dataDir, '.renders', 'maps', mapId);
}

/** The render store of a map at one render version. */
export function renderStorePath(dataDir: string, mapId: string, version: string): string {
  return join(renderDir(dataDir, mapId), `${version}.mbtiles`);
}

/** Deletes a map's render stores of other versions (and their staging files): they can never be served again. */
export function pruneRenderStores(dataDir: string, mapId: string, keepVersion: string): string[] {
  const dir = renderDir(dataDir, mapId);
  if (!existsSync(dir)) return [];
  const gone: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === `${keepVersion}.mbtiles` || name.startsWith(`.${keepVersion}.`)) continue;
    rmSync(join(dir, name), { force: true });
    gone.push(name);
  }
  return gone;
}

/** Creates an empty render store at `file` (its folder too): MBTiles with every variant's pyramid. */
export function createRenderStore(file: string, meta: { name: string; attribution: string; version: string }): void {
  mkdirSync(dirname(file), { recursive: true });
  new StoreWriter(file, {
    kind: 'maps',
    name: meta.name,
    description: `Raster tiles rendered here from the style of ${meta.name}`,
    attribution: meta.attribution,
    pyramids: [...RENDER_PYRAMIDS],
    extraMetadata: { 'tilemirror:render_version': meta.version },
  }).close();
}

const fileId = (file: string): string => {
  const s = statSync(file);
  return `${s.ino}:${s.dev}`;
};

/**
 * An open render store. Reads and writes go through one connection (read-only when the process may not write);
 * `current()` reopens it when the file was replaced (a render job's publish).
 */
export class RenderStore {
  private db: Database.Database;
  private tiles: TileTables;
  private id: string;

  constructor(
    readonly file: string,
    readonly writable: boolean,
  ) {
    [this.db, this.tiles, this.id] = this.open();
  }

  private open(): [Database.Database, TileTables, string] {
    const db = new Database(this.file, { readonly: !this.writable, fileMustExist: true, timeout: 5000 });
    return [db, new TileTables(db, RENDER_PYRAMIDS[0].name), fileId(this.file)];
  }

  /** Reopens the file when it was replaced since it was opened; false when it is gone. */
  current(): boolean {
    let id: string;
    try {
      id = fileId(this.file);
    } catch {
      return false;
    }
    if (id !== this.id) {
      this.db.close();
      [this.db, this.tiles, this.id] = this.open();
    }
    return true;
  }

  get(v: RenderVariant, z: number, x: number, y: number): Buffer | undefined {
    return this.tiles.get(renderPyramidName(v), z, x, tmsRow(z, y));
  }

  has(v: RenderVariant, z: number, x: number, y: number): boolean {
    return this.tiles.has(renderPyramidName(v), z, x, tmsRow(z, y));
  }

  /** Keeps renders, in one transaction. */
  put(renders: readonly KeptRender[]): void {
    if (!this.writable) throw new Error(`${this.file} is open read-only`);
    this.db.transaction(() => {
      for (const r of renders) this.tiles.put(renderPyramidName(r), r.z, r.x, tmsRow(r.z, r.y), r.data);
    })();
  }

  /** Tiles kept (every variant). */
  count(): number {
    return this.tiles.count();
  }

  close(): void {
    this.db.close();
  }
}
