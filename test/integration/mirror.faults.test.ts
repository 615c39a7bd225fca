// The mirror against a misbehaving upstream: every fault the simulator knows, at rates a bad day brings, and the
// published stores are still byte-identical to a clean mirror's, in bounded time. And Retry-After: a 429 or 503
// that names a time closes the gate for the whole run, not only for the request that was told.

import { join } from 'node:path';
import { runMirror } from '../../src/mirror/engine/run';
import type { MirrorOptions } from '../../src/mirror/engine/options';
import { FAULT_KINDS, startSimulator, type FaultKind, type UpstreamSimulator } from '../fixtures/upstream-simulator';
import { snapshot } from '../fixtures/mirror-stores';
import { startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const KEY = 'demo';
let upstream: TestServer;
let sim: UpstreamSimulator;
const { tempDir, removeTempDirs } = tempDirs('tm-faults-');

beforeAll(async () => {
  upstream = await startServer();
  sim = await startSimulator(upstream.url);
});
afterAll(async () => {
  await sim?.close();
  await upstream?.close();
  removeTempDirs();
});

const RESOURCES: [string, [number, number]][] = [
  ['maps/sample', [0, 4]],
  ['tiles/sample-vector', [0, 4]],
];

function opts(resource: string, zoom: [number, number], dataDir: string, extra: Partial<MirrorOptions> = {}): MirrorOptions {
  return { upstream: sim.url, key: KEY, dataDir, resource, zoom, concurrency: 8, ...extra };
}

describe('a mirror through every fault', () => {
  const clean = tempDir();
  const faulty = tempDir();

  test('clean mirror (the reference)', async () => {
    sim.options.faults = undefined;
    for (const [r, zoom] of RESOURCES) {
      const res = await runMirror(opts(r, zoom, clean));
      expect(res.problems).toEqual([]);
      expect(res.status).toBe('published');
    }
  });

  test('with ~45 % of requests faulted the mirror completes, byte-identical, in bounded time', async () => {
    sim.reset();
    // 4.5 % of each of the ten kinds; Retry-After pauses the whole run, so those are few.
    const rates = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0.045])) as Record<FaultKind, number>;
    sim.options.faults = { seed: 20240611, rates, limits: { retryAfterSeconds: 2, retryAfterDate: 2 }, retryAfterSeconds: 1 };
    const t0 = Date.now();
    const results = [];
    for (const [r, zoom] of RESOURCES) {
      results.push(
        await runMirror(
          opts(r, zoom, faulty, {
            timeoutMs: 500,
            // Enough attempts that 45 % faults cannot exhaust them (0.45^16 per tile).
            retry: { retries: 15, baseMs: 5, maxMs: 80, maxRetryAfterMs: 5000 },
            failureBudget: 0,
          }),
        ),
      );
    }
    const elapsed = Date.now() - t0;
    sim.options.faults = undefined;
    for (const res of results) {
      expect(res.problems).toEqual([]);
      expect(res).toMatchObject({ status: 'published', failed: 0 });
    }
    const injected = Object.fromEntries(sim.injected);
    const total = [...sim.injected.values()].reduce((a, b) => a + b, 0);
    const requests = sim.log.length;
    const retries = results.reduce((n, r) => n + r.retries, 0);
    // Every kind was met, and every injected fault was noticed (each cost one failed attempt, hence one retry).
    expect(FAULT_KINDS.filter((k) => !((injected[k] ?? 0) > 0))).toEqual([]);
    expect(retries).toBeGreaterThanOrEqual(total);
    expect(total / requests).toBeGreaterThan(0.3);
    // eslint-disable-next-line no-console
    console.log(`faults: ${total} injected in ${requests} requests (${JSON.stringify(injected)}), ${retries} retries, ${elapsed} ms`);
    for (const [r] of RESOURCES) {
      const file = (d: string): string => join(d, `${r}.mbtiles`);
      const a = snapshot(file(clean));
      const b = snapshot(file(faulty));
      expect(b.tiles.length + b.extra.length).toBeGreaterThan(100);
      expect(b).toEqual(a);
    }
  }, 150_000);
});

describe('Retry-After closes the gate for every request', () => {
  async function windowAfter(status: 429 | 503, retryAfter: () => string, quietMs: number): Promise<void> {
    sim.reset();
    let tileRequests = 0;
    let told = -1;
    let toldPath = '';
    sim.options.fault = (path) => {
      if (path.endsWith('.json') || ++tileRequests !== 12) return undefined;
      told = performance.now();
      toldPath = path;
      return { status, headers: { 'Retry-After': retryAfter() }, body: 'slow down' };
    };
    // When the client heard the answer (it logs the retry right after closing the gate), same clock as `told`.
    let heard = -1;
    const log = (line: string): void => {
      if (heard < 0 && line.includes(`HTTP ${status}`)) heard = performance.now();
    };
    const res = await runMirror(
      opts('tiles/sample-vector', [0, 3], tempDir(), { concurrency: 8, retry: { retries: 3, baseMs: 5, maxMs: 20, maxRetryAfterMs: 5000 }, log }),
    );
    sim.options.fault = undefined;
    expect(res.status).toBe('published');
    expect(told).toBeGreaterThan(0);
    expect(heard).toBeGreaterThanOrEqual(told);
    // Counted, not timed: until the client heard the answer its other workers went on (legitimately). Once it
    // heard, each of the 7 other workers may still have one request on its way (sent, or its token taken,
    // before the gate closed); no other request may arrive before the pause ends (at least quietMs after told).
    const during = sim.log.filter((l) => l.at > heard && l.at < told + quietMs);
    expect(during.length).toBeLessThanOrEqual(7);
    const before = sim.log.filter((l) => l.at <= told).length;
    expect(before).toBeGreaterThan(12);
    // The run went on after the pause, the told tile asked for again only then.
    expect(sim.log.filter((l) => l.path === toldPath).map((l) => l.at >= told + quietMs)).toEqual([false, true]);
    expect(sim.log.filter((l) => l.at >= told + quietMs).length).toBeGreaterThan(0);
  }

  test('429 with Retry-After in seconds: no request at all for that long', async () => {
    await windowAfter(429, () => '1', 950);
  });

  test('503 with Retry-After as an HTTP-date: no request until then', async () => {
    // The date has whole seconds: "now + 2 s" means a pause between 1 and 2 s.
    await windowAfter(503, () => new Date(Date.now() + 2000).toUTCString(), 950);
  });
});
