// End to end: a tilemirror serving the sample is the upstream (behind a counting proxy); the mirror engine runs
// in this process into a fresh data directory; a second tilemirror serves that directory, and every tile and
// document is compared with the upstream's. Plus: re-runs and resumes fetch no tile twice, a failed run leaves
// the published store untouched, the lock, the key never written or printed, and a CLI smoke run.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { acquireLock } from '../../src/store/data-dir/lock';
import { runMirror } from '../../src/mirror/engine/run';
import type { MirrorOptions } from '../../src/mirror/engine/options';
import type { MirrorResult } from '../../src/mirror/engine/result';
import { storePaths } from '../../src/store/mbtiles/staging';
import { startSimulator, type UpstreamSimulator } from '../fixtures/upstream-simulator';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { built } from '../helpers/dist';
import { waitForStatus } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const SECRET = 'tm-upstream-Secret-7f3c9e1a5b';
const ROOT = resolve(__dirname, '../..');

let upstream: TestServer;
let sim: UpstreamSimulator;
let mirrorSrv: TestServer;
const logs: string[] = [];
const { tempDir, removeTempDirs } = tempDirs('tm-mirror-');
let data: string;

function options(resource: string, extra: Partial<MirrorOptions> = {}): MirrorOptions {
  return { upstream: sim.url, dataDir: data, resource, key: SECRET, concurrency: 8, log: (l) => logs.push(l), ...extra };
}

const isTilePath = (p: string): boolean => !p.endsWith('.json');
const tileRequests = (): [string, number][] => [...sim.counts].filter(([p]) => isTilePath(p));

beforeAll(async () => {
  upstream = await startServer({ config: { keys: [{ key: KEY, plan: 'paid' }, { key: SECRET, plan: 'paid' }] } });
  sim = await startSimulator(upstream.url);
  data = tempDir();
  // Started before anything is mirrored: published stores must appear without a restart.
  mirrorSrv = await startServer({ dataDir: data });
});

afterAll(async () => {
  await mirrorSrv?.close();
  await sim?.close();
  await upstream?.close();
  removeTempDirs();
});

/** Tiles of one zoom: [z, minX, maxX, minY, maxY] (XYZ, inclusive). */
type ZoomRange = [number, number, number, number, number];

/** The whole grid at zooms minz..maxz. */
const world = (minz: number, maxz: number): ZoomRange[] =>
  Array.from({ length: maxz - minz + 1 }, (_, i) => [minz + i, 0, 2 ** (minz + i) - 1, 0, 2 ** (minz + i) - 1]);

// The expected tiles are worked out independently of src/geo (the code under test):
// - terrain, bounds [5.9, 45.8, 10.5, 47.8]: x = floor((lon + 180) / 360 * 2^z),
//   y = floor((1 - ln(tan(lat) + sec(lat)) / π) / 2 * 2^z) of the north-west and south-east corners
//   (computed once in Python and checked against @mapbox/tilebelt's pointToTile; no corner lies on a tile edge);
// - image, 2000 x 1200 px at the top-left of the world at maxzoom 3 in 256 px tiles: at zoom z it is
//   2000 / 2^(3-z) x 1200 / 2^(3-z) px, so columns 0..floor(w / 256) and rows 0..floor(h / 256).
const TERRAIN: ZoomRange[] = [
  [0, 0, 0, 0, 0],
  [1, 1, 1, 0, 0],
  [2, 2, 2, 1, 1],
  [3, 4, 4, 2, 2],
  [4, 8, 8, 5, 5],
  [5, 16, 16, 11, 11],
  [6, 33, 33, 22, 22],
  [7, 66, 67, 44, 45],
  [8, 132, 135, 89, 91],
  [9, 264, 270, 178, 182],
  [10, 528, 541, 356, 365],
];
const IMAGE: ZoomRange[] = [
  [0, 0, 0, 0, 0],
  [1, 0, 1, 0, 1], // 500 x 300 px
  [2, 0, 3, 0, 2], // 1000 x 600 px
  [3, 0, 7, 0, 4], // 2000 x 1200 px
];

/** Tile paths (no key) of a resource as served, for the given ranges. */
function tilePaths(prefix: string, suffix: string, ranges: ZoomRange[]): string[] {
  const out: string[] = [];
  for (const [z, minX, maxX, minY, maxY] of ranges) {
    for (let x = minX; x <= maxX; x++) for (let y = minY; y <= maxY; y++) out.push(`${prefix}/${z}/${x}/${y}${suffix}`);
  }
  return out;
}

const EXPECTED = {
  'maps/sample': [...tilePaths('/maps/sample', '.png', world(0, 3)), ...tilePaths('/maps/sample/256', '.png', world(0, 3))],
  'tiles/sample-vector': tilePaths('/tiles/sample-vector', '', world(0, 5)),
  'tiles/sample-terrain': tilePaths('/tiles/sample-terrain', '', TERRAIN),
  'images/sample-image': tilePaths('/images/sample-image', '', IMAGE),
};
type Res = keyof typeof EXPECTED;
const RESOURCES = Object.keys(EXPECTED) as Res[];
const zoomOf = (r: Res): [number, number] | undefined => (r === 'maps/sample' ? [0, 3] : undefined);

async function inChunks<T>(items: T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += n) await Promise.all(items.slice(i, i + n).map(fn));
}

async function waitServed(path: string): Promise<void> {
  await waitForStatus(`${mirrorSrv.url}${path}?key=${KEY}`);
}

describe('mirroring the sample from a tilemirror upstream', () => {
  const first: Partial<Record<Res, MirrorResult>> = {};

  test('every resource is fetched once, verified and published', async () => {
    for (const r of RESOURCES) {
      const t0 = Date.now();
      const result = await runMirror(options(r, { zoom: zoomOf(r) }));
      first[r] = result;
      expect(result.problems).toEqual([]);
      expect(result).toMatchObject({ status: 'published', exitCode: 0, failed: 0, planned: EXPECTED[r].length });
      expect(result.stored + result.empty + result.skipped).toBe(EXPECTED[r].length);
      expect(existsSync(result.published!)).toBe(true);
      logs.push(`[test] ${r}: ${result.planned} tiles in ${Date.now() - t0} ms`);
    }
    // Absent ocean tiles of the vector set are recorded as empty, not stored.
    expect(first['tiles/sample-vector']!.empty).toBeGreaterThan(0);
    expect(first['maps/sample']!.notes.join()).toContain('tiles/sample-vector');
    // Each tile path was requested exactly once.
    const tiles = tileRequests();
    expect(tiles.length).toBe(RESOURCES.reduce((n, r) => n + EXPECTED[r].length, 0));
    expect(tiles.filter(([, n]) => n !== 1)).toEqual([]);
    // The key went to the upstream (in the query), and nowhere else.
    expect(sim.log.every((l) => l.query.includes(`key=${SECRET}`))).toBe(true);
    // No staging, journal or lock file left behind.
    for (const kind of ['maps', 'tiles', 'images']) expect(readdirSync(join(data, kind)).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  test('the mirror serves every tile byte for byte as the upstream does (204s stay 204s)', async () => {
    await waitServed('/maps/sample/0/0/0.png');
    await waitServed('/images/sample-image/0/0/0');
    let compared = 0;
    let empties = 0;
    for (const r of RESOURCES) {
      await inChunks(EXPECTED[r], 16, async (path) => {
        const [a, b] = await Promise.all([
          rawGet(`${upstream.url}${path}?key=${KEY}`, { 'Accept-Encoding': 'gzip' }),
          rawGet(`${mirrorSrv.url}${path}?key=${KEY}`, { 'Accept-Encoding': 'gzip' }),
        ]);
        expect({ path, status: b.status }).toEqual({ path, status: a.status });
        expect(b.headers['content-type']).toBe(a.headers['content-type']);
        expect(b.headers['content-encoding']).toBe(a.headers['content-encoding']);
        expect(Buffer.compare(a.body, b.body)).toBe(0);
        compared++;
        if (a.status === 204) empties++;
      });
    }
    expect(compared).toBe(RESOURCES.reduce((n, r) => n + EXPECTED[r].length, 0));
    expect(empties).toBe(first['tiles/sample-vector']!.empty);
  });

  test('documents are served alike after URL rewriting', async () => {
    const get = async (srv: string, path: string): Promise<string> => {
      const res = await rawGet(`${srv}${path}?key=${KEY}`);
      expect(res.status).toBe(200);
      return res.body.toString('utf8').split(srv).join('BASE');
    };
    for (const path of ['/maps/sample/style.json', '/tiles/sample-vector/tiles.json', '/tiles/sample-terrain/tiles.json', '/images/sample-image/image.json']) {
      expect(JSON.parse(await get(mirrorSrv.url, path))).toEqual(JSON.parse(await get(upstream.url, path)));
    }
    // The map was mirrored at z0-3: its TileJSON says so, and is otherwise the upstream's.
    for (const path of ['/maps/sample/tiles.json', '/maps/sample/256/tiles.json']) {
      const mine = JSON.parse(await get(mirrorSrv.url, path));
      const theirs = JSON.parse(await get(upstream.url, path));
      expect(mine.maxzoom).toBe(3);
      expect({ ...mine, maxzoom: theirs.maxzoom }).toEqual(theirs);
    }
  });

  test('the key appears in no file of the data directory and in no log line', () => {
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) (e.isDirectory() ? walk(join(d, e.name)) : files.push(join(d, e.name)));
    };
    walk(data);
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const f of files) {
      const bytes = readFileSync(f);
      expect({ f, found: bytes.includes(SECRET) || bytes.includes(encodeURIComponent(SECRET)) }).toEqual({ f, found: false });
    }
    expect(logs.filter((l) => l.includes(SECRET))).toEqual([]);
    const stored = readFileSync(join(data, 'maps/sample.mbtiles'));
    expect(stored.includes('tilemirror://tiles/sample-vector/tiles.json')).toBe(true);
    expect(stored.includes(sim.url)).toBe(true); // provenance: the upstream base, without key
  });

  test('a second run with the stores published fetches no tile again', async () => {
    sim.reset();
    for (const r of RESOURCES) {
      const result = await runMirror(options(r, { zoom: zoomOf(r) }));
      expect(result).toMatchObject({ status: 'published', origin: 'copied-published', fetched: 0, skipped: EXPECTED[r].length });
    }
    expect(tileRequests()).toEqual([]);
  });

  test('a failed run leaves the published store untouched; the next run fetches only what is missing', async () => {
    const file = join(data, 'maps/sample.mbtiles');
    const before = { hash: createHash('sha256').update(readFileSync(file)).digest('hex'), ino: statSync(file).ino };
    sim.reset();
    // Every z4 tile fails: retried once, then the failure budget stops the run.
    sim.options.fault = (path) => (/^\/maps\/sample\/(256\/)?4\//.test(path) ? { status: 503, body: 'busy' } : undefined);
    const failed = await runMirror(
      options('maps/sample', { zoom: [0, 4], failureBudget: 10, retry: { retries: 1, baseMs: 1, maxMs: 5, maxRetryAfterMs: 1000 } }),
    );
    sim.options.fault = undefined;
    expect(failed).toMatchObject({ status: 'failed', exitCode: 1 });
    expect(failed.failed).toBeGreaterThan(10);
    expect(failed.problems.join()).toMatch(/failure budget/);
    expect(failed.failures[0]).toMatch(/HTTP 503/);
    expect(tileRequests().every(([p]) => /\/4\//.test(p))).toBe(true);
    const after = { hash: createHash('sha256').update(readFileSync(file)).digest('hex'), ino: statSync(file).ino };
    expect(after).toEqual(before);
    expect(existsSync(storePaths(data, 'maps', 'sample').staging)).toBe(true);

    // Requests aborted when the budget ran out may still reach the simulator later, on the failed run's
    // connections: only the next run's (new) connections are counted.
    sim.resetForNewConnections();
    const ok = await runMirror(options('maps/sample', { zoom: [0, 4] }));
    expect(ok).toMatchObject({ status: 'published', origin: 'resumed', failed: 0 });
    const tiles = tileRequests();
    expect(tiles.filter(([p, n]) => !/\/4\//.test(p) || n !== 1)).toEqual([]);
    expect(tiles.length + ok.skipped).toBe(ok.planned);
    await waitServed('/maps/sample/4/8/5.png');
    const [a, b] = await Promise.all([upstream.url, mirrorSrv.url].map((u) => rawGet(`${u}/maps/sample/256/4/8/5.png?key=${KEY}`)));
    expect(Buffer.compare(a.body, b.body)).toBe(0);
  });

  test('a store locked by another mirror is not touched', async () => {
    const lock = acquireLock(storePaths(data, 'tiles', 'sample-terrain').lock);
    try {
      const r = await runMirror(options('tiles/sample-terrain'));
      expect(r.status).toBe('failed');
      expect(r.problems.join()).toMatch(/another mirror/);
    } finally {
      lock.release();
    }
  });
});

describe('interrupting and resuming', () => {
  test('a run stopped midway resumes without fetching any tile twice', async () => {
    const dir = tempDir();
    sim.reset();
    const stop = new AbortController();
    let settled = 0;
    const first = await runMirror(
      options('tiles/sample-vector', {
        dataDir: dir,
        concurrency: 4,
        signal: stop.signal,
        onTile: (_t, outcome) => {
          if (outcome !== 'skipped' && ++settled === 300) stop.abort();
        },
      }),
    );
    expect(first).toMatchObject({ status: 'interrupted', exitCode: 3 });
    expect(first.fetched).toBeGreaterThanOrEqual(300);
    expect(first.fetched).toBeLessThan(1365);
    const paths = storePaths(dir, 'tiles', 'sample-vector');
    expect(existsSync(paths.published)).toBe(false);
    expect(existsSync(paths.staging)).toBe(true);
    expect(existsSync(paths.lock)).toBe(false);

    const second = await runMirror(options('tiles/sample-vector', { dataDir: dir }));
    expect(second).toMatchObject({ status: 'published', origin: 'resumed', skipped: first.fetched });
    const tiles = tileRequests();
    expect(tiles.length).toBe(1365);
    expect(tiles.filter(([, n]) => n !== 1)).toEqual([]);
  });
});

describe('command line', () => {
  const cli = built('cli.js');
  const run = promisify(execFile);

  async function tilemirror(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
    try {
      const r = await run(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, cwd: ROOT });
      return { code: 0, out: r.stdout, err: r.stderr };
    } catch (e) {
      const x = e as { code: number; stdout: string; stderr: string };
      return { code: x.code, out: x.stdout, err: x.stderr };
    }
  }

  test('mirror publishes with the key from the environment and never prints it; plan prints counts', async () => {
    const dir = tempDir();
    const env = { TILEMIRROR_UPSTREAM_KEY: SECRET };
    const m = await tilemirror(['mirror', '--upstream', sim.url, '--data', dir, '--zoom', '0-2', '--rate', '500', 'tiles/sample-vector'], env);
    expect(m.code).toBe(0);
    expect(m.out).toContain('tiles/sample-vector: published');
    expect(m.err).toMatch(/tiles\/sample-vector \d+\/21 tiles/);
    expect(existsSync(join(dir, 'tiles/sample-vector.mbtiles'))).toBe(true);
    const p = await tilemirror(['plan', '--upstream', sim.url, '--data', dir, '--zoom', '0-3', '--bbox', '5,45,11,48', '--rate', '10', '--sample', '4', 'maps/sample'], env);
    expect(p.code).toBe(0);
    expect(p.out).toMatch(/maps\/sample: 8 tiles/);
    expect(p.out).toMatch(/estimated size/);
    expect(p.out).toMatch(/time at 10 req\/s: 0\.8s/);
    const failed = await tilemirror(['mirror', '--upstream', `${sim.url}/?key=${SECRET}`, '--data', dir, '--key', SECRET, 'tiles/nope']);
    expect(failed.code).toBe(1);
    for (const text of [m.out, m.err, p.out, p.err, failed.out, failed.err]) expect(text).not.toContain(SECRET);
  });

  test('usage errors exit with 2', async () => {
    expect((await tilemirror(['mirror', '--upstream', sim.url, 'fonts/Noto Sans,,Bold'])).code).toBe(2);
    expect((await tilemirror(['mirror', '--upstream', sim.url, '--zoom', '9-2', 'tiles/x'])).code).toBe(2);
    expect((await tilemirror(['mirror', 'tiles/x'])).code).toBe(2);
    const r = await tilemirror(['mirror', '--upstream', sim.url, 'nope/x']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown resource');
  });
});
