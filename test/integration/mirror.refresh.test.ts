// Incremental refresh: a published store is revalidated tile by tile with conditional requests (If-None-Match
// from the stored ETags); 304s are counted as unchanged and not rewritten, changed tiles are rewritten, tiles that
// became empty or appeared are handled, and the result is byte-identical to a clean mirror of the changed
// upstream, published atomically and served without a restart. Fresh tiles (younger than --max-age) are not asked for.

import Database from 'better-sqlite3';
import { runMirror } from '../../src/mirror/engine/run';
import type { MirrorOptions } from '../../src/mirror/engine/options';
import { storePaths } from '../../src/store/mbtiles/staging';
import { snapshot, type StoreSnapshot } from '../fixtures/mirror-stores';
import { startSimulator, type Override, type UpstreamSimulator } from '../fixtures/upstream-simulator';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { waitForStatus } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

let upstream: TestServer;
let sim: UpstreamSimulator;
let served: TestServer;
let data: string;
const { tempDir, removeTempDirs } = tempDirs('tm-refresh-');

const JOBS: [string, [number, number]][] = [
  ['maps/sample', [0, 3]],
  ['tiles/sample-vector', [0, 4]],
];
const opts = (resource: string, zoom: [number, number], dataDir: string, extra: Partial<MirrorOptions> = {}): MirrorOptions => ({
  upstream: sim.url,
  key: KEY,
  dataDir,
  resource,
  zoom,
  concurrency: 8,
  ...extra,
});
const file = (dir: string, r: string): string => {
  const [kind, id] = r.split('/') as ['maps' | 'tiles', string];
  return storePaths(dir, kind, id).published;
};

beforeAll(async () => {
  upstream = await startServer();
  sim = await startSimulator(upstream.url);
  data = tempDir();
  served = await startServer({ dataDir: data });
});
afterAll(async () => {
  await served?.close();
  await sim?.close();
  await upstream?.close();
  removeTempDirs();
});

/** Tiles (as "pyramid z/x/y") whose content differs between two snapshots, plus those added or removed. */
function changedTiles(a: StoreSnapshot, b: StoreSnapshot): number {
  const key = (rows: string[], prefix: string): Map<string, string> =>
    new Map(rows.map((r) => {
      const parts = r.split(' ');
      return [`${prefix}${parts.slice(0, -1).join(' ')}`, parts[parts.length - 1]];
    }));
  const ma = new Map([...key(a.tiles, 'main '), ...key(a.extra, '')]);
  const mb = new Map([...key(b.tiles, 'main '), ...key(b.extra, '')]);
  let n = 0;
  for (const k of new Set([...ma.keys(), ...mb.keys()])) if (ma.get(k) !== mb.get(k)) n++;
  return n;
}

test('first mirror stores the upstream validators per tile', async () => {
  const started = Date.now();
  for (const [r, zoom] of JOBS) expect((await runMirror(opts(r, zoom, data))).status).toBe('published');
  const db = new Database(file(data, 'maps/sample'), { readonly: true });
  const rows = db.prepare('SELECT count(*) n, count(etag) e, min(checked_at) c FROM tilemirror_mirror_tiles').get() as { n: number; e: number; c: number };
  db.close();
  expect(rows.n).toBe(170);
  expect(rows.e).toBe(170);
  // Checked during this run (wall-clock ms), however long the run took.
  expect(rows.c).toBeGreaterThanOrEqual(started);
  expect(rows.c).toBeLessThanOrEqual(Date.now());
});

test('a refresh within the max-age asks for nothing', async () => {
  sim.reset();
  for (const [r, zoom] of JOBS) {
    const res = await runMirror(opts(r, zoom, data));
    expect(res).toMatchObject({ status: 'published', revalidated: 0, writes: 0, origin: 'copied-published' });
  }
  expect(sim.log.filter((l) => !l.path.endsWith('.json'))).toEqual([]);
});

test('--max-age 0 revalidates everything: 304s for unchanged tiles, only changed ones rewritten, identical to a clean mirror', async () => {
  const before = Object.fromEntries(JOBS.map(([r]) => [r, snapshot(file(data, r))]));
  // The upstream changes: z3 map tiles of the west half show their east neighbours' images, one map tile and one
  // vector tile vanish, and an empty (ocean) vector tile gets content.
  const emptyVector = before['tiles/sample-vector'].empty.find((e) => e.startsWith('main 4/'))!.split(' ')[1];
  const overrides = new Map<string, Override>();
  for (const prefix of ['/maps/sample', '/maps/sample/256']) {
    for (let x = 0; x < 4; x++) for (let y = 0; y < 8; y++) overrides.set(`${prefix}/3/${x}/${y}.png`, { from: `${prefix}/3/${x + 4}/${y}.png` });
  }
  overrides.set('/maps/sample/2/2/1.png', { status: 404 });
  overrides.set('/tiles/sample-vector/4/8/5', { status: 204 });
  overrides.set(`/tiles/sample-vector/${emptyVector}`, { from: '/tiles/sample-vector/4/8/5' });
  sim.options.override = (p) => overrides.get(p);
  sim.reset();

  const results = [];
  for (const [r, zoom] of JOBS) results.push(await runMirror(opts(r, zoom, data, { maxAge: 0 })));
  const tileLog = sim.log.filter((l) => !l.path.endsWith('.json'));
  const planned = results.reduce((n, r) => n + r.planned, 0);
  // One conditional request per stored tile (empty ones too: their 204 came with an ETag).
  expect(tileLog.length).toBe(planned);
  expect(tileLog.filter((l) => l.ifNoneMatch).length).toBeGreaterThan(planned - 300);

  // The reference: a clean mirror of the changed upstream.
  const clean = tempDir();
  for (const [r, zoom] of JOBS) expect((await runMirror(opts(r, zoom, clean))).status).toBe('published');
  sim.options.override = undefined;

  let writes = 0;
  let expectedWrites = 0;
  for (const [i, [r]] of JOBS.entries()) {
    const res = results[i];
    const after = snapshot(file(data, r));
    const reference = snapshot(file(clean, r));
    expect(after).toEqual(reference);
    const changed = changedTiles(before[r], after);
    expect(res).toMatchObject({ status: 'published', failed: 0, revalidated: res.planned, writes: changed });
    // 304 for every tile the upstream did not touch (a still-absent tile too: tilemirror's ETags name the bytes,
    // and an absent tile has one constant ETag); the touched ones came back in full (200, 204 or 404).
    const prefix = r === 'maps/sample' ? '/maps/' : '/tiles/';
    const touched = [...overrides.keys()].filter((p) => p.startsWith(prefix)).length;
    expect(res.notModified).toBe(tileLog.filter((l) => l.path.startsWith(prefix) && l.status === 304).length);
    expect(res.notModified).toBe(res.planned - touched);
    expect(res.unchanged).toBe(res.planned - changed);
    writes += res.writes;
    expectedWrites += changed;
  }
  expect(writes).toBe(expectedWrites);
  expect(writes).toBeGreaterThanOrEqual(4);
  // eslint-disable-next-line no-console
  console.log(`refresh: ${results.map((r) => `${r.resource} ${r.planned} planned, ${r.notModified} 304, ${r.unchanged} unchanged, ${r.writes} written`).join('; ')}`);

  // The server switched to the refreshed stores without a restart: each store (map AND vector tiles) is reloaded
  // on its own, so wait for a tile that only the refreshed version of each answers 204 for.
  await Promise.all([
    waitForStatus(`${served.url}/maps/sample/2/2/1.png?key=${KEY}`, 204),
    waitForStatus(`${served.url}/tiles/sample-vector/4/8/5?key=${KEY}`, 204),
  ]);
  const [a, b] = await Promise.all([
    rawGet(`${served.url}/maps/sample/3/1/2.png?key=${KEY}`),
    rawGet(`${upstream.url}/maps/sample/3/5/2.png?key=${KEY}`),
  ]);
  expect(Buffer.compare(a.body, b.body)).toBe(0);
});
