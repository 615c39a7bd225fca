// Mirroring the document kinds end to end: an upstream tilemirror serving the sample's fonts, sprite and map
// plus a dataset, a weather catalog and its keyframe tilesets (behind the fault-injecting proxy); the engine
// mirrors each kind into a fresh data directory; a second tilemirror serves it, and every document is compared
// with the upstream's (after base URL replacement). Plus: missing fonts are reported, not fatal; the font
// fallback works on the mirror; a failing kind leaves the previous store untouched; the key is nowhere.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { GLYPH_STARTS } from '../../src/mirror/discovery/kinds/fonts';
import { acquireLock } from '../../src/store/data-dir/lock';
import { runMirror } from '../../src/mirror/engine/run';
import type { MirrorOptions } from '../../src/mirror/engine/options';
import type { MirrorResult } from '../../src/mirror/engine/result';
import { planReport } from '../../src/mirror/plan-report';
import { storePaths } from '../../src/store/mbtiles/staging';
import { decodeGlyphs, glyphRangePath } from '../../src/services/fonts/glyphs';
import { buildKindsUpstream, writeWeatherStore } from '../fixtures/document-stores';
import { startSimulator, type UpstreamSimulator } from '../fixtures/upstream-simulator';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { waitForStatus } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const SECRET = 'tm-upstream-Kinds-Secret-91b2c3';
const FONT = 'Noto Sans Regular';
const FAST_RETRY = { retries: 1, baseMs: 1, maxMs: 5, maxRetryAfterMs: 1000 };

let upstreamDir: string;
let upstream: TestServer;
let sim: UpstreamSimulator;
let data: string;
let mirrorSrv: TestServer;
const logs: string[] = [];
const { tempDir, removeTempDirs } = tempDirs('tm-kinds-');

function options(resource: string, extra: Partial<MirrorOptions> = {}): MirrorOptions {
  return { upstream: sim.url, dataDir: data, resource, key: SECRET, concurrency: 8, log: (l) => logs.push(l), ...extra };
}

const fileState = (f: string): { hash: string; ino: number } => ({ hash: createHash('sha256').update(readFileSync(f)).digest('hex'), ino: statSync(f).ino });

async function get(srv: string, path: string): Promise<{ status: number; body: Buffer; type?: string }> {
  const r = await rawGet(`${srv}${path}${path.includes('?') ? '&' : '?'}key=${KEY}`);
  return { status: r.status, body: r.body, type: r.headers['content-type'] };
}

/** The same bytes from both servers (a JSON document after replacing each server's base URL). */
async function expectSame(path: string, json = false): Promise<void> {
  const [a, b] = await Promise.all([get(upstream.url, path), get(mirrorSrv.url, path)]);
  expect({ path, status: b.status }).toEqual({ path, status: a.status });
  expect(b.type).toBe(a.type);
  if (json) {
    const norm = (s: string, base: string): unknown => JSON.parse(s.split(base).join('BASE'));
    expect(norm(b.body.toString('utf8'), mirrorSrv.url)).toEqual(norm(a.body.toString('utf8'), upstream.url));
  } else {
    expect({ path, same: a.body.equals(b.body) }).toEqual({ path, same: true });
  }
}

async function waitServed(path: string): Promise<void> {
  await waitForStatus(`${mirrorSrv.url}${path}${path.includes('?') ? '&' : '?'}key=${KEY}`);
}

const timings: string[] = [];
async function timed(label: string, fn: () => Promise<MirrorResult>): Promise<MirrorResult> {
  const t0 = Date.now();
  const r = await fn();
  timings.push(`${label}: ${r.status} in ${Date.now() - t0} ms (${r.requests} requests)`);
  return r;
}

beforeAll(async () => {
  upstreamDir = tempDir();
  await buildKindsUpstream(upstreamDir);
  // No font fallback upstream: a font it lacks is a 404 (MapTiler-like); the mirror keeps the default fallback.
  upstream = await startServer({ dataDir: upstreamDir, config: { keys: [{ key: KEY, plan: 'paid' }, { key: SECRET, plan: 'paid' }], fonts: { fallback: [] } } });
  sim = await startSimulator(upstream.url);
  data = tempDir();
  mirrorSrv = await startServer({ dataDir: data });
}, 30_000);

afterAll(async () => {
  await mirrorSrv?.close();
  await sim?.close();
  await upstream?.close();
  removeTempDirs();
  // eslint-disable-next-line no-console
  if (process.env.TM_TIMINGS) console.log(timings.join('\n'));
});

describe('fonts', () => {
  test('every glyph range of a font is mirrored into its own store and served byte for byte', async () => {
    const r = await timed('fonts/Noto Sans Regular', () => runMirror(options(`fonts/${FONT}`)));
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ status: 'published', exitCode: 0, planned: GLYPH_STARTS.length, failed: 0 });
    expect(r.stored + r.empty).toBe(GLYPH_STARTS.length);
    expect(r.stored).toBeGreaterThan(0);
    expect(r.published).toBe(join(data, 'fonts', `${FONT}.mbtiles`));
    // Each range asked once, with a single-font request.
    const ranges = [...sim.counts].filter(([p]) => p.startsWith('/fonts/'));
    expect(ranges.length).toBe(GLYPH_STARTS.length);
    expect(ranges.every(([, n]) => n === 1)).toBe(true);
    await waitServed(`/fonts/${encodeURIComponent(FONT)}/0-255.pbf`);
    for (const start of GLYPH_STARTS) await expectSame(`/fonts/${encodeURIComponent(FONT)}/${glyphRangePath(start)}`);
  });

  test('a font the upstream lacks is reported, the other fonts of the stack are mirrored', async () => {
    const dir = tempDir();
    const r = await runMirror(options(`fonts/Missing Font,${FONT}`, { dataDir: dir }));
    expect(r).toMatchObject({ status: 'published', exitCode: 0 });
    expect(r.notes.join('\n')).toMatch(/the upstream has no font "Missing Font" \(404\)/);
    expect(r.dependencies?.map((d) => [d.resource, d.status])).toEqual([
      ['fonts/Missing Font', 'failed'],
      [`fonts/${FONT}`, 'published'],
    ]);
    expect(existsSync(join(dir, 'fonts', 'Missing Font.mbtiles'))).toBe(false);
    expect(existsSync(join(dir, 'fonts', `${FONT}.mbtiles`))).toBe(true);
    // A single missing font fails its run.
    const only = await runMirror(options('fonts/Missing Font', { dataDir: dir }));
    expect(only).toMatchObject({ status: 'failed', exitCode: 1 });
    expect(readdirSync(join(dir, 'fonts')).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  test('the font fallback still works on the mirror', async () => {
    // The upstream has no fallback: 404. The mirror falls back to Noto Sans Regular, as the sample server does.
    expect((await get(upstream.url, '/fonts/Missing%20Font/0-255.pbf')).status).toBe(404);
    const fallback = await get(mirrorSrv.url, '/fonts/Missing%20Font/0-255.pbf');
    const direct = await get(mirrorSrv.url, `/fonts/${encodeURIComponent(FONT)}/0-255.pbf`);
    expect(fallback.status).toBe(200);
    expect(decodeGlyphs(fallback.body)[0].glyphs.map((g) => g.id)).toEqual(decodeGlyphs(direct.body)[0].glyphs.map((g) => g.id));
    // A combined stack is served alike by both.
    await expectSame(`/fonts/${encodeURIComponent(`${FONT},Other`)}/0-255.pbf`);
  });
});

describe('sprites', () => {
  test('sprite json and png, 1x and @2x, validated and served byte for byte', async () => {
    const r = await timed('sprites/sample', () => runMirror(options('sprites/sample')));
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ status: 'published', planned: 4, stored: 4 });
    await waitServed('/sprites/sample/sprite.json');
    for (const f of ['sprite.json', 'sprite.png', 'sprite@2x.json', 'sprite@2x.png']) await expectSame(`/sprites/sample/${f}`);
  });

  test('a sprite whose icons lie outside its sheet is refused; the published store stays', async () => {
    const file = join(data, 'sprites', 'sample.mbtiles');
    const before = fileState(file);
    sim.options.fault = (path) =>
      path === '/sprites/sample/sprite@2x.json' ? { status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ star: { x: 5000, y: 0, width: 10, height: 10, pixelRatio: 2 } }) } : undefined;
    try {
      const r = await runMirror(options('sprites/sample', { retry: FAST_RETRY }));
      expect(r).toMatchObject({ status: 'failed', exitCode: 1 });
      expect(r.failures.join()).toMatch(/outside the \d+x\d+ sheet/);
    } finally {
      sim.options.fault = undefined;
    }
    expect(fileState(file)).toEqual(before);
    expect(existsSync(storePaths(data, 'sprites', 'sample').staging)).toBe(false);
  });
});

describe('maps with their dependencies', () => {
  test('a map run names the tile sets, fontstacks and sprite of its style, and mirrors them when asked', async () => {
    const dir = tempDir();
    const plain = await runMirror(options('maps/sample', { dataDir: dir, zoom: [0, 1] }));
    expect(plain.status).toBe('published');
    expect(plain.notes.join('\n')).toContain(`the style uses the fontstacks "${FONT}"`);
    expect(plain.notes.join('\n')).toContain('sprites/sample');
    expect(plain.dependencies).toBeUndefined();
    expect(existsSync(join(dir, 'fonts'))).toBe(false);

    const r = await timed('maps/sample z0-1 with dependencies', () => runMirror(options('maps/sample', { dataDir: dir, zoom: [0, 1], withDependencies: true })));
    expect(r.status).toBe('published');
    expect(r.dependencies?.map((d) => [d.resource, d.status])).toEqual([
      ['tiles/sample-vector', 'published'],
      [`fonts/${FONT}`, 'published'],
      ['sprites/sample', 'published'],
    ]);
    // The style's tile set keeps the map's zooms: z0-1 only, not the whole upstream tileset.
    expect(r.dependencies?.[0].planned).toBe(5);
    expect(existsSync(join(dir, 'fonts', `${FONT}.mbtiles`))).toBe(true);
    expect(existsSync(join(dir, 'sprites', 'sample.mbtiles'))).toBe(true);
    const db = new Database(join(dir, 'maps', 'sample.mbtiles'), { readonly: true });
    const style = JSON.parse((db.prepare("SELECT data FROM tilemirror_documents WHERE path = 'style.json'").pluck().get() as Buffer).toString('utf8'));
    db.close();
    expect(style.sprite).toBe('tilemirror://sprites/sample/sprite');
    expect(style.glyphs).toBe('tilemirror://fonts/{fontstack}/{range}.pbf');
  });

  test('@2x and extra formats are mirrored as extra pyramids when asked', async () => {
    const dir = tempDir();
    const r = await runMirror(options('maps/sample', { dataDir: dir, zoom: [0, 1], scales: [1, 2], formats: ['png', 'webp'] }));
    expect(r.problems).toEqual([]);
    expect(r.status).toBe('published');
    // 2 sizes x 2 scales x 2 formats, 5 tiles each at z0-1
    expect(r.planned).toBe(8 * 5);
    const srv = await startServer({ dataDir: dir });
    try {
      for (const path of ['/maps/sample/1/1/0@2x.png', '/maps/sample/256/1/0/1@2x.webp', '/maps/sample/0/0/0.webp']) {
        const [a, b] = await Promise.all([get(upstream.url, path), get(srv.url, path)]);
        expect({ path, status: b.status, type: b.type }).toEqual({ path, status: 200, type: a.type });
        expect({ path, same: a.body.equals(b.body) }).toEqual({ path, same: true });
      }
    } finally {
      await srv.close();
    }
  });
});

describe('data', () => {
  test('features.json is mirrored and served byte for byte; an unknown dataset fails cleanly', async () => {
    const r = await timed('data/places', () => runMirror(options('data/places')));
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ status: 'published', stored: 1 });
    await waitServed('/data/places/features.json');
    await expectSame('/data/places/features.json');
    const nope = await runMirror(options('data/nope'));
    expect(nope).toMatchObject({ status: 'failed', exitCode: 1 });
    expect(nope.problems.join()).toMatch(/no dataset "nope"/);
    expect(existsSync(join(data, 'data', 'nope.mbtiles'))).toBe(false);
    expect((await get(mirrorSrv.url, '/data/nope/features.json')).status).toBe(404);
  });

  test('a failing run (not a FeatureCollection, then 503s) leaves the published store untouched', async () => {
    const file = join(data, 'data', 'places.mbtiles');
    const before = fileState(file);
    for (const fault of [
      { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"type":"Feature"}' },
      { status: 503, body: 'busy' },
    ]) {
      sim.options.fault = (path) => (path === '/data/places/features.json' ? fault : undefined);
      try {
        const r = await runMirror(options('data/places', { retry: FAST_RETRY }));
        expect(r).toMatchObject({ status: 'failed', exitCode: 1 });
      } finally {
        sim.options.fault = undefined;
      }
      expect(fileState(file)).toEqual(before);
    }
    await expectSame('/data/places/features.json');
  });
});

describe('weather', () => {
  test('latest.json and every keyframe tileset it names are mirrored and served alike', async () => {
    sim.reset();
    const r = await timed('weather (2 keyframes)', () => runMirror(options('weather')));
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ status: 'published', resource: 'weather/latest' });
    expect(r.dependencies?.map((d) => [d.resource, d.status, d.planned])).toEqual([
      ['tiles/kf-a', 'published', 5],
      ['tiles/kf-b', 'published', 5],
    ]);
    // The keyframe tilesets were published before the catalog that names them.
    expect(statSync(join(data, 'tiles', 'kf-b.mbtiles')).mtimeMs).toBeLessThanOrEqual(statSync(join(data, 'weather', 'latest.mbtiles')).mtimeMs);
    await waitServed('/weather/latest.json');
    await expectSame('/weather/latest.json', true);
    const catalog = JSON.parse((await get(mirrorSrv.url, '/weather/latest.json')).body.toString('utf8'));
    expect(catalog.variables[0].keyframes[0].tiles).toBe(`${mirrorSrv.url}/tiles/kf-a/tiles.json?key=${KEY}`);
    for (const id of ['kf-a', 'kf-b']) {
      await expectSame(`/tiles/${id}/tiles.json`, true);
      for (const t of ['0/0/0', '1/0/0', '1/1/0', '1/0/1', '1/1/1']) await expectSame(`/tiles/${id}/${t}.png`);
    }
  });

  test('a keyframe that fails keeps the previous catalog; vanished keyframes are kept and reported as stale', async () => {
    const file = join(data, 'weather', 'latest.mbtiles');
    const before = fileState(file);
    // Upstream now lists kf-b and kf-c; kf-c's tiles fail.
    writeWeatherStore(upstreamDir, ['kf-b', 'kf-c'], '.next.mbtiles');
    renameSync(join(upstreamDir, 'weather', '.next.mbtiles'), join(upstreamDir, 'weather', 'latest.mbtiles'));
    upstream.server.catalog.scan();
    sim.options.fault = (path) => (path.startsWith('/tiles/kf-c/1/') ? { status: 503, body: 'busy' } : undefined);
    let failed: MirrorResult;
    try {
      failed = await runMirror(options('weather', { retry: FAST_RETRY, failureBudget: 0 }));
    } finally {
      sim.options.fault = undefined;
    }
    expect(failed).toMatchObject({ status: 'failed', exitCode: 1 });
    expect(failed.problems.join()).toMatch(/tiles\/kf-c not published/);
    expect(fileState(file)).toEqual(before);
    expect(existsSync(join(data, 'tiles', 'kf-c.mbtiles'))).toBe(false);

    const ok = await runMirror(options('weather'));
    expect(ok.status).toBe('published');
    expect(ok.notes.join('\n')).toMatch(/stale keyframe tilesets kept .*tiles\/kf-a/);
    expect(existsSync(join(data, 'tiles', 'kf-a.mbtiles'))).toBe(true);
    expect(ok.dependencies?.map((d) => d.resource)).toEqual(['tiles/kf-b', 'tiles/kf-c']);
    // kf-b was already mirrored: nothing fetched again.
    expect(ok.dependencies?.[0]).toMatchObject({ fetched: 0, skipped: 5 });
    mirrorSrv.server.catalog.scan();
    await expectSame('/weather/latest.json', true);
  });
});

describe('ogc', () => {
  test('the conformance declaration is kept as provenance', async () => {
    const r = await runMirror(options('ogc'));
    expect(r).toMatchObject({ status: 'published', resource: 'ogc/conformance' });
    expect(r.notes.join()).toMatch(/declares \d+ OGC conformance classes/);
    const db = new Database(join(data, 'ogc', 'conformance.mbtiles'), { readonly: true });
    const stored = JSON.parse((db.prepare('SELECT data FROM tilemirror_documents').pluck().get() as Buffer).toString('utf8'));
    db.close();
    const theirs = JSON.parse((await get(upstream.url, '/ogc/conformance')).body.toString('utf8'));
    expect(stored).toEqual(theirs);
  });
});

describe('every kind', () => {
  test('plan describes document resources without fetching', async () => {
    const p = await planReport(options(`fonts/${FONT},Other Font`));
    expect(p).toMatchObject({ total: 0, resource: `fonts/${FONT},Other Font` });
    expect(p.notes[0]).toMatch(/256 glyph ranges per font, 2 fonts/);
  });

  test('a locked document store is not touched', async () => {
    const lock = acquireLock(storePaths(data, 'data', 'places').lock);
    try {
      const r = await runMirror(options('data/places'));
      expect(r.status).toBe('failed');
      expect(r.problems.join()).toMatch(/another mirror/);
    } finally {
      lock.release();
    }
  });

  test('the key appears in no file of the data directory and in no log line; no staging file is left', () => {
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) (e.isDirectory() ? walk(join(d, e.name)) : files.push(join(d, e.name)));
    };
    walk(data);
    expect(files.filter((f) => f.endsWith('.mbtiles')).length).toBeGreaterThanOrEqual(7);
    for (const f of files) {
      const bytes = readFileSync(f);
      expect({ f, found: bytes.includes(SECRET) || bytes.includes(encodeURIComponent(SECRET)) }).toEqual({ f, found: false });
    }
    expect(files.filter((f) => /\/\.[^/]*staging/.test(f))).toEqual([]);
    expect(logs.filter((l) => l.includes(SECRET))).toEqual([]);
    expect(sim.log.every((l) => l.query.includes(`key=${SECRET}`))).toBe(true);
  });
});
