// Pre-rendering: every tile of a map's render variants over zooms and an area, drawn metatile by metatile into a
// staging copy of the map's render store and published by rename when complete, so that serving never waits for
// them. Resumable: a staging file left by a stopped run is continued, and a metatile whose tiles are all there is
// not drawn again. The server's open render store sees the published file at its next check (render-store.ts).

import Database from 'better-sqlite3';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ServiceError } from '../errors';
import { tileRange, type TileRange } from '../geo/mercator';
import { createRenderStore, RenderStore, renderDir, renderStorePath, type RenderFormat } from '../store/renders/render-store';
import type { TileStore } from '../store/tile-reader';
import type { Bounds } from '../store/types';
import type { RenderedTiles } from './rendered-tiles';
import type { MapRenderer } from './renderer/types';

export interface PrerenderOptions {
  map: TileStore;
  renderer: MapRenderer;
  renderedTiles: RenderedTiles;
  dataDir: string;
  /** Zooms of the 512 px tiles (a 256 px variant renders one zoom more at each end, covering the same area). */
  zooms: [number, number];
  /** Areas (lon/lat); absent: the map's bounds. */
  bboxes?: Bounds[];
  sizes: (256 | 512)[];
  scales: (1 | 2)[];
  formats: RenderFormat[];
  /** Edge of a metatile in tiles. */
  metatile: number;
  signal?: AbortSignal;
  /** Called after each metatile: metatiles done (drawn or already there) of the total, and those drawn by this run. */
  progress?: (done: number, total: number, drawn: number) => void;
}

export interface PrerenderResult {
  file: string;
  version: string;
  metatiles: number;
  /** Metatiles drawn by this run (the rest were there: a resumed run). */
  drawn: number;
  tiles: number;
  /** The run stopped (its signal) before the end: the staging file is kept for the next run. */
  stopped: boolean;
}

interface Metatile {
  tileSize: 256 | 512;
  scale: 1 | 2;
  z: number;
  x0: number;
  y0: number;
  n: number;
}

/** The metatiles covering `ranges` at zoom z, aligned on multiples of `n` (as on-demand renders align them). */
function metatilesOf(range: TileRange, z: number, n: number): { x0: number; y0: number; n: number }[] {
  const out: { x0: number; y0: number; n: number }[] = [];
  const size = Math.min(n, 2 ** z);
  for (let y0 = Math.floor(range.minY / size) * size; y0 <= range.maxY; y0 += size) {
    for (let x0 = Math.floor(range.minX / size) * size; x0 <= range.maxX; x0 += size) out.push({ x0, y0, n: size });
  }
  return out;
}

/** Every metatile of a pre-render, zoom by zoom. */
export function prerenderPlan(o: Pick<PrerenderOptions, 'zooms' | 'bboxes' | 'sizes' | 'scales' | 'metatile'> & { bounds: Bounds }): Metatile[] {
  const areas = o.bboxes?.length ? o.bboxes : [o.bounds];
  const plan: Metatile[] = [];
  for (const tileSize of o.sizes) {
    const shift = tileSize === 256 ? 1 : 0;
    for (let z512 = o.zooms[0]; z512 <= o.zooms[1]; z512++) {
      const z = z512 + shift;
      const seen = new Set<string>();
      for (const area of areas) {
        for (const m of metatilesOf(tileRange(area, z), z, o.metatile)) {
          const key = `${m.x0}/${m.y0}`;
          if (seen.has(key)) continue;
          seen.add(key);
          for (const scale of o.scales) plan.push({ tileSize, scale, z, ...m });
        }
      }
    }
  }
  return plan;
}

/** The tiles of a metatile, clipped to its zoom's grid (in one format). */
export function metatileTiles(m: Pick<Metatile, 'z' | 'x0' | 'y0' | 'n'>): number {
  const side = 2 ** m.z;
  return Math.max(0, Math.min(m.n, side - m.x0)) * Math.max(0, Math.min(m.n, side - m.y0));
}

/** Whether every tile of a metatile (clipped to its zoom's grid) is in the store in every format. */
function complete(store: RenderStore, m: Metatile, formats: RenderFormat[]): boolean {
  const last = 2 ** m.z - 1;
  for (let y = m.y0; y < m.y0 + m.n && y <= last; y++) {
    for (let x = m.x0; x < m.x0 + m.n && x <= last; x++) {
      for (const format of formats) if (!store.has({ tileSize: m.tileSize, scale: m.scale, format }, m.z, x, y)) return false;
    }
  }
  return true;
}

/** Runs a pre-render to its end (or its signal): the render store of the map's current version, published. */
export async function prerender(o: PrerenderOptions): Promise<PrerenderResult> {
  const { map, renderer, renderedTiles, dataDir } = o;
  const facts = renderedTiles.style(map);
  if (!facts) throw new ServiceError('unavailable', `Map ${map.info.id} cannot be rendered: its style reads no mirrored tile set (mirror its dependencies)`);
  const state = renderer.state();
  if (!state.enabled) throw new ServiceError('unavailable', `Rendering is off: ${state.reason ?? 'disabled'}`);
  const drawable = renderedTiles.drawable(map, 512);
  if (drawable && o.zooms[1] > drawable.maxzoom) throw new ServiceError('invalid', `The style of ${map.info.id} draws zooms ${drawable.minzoom}-${drawable.maxzoom}`);
  const { version } = facts;
  const file = renderStorePath(dataDir, map.info.id, version);
  const staging = join(renderDir(dataDir, map.info.id), `.${version}.staging.mbtiles`);
  if (!existsSync(staging)) {
    if (existsSync(file)) {
      // A consistent copy of the published store, made through SQLite while the server may be writing to it.
      const db = new Database(file, { readonly: true, fileMustExist: true, timeout: 5000 });
      try {
        await db.backup(staging);
      } finally {
        db.close();
      }
    } else createRenderStore(staging, { name: map.info.name, attribution: map.info.attribution, version });
  }
  const store = new RenderStore(staging, true);
  const plan = prerenderPlan({ ...o, bounds: map.info.bounds });
  let done = 0;
  let drawn = 0;
  let stopped = false;
  try {
    for (const m of plan) {
      if (o.signal?.aborted) {
        stopped = true;
        break;
      }
      if (!complete(store, m, o.formats)) {
        const tiles = await renderer.renderMetatile({ mapId: map.info.id, styleVersion: map.info.version, ...m, formats: o.formats }, o.signal);
        store.put(tiles.map((t) => ({ tileSize: t.tile.tileSize, scale: t.tile.scale, format: t.tile.format, z: t.tile.z, x: t.tile.x, y: t.tile.y, data: t.data })));
        drawn++;
      }
      o.progress?.(++done, plan.length, drawn);
    }
  } catch (err) {
    if (!(err instanceof ServiceError && err.kind === 'abandoned' && o.signal?.aborted)) throw err;
    stopped = true;
  } finally {
    store.close();
  }
  if (stopped) return { file: staging, version, metatiles: plan.length, drawn, tiles: 0, stopped };
  const check = new Database(staging, { fileMustExist: true });
  let tiles: number;
  try {
    const ok = check.pragma('integrity_check', { simple: true });
    if (ok !== 'ok') {
      check.close();
      rmSync(staging, { force: true });
      throw new Error(`the rendered store failed its integrity check (${String(ok)}); it was removed`);
    }
    tiles = check.prepare('SELECT (SELECT count(*) FROM tiles) + (SELECT count(*) FROM tilemirror_tiles)').pluck().get() as number;
  } finally {
    if (check.open) check.close();
  }
  renameSync(staging, file);
  return { file, version, metatiles: plan.length, drawn, tiles, stopped: false };
}
