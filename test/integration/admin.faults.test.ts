// The admin API's Run now through a cloud's bad day: a job mirrors two resources with no tuning through a proxy that
// faults a quarter of the requests (seven kinds, a 15 s stall among them). The published store keeps serving the
// same bytes while a later run revalidates everything through the faults, is cancelled midway (its staging kept)
// and run again to the end; the final store equals the first, tile for tile.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { parseConfig } from '../../src/config/load';
import { startTilemirror, type Tilemirror } from '../../src/serve';
import { CLOUD_FAULTS, startSimulator, type FaultKind, type UpstreamSimulator } from '../fixtures/upstream-simulator';
import { call, contentDigest } from '../helpers/admin-api';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { waitFor, waitForStatus } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const ADMIN = 'admin-key-faults-31d7a0';
const RESOURCES = ['tiles/sample-vector', 'maps/sample'];
const RATES = Object.fromEntries(CLOUD_FAULTS.map((k) => [k, 0.25 / CLOUD_FAULTS.length])) as Record<FaultKind, number>;
const STORES = [join('tiles', 'sample-vector.mbtiles'), join('maps', 'sample.mbtiles')];

let upstream: TestServer;
let sim: UpstreamSimulator;
let srv: Tilemirror;
const { tempDir, removeTempDirs } = tempDirs('tm-admin-faults-');
const data = tempDir();

beforeAll(async () => {
  upstream = await startServer();
  sim = await startSimulator(upstream.url);
  const config = parseConfig(
    {
      server: { host: '127.0.0.1', port: 0, requestLog: false },
      data,
      keys: [{ key: KEY }],
      admin: { keys: [ADMIN] },
      mirror: {
        upstream: sim.url,
        key: KEY,
        jobs: [
          { name: 'first', resources: RESOURCES, zoom: '0-3' },
          // Revalidates every stored tile: each one asked again (conditionally) through the faults.
          { name: 'refresh', resources: RESOURCES, zoom: '0-3', maxAge: 0 },
        ],
      },
    },
    'test',
    process.cwd(),
    {},
  );
  srv = await startTilemirror(config, pino({ level: 'silent' }));
}, 120_000);

afterAll(async () => {
  await srv?.close();
  await sim?.close();
  await upstream?.close();
  removeTempDirs();
});

const runNow = async (name: string): Promise<void> => expect((await call(srv.url, 'POST', `/admin/api/jobs/${name}/run`, { key: ADMIN })).status).toBe(202);
const ended = (name: string, runs: number): Promise<Record<string, any>[]> =>
  waitFor(`run ${runs} of ${name} to end`, async () => {
    const j = (await call(srv.url, 'GET', `/admin/api/jobs/${name}`, { key: ADMIN })).json;
    return !j.job.running && j.history.length === runs ? j.history : undefined;
  }, { limitMs: 240_000 });

test('Run now through seven faults at 25 %: the published store serves throughout, a cancelled run resumes, the result is identical', async () => {
  sim.options.faults = undefined;
  await runNow('first');
  expect((await ended('first', 1))[0]).toMatchObject({ result: 'published' });
  const first = STORES.map((s) => contentDigest(join(data, s)));
  const tile = `${srv.url}/tiles/sample-vector/2/2/1.pbf?key=${KEY}`;
  // Served once the catalog has seen the published file (its watch, or its rescan).
  const served = await waitForStatus(tile, 200);

  sim.reset();
  // Whole answers to the revalidations (no 304s), so that every fault meets a body to spoil.
  sim.options.ignoreConditional = true;
  sim.options.faults = { seed: 362_028, rates: RATES, retryAfterSeconds: 1, slowMs: 15_000 };
  await runNow('refresh');
  // Midway: the published store still answers with the same bytes, then the run is cancelled.
  await waitFor('the refresh to be under way', async () => ((await call(srv.url, 'GET', '/admin/api/jobs/refresh', { key: ADMIN })).json.job.running?.progress?.done ?? 0) >= 100, { limitMs: 120_000 });
  const during = await rawGet(tile);
  expect([during.status, during.body.equals(served.body)]).toEqual([200, true]);
  expect((await call(srv.url, 'POST', '/admin/api/jobs/refresh/cancel', { key: ADMIN })).status).toBe(202);
  const cancelled = await ended('refresh', 1);
  expect(cancelled[0]).toMatchObject({ result: 'interrupted' });
  expect(existsSync(join(data, 'tiles', '.sample-vector.mbtiles.staging')) || existsSync(join(data, 'maps', '.sample.mbtiles.staging'))).toBe(true);
  expect((await rawGet(tile)).body.equals(served.body)).toBe(true);

  await runNow('refresh');
  const done = await ended('refresh', 2);
  expect(done[0]).toMatchObject({ result: 'published' });
  sim.options.faults = undefined;
  // Faults of every kind were met and none was stored.
  expect(CLOUD_FAULTS.filter((k) => !((sim.injected.get(k) ?? 0) > 0))).toEqual([]);
  expect(STORES.map((s) => contentDigest(join(data, s)))).toEqual(first);
  expect((await rawGet(tile)).body.equals(served.body)).toBe(true);
}, 300_000);
