// The map renderer (services/renderer) of the real server over the bundled sample, with the bundled Chromium:
// tiles drawn from the sample map's style, metatiles shared in flight, a full queue, a browser that crashes or
// hangs mid-render, and rendering off when the browser is missing or does not start. Browsers are found from
// outside (helpers/render-browsers.ts) and stopped or killed with signals, as an operator or the kernel would.
import Database from 'better-sqlite3';
import { cpSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import pino from 'pino';
import { parseConfig } from '../../src/config/load';
import { ServiceError } from '../../src/errors';
import { startTilemirror, type Tilemirror } from '../../src/serve';
import type { MapRenderer, RenderedTile, RenderTile } from '../../src/services/renderer/types';
import { decodeRGBA } from '../helpers/pixels';
import { rendererBrowserPids } from '../helpers/render-browsers';
import { KEY, rawGet, SAMPLE_DIR, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';
import { waitFor } from '../helpers/wait';

jest.setTimeout(180_000);

/** The sample map's sea and land colours (its style.json's background and countries-fill). */
const SEA = [0xaa, 0xd3, 0xdf];
const LAND = [0xf2, 0xef, 0xe9];

function tileOf(srv: TestServer, t: Partial<RenderTile> & Pick<RenderTile, 'z' | 'x' | 'y'>): RenderTile {
  const styleVersion = srv.server.catalog.get('maps', 'sample')?.info.version ?? '';
  return { mapId: 'sample', styleVersion, tileSize: 256, scale: 1, format: 'png', ...t };
}

/** Share of pixels within 3 of `rgb` in every channel. */
function share(img: { data: Buffer }, rgb: number[]): number {
  let n = 0;
  for (let i = 0; i < img.data.length; i += 4) if (rgb.every((c, k) => Math.abs(img.data[i + k] - c) <= 3)) n++;
  return n / (img.data.length / 4);
}

async function failure(p: Promise<unknown>): Promise<{ kind: string; message: string; retryAfterSeconds?: number }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ServiceError) return { kind: err.kind, message: err.message, retryAfterSeconds: err.retryAfterSeconds };
    throw err;
  }
  throw new Error('expected a ServiceError, the render succeeded');
}

const signal = (pid: number, sig: NodeJS.Signals): void => {
  try {
    process.kill(pid, sig);
  } catch {
    // gone already
  }
};

describe('rendering the sample map (2 browsers, metatile 4)', () => {
  let srv: TestServer;
  let renderer: MapRenderer;
  beforeAll(async () => {
    srv = await startServer({ config: { render: { browser: 'bundled', browsers: 2, metatile: 4 } } });
    renderer = srv.server.services.renderer;
  });
  afterAll(() => srv?.close());

  test('browsers start on the first render, not with the server', () => {
    expect(renderer.state()).toMatchObject({ enabled: true, browsers: 0, rendered: 0 });
    expect(rendererBrowserPids()).toEqual([]);
  });

  test('a 256 px tile of Europe at z4: sea and land in the style colours; the metatile\'s 15 other tiles go to keep', async () => {
    const kept: RenderedTile[] = [];
    const png = await renderer.render(tileOf(srv, { z: 4, x: 8, y: 5 }), { keep: (tiles) => kept.push(...tiles) });
    const img = await decodeRGBA(png);
    expect([img.width, img.height]).toEqual([256, 256]);
    expect(share(img, SEA)).toBeGreaterThan(0.1);
    expect(share(img, LAND)).toBeGreaterThan(0.3);
    await waitFor('the other tiles of the metatile to be kept', () => kept.length === 15);
    expect(kept.map((t) => `${t.tile.z}/${t.tile.x}/${t.tile.y}.${t.tile.format}`).sort()).toEqual(
      [8, 9, 10, 11].flatMap((x) => [4, 5, 6, 7].map((y) => `4/${x}/${y}.png`)).filter((t) => t !== '4/8/5.png').sort(),
    );
    for (const t of kept) expect((await decodeRGBA(t.data)).width).toBe(256);
    expect(renderer.state()).toMatchObject({ enabled: true, browsers: 1, rendered: 1, failed: 0, restarts: 0 });
  });

  test('512 px @2x in webp and jpg: images of 1024 px', async () => {
    const [webp, jpg] = await Promise.all([
      renderer.render(tileOf(srv, { z: 3, x: 4, y: 2, tileSize: 512, scale: 2, format: 'webp' })),
      renderer.render(tileOf(srv, { z: 2, x: 2, y: 1, tileSize: 512, scale: 2, format: 'jpg' })),
    ]);
    expect(webp.subarray(8, 12).toString('latin1')).toBe('WEBP');
    expect(jpg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    for (const b of [webp, jpg]) expect((await decodeRGBA(b)).width).toBe(1024);
  });

  test('concurrent requests for tiles of one metatile share one render', async () => {
    const before = renderer.state().rendered;
    const tiles = [tileOf(srv, { z: 5, x: 16, y: 12 }), tileOf(srv, { z: 5, x: 19, y: 15 }), tileOf(srv, { z: 5, x: 17, y: 13, format: 'webp' })];
    const out = await Promise.all(tiles.map((t) => renderer.render(t)));
    expect(out.every((b) => b.length > 100)).toBe(true);
    expect(renderer.state().rendered - before).toBe(1);
  });

  test('renderMetatile: every tile of a 2 × 2 block in two formats, clipped to the matrix at z0', async () => {
    const area = { mapId: 'sample', styleVersion: tileOf(srv, { z: 0, x: 0, y: 0 }).styleVersion, tileSize: 256 as const, scale: 1 as const };
    const block = await renderer.renderMetatile({ ...area, z: 3, x0: 2, y0: 2, n: 2, formats: ['png', 'webp'] });
    expect(block.map((t) => `${t.tile.x}/${t.tile.y}.${t.tile.format}`).sort()).toEqual(['2/2.png', '2/2.webp', '2/3.png', '2/3.webp', '3/2.png', '3/2.webp', '3/3.png', '3/3.webp']);
    const world = await renderer.renderMetatile({ ...area, z: 0, x0: 0, y0: 0, n: 4, formats: ['png'] });
    expect(world.map((t) => `${t.tile.z}/${t.tile.x}/${t.tile.y}`)).toEqual(['0/0/0']);
  });

  test('what cannot be rendered: unknown map (not-found), a tile off the matrix or past MapLibre\'s zooms (invalid), another style version (conflict)', async () => {
    expect(await failure(renderer.render({ ...tileOf(srv, { z: 1, x: 0, y: 0 }), mapId: 'nope' }))).toMatchObject({ kind: 'not-found', message: 'Unknown map: nope' });
    expect(await failure(renderer.render(tileOf(srv, { z: 1, x: 2, y: 0 })))).toMatchObject({ kind: 'invalid' });
    expect(await failure(renderer.render(tileOf(srv, { z: 25, x: 0, y: 0, tileSize: 512 })))).toMatchObject({ kind: 'invalid' });
    expect(await failure(renderer.render({ ...tileOf(srv, { z: 1, x: 0, y: 0 }), styleVersion: 'old' }))).toMatchObject({ kind: 'conflict' });
  });

  test('an abandoned caller is answered at once; the other callers of the render still get their tile', async () => {
    const gone = new AbortController();
    const a = renderer.render(tileOf(srv, { z: 6, x: 32, y: 20 }), { signal: gone.signal });
    const b = renderer.render(tileOf(srv, { z: 6, x: 33, y: 21 }));
    gone.abort();
    expect(await failure(a)).toMatchObject({ kind: 'abandoned' });
    expect((await b).length).toBeGreaterThan(100);
  });

  test('two browser processes at most, one per slot', async () => {
    await Promise.all([0, 4, 8, 12].map((x) => renderer.render(tileOf(srv, { z: 6, x, y: 24 }))));
    expect(renderer.state().browsers).toBe(2);
    expect(rendererBrowserPids()).toHaveLength(2);
  });
});

describe('one browser, no queue: a full queue, a crash and a hang mid-render', () => {
  let srv: TestServer;
  let renderer: MapRenderer;
  beforeAll(async () => {
    srv = await startServer({ config: { render: { browser: 'bundled', browsers: 1, queue: 0, metatile: 2, deadlineSeconds: 20 } } });
    renderer = srv.server.services.renderer;
    // Warm: the browser started and drew once.
    await renderer.render(tileOf(srv, { z: 2, x: 0, y: 0 }));
  });
  afterAll(async () => {
    for (const pid of rendererBrowserPids()) signal(pid, 'SIGCONT');
    await srv?.close();
  });

  /** The one browser, stopped (SIGSTOP): what is asked of it now stays in flight. */
  function stopBrowser(): number {
    const pids = rendererBrowserPids();
    expect(pids).toHaveLength(1);
    signal(pids[0], 'SIGSTOP');
    return pids[0];
  }

  test('a render while the one browser is busy and nothing may wait: too-busy with Retry-After; then a crash mid-render is replaced and the render retried', async () => {
    const pid = stopBrowser();
    const inFlight = renderer.render(tileOf(srv, { z: 3, x: 4, y: 2 }));
    await waitFor('the render in flight', () => renderer.state().inFlight === 1);
    const busy = await failure(renderer.render(tileOf(srv, { z: 3, x: 0, y: 6 })));
    expect(busy).toMatchObject({ kind: 'too-busy', retryAfterSeconds: expect.any(Number) });
    expect(busy.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // The browser dies mid-render (as the kernel's OOM killer would).
    signal(pid, 'SIGKILL');
    const png = await inFlight;
    expect((await decodeRGBA(png)).width).toBe(256);
    expect(renderer.state()).toMatchObject({ browsers: 1, restarts: 1, inFlight: 0 });
    expect(rendererBrowserPids()).not.toContain(pid);
  });

  test('a browser that hangs mid-render is killed at the deadline, replaced, and the render retried', async () => {
    const before = renderer.state().restarts;
    const pid = stopBrowser();
    const png = await renderer.render(tileOf(srv, { z: 3, x: 6, y: 2 }));
    expect((await decodeRGBA(png)).width).toBe(256);
    expect(renderer.state().restarts).toBe(before + 1);
    await waitFor('the hung browser to be gone', () => !rendererBrowserPids().includes(pid));
  });
});

describe('rendering off', () => {
  test('render.browser names a missing file: off from the start with a clear reason; renders are unavailable; the server serves the rest', async () => {
    const srv = await startServer({ config: { render: { browser: '/nonexistent/chromium' } } });
    try {
      const { renderer } = srv.server.services;
      const state = renderer.state();
      expect(state.enabled).toBe(false);
      expect(state.reason).toContain('/nonexistent/chromium');
      expect(state.reason).toContain('@sparticuz/chromium');
      const err = await failure(renderer.render(tileOf(srv, { z: 0, x: 0, y: 0 })));
      expect(err.kind).toBe('unavailable');
      expect(err.message).toContain('/nonexistent/chromium');
      expect((await rawGet(`${srv.url}/tiles/sample-vector/0/0/0.pbf?key=${KEY}`)).status).toBe(200);
      expect((await rawGet(`${srv.url}/maps/sample/0/0/0.png?key=${KEY}`)).status).toBe(200);
    } finally {
      await srv.close();
    }
  });

  test('a browser that does not start (/bin/false): the first render is unavailable and rendering turns off, naming it', async () => {
    const srv = await startServer({ config: { render: { browser: '/bin/false' } } });
    try {
      const { renderer } = srv.server.services;
      expect(renderer.state().enabled).toBe(true);
      expect((await failure(renderer.render(tileOf(srv, { z: 0, x: 0, y: 0 })))).kind).toBe('unavailable');
      expect(renderer.state()).toMatchObject({ enabled: false, reason: expect.stringContaining('/bin/false'), browsers: 0 });
      expect((await failure(renderer.render(tileOf(srv, { z: 0, x: 0, y: 0 })))).message).toContain('/bin/false');
      expect((await rawGet(`${srv.url}/health`)).status).toBe(200);
    } finally {
      await srv.close();
    }
  });
});

describe('the browsers read this server and nothing else', () => {
  const temp = tempDirs('tilemirror-renderer-');
  let elsewhere: Server;
  let asked: string[];
  let mirror: Tilemirror;
  const lines: string[] = [];
  beforeAll(async () => {
    // Another loopback address stands for the world outside: a style source pointing there must not be read.
    asked = [];
    elsewhere = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.end();
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.2', resolve));
    const foreign = `http://127.0.0.2:${(elsewhere.address() as AddressInfo).port}`;
    const data = temp.tempDir();
    for (const kind of ['maps', 'tiles', 'fonts', 'sprites']) cpSync(join(SAMPLE_DIR, kind), join(data, kind), { recursive: true });
    const db = new Database(join(data, 'maps', 'sample.mbtiles'));
    try {
      const row = db.prepare("SELECT data FROM tilemirror_documents WHERE path = 'style.json'").get() as { data: Buffer };
      const style = JSON.parse(row.data.toString('utf8')) as { sources: Record<string, unknown>; layers: unknown[] };
      style.sources.outside = { type: 'raster', tiles: [`${foreign}/{z}/{x}/{y}.png?key=outside`], tileSize: 256 };
      style.layers.push({ id: 'outside', type: 'raster', source: 'outside' });
      db.prepare("UPDATE tilemirror_documents SET data = ? WHERE path = 'style.json'").run(Buffer.from(JSON.stringify(style)));
    } finally {
      db.close();
    }
    const config = parseConfig(
      { server: { host: '127.0.0.1', port: 0, requestLog: true }, data, keys: [{ key: KEY, plan: 'paid' }], logLevel: 'info', render: { browser: 'bundled', browsers: 1 } },
      'test',
      process.cwd(),
      {},
    );
    mirror = await startTilemirror(config, pino({ level: 'info', base: undefined }, { write: (line: string) => void lines.push(line) }));
  });
  afterAll(async () => {
    await mirror?.close();
    await new Promise((resolve) => elsewhere?.close(resolve));
    temp.removeTempDirs();
  });

  test('a style source on another address is refused and logged once, the tile drawn without it; the renderer\'s key is in no log line', async () => {
    const info = mirror.catalog.get('maps', 'sample')?.info;
    const png = await mirror.services.renderer.render({ mapId: 'sample', styleVersion: info?.version ?? '', tileSize: 256, scale: 1, z: 3, x: 4, y: 2, format: 'png' });
    const img = await decodeRGBA(png);
    expect(share(img, LAND)).toBeGreaterThan(0.3);
    expect(asked).toEqual([]);
    const refused = lines.filter((l) => l.includes('request refused'));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain('http://127.0.0.2:');
    // The browser read the style, glyphs, sprite and tiles through the request log: each with its key redacted.
    const reads = lines.filter((l) => l.includes('/maps/sample/style.json') || l.includes('/fonts/'));
    expect(reads.length).toBeGreaterThan(0);
    const keys = lines.flatMap((l) => [...l.matchAll(/key=([^&"\s]*)/g)].map((m) => m[1]));
    expect(keys).toContain('***');
    expect(keys.filter((k) => k !== 'outside' && !/^(<key>|\*+|REDACTED|%3Credacted%3E|<redacted>)$/i.test(k))).toEqual([]);
  });
});
