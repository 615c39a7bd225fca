// SIGKILL at random moments: the CLI mirrors from a rate-limited upstream and is killed outright (no handler
// runs, no lock released, transactions cut wherever they are) four times; a final run finishes. The published
// stores equal a clean mirror's, and no tile was fetched twice beyond the ones in flight at each kill.

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runMirror } from '../../src/mirror/engine/run';
import { storePaths } from '../../src/store/mbtiles/staging';
import { snapshot } from '../fixtures/mirror-stores';
import { startSimulator, chance, type UpstreamSimulator } from '../fixtures/upstream-simulator';
import { startServer, type TestServer } from '../helpers/server';
import { startCli, type CliProcess } from '../helpers/cli-process';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const KEY = 'demo';
const CONCURRENCY = 4;
const KILLS = 4;
const SEED = 7;

let upstream: TestServer;
let sim: UpstreamSimulator;
const { tempDir, removeTempDirs } = tempDirs('tm-kill-');

beforeAll(async () => {
  upstream = await startServer();
  sim = await startSimulator(upstream.url);
}, 120_000);

afterAll(async () => {
  await sim?.close();
  await upstream?.close();
  removeTempDirs();
});

const ARGS = (dir: string): string[] => [
  'mirror', '--upstream', sim.url, '--data', dir, '--zoom', '0-4', '--concurrency', String(CONCURRENCY), '--rate', '150',
  'tiles/sample-vector', 'maps/sample',
];

const startMirror = (dir: string): CliProcess => startCli(ARGS(dir), { TILEMIRROR_UPSTREAM_KEY: KEY });

const tileRequests = (): number => sim.log.filter((l) => !l.path.endsWith('.json')).length;

test('four SIGKILLs at random points, then a run that finishes: identical stores, no tile fetched twice beyond those in flight', async () => {
  const t0 = Date.now();
  // The reference: a clean mirror of the same plan.
  const clean = tempDir();
  for (const r of ['tiles/sample-vector', 'maps/sample']) {
    const res = await runMirror({ upstream: sim.url, key: KEY, dataDir: clean, resource: r, zoom: [0, 4], concurrency: 8 });
    expect(res.status).toBe('published');
  }
  const planned = sim.log.filter((l) => !l.path.endsWith('.json')).length;
  sim.reset();

  const dir = tempDir();
  const kills: { afterTiles: number; atTiles: number; inFlight: number }[] = [];
  for (let k = 0; k < KILLS; k++) {
    const startTiles = tileRequests();
    // Random (by seed) but always mid-run: after 15 to 165 more tile requests (of ~1000), plus up to 30 ms.
    const afterTiles = 15 + Math.floor(chance(SEED, 'kill', k) * 150);
    const { child, done } = startMirror(dir);
    await waitFor(`${afterTiles} more tile requests`, () => tileRequests() - startTiles >= afterTiles, { intervalMs: 5 });
    await new Promise((r) => setTimeout(r, Math.floor(chance(SEED, 'jitter', k) * 30)));
    // In flight: requests that arrived but were not answered yet (the answer is what the simulator logs last).
    const inFlight = sim.log.filter((l) => !l.path.endsWith('.json') && l.status === undefined).length;
    child.kill('SIGKILL');
    const exit = await done;
    expect(exit.signal).toBe('SIGKILL');
    kills.push({ afterTiles, atTiles: tileRequests(), inFlight });
    // Killed outright: the lock file stays behind (its kernel lock died with the process).
    const locks = ['tiles', 'maps'].flatMap((kind) => (existsSync(join(dir, kind)) ? readdirSync(join(dir, kind)) : []).filter((f) => f.endsWith('.lock')));
    expect({ k, locks }).toEqual({ k, locks: [expect.stringMatching(/^\.sample(-vector)?\.lock$/)] });
  }

  const final = startMirror(dir);
  const end = await final.done;
  expect({ code: end.code, out: end.out }).toEqual({ code: 0, out: expect.stringContaining('tiles/sample-vector: published') });
  expect(end.out).toContain('maps/sample: published');

  // Per tile path: requests beyond the first are the duplicates the kills caused.
  const perPath = new Map<string, number>();
  for (const l of sim.log) if (!l.path.endsWith('.json')) perPath.set(l.path, (perPath.get(l.path) ?? 0) + 1);
  const duplicates = [...perPath.values()].reduce((n, c) => n + c - 1, 0);
  expect(perPath.size).toBe(planned);
  expect(Math.max(...perPath.values())).toBeLessThanOrEqual(1 + KILLS);
  expect(duplicates).toBeLessThanOrEqual(KILLS * CONCURRENCY);
  // eslint-disable-next-line no-console
  console.log(`kills at ${JSON.stringify(kills)}; ${planned} tiles, ${sim.log.length} requests, ${duplicates} duplicates; ${Date.now() - t0} ms`);

  for (const r of ['tiles/sample-vector', 'maps/sample']) {
    const [kind, id] = r.split('/') as ['tiles' | 'maps', string];
    expect(snapshot(storePaths(dir, kind, id).published)).toEqual(snapshot(storePaths(clean, kind, id).published));
  }
  // Nothing left behind: no staging, journal, WAL or lock file.
  for (const kind of ['tiles', 'maps']) expect(readdirSync(join(dir, kind)).filter((f) => f.startsWith('.'))).toEqual([]);
}, 180_000);
