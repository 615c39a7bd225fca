// A configured job of `kind: render`: pre-renders the raster tiles of its maps (services/prerender.ts: metatiles
// into a staging copy of the map's render store, resumed by the next run when stopped, published by rename). The
// renderer is the one of the server the job runs in (or of `tilemirror render`'s own loopback server): `serve`
// hands it in as a RenderHost, so the mirror never reaches into http. Its runs are recorded as a mirror job's are,
// with the metatiles planned and drawn beside the tile counts.

import type { JobPlan, JobProgress, ResourceRecord, RunOutcome, RunRecord, TileCounts, Trigger } from '../../job-contracts';
import { checkSpace } from '../../store/data-dir/disk-space';
import type { TileStore } from '../../store/tile-reader';
import { metatileTiles, prerender, prerenderPlan, type RunSharing } from '../../services/prerender';
import type { RenderedTiles } from '../../services/rendered-tiles';
import type { MapRenderer } from '../../services/renderer/types';
import type { Grid } from '../../geo/grids';
import { gridSource } from '../../ogc/grid-tilesets';
import { gridLatitude, gridZoomsLike, prerenderGrid } from '../../services/wms/grid-prerender';
import type { KeptGridTiles } from '../../services/wms/kept-grid-tiles';
import { monthOf } from '../upstream/request-budget';
import type { RenderJob } from './jobs-config';

/** What a render job needs of the server it runs in. */
export interface RenderHost {
  renderer: MapRenderer;
  renderedTiles: RenderedTiles;
  /** The published map store of that id (the server's catalog), if any. */
  map(id: string): TileStore | undefined;
  dataDir: string;
  /** Edge of a metatile in tiles (the `render` section's). */
  metatile: number;
  /** Metatiles drawn at once (the renderer's browsers). */
  parallel: number;
  /** A configured grid besides Web Mercator by identifier (the `grids` section). */
  grid(id: string): Grid | undefined;
  /** Where tiles of those grids are kept. */
  keptGridTiles: KeptGridTiles;
  /** Offers a run of job `name` to the other instances (render-share.ts), when they share a Redis. */
  share?: (name: string) => RunSharing;
}

export interface RenderJobHooks {
  signal?: AbortSignal;
  log?: (line: string, resource: string) => void;
  onProgress?: (p: JobProgress) => void;
}

/** Why a render job cannot start in this process (no renderer, rendering off), or undefined. */
export function renderUnavailable(host: RenderHost | undefined): string | undefined {
  if (!host) return 'this process has no renderer (a render job runs in the server that serves, or with tilemirror render --config)';
  const state = host.renderer.state();
  return state.enabled ? undefined : `rendering is off: ${state.reason ?? 'disabled'}`;
}

/** The metatiles and tiles a run of the job draws at most (the first run; a resumed one draws fewer). */
function planOf(job: RenderJob, host: RenderHost, map: TileStore): { metatiles: number; tiles: number } {
  const plan = prerenderPlan({ zooms: job.zoom, bboxes: job.bboxes, sizes: job.sizes, scales: job.scales, metatile: host.metatile, bounds: map.info.bounds });
  return { metatiles: plan.length, tiles: plan.reduce((n, m) => n + metatileTiles(m), 0) * job.formats.length };
}

const noTiles = (): TileCounts => ({ planned: 0, fetched: 0, stored: 0, empty: 0, skipped: 0, failed: 0 });

/** Pre-renders the Web Mercator tiles of one map of the job (metatiles counted into `metatiles`). Never throws. */
async function renderMapTiles(job: RenderJob, host: RenderHost, map: TileStore, i: number, metatiles: { planned: number; drawn: number; elsewhere: number }, hooks: RenderJobHooks): Promise<ResourceRecord> {
  const resource = `maps/${map.info.id}`;
  const t0 = Date.now();
  const planned = planOf(job, host, map);
  try {
    const r = await prerender({
      map,
      renderer: host.renderer,
      renderedTiles: host.renderedTiles,
      dataDir: host.dataDir,
      zooms: job.zoom,
      bboxes: job.bboxes,
      sizes: job.sizes,
      scales: job.scales,
      formats: job.formats,
      metatile: host.metatile,
      parallel: host.parallel,
      sharing: host.share?.(job.name),
      signal: hooks.signal,
      progress: (done, total, drawnHere, elsewhere) => {
        const drawn = drawnHere + elsewhere;
        const elapsedMs = Date.now() - t0;
        const rate = drawn > 0 ? drawn / (elapsedMs / 1000) : 0;
        hooks.onProgress?.({
          resource,
          resourceIndex: i + 1,
          resources: job.resources.length,
          done,
          total,
          unit: 'metatiles',
          fetched: drawn,
          failed: 0,
          bytes: 0,
          tilesPerSecond: Math.round(rate * 10) / 10,
          ...(done === total ? { etaSeconds: 0 } : rate > 0 ? { etaSeconds: Math.round((total - done) / rate) } : {}),
          elapsedMs,
        });
      },
    });
    const drawn = r.drawn + r.elsewhere;
    metatiles.planned += r.metatiles;
    metatiles.drawn += drawn;
    metatiles.elsewhere += r.elsewhere;
    const status: RunOutcome = r.stopped ? 'interrupted' : 'published';
    const tiles = r.stopped ? 0 : r.tiles;
    hooks.log?.(r.stopped ? `stopped after ${drawn} of ${r.metatiles} metatiles drawn; the next run resumes` : `${r.tiles} tiles published (${drawn} of ${r.metatiles} metatiles drawn by this run${r.elsewhere > 0 ? `, ${r.elsewhere} of them by other instances` : ''})`, resource);
    return { resource, status, ...noTiles(), planned: planned.tiles, stored: tiles, bytes: 0, requests: 0, elapsedMs: Date.now() - t0, problems: [], metatiles: { planned: r.metatiles, drawn, ...(r.elsewhere > 0 && { elsewhere: r.elsewhere }) }, ...(!r.stopped && { version: r.version }) };
  } catch (err) {
    const message = `${resource}: ${err instanceof Error ? err.message : String(err)}`;
    hooks.log?.(`error: ${message}`, resource);
    return { resource, status: 'failed', ...noTiles(), planned: planned.tiles, bytes: 0, requests: 0, elapsedMs: Date.now() - t0, problems: [message.slice(0, 500)] };
  }
}

/** Draws and keeps the tiles of `map` in the grid `id` over the matrices as fine as the job's zooms. Never throws. */
async function renderGridTiles(job: RenderJob, host: RenderHost, map: TileStore, id: string, hooks: RenderJobHooks): Promise<ResourceRecord> {
  const resource = `maps/${map.info.id} in ${id}`;
  const t0 = Date.now();
  const grid = host.grid(id);
  let planned = 0;
  let drawn = 0;
  try {
    if (!grid) throw new Error(`no grid ${id} in the configuration's grids`);
    const zooms = gridZoomsLike(grid, job.zoom, gridLatitude(grid, map.info.bounds));
    const pyramid = gridSource(map.info);
    if (!pyramid) throw new Error('no raster tiles to draw its tiles in a grid from');
    const source = { store: map, pyramidName: pyramid.name, name: `maps/${map.info.id}` };
    for (const format of job.formats) {
      const r = await prerenderGrid({ source, grid, zooms, bboxes: job.bboxes, format, kept: host.keptGridTiles, signal: hooks.signal });
      planned += r.tiles;
      drawn += r.drawn;
      if (r.stopped) {
        hooks.log?.(`stopped after ${drawn} tiles drawn in ${id}; the next run resumes`, resource);
        return { resource, status: 'interrupted', ...noTiles(), planned, bytes: 0, requests: 0, elapsedMs: Date.now() - t0, problems: [] };
      }
    }
    hooks.log?.(`${planned} tiles kept in ${id}, matrices ${zooms[0]}-${zooms[1]} (${drawn} drawn by this run)`, resource);
    return { resource, status: 'published', ...noTiles(), planned, stored: planned, bytes: 0, requests: 0, elapsedMs: Date.now() - t0, problems: [] };
  } catch (err) {
    const message = `${resource}: ${err instanceof Error ? err.message : String(err)}`;
    hooks.log?.(`error: ${message}`, resource);
    return { resource, status: 'failed', ...noTiles(), planned, bytes: 0, requests: 0, elapsedMs: Date.now() - t0, problems: [message.slice(0, 500)] };
  }
}

/** Pre-renders every map of the job, one after another; stops at its signal (the staging files are kept). Never throws. */
export async function runRenderJob(job: RenderJob, host: RenderHost | undefined, trigger: Trigger, hooks: RenderJobHooks = {}): Promise<RunRecord> {
  const started = new Date();
  const resources: ResourceRecord[] = [];
  const problems: string[] = [];
  const metatiles = { planned: 0, drawn: 0, elsewhere: 0 };
  // A job of grids only draws no Web Mercator tile: it needs no renderer (a map with mirrored pyramids).
  const unavailable = job.sizes.length > 0 ? renderUnavailable(host) : host ? undefined : 'this process has no server to draw in (a render job runs in the server that serves, or with tilemirror render --config)';
  if (unavailable) problems.push(unavailable);
  for (const [i, ref] of (unavailable ? [] : job.resources).entries()) {
    if (hooks.signal?.aborted) break;
    const resource = `${ref.kind}/${ref.id}`;
    const map = host!.map(ref.id);
    if (!map) {
      problems.push(`${resource}: not in the data directory (mirror it first)`);
      hooks.log?.(`error: ${resource} is not in the data directory`, resource);
      continue;
    }
    if (job.sizes.length > 0) {
      const record = await renderMapTiles(job, host!, map, i, metatiles, hooks);
      resources.push(record);
      problems.push(...record.problems);
      if (record.status !== 'published') {
        if (record.status === 'interrupted') break;
        continue;
      }
    }
    let stopped = false;
    for (const id of job.grids) {
      if (hooks.signal?.aborted) break;
      const record = await renderGridTiles(job, host!, map, id, hooks);
      resources.push(record);
      problems.push(...record.problems);
      stopped = record.status === 'interrupted';
      if (stopped) break;
    }
    if (stopped) break;
  }
  const tiles = noTiles();
  for (const r of resources) for (const k of Object.keys(tiles) as (keyof TileCounts)[]) tiles[k] += r[k];
  const result: RunOutcome =
    resources.some((r) => r.status === 'interrupted') || (hooks.signal?.aborted && resources.length < job.resources.length)
      ? 'interrupted'
      : problems.length === 0 && resources.every((r) => r.status === 'published')
        ? 'published'
        : 'failed';
  const record: RunRecord = {
    trigger,
    startedAt: started.toISOString(),
    endedAt: new Date().toISOString(),
    result,
    exitCode: result === 'published' ? 0 : result === 'interrupted' ? 3 : 1,
    tiles,
    bytes: 0,
    requests: 0,
    errors: problems.length,
    ...(problems.length > 0 && { lastError: problems[problems.length - 1].slice(0, 500) }),
    resources,
    kind: 'render',
    metatiles: { planned: metatiles.planned, drawn: metatiles.drawn, ...(metatiles.elsewhere > 0 && { elsewhere: metatiles.elsewhere }) },
  };
  return record;
}

/** The next run's plan: its tiles at most (no upstream request, no size estimate: renders are small and resumed). */
export function planRenderJob(job: RenderJob, host: RenderHost | undefined, dataDir: string): JobPlan {
  const resources: JobPlan['resources'] = job.resources.map((ref) => {
    const map = host?.map(ref.id);
    const tiles = host && map ? planOf(job, host, map).tiles : 0;
    return { resource: `${ref.kind}/${ref.id}`, tiles, estimatedBytes: 0, estimateBasis: 'none', requiredBytes: 0, requests: 0, savedByRender: 0 };
  });
  const tiles = resources.reduce((n, r) => n + r.tiles, 0);
  const space = checkSpace(dataDir, 0, 0, `job ${job.name} (${tiles} tiles to render)`);
  const month = monthOf(Date.now());
  return {
    tiles,
    estimatedBytes: 0,
    estimateBasis: 'none',
    estimatedSeconds: null,
    freeBytes: space.freeBytes,
    requiredBytes: space.requiredBytes,
    fits: space.fits,
    message: space.message,
    requests: { expected: 0, tiles: 0, documents: 0, retries: 0, savedByRender: 0, upstream: '', month, needed: 0, left: null, perMonth: null, fits: true, message: 'a render job sends no upstream request' },
    resources,
  };
}
