// Helpers of the browser (end-to-end) suite: Debian's Chromium driven by playwright-core against the real server.
//
// Nothing is downloaded: playwright-core runs the system browser at /usr/bin/chromium (package `chromium`,
// installed by test/run.sh); TILEMIRROR_CHROMIUM names another binary.
import { isIP } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import sharp from 'sharp';
import type { ClientCheck } from '../helpers/clients';
import { startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

export const CHROMIUM_PATH = process.env.TILEMIRROR_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_CHECK: ClientCheck = { bins: [CHROMIUM_PATH], packages: ['chromium'] };

/**
 * Flags for a headless Chromium on a machine without a GPU or a network (see /work/shared/research/dependencies.md).
 * playwright-core already passes --headless (headless: true), --no-sandbox (chromiumSandbox: false),
 * --no-first-run, --disable-background-networking, --disable-component-update and a fresh --user-data-dir of its
 * own (a temporary profile it deletes on close; it refuses a --user-data-dir in `args`). They are repeated here,
 * but for --user-data-dir, so the list says everything the browser runs with; repeating a switch is harmless.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // WebGL through SwiftShader (software): MapLibre needs WebGL and there is no GPU.
  '--enable-unsafe-swiftshader',
];

/** What a browser test file shares: the real server on the sample, a screenshot folder, one browser. */
export interface BrowserSession {
  readonly server: TestServer;
  /** Server base URL without a trailing slash. */
  readonly base: string;
  readonly shotsDir: string;
  /** The file's one browser, started by the first test that asks. */
  browser(): Promise<Browser>;
  /** Keeps the screenshots (they are deleted after a run with no failure unless TILEMIRROR_KEEP_SCREENSHOTS=1). */
  failed(): void;
}

/** Registers the beforeAll/afterAll of a browser test file: server, screenshot folder named by `prefix`, browser. */
export function browserSession(prefix: string): BrowserSession {
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  const shots = tempDirs(`tilemirror-${prefix}-`);
  let shotsDir = '';
  let failures = 0;
  beforeAll(async () => {
    server = await startServer();
    shotsDir = shots.tempDir();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (failures === 0 && !process.env.TILEMIRROR_KEEP_SCREENSHOTS) shots.removeTempDirs();
  });
  return {
    get server() {
      if (!server) throw new Error('browserSession: beforeAll did not run');
      return server;
    },
    get base() {
      return this.server.url.replace(/\/+$/, '');
    },
    get shotsDir() {
      return shotsDir;
    },
    browser: async () => (browser ??= await launchChromium()),
    failed: () => void failures++,
  };
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    chromiumSandbox: false,
    args: CHROMIUM_ARGS,
    timeout: 30_000,
  });
}

// ---------------------------------------------------------------------------------------------
// Network and errors
// ---------------------------------------------------------------------------------------------

/** True for a URL that stays on this machine: data:/blob:/about:, or a loopback host (127.0.0.0/8, localhost, ::1). */
export function isLocalUrl(raw: string): boolean {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return false;
  }
  if (u.protocol === 'data:' || u.protocol === 'blob:' || u.href === 'about:blank') return true;
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(u.protocol)) return false;
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.split('.')[0] === '127';
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

const short = (url: string): string => (url.length > 160 ? `${url.slice(0, 157)}...` : url);

/**
 * Everything a page did on the network and every error it reported, recorded from the browser context (so the
 * requests of MapLibre's web workers are included).
 */
export class PageRecorder {
  readonly requests: string[] = [];
  readonly responses: { url: string; status: number; contentType: string }[] = [];
  readonly problems: string[] = [];

  constructor(context: BrowserContext, page: Page) {
    context.on('request', (req) => {
      const url = req.url();
      this.requests.push(`${req.method()} ${short(url)}`);
      if (!isLocalUrl(url)) this.problems.push(`request to a non-loopback address: ${req.method()} ${short(url)}`);
    });
    context.on('requestfailed', (req) => {
      this.problems.push(`request failed: ${req.method()} ${short(req.url())}: ${req.failure()?.errorText ?? '?'}`);
    });
    context.on('response', (res) => {
      this.responses.push({ url: res.url(), status: res.status(), contentType: res.headers()['content-type'] ?? '' });
      if (res.status() >= 400) this.problems.push(`HTTP ${res.status()} for ${res.request().method()} ${short(res.url())}`);
    });
    page.on('pageerror', (err) => this.problems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') {
        const loc = msg.location();
        this.problems.push(`console error: ${msg.text()}${loc.url ? ` (${short(loc.url)}:${loc.lineNumber})` : ''}`);
      }
    });
    page.on('crash', () => this.problems.push('the page crashed'));
  }
}

// ---------------------------------------------------------------------------------------------
// The map in the page (window.map, a maplibregl.Map); the functions below run inside the browser.
// ---------------------------------------------------------------------------------------------

interface BrowserMap {
  loaded(): boolean;
  areTilesLoaded(): boolean;
  once(type: string, listener: () => void): unknown;
  triggerRepaint(): void;
  getStyle(): {
    glyphs?: string;
    sprite?: string | { id: string; url: string }[];
    layers: { id: string; type: string; minzoom?: number; layout?: Record<string, unknown> }[];
  };
  jumpTo(options: { zoom?: number }): void;
  getLayoutProperty(layer: string, name: string): unknown;
  setLayoutProperty(layer: string, name: string, value: unknown): void;
  queryRenderedFeatures(options?: { layers?: string[] }): { layer: { id: string }; properties: Record<string, unknown> }[];
  getCanvas(): { width: number; height: number };
}

/**
 * Waits until the viewer's map exists and is idle: style, sources and tiles loaded, symbols placed and faded in,
 * nothing left to render ('idle' after a repaint this function asks for, so an idle that fired earlier counts too).
 */
export async function waitForMapIdle(page: Page, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await page.waitForFunction(() => !!(globalThis as unknown as { map?: BrowserMap }).map, undefined, { timeout: timeoutMs, polling: 50 });
  const left = Math.max(1, deadline - Date.now());
  const result = await page.evaluate(
    (ms) =>
      new Promise<string>((resolve) => {
        const map = (globalThis as unknown as { map: BrowserMap }).map;
        const timer = setTimeout(
          () => resolve(`not idle after ${ms} ms: loaded()=${map.loaded()}, areTilesLoaded()=${map.areTilesLoaded()}`),
          ms,
        );
        map.once('idle', () => {
          clearTimeout(timer);
          resolve('idle');
        });
        map.triggerRepaint();
      }),
    left,
  );
  if (result !== 'idle') throw new Error(`map on ${page.url()}: ${result}`);
}

export interface MapSummary {
  canvas: { width: number; height: number };
  layers: { id: string; type: string }[];
  symbolLayers: string[];
  /** Symbol layers that draw text (text-field) and icons (icon-image). */
  textLayers: string[];
  iconLayers: string[];
  /** The style's glyphs URL template and sprite URLs (without .json/.png), as MapLibre holds them. */
  glyphs?: string;
  sprites: string[];
  /** Symbol features placed on screen (queryRenderedFeatures over the symbol layers), by layer id. */
  renderedSymbols: Record<string, number>;
  /** A few of the labels' texts (name properties), for messages. */
  sampleNames: string[];
}

export async function summarizeMap(page: Page): Promise<MapSummary> {
  return page.evaluate(() => {
    const map = (globalThis as unknown as { map: BrowserMap }).map;
    const style = map.getStyle();
    const layers = style.layers.map((l) => ({ id: l.id, type: l.type }));
    const symbolLayers = layers.filter((l) => l.type === 'symbol').map((l) => l.id);
    const symbols = style.layers.filter((l) => l.type === 'symbol');
    const textLayers = symbols.filter((l) => l.layout?.['text-field'] !== undefined).map((l) => l.id);
    const iconLayers = symbols.filter((l) => l.layout?.['icon-image'] !== undefined).map((l) => l.id);
    const sprites = style.sprite === undefined ? [] : typeof style.sprite === 'string' ? [style.sprite] : style.sprite.map((s) => s.url);
    const features = symbolLayers.length ? map.queryRenderedFeatures({ layers: symbolLayers }) : [];
    const renderedSymbols: Record<string, number> = {};
    for (const f of features) renderedSymbols[f.layer.id] = (renderedSymbols[f.layer.id] ?? 0) + 1;
    const names = new Set<string>();
    for (const f of features) {
      const n = f.properties.name ?? f.properties.NAME ?? f.properties.name_en;
      if (typeof n === 'string' && names.size < 8) names.add(n);
    }
    const c = map.getCanvas();
    return {
      canvas: { width: c.width, height: c.height },
      layers,
      symbolLayers,
      textLayers,
      iconLayers,
      glyphs: style.glyphs,
      sprites,
      renderedSymbols,
      sampleNames: [...names],
    };
  });
}

/**
 * The icon a browser asks for when it shows the page: the page's <link rel="icon"> or, without one, /favicon.ico
 * of its origin. Chromium fetches it outside the page's network events and only reports a failure with a console
 * error that may come after the test is done, so the suite checks this URL itself.
 */
export async function faviconUrl(page: Page): Promise<string> {
  const declared = await page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { querySelector(s: string): { href: string } | null } }).document;
    return doc.querySelector('link[rel~="icon"]')?.href ?? null;
  });
  return declared ?? new URL('/favicon.ico', page.url()).href;
}

/** Zooms the map (instantly) and waits for it to be idle again. */
export async function zoomTo(page: Page, zoom: number, timeoutMs: number): Promise<void> {
  await page.evaluate((z) => (globalThis as unknown as { map: BrowserMap }).map.jumpTo({ zoom: z }), zoom);
  await waitForMapIdle(page, timeoutMs);
}

/** Symbol features placed on screen in the given layers. */
export async function countRendered(page: Page, layerIds: string[]): Promise<number> {
  return page.evaluate((ids) => (globalThis as unknown as { map: BrowserMap }).map.queryRenderedFeatures({ layers: ids }).length, layerIds);
}

/** The largest minzoom of the given layers (0 when none is set). */
export async function layersMinZoom(page: Page, layerIds: string[]): Promise<number> {
  return page.evaluate(
    (ids) =>
      Math.max(0, ...(globalThis as unknown as { map: BrowserMap }).map.getStyle().layers.filter((l) => ids.includes(l.id)).map((l) => l.minzoom ?? 0)),
    layerIds,
  );
}

/** Sets the visibility of layers (returns their former visibility, to restore). */
export async function setLayersVisibility(page: Page, layerIds: string[], visibility: 'visible' | 'none' | Record<string, unknown>): Promise<Record<string, unknown>> {
  return page.evaluate(
    ({ ids, vis }) => {
      const map = (globalThis as unknown as { map: BrowserMap }).map;
      const before: Record<string, unknown> = {};
      for (const id of ids) {
        before[id] = map.getLayoutProperty(id, 'visibility') ?? 'visible';
        map.setLayoutProperty(id, 'visibility', typeof vis === 'string' ? vis : (vis[id] ?? 'visible'));
      }
      return before;
    },
    { ids: layerIds, vis: visibility },
  );
}

// ---------------------------------------------------------------------------------------------
// Screenshots
// ---------------------------------------------------------------------------------------------

export interface ImageStats {
  width: number;
  height: number;
  /** Distinct RGB colours. */
  colours: number;
  /** The most frequent colour and the share of pixels it covers (0..1). */
  dominant: { rgb: [number, number, number]; share: number };
  /** Standard deviation of each of R, G, B over the image. */
  stdev: [number, number, number];
}

export async function imageStats(png: Buffer): Promise<ImageStats> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const counts = new Map<number, number>();
  for (let i = 0; i < data.length; i += 3) {
    const k = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  let best = 0;
  let bestN = 0;
  for (const [k, n] of counts) if (n > bestN) [best, bestN] = [k, n];
  const s = await sharp(png).removeAlpha().stats();
  return {
    width: info.width,
    height: info.height,
    colours: counts.size,
    dominant: { rgb: [(best >> 16) & 255, (best >> 8) & 255, best & 255], share: bestN / (info.width * info.height) },
    stdev: [s.channels[0].stdev, s.channels[1].stdev, s.channels[2].stdev],
  };
}

/** Pixels whose colour differs by more than `tolerance` in some channel (images of the same size). */
export async function differingPixels(a: Buffer, b: Buffer, tolerance = 8): Promise<number> {
  const [ra, rb] = await Promise.all([a, b].map((p) => sharp(p).removeAlpha().raw().toBuffer({ resolveWithObject: true })));
  if (ra.info.width !== rb.info.width || ra.info.height !== rb.info.height) return Number.POSITIVE_INFINITY;
  let n = 0;
  for (let i = 0; i < ra.data.length; i += 3) {
    if (
      Math.abs(ra.data[i] - rb.data[i]) > tolerance ||
      Math.abs(ra.data[i + 1] - rb.data[i + 1]) > tolerance ||
      Math.abs(ra.data[i + 2] - rb.data[i + 2]) > tolerance
    ) {
      n++;
    }
  }
  return n;
}
