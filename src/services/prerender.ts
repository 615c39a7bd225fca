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
import type { MapRenderer, RenderedTile } from './renderer/types';

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
  /** Metatiles drawn at once here (the renderer's browsers): default 1. */
  parallel?: number;
  /** Offers the run's bands to other instances and takes what they drew (absent: every band is drawn here). */
  sharing?: RunSharing;
  signal?: AbortSignal;
  /**
   * Called after each metatile: metatiles done (drawn or already there) of the total, those drawn by this run here,
   * and those other instances drew for it.
   */
  progress?: (done: number, total: number, drawn: number, elsewhere: number) => void;
}

/** Metatiles handed out together: one lock, one "done" mark. */
export const BAND_METATILES = 4;

/** What other instances are told of a run so that they can draw its bands. */
export interface SharedRunSpec {
  mapId: string;
  /** The map store's version: renders of another are refused by the renderer. */
  styleVersion: string;
  /** The render version (the map's and its sources' files): a helper draws only when it reads the same files. */
  version: string;
  formats: RenderFormat[];
  /** The metatiles to draw, in bands of at most BAND_METATILES. */
  bands: Metatile[][];
}

/** A metatile another instance drew: its band, its place in the band, its tiles. */
export interface DrawnMetatile {
  band: number;
  index: number;
  tiles: RenderedTile[];
}

/** A band this instance holds: drawn while `signal` is not aborted (the hold was lost), then released. */
export interface BandLease {
  signal: AbortSignal;
  release(): Promise<void>;
}

/** One run as offered to other instances (mirror/jobs/render-share.ts keeps it in Redis). */
export interface SharedRun {
  /** Takes band `i` to draw here; undefined when another instance holds it or it is drawn. */
  claim(i: number): Promise<BandLease | undefined>;
  /** Marks band `i` drawn (its tiles are in the store, or queued for it). */
  done(i: number): Promise<void>;
  /** The bands marked drawn, here or elsewhere. */
  doneBands(): Promise<Set<number>>;
  /** Metatiles drawn elsewhere and not yet taken, at most `max`, oldest first. */
  take(max: number): Promise<DrawnMetatile[]>;
  /** How many drawn metatiles wait to be taken. */
  waiting(): Promise<number>;
  /** Withdraws the offer: helpers stop, what they queued is dropped. */
  close(): Promise<void>;
}

export interface RunSharing {
  open(spec: SharedRunSpec): Promise<SharedRun>;
}

/** A run no one else sees: every band is free and drawn here. */
function localRun(): SharedRun {
  const claimed = new Set<number>();
  const done = new Set<number>();
  const never = new AbortController().signal;
  return {
    claim: async (i) => (claimed.has(i) ? undefined : (claimed.add(i), { signal: never, release: async () => undefined })),
    done: async (i) => void done.add(i),
    doneBands: async () => new Set(done),
    take: async () => [],
    waiting: async () => 0,
    close: async () => undefined,
  };
}

export interface PrerenderResult {
  file: string;
  version: string;
  metatiles: number;
  /** Metatiles drawn by this run here (the rest were there, a resumed run, or drawn elsewhere). */
  drawn: number;
  /** Metatiles of this run drawn by other instances. */
  elsewhere: number;
  tiles: number;
  /** The run stopped (its signal) before the end: the staging file is kept for the next run. */
  stopped: boolean;
}

export interface Metatile {
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

/** Whether a tile is one of metatile `m`'s, in a format of the run. */
function belongs(t: RenderedTile['tile'], m: Metatile, formats: RenderFormat[]): boolean {
  return t.tileSize === m.tileSize && t.scale === m.scale && t.z === m.z && t.x >= m.x0 && t.x < m.x0 + m.n && t.y >= m.y0 && t.y < m.y0 + m.n && formats.includes(t.format);
}

/** Resolves after `ms`, or at once when `signal` fires. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
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
  let drawn = 0;
  let elsewhere = 0;
  let stopped = false;
  try {
    const todo = plan.filter((m) => !complete(store, m, o.formats));
    const bands: Metatile[][] = [];
    for (let i = 0; i < todo.length; i += BAND_METATILES) bands.push(todo.slice(i, i + BAND_METATILES));
    const finished = new Set<Metatile>();
    const report = (): void => o.progress?.(plan.length - todo.length + finished.size, plan.length, drawn, elsewhere);
    const keep = (m: Metatile, tiles: RenderedTile[]): void => {
      store.put(tiles.map((t) => ({ tileSize: t.tile.tileSize, scale: t.tile.scale, format: t.tile.format, z: t.tile.z, x: t.tile.x, y: t.tile.y, data: t.data })));
      finished.add(m);
      report();
    };
    report();
    const run = bands.length > 0 && o.sharing ? await o.sharing.open({ mapId: map.info.id, styleVersion: map.info.version, version, formats: o.formats, bands }) : localRun();
    try {
      // Takes what other instances drew; one taker at a time, as each take removes what it returns.
      let taking = Promise.resolve();
      const takeDrawn = (): Promise<void> =>
        (taking = taking.then(async () => {
          for (;;) {
            const got = await run.take(16);
            for (const d of got) {
              const m = bands[d.band]?.[d.index];
              if (!m || !d.tiles.every((t) => belongs(t.tile, m, o.formats))) throw new Error(`another instance sent tiles of no metatile of this run (band ${d.band}, ${d.index})`);
              // A band drawn twice (its first holder lost its lock, then finished anyway) is stored once.
              if (finished.has(m)) continue;
              elsewhere++;
              keep(m, d.tiles);
            }
            if (got.length < 16) return;
          }
        }));
      const drawBand = async (i: number): Promise<boolean> => {
        const lease = await run.claim(i);
        if (!lease) return false;
        try {
          for (const m of bands[i]) {
            if (o.signal?.aborted || lease.signal.aborted) return true;
            const tiles = await renderer.renderMetatile({ mapId: map.info.id, styleVersion: map.info.version, ...m, formats: o.formats }, o.signal);
            drawn++;
            keep(m, tiles);
            await takeDrawn();
          }
          await run.done(i);
        } finally {
          await lease.release();
        }
        return true;
      };
      while (!o.signal?.aborted) {
        await takeDrawn();
        const done = await run.doneBands();
        // Results are queued before their band is marked done, and only this run takes them: with every band
        // done and nothing waiting, every metatile is in the store.
        if (done.size >= bands.length && (await run.waiting()) === 0) break;
        const free = bands.map((_, i) => i).filter((i) => !done.has(i));
        let next = 0;
        let drewAny = false;
        let failed = false;
        const workers = await Promise.allSettled(
          Array.from({ length: Math.max(1, o.parallel ?? 1) }, async () => {
            try {
              while (next < free.length && !failed && !o.signal?.aborted) if (await drawBand(free[next++])) drewAny = true;
            } catch (err) {
              failed = true;
              throw err;
            }
          }),
        );
        const failure = workers.find((w) => w.status === 'rejected');
        if (failure) throw failure.reason;
        // Every free band is held elsewhere: wait for their results (or for a lost holder's lock to expire).
        if (!drewAny) await pause(250, o.signal);
      }
      await takeDrawn();
    } finally {
      await run.close();
    }
    if (o.signal?.aborted) stopped = true;
    else {
      const missing = todo.filter((m) => !complete(store, m, o.formats)).length;
      if (missing > 0) throw new Error(`${missing} metatiles are missing after every band was marked drawn`);
    }
  } catch (err) {
    if (!(err instanceof ServiceError && err.kind === 'abandoned' && o.signal?.aborted)) throw err;
    stopped = true;
  } finally {
    store.close();
  }
  if (stopped) return { file: staging, version, metatiles: plan.length, drawn, elsewhere, tiles: 0, stopped };
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
  return { file, version, metatiles: plan.length, drawn, elsewhere, tiles, stopped: false };
}
