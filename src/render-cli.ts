// `tilemirror render maps/ID --zoom A-B [--bbox W,S,E,N]`: pre-renders a map's raster tiles into its render store
// (services/prerender.ts); `tilemirror render --config FILE NAME` runs the configured render job NAME the same way
// and records it in the job state file as a server's run is (mirror/jobs/render-job.ts). The browsers load the
// map's style and tiles from a server of their own, on a loopback port of this process over the same data
// directory; the run is resumable (Ctrl-C keeps what was drawn) and publishes atomically. Reports in lines;
// src/cli.ts calls this.

import { resolve } from 'node:path';
import type { Config } from './config/schema';
import { ServiceError } from './errors';
import type { RunRecord } from './job-contracts';
import { createLogger, startServer, type HttpServer } from './http/server';
import { progressPersister, recordRunEnd, recordRunStart } from './mirror/jobs/job-status';
import { configuredRenderJobs, selectJobs } from './mirror/jobs/jobs-config';
import { runRenderJob } from './mirror/jobs/render-job';
import { renderHost } from './serve';
import { JobStateFile } from './store/data-dir/job-state';
import { parseBBox, parseZoomRange } from './mirror/plan';
import { prerender, type PrerenderResult } from './services/prerender';
import { defaultGridZooms, prerenderGrid, type GridPrerenderResult } from './services/wms/grid-prerender';
import type { GridTileFormat } from './services/wms/kept-grid-tiles';
import { gridSource } from './ogc/grid-tilesets';
import type { RenderFormat } from './store/renders/render-store';
import { isStoreId, type Bounds } from './store/types';

export class RenderCommandError extends Error {}

export interface RenderCommandOptions {
  resource: string;
  zoom?: string;
  bbox: string[];
  sizes: string;
  scales: string;
  formats: string;
}

function list<T>(text: string, allowed: readonly T[], what: string): T[] {
  const items = text.split(',').map((s) => s.trim());
  const out = items.map((i) => allowed.find((a) => String(a) === i));
  if (!items.length || out.some((o) => o === undefined)) throw new RenderCommandError(`--${what} ${text}: use ${allowed.join(', ')} (comma-separated)`);
  return [...new Set(out as T[])];
}

/**
 * Runs `work` with a server of this process's own on loopback (the browsers' only origin; it runs no jobs and keeps
 * no renders itself) and a signal that Ctrl-C or SIGTERM aborts.
 */
async function withLocalServer<T>(config: Config, say: (line: string) => void, work: (server: HttpServer, signal: AbortSignal) => Promise<T>): Promise<T> {
  const local: Config = { ...config, server: { ...config.server, host: '127.0.0.1', port: 0 }, metrics: { ...config.metrics, enabled: false } };
  const log = createLogger({ ...local, logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel });
  const server = await startServer(local, log);
  const controller = new AbortController();
  const stop = (): void => {
    say('stopping after the metatiles in flight; run the same command again to resume');
    controller.abort();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    return await work(server, controller.signal);
  } catch (err) {
    if (err instanceof ServiceError) throw new RenderCommandError(err.message);
    throw err;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    // The browsers first: their keep-alive connections to the server go with them, and nothing is cut.
    await server.services.renderer.close();
    await server.close(1000);
  }
}

/** A progress line at most a second, and the last one, counting `unit`. */
function progressLines(say: (line: string) => void, unit = 'metatiles'): (resource: string, done: number, total: number) => void {
  let last = 0;
  return (resource, done, total) => {
    const now = Date.now();
    if (done !== total && now - last <= 1000) return;
    last = now;
    say(`${resource}: ${done}/${total} ${unit}`);
  };
}

/** Runs the configured render job `name`, recorded in the job state file; `say` gets the lines to print on stderr. */
export async function renderJobCommand(config: Config, name: string, say: (line: string) => void): Promise<RunRecord> {
  const jobs = configuredRenderJobs(config);
  const mirrorJob = config.mirror.jobs.find((j) => j.name === name && j.kind !== 'render');
  if (mirrorJob) throw new RenderCommandError(`${name} is a mirror job: run it with tilemirror mirror --config FILE ${name}`);
  let job;
  try {
    [job] = selectJobs(jobs, [name]);
  } catch (err) {
    throw new RenderCommandError((err as Error).message);
  }
  const state = new JobStateFile(config.data, (e) => say(`warning: cannot write the job state ${config.data}: ${e.message}`));
  return withLocalServer(config, say, async (server, signal) => {
    say(`job ${name}: rendering ${job.resources.map((r) => `${r.kind}/${r.id}`).join(', ')}, zooms ${job.zoom[0]}-${job.zoom[1]}`);
    const startedAt = new Date();
    recordRunStart(state, name, 'manual', startedAt);
    const persist = progressPersister(state, name);
    const progress = progressLines(say);
    const record = await runRenderJob(job, renderHost(server, config), 'manual', {
      signal,
      log: (line, resource) => say(`${resource}: ${line}`),
      onProgress: (p) => {
        persist(p);
        progress(p.resource, p.done, p.total);
      },
    });
    recordRunEnd(state, name, record);
    const drawn = record.metatiles ? `, ${record.metatiles.drawn} of ${record.metatiles.planned} metatiles drawn` : '';
    say(`job ${name}: ${record.result}, ${record.tiles.stored} tiles${drawn}${record.lastError ? `; last error: ${record.lastError}` : ''}`);
    return record;
  });
}

/** Runs the pre-render; `say` gets the lines to print on stderr. */
export async function renderCommand(config: Config, o: RenderCommandOptions, say: (line: string) => void): Promise<PrerenderResult> {
  const m = /^maps\/(.+)$/.exec(o.resource);
  if (!m || !isStoreId(m[1])) throw new RenderCommandError(`"${o.resource}" is not a map: expected maps/ID (or a render job's name, with --config FILE)`);
  if (!o.zoom) throw new RenderCommandError(`--zoom is required with ${o.resource}`);
  let zooms: [number, number];
  let bboxes: Bounds[];
  try {
    zooms = parseZoomRange(o.zoom);
    bboxes = o.bbox.map(parseBBox);
  } catch (err) {
    throw new RenderCommandError((err as Error).message);
  }
  const sizes = list(o.sizes, [512, 256] as const, 'sizes');
  const scales = list(o.scales, [1, 2] as const, 'scales');
  const formats = list<RenderFormat>(o.formats, ['png', 'jpg', 'webp'], 'formats');
  // A constant for the closure below (`zooms` is assigned in a try).
  const zoomRange = zooms;
  return withLocalServer(config, say, async (server, signal) => {
    const map = server.catalog.get('maps', m[1]);
    if (!map) throw new RenderCommandError(`maps/${m[1]} is not in ${resolve(config.data)}`);
    const { renderer, renderedTiles } = server.services;
    if (!renderer) throw new RenderCommandError('this server has no renderer');
    const progress = progressLines(say);
    const result = await prerender({
      map,
      renderer,
      renderedTiles,
      dataDir: server.catalog.dataDir,
      zooms: zoomRange,
      bboxes,
      sizes,
      scales,
      formats,
      metatile: config.render.metatile,
      parallel: config.render.browsers,
      signal,
      progress: (done, total) => progress(`maps/${m[1]}`, done, total),
    });
    say(
      result.stopped
        ? `maps/${m[1]}: stopped after ${result.drawn} metatiles drawn; kept in ${result.file}`
        : `maps/${m[1]}: ${result.tiles} tiles in ${result.file} (${result.drawn} of ${result.metatiles} metatiles drawn by this run)`,
    );
    return result;
  });
}

export interface RenderGridCommandOptions {
  resource: string;
  grid: string;
  zoom?: string;
  bbox: string[];
  formats: string;
}

/**
 * `tilemirror render KIND/ID --grid NAME`: draws and keeps the resource's tiles in a configured grid besides Web
 * Mercator (services/wms/grid-prerender.ts), the zooms being the grid's matrix identifiers (default: from its first to
 * the one as fine as the resource's deepest tiles).
 */
export async function renderGridCommand(config: Config, o: RenderGridCommandOptions, say: (line: string) => void): Promise<GridPrerenderResult> {
  const m = /^(maps|tiles|images)\/(.+)$/.exec(o.resource);
  if (!m || !isStoreId(m[2])) throw new RenderCommandError(`"${o.resource}" is not a raster resource: expected maps/ID, tiles/ID or images/ID`);
  const [, kind, id] = m;
  let zooms: [number, number] | undefined;
  let bboxes: Bounds[];
  try {
    zooms = o.zoom === undefined ? undefined : parseZoomRange(o.zoom);
    bboxes = o.bbox.map(parseBBox);
  } catch (err) {
    throw new RenderCommandError((err as Error).message);
  }
  const formats = list<GridTileFormat>(o.formats, ['png', 'jpg', 'webp'], 'formats');
  const asked = zooms;
  return withLocalServer(config, say, async (server, signal) => {
    const store = server.catalog.get(kind as 'maps' | 'tiles' | 'images', id);
    if (!store) throw new RenderCommandError(`${o.resource} is not in ${resolve(config.data)}`);
    const { gridTiles, keptGridTiles } = server.services;
    const grid = gridTiles.grid(o.grid);
    if (!grid) throw new RenderCommandError(`no grid ${o.grid} in the configuration (grids: ${gridTiles.grids.map((g) => g.id).join(', ') || 'none'})`);
    const pyramid = gridSource(store.info);
    if (!pyramid) throw new RenderCommandError(`${o.resource} has no raster tiles to draw ${o.grid} tiles from`);
    const range = asked ?? defaultGridZooms(grid, pyramid);
    const source = { store, pyramidName: pyramid.name, name: o.resource };
    let total: GridPrerenderResult = { tiles: 0, drawn: 0, stopped: false };
    for (const format of formats) {
      const progress = progressLines(say, 'tiles');
      const r = await prerenderGrid({ source, grid, zooms: range, bboxes, format, kept: keptGridTiles, signal, progress: (done, count) => progress(`${o.resource} ${grid.id} ${format}`, done, count) });
      say(`${o.resource} ${grid.id} ${format}: ${r.stopped ? 'stopped after' : 'done,'} ${r.drawn} tiles drawn, ${r.tiles} in the plan (zooms ${range[0]}-${range[1]}), kept in ${keptGridTiles.folder(source, grid)}`);
      total = { tiles: total.tiles + r.tiles, drawn: total.drawn + r.drawn, stopped: r.stopped };
      if (r.stopped) break;
    }
    return total;
  });
}
