// The map renderer (types.ts's MapRenderer): raster tiles drawn by MapLibre GL JS in headless Chromium from a map's
// stored style, one metatile per render, cut and encoded here with sharp. The browsers read this server like any
// client, with a key of their own (made per process by the composition root, never logged), and reach nothing else.

import type { Logger } from 'pino';
import type { Config } from '../../config/schema';
import { ServiceError } from '../../errors';
import { isValidTile } from '../../geo/mercator';
import type { Catalog } from '../../store/catalog/catalog';
import { encodeRaster, sharp } from '../sharp';
import { BUNDLED_PACKAGE, browserProblem, executableOf, RenderBrowser } from './browser';
import { blockOf, MAX_MAPLIBRE_ZOOM, maplibreZoom, metatileEdge, metatileKey, metatileOf, splitArea, viewOf, type Metatile } from './metatile';
import { BrowserPool } from './pool';
import type { MapRenderer, RenderedTile, RendererState, RenderFormat, RenderTile } from './types';

const FORMATS: readonly RenderFormat[] = ['png', 'jpg', 'webp'];

/** A browser with no render for this long is closed: ~0.2-0.5 GB given back; the next render pays a cold start (~5 s). */
const IDLE_CLOSE_MS = 10 * 60_000;

export interface RendererOptions {
  render: Config['render'];
  catalog: Catalog;
  log: Logger;
  /** The key the browsers read this server with: accepted by the server, never written to a log or an answer. */
  key: string;
}

/** A metatile's pixels, decoded once and cut into every tile asked of it. */
interface Pixels {
  meta: Metatile;
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

/** A render shared by every caller asking for a tile of its metatile; stopped when all of them went away. */
interface Shared {
  pixels: Promise<Pixels>;
  stop: AbortController;
  callers: number;
  /** Formats whose other tiles were already handed to a `keep`. */
  kept: Set<RenderFormat>;
}

export class ChromiumRenderer implements MapRenderer {
  private readonly pool: BrowserPool;
  private readonly shared = new Map<string, Shared>();
  private origin: string | undefined;
  private reason: string | undefined;
  private executable: Promise<string> | undefined;
  private started = false;
  /** Origins whose refused requests were already logged (a style pointing elsewhere would log every tile). */
  private readonly refusedOrigins = new Set<string>();

  constructor(private readonly opts: RendererOptions) {
    const { render, log } = opts;
    this.reason = render.enabled ? browserProblem(render.browser) : 'rendering is switched off (render.enabled: false)';
    if (this.reason && render.enabled) log.warn({ browser: render.browser }, `map rendering off: ${this.reason}`);
    this.pool = new BrowserPool({
      size: render.browsers,
      maxWaiting: render.queue,
      deadlineMs: render.deadlineSeconds * 1000,
      idleMs: IDLE_CLOSE_MS,
      launch: () => this.launch(),
      onReplaced: (why, pid) => log.warn({ pid, why: this.hideKey(why) }, 'renderer browser killed and replaced; its render is tried once more'),
    });
  }

  /** The server listens at `baseUrl`: the browsers read it there (an address that listens on every interface is read on loopback). */
  listening(baseUrl: string): void {
    const url = new URL(baseUrl);
    if (url.hostname === '[::]') url.hostname = '[::1]';
    if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
    this.origin = url.origin;
  }

  state(): RendererState {
    const { rendered, failed, restarts } = this.pool.counts;
    const on = this.reason === undefined;
    return {
      enabled: on,
      ...(on ? { browser: this.opts.render.browser === 'bundled' ? `bundled (${BUNDLED_PACKAGE})` : this.opts.render.browser } : { reason: this.reason }),
      browsers: this.pool.running.length,
      inFlight: this.pool.inFlight,
      waiting: this.pool.queued,
      rendered,
      failed,
      restarts,
    };
  }

  async render(tile: RenderTile, options: { signal?: AbortSignal; keep?: (tiles: RenderedTile[]) => void } = {}): Promise<Buffer> {
    this.checkOn();
    if (!FORMATS.includes(tile.format)) throw new ServiceError('invalid', `Invalid format: ${String(tile.format)} (png, jpg or webp)`);
    this.checkArea(tile, tile.z, tile.x, tile.y);
    const meta = metatileOf(tile, metatileEdge(this.opts.render.metatile, tile.tileSize, tile.scale));
    const shared = this.sharedRender(meta);
    const pixels = await this.wait(shared, options.signal);
    const data = await cut(pixels, tile.x, tile.y, tile.format);
    const { keep } = options;
    if (keep && !shared.kept.has(tile.format)) {
      shared.kept.add(tile.format);
      // After the answer: the other tiles are for the store, nobody waits for them.
      void this.cutAll(pixels, [tile.format], tile).then(
        (others) => others.length > 0 && keep(others),
        (err: unknown) => this.opts.log.error({ err: (err as Error).message }, 'rendered tiles could not be cut'),
      );
    }
    return data;
  }

  async renderMetatile(area: Omit<RenderTile, 'x' | 'y' | 'format'> & { x0: number; y0: number; n: number; formats: RenderFormat[] }, signal?: AbortSignal): Promise<RenderedTile[]> {
    this.checkOn();
    const bad = area.formats.find((f) => !FORMATS.includes(f));
    if (bad !== undefined || area.formats.length === 0) throw new ServiceError('invalid', `Invalid formats: ${area.formats.join(', ') || 'none'} (png, jpg or webp)`);
    if (!Number.isInteger(area.n) || area.n < 1) throw new ServiceError('invalid', `Invalid metatile edge: ${area.n}`);
    this.checkArea(area, area.z, area.x0, area.y0);
    const whole = blockOf(area, area.z, area.x0, area.y0, area.n, area.n);
    const out: RenderedTile[] = [];
    // One piece after another: a job's area takes one browser at a time and never fills the queue by itself.
    for (const piece of splitArea(whole, metatileEdge(this.opts.render.metatile, area.tileSize, area.scale))) {
      const pixels = await this.wait(this.sharedRender(piece), signal);
      out.push(...(await this.cutAll(pixels, area.formats)));
    }
    return out;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private checkOn(): void {
    if (this.reason !== undefined) throw new ServiceError('unavailable', `Map rendering is off: ${this.reason}`);
    if (this.origin === undefined) throw new ServiceError('unavailable', 'Map rendering is not ready: the server does not listen yet');
  }

  /** The map must exist with a stored style of the version asked, and the tile lie in its zoom's matrix within MapLibre's zooms. */
  private checkArea(t: Pick<RenderTile, 'mapId' | 'styleVersion' | 'tileSize' | 'scale'>, z: number, x: number, y: number): void {
    if (t.tileSize !== 256 && t.tileSize !== 512) throw new ServiceError('invalid', `Invalid tile size: ${String(t.tileSize)} (256 or 512)`);
    if (t.scale !== 1 && t.scale !== 2) throw new ServiceError('invalid', `Invalid scale: ${String(t.scale)} (1 or 2)`);
    if (!isValidTile(z, x, y)) throw new ServiceError('invalid', `Invalid tile: ${z}/${x}/${y}`);
    if (maplibreZoom(z, t.tileSize) > MAX_MAPLIBRE_ZOOM) throw new ServiceError('invalid', `Invalid zoom: ${z} (the renderer draws ${t.tileSize} px tiles up to zoom ${MAX_MAPLIBRE_ZOOM - Math.log2(t.tileSize / 512)})`);
    const store = this.opts.catalog.get('maps', t.mapId);
    if (!store) throw new ServiceError('not-found', `Unknown map: ${t.mapId}`);
    if (!store.document('style.json')) throw new ServiceError('not-found', `Map ${t.mapId} has no style to render`);
    if (store.info.version !== t.styleVersion) throw new ServiceError('conflict', `Map ${t.mapId} changed: its style is at version ${store.info.version}, not ${t.styleVersion}`);
  }

  /** The render of `meta`'s pixels, joined when one is already under way. */
  private sharedRender(meta: Metatile): Shared {
    const key = metatileKey(meta);
    const found = this.shared.get(key);
    // One that every caller left is on its way out (abandoned): a new caller starts another.
    if (found && !found.stop.signal.aborted) return found;
    const stop = new AbortController();
    const pixels = this.pool.run((browser) => this.draw(browser, meta), stop.signal).then(decode);
    const s: Shared = { pixels, stop, callers: 0, kept: new Set() };
    this.shared.set(key, s);
    const forget = () => void (this.shared.get(key) === s && this.shared.delete(key));
    pixels.then(forget, forget);
    return s;
  }

  /** Waits for a shared render; a caller that goes away is `abandoned` at once, and the render stops waiting when every caller has. */
  private wait(s: Shared, signal: AbortSignal | undefined): Promise<Pixels> {
    s.callers++;
    if (!signal) return s.pixels;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (--s.callers === 0) s.stop.abort();
        reject(new ServiceError('abandoned', 'render abandoned: the client went away'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      s.pixels.then(
        (p) => {
          signal.removeEventListener('abort', onAbort);
          resolve(p);
        },
        (err: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
  }

  private async draw(browser: RenderBrowser, meta: Metatile): Promise<{ meta: Metatile; png: Buffer }> {
    const origin = this.origin as string;
    const style = `${origin}/maps/${encodeURIComponent(meta.mapId)}/style.json?key=${encodeURIComponent(this.opts.key)}`;
    try {
      const drawn = await browser.draw(style, viewOf(meta, this.opts.render.margin));
      if (drawn.problems.length > 0) this.opts.log.warn({ map: meta.mapId, z: meta.z, problems: drawn.problems.map((p) => this.hideKey(p)) }, 'rendered with parts missing');
      return { meta, png: drawn.png };
    } catch (err) {
      if (!browser.alive) throw err;
      throw new ServiceError('unavailable', `Map ${meta.mapId} could not be rendered: ${this.hideKey((err as Error).message).split('\n')[0]}`);
    }
  }

  /** Starts one browser; when none ever started, a failure turns rendering off (the install is broken), once, with one log line. */
  private async launch(): Promise<RenderBrowser> {
    if (this.reason !== undefined) throw new ServiceError('unavailable', `Map rendering is off: ${this.reason}`);
    const { render, log } = this.opts;
    const timeoutMs = Math.max(30_000, render.deadlineSeconds * 1000);
    let executable: string | undefined;
    try {
      this.executable ??= executableOf(render.browser);
      executable = await this.executable;
      const browser = await RenderBrowser.launch(executable, this.origin as string, (url) => this.refused(url), timeoutMs);
      this.started = true;
      log.info({ browser: executable, pid: browser.pid }, 'renderer browser started');
      return browser;
    } catch (err) {
      if (render.browser === 'bundled') this.executable = undefined;
      const why = this.hideKey((err as Error).message).split('\n')[0];
      if (!this.started && this.reason === undefined) {
        const which = render.browser === 'bundled' ? `the bundled Chromium of the npm package ${BUNDLED_PACKAGE}` : `${render.browser} (render.browser)`;
        this.reason = `${which} does not start: ${why}`;
        log.error({ browser: executable ?? render.browser }, `map rendering off: ${this.reason}`);
      }
      throw new ServiceError('unavailable', `No renderer browser: ${why}`);
    }
  }

  private refused(url: string): void {
    let origin = url;
    try {
      origin = new URL(url).origin;
    } catch {
      // Not a URL: logged as it is (key hidden).
    }
    if (this.refusedOrigins.has(origin)) return;
    if (this.refusedOrigins.size < 100) this.refusedOrigins.add(origin);
    this.opts.log.warn({ url: this.hideKey(url) }, 'renderer browser request refused: only this server may be read (further requests to that origin are refused silently)');
  }

  private hideKey(text: string): string {
    return text.split(this.opts.key).join('<key>').split(encodeURIComponent(this.opts.key)).join('<key>');
  }

  /** Every tile of `pixels` in each of `formats`, but `except`. */
  private async cutAll(pixels: Pixels, formats: readonly RenderFormat[], except?: RenderTile): Promise<RenderedTile[]> {
    const { meta } = pixels;
    const jobs: Promise<RenderedTile>[] = [];
    for (let y = meta.y0; y < meta.y0 + meta.rows; y++) {
      for (let x = meta.x0; x < meta.x0 + meta.cols; x++) {
        for (const format of formats) {
          if (except && except.x === x && except.y === y && except.format === format) continue;
          const tile: RenderTile = { mapId: meta.mapId, styleVersion: meta.styleVersion, tileSize: meta.tileSize, scale: meta.scale, z: meta.z, x, y, format };
          jobs.push(cut(pixels, x, y, format).then((data) => ({ tile, data })));
        }
      }
    }
    return Promise.all(jobs);
  }
}

/** The screenshot's PNG decoded once: the tiles are cut from raw pixels. */
async function decode(r: { meta: Metatile; png: Buffer }): Promise<Pixels> {
  const { data, info } = await sharp(r.png).raw().toBuffer({ resolveWithObject: true });
  return { meta: r.meta, data, width: info.width, height: info.height, channels: info.channels };
}

/** Tile (x, y) of a metatile's pixels, encoded in `format`. */
function cut(p: Pixels, x: number, y: number, format: RenderFormat): Promise<Buffer> {
  const { meta } = p;
  const edge = meta.tileSize * meta.scale;
  const image = sharp(p.data, { raw: { width: p.width, height: p.height, channels: p.channels } }).extract({ left: (x - meta.x0) * edge, top: (y - meta.y0) * edge, width: edge, height: edge });
  return encodeRaster(image, format);
}
