// A cloud's bad day, as an operator meets it: the CLI mirrors five resources of every kind with no flags through a
// proxy that answers a quarter of all requests with a fault, chosen evenly among a 500, a reset connection, a body
// cut short, 429 with Retry-After: 1, a correct answer after 15 s of silence, an HTML error page and a garbage body.
// The run completes with every tile and document byte-identical to a clean mirror's; so does a run killed three
// times with SIGKILL and resumed. The time limits here are safety nets; the times are printed, not asserted.

import { storePaths } from '../../src/store/mbtiles/staging';
import type { StoreKind } from '../../src/store/types';
import { snapshot } from '../fixtures/mirror-stores';
import { CLOUD_FAULTS, startSimulator, chance, type FaultKind, type UpstreamSimulator } from '../fixtures/upstream-simulator';
import { startServer, type TestServer } from '../helpers/server';
import { startCli, type CliExit } from '../helpers/cli-process';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const KEY = 'demo';
const RESOURCES = ['maps/sample', 'tiles/sample-vector', 'fonts/Noto Sans Regular', 'sprites/sample', 'images/sample-image'];
const STORES = RESOURCES.map((r) => r.split('/') as [StoreKind, string]);
/** A quarter of all requests faulted, the seven kinds alike. */
const RATES = Object.fromEntries(CLOUD_FAULTS.map((k) => [k, 0.25 / CLOUD_FAULTS.length])) as Record<FaultKind, number>;
const KILLS = 3;

let upstream: TestServer;
let sim: UpstreamSimulator;
const { tempDir, removeTempDirs } = tempDirs('tm-cloud-faults-');
const clean = tempDir();

beforeAll(async () => {
  upstream = await startServer();
  sim = await startSimulator(upstream.url);
}, 120_000);
afterAll(async () => {
  await sim?.close();
  await upstream?.close();
  removeTempDirs();
});

const mirror = (dir: string): ReturnType<typeof startCli> =>
  startCli(['mirror', '--upstream', sim.url, '--data', dir, '--zoom', '0-4', ...RESOURCES], { TILEMIRROR_UPSTREAM_KEY: KEY });

/** What a finished run printed about itself, for the log. */
function summary(exit: CliExit, ms: number): string {
  const requests = [...exit.out.matchAll(/(\d+) requests \((\d+) retries(?:, (\d+) hedged)?\)/g)];
  const sum = (i: number): number => requests.reduce((n, m) => n + Number(m[i] ?? 0), 0);
  return `${ms} ms, ${sum(1)} requests, ${sum(2)} retries, ${sum(3)} hedged`;
}

function expectPublishedAsClean(dir: string, exit: CliExit): void {
  expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
  for (const r of RESOURCES) expect(exit.out).toContain(`${r}: published`);
  for (const [kind, id] of STORES) {
    const a = snapshot(storePaths(clean, kind, id).published);
    const b = snapshot(storePaths(dir, kind, id).published);
    expect({ store: `${kind}/${id}`, ...b }).toEqual({ store: `${kind}/${id}`, ...a });
  }
}

test('the reference: the same command through the proxy with no faults', async () => {
  sim.options.faults = undefined;
  const t0 = Date.now();
  const exit = await mirror(clean).done;
  expect({ code: exit.code, out: exit.out }).toEqual({ code: 0, out: expect.stringContaining('images/sample-image: published') });
  const a = snapshot(storePaths(clean, 'maps', 'sample').published);
  expect(a.tiles.length + a.extra.length).toBeGreaterThan(600);
  // eslint-disable-next-line no-console
  console.log(`no faults: ${summary(exit, Date.now() - t0)}`);
}, 120_000);

test('a quarter of the requests faulted, seven kinds: completes, byte-identical', async () => {
  sim.reset();
  sim.options.faults = { seed: 36_2026, rates: RATES, retryAfterSeconds: 1, slowMs: 15_000 };
  const dir = tempDir();
  const t0 = Date.now();
  const exit = await mirror(dir).done;
  const ms = Date.now() - t0;
  sim.options.faults = undefined;
  const injected = Object.fromEntries(sim.injected);
  // Every kind was met, at about its share.
  expect(CLOUD_FAULTS.filter((k) => !((injected[k] ?? 0) > 0))).toEqual([]);
  const faulted = [...sim.injected.values()].reduce((a, b) => a + b, 0);
  expect(faulted / sim.log.length).toBeGreaterThan(0.15);
  expectPublishedAsClean(dir, exit);
  // eslint-disable-next-line no-console
  console.log(`faults: ${summary(exit, ms)}; ${faulted} faults in ${sim.log.length} requests ${JSON.stringify(injected)}`);
}, 240_000);

test('the same faults, three SIGKILLs at random points and a resume: completes, byte-identical', async () => {
  sim.reset();
  sim.options.faults = { seed: 36_2027, rates: RATES, retryAfterSeconds: 1, slowMs: 15_000 };
  const dir = tempDir();
  const kills: number[] = [];
  for (let k = 0; k < KILLS; k++) {
    const before = sim.log.length;
    // Mid-run, wherever the seed says: after 100 to 700 more requests (a whole run makes ~2,000).
    const after = 100 + Math.floor(chance(36, 'kill', k) * 600);
    const run = mirror(dir);
    await waitFor(`${after} more requests`, () => sim.log.length - before >= after || run.child.exitCode !== null, { intervalMs: 5, limitMs: 120_000 });
    run.child.kill('SIGKILL');
    const exit = await run.done;
    expect(exit.signal).toBe('SIGKILL');
    kills.push(sim.log.length);
  }
  const t0 = Date.now();
  const exit = await mirror(dir).done;
  const ms = Date.now() - t0;
  sim.options.faults = undefined;
  expectPublishedAsClean(dir, exit);
  // eslint-disable-next-line no-console
  console.log(`killed at ${kills.join(', ')} requests; the resume: ${summary(exit, ms)}`);
}, 300_000);
