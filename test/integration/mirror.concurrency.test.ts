// How many requests the mirror keeps in flight, seen from the upstream (the simulator counts requests received and
// not yet answered): against a healthy upstream 50 ms away it grows beyond where it starts, never above the
// concurrency asked for; against one that answers 429 above a dozen requests in flight it backs off and stays
// below; and with a rate, no second of the run sees more requests than the rate. Every run publishes the same
// tiles as a plain run.

import { join } from 'node:path';
import { runMirror } from '../../src/mirror/engine/run';
import type { MirrorOptions } from '../../src/mirror/engine/options';
import { START_LIMIT } from '../../src/mirror/upstream/concurrency';
import { startSimulator, type UpstreamSimulator } from '../fixtures/upstream-simulator';
import { snapshot } from '../fixtures/mirror-stores';
import { startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const KEY = 'demo';
const RESOURCE = 'tiles/sample-vector';
let upstream: TestServer;
let sim: UpstreamSimulator;
const { tempDir, removeTempDirs } = tempDirs('tm-concurrency-');
const storeOf = (dir: string): string => join(dir, 'tiles', 'sample-vector.mbtiles');

jest.setTimeout(120_000);

beforeAll(async () => {
  upstream = await startServer();
  sim = await startSimulator(upstream.url);
});
afterAll(async () => {
  await sim?.close();
  await upstream?.close();
  removeTempDirs();
});

function opts(dataDir: string, extra: Partial<MirrorOptions>): MirrorOptions {
  return { upstream: sim.url, key: KEY, dataDir, resource: RESOURCE, zoom: [0, 4], retry: { retries: 8, baseMs: 20, maxMs: 200, maxRetryAfterMs: 5000 }, ...extra };
}

const reference = tempDir();

test('a plain run (the reference)', async () => {
  sim.options = {};
  const r = await runMirror(opts(reference, { concurrency: 4 }));
  expect(r.status).toBe('published');
});

test('against a healthy upstream 50 ms away the requests in flight grow past the start, never above --concurrency', async () => {
  sim.options = { latencyMs: 50 };
  sim.reset();
  const dir = tempDir();
  const r = await runMirror(opts(dir, { concurrency: 32 }));
  expect(r.status).toBe('published');
  expect(sim.maxInFlight).toBeGreaterThan(START_LIMIT);
  expect(sim.maxInFlight).toBeLessThanOrEqual(32);
  expect(snapshot(storeOf(dir)).tiles).toEqual(snapshot(storeOf(reference)).tiles);
});

test('an upstream that answers 429 above 12 requests in flight makes it back off; it finishes', async () => {
  const LIMIT = 12;
  // In flight at each arrival, and whether a 429 had been answered before it.
  const arrivals: { inFlight: number; after429: boolean }[] = [];
  let refused = 0;
  sim.options = {
    latencyMs: 50,
    fault: (path) => {
      arrivals.push({ inFlight: sim.inFlight, after429: refused > 0 });
      if (path.endsWith('.json') || sim.inFlight <= LIMIT) return undefined;
      refused++;
      return { status: 429, body: 'too many requests at once' };
    },
  };
  sim.reset();
  const dir = tempDir();
  const r = await runMirror(opts(dir, { concurrency: 64 }));
  expect(r.status).toBe('published');
  expect(refused).toBeGreaterThan(0);
  // After the first refusal the limit is halved and grows back slowly (by a quarter, after a pause), so the
  // requests arriving in the second half of the run find at most about the upstream's limit in flight: never
  // the doubled 16+ that set off the first refusal, let alone the 64 allowed.
  const late = arrivals.slice(Math.floor(arrivals.length / 2));
  expect(Math.max(...late.map((a) => a.inFlight))).toBeLessThan(2 * LIMIT);
  expect(refused).toBeLessThan(arrivals.length / 4);
  expect(snapshot(storeOf(dir)).tiles).toEqual(snapshot(storeOf(reference)).tiles);
});

test('with --rate N no second-window sees more than N requests (one of tolerance), and the run finishes', async () => {
  const RATE = 10;
  const times: number[] = [];
  let overRate = 0;
  // The upstream limits to N requests in any trailing second (with the tolerance below) and says 429 beyond.
  sim.options = {
    fault: () => {
      const now = performance.now();
      times.push(now);
      const inWindow = times.filter((t) => t > now - 1000).length;
      if (inWindow <= RATE + 1) return undefined;
      overRate++;
      return { status: 429, headers: { 'Retry-After': '1' }, body: 'over the rate' };
    },
  };
  sim.reset();
  const dir = tempDir();
  const r = await runMirror(opts(dir, { zoom: [0, 3], concurrency: 16, rate: RATE }));
  expect(r.status).toBe('published');
  // The mirror starts its requests at least 1/N s apart on its own clock, so any half-open second holds at most N
  // starts. The upstream stamps them after a loopback hop through the event loop this test shares with the
  // mirror; that hop's delay varies by up to a loop turn (a commit, a GC pause), well under the 100 ms between
  // two starts, so at most one request more lands in a second as the upstream counts it.
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  expect(overRate).toBe(0);
  expect(most).toBeLessThanOrEqual(RATE + 1);
  // And the run as a whole keeps the rate: n requests take at least (n - 1) / N seconds.
  expect(times[times.length - 1] - times[0]).toBeGreaterThanOrEqual(((times.length - 1) / RATE) * 1000 - 50);
  expect(snapshot(storeOf(dir)).tiles).toEqual(snapshot(storeOf(reference)).tiles.filter((t) => Number(t.split('/')[0]) <= 3));
});
