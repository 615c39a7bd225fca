// The mirror against a misbehaving upstream: every fault the simulator knows, at rates a bad day brings, and the
// published stores are still byte-identical to a clean mirror's. And Retry-After: a refusal among healthy answers
// delays its own request, while refusals that make up much of the answers (a rate limit that binds) close the gate
// for the whole run for the time named.

import { join } from 'node:path';
import { runMirror } from '../../src/mirror/engine/run';
import type { MirrorOptions } from '../../src/mirror/engine/options';
import { FAULT_KINDS, startSimulator, type FaultKind, type UpstreamSimulator } from '../fixtures/upstream-simulator';
import { snapshot } from '../fixtures/mirror-stores';
import { PRESSURE_HIGH } from '../../src/mirror/upstream/concurrency';
import { startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';
import { waitFor } from '../helpers/wait';

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

  test('with ~45 % of requests faulted the mirror completes, byte-identical (its time is printed, not asserted)', async () => {
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

describe('Retry-After: a refusal among healthy answers waits alone, a run of refusals closes the gate for every request', () => {
  const retry = { retries: 3, baseMs: 5, maxMs: 20, maxRetryAfterMs: 5000 };

  /**
   * Refuses tile requests number `first` to `first + count - 1` with `status` and a Retry-After; returns when
   * the client heard the `nth` refusal (it logs the retry right after deciding on the gate) and what arrived.
   */
  async function refuse(status: 429 | 503, retryAfter: () => string, first: number, count: number, nth: number) {
    sim.reset();
    let tileRequests = 0;
    const told: { at: number; path: string }[] = [];
    sim.options.fault = (path) => {
      if (path.endsWith('.json')) return undefined;
      const n = ++tileRequests;
      if (n < first || n >= first + count) return undefined;
      told.push({ at: performance.now(), path });
      return { status, headers: { 'Retry-After': retryAfter() }, body: 'slow down' };
    };
    // When the client heard the nth refusal, same clock as the simulator's log.
    let heard = -1;
    let refusals = 0;
    const log = (line: string): void => {
      if (line.includes(`HTTP ${status}`) && ++refusals === nth) heard = performance.now();
    };
    const res = await runMirror(opts('tiles/sample-vector', [0, 3], tempDir(), { concurrency: 8, retry, log }));
    sim.options.fault = undefined;
    expect(res.status).toBe('published');
    expect(told).toHaveLength(count);
    expect(heard).toBeGreaterThanOrEqual(told[nth - 1].at);
    return { told, heard };
  }

  test('one 429 among healthy answers: its tile is asked again only after Retry-After, the others go on meanwhile', async () => {
    const { told, heard } = await refuse(429, () => '1', 12, 1, 1);
    const [{ at, path }] = told;
    // The told tile waits its second; the run does not (more than the 7 other requests that may have been on their way).
    expect(sim.log.filter((l) => l.path === path).map((l) => l.at >= at + 950)).toEqual([false, true]);
    expect(sim.log.filter((l) => l.at > heard && l.at < at + 950).length).toBeGreaterThan(7);
  });

  /**
   * Counted, not timed: until the client heard the refusal that tipped the share (the PRESSURE_HIGH-th), its other
   * workers went on; once it heard, each of the 7 other workers may still have one request on its way (sent, or its
   * token taken, before the gate closed); no other request may arrive before the pause ends.
   */
  async function gateAfter(status: 429 | 503, retryAfter: () => string, quietMs: number): Promise<void> {
    const { told, heard } = await refuse(status, retryAfter, 12, PRESSURE_HIGH + 4, PRESSURE_HIGH);
    const tipped = told[PRESSURE_HIGH - 1].at;
    expect(sim.log.filter((l) => l.at > heard && l.at < tipped + quietMs).length).toBeLessThanOrEqual(7);
    expect(sim.log.filter((l) => l.at <= tipped).length).toBeGreaterThan(12);
    // The run went on after the pause: each refused tile asked for again then (a retry that came while the refusals
    // lasted was refused again, and asked once more).
    for (const { path } of told) expect(sim.log.filter((l) => l.path === path && l.at >= tipped + quietMs).length).toBeGreaterThanOrEqual(1);
  }

  test('429s refusing most requests, Retry-After in seconds: no request at all for that long', async () => {
    await gateAfter(429, () => '1', 950);
  });

  test('503s refusing most requests, Retry-After as an HTTP-date: no request until then', async () => {
    // The date has whole seconds: "now + 2 s" means a pause between 1 and 2 s.
    await gateAfter(503, () => new Date(Date.now() + 2000).toUTCString(), 950);
  });
});

describe('a stalled answer holds only its own slot', () => {
  test('tiles answered only after a minute are hedged: the run completes without waiting for them, within --concurrency', async () => {
    sim.reset();
    // The first three tile requests are answered after 60 s: a run that waited for them would outlive the test.
    sim.options.faults = { seed: 1, rates: { slow: 1 }, limits: { slow: 3 }, applies: (p) => !p.endsWith('.json'), slowMs: 60_000 };
    const dir = tempDir();
    const res = await runMirror(opts('tiles/sample-vector', [0, 3], dir, { concurrency: 6 }));
    sim.options.faults = undefined;
    // Three, or one more when two requests passed the simulator's limit at once.
    const slow = sim.injected.get('slow') ?? 0;
    expect(slow).toBeGreaterThanOrEqual(3);
    expect(res).toMatchObject({ status: 'published', failed: 0, hedges: slow });
    // The hedges counted against --concurrency: the stalled requests and their hedges were never more than 6 at once.
    expect(sim.maxInFlight).toBeLessThanOrEqual(6);
    // The requests the hedges beat were cancelled: nothing of the run is left waiting at the upstream.
    await waitFor('the stalled requests to be closed', () => sim.inFlight === 0);
    const ref = tempDir();
    expect((await runMirror(opts('tiles/sample-vector', [0, 3], ref, { concurrency: 4 }))).status).toBe('published');
    expect(snapshot(join(dir, 'tiles/sample-vector.mbtiles'))).toEqual(snapshot(join(ref, 'tiles/sample-vector.mbtiles')));
  });
});
