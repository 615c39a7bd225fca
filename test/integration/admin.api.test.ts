// The admin API over real HTTP: a tilemirror serving the sample is the upstream (behind the simulator, which
// counts and slows its answers); a second one, with admin keys and an on-demand job, mirrors from it. Stores and
// jobs are listed, a job is planned (its estimate against the store it then publishes), run, watched, cancelled
// and run again to the same content as a straight mirror of the same resource; every refusal of the writes (wrong
// key, missing key, key in the URL, cross-site Origin and Sec-Fetch-Site, other methods) is answered 403 (405 for
// other methods) and audited; no answer carries a CORS header. With redis, Run now on two servers runs once.

import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { parseConfig } from '../../src/config/load';
import { runMirror } from '../../src/mirror/engine/run';
import { startTilemirror, type Tilemirror } from '../../src/serve';
import { startSimulator, type UpstreamSimulator } from '../fixtures/upstream-simulator';
import { call, contentDigest } from '../helpers/admin-api';
import { gatedTest } from '../helpers/clients';
import { REDIS_SERVER, startRedis, type TestRedis } from '../helpers/redis';
import { KEY, startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const ADMIN = 'admin-key-7c1e94b2d0';
const OTHER_ADMIN = 'admin-key-second-4a8f';
const redisTest = gatedTest('redis-server', { bins: [REDIS_SERVER], packages: ['redis-server'] });

let upstream: TestServer;
let sim: UpstreamSimulator;
const servers: Tilemirror[] = [];
const lines: { level: number; msg: string; audit?: Record<string, unknown> }[] = [];
const { tempDir, removeTempDirs } = tempDirs('tm-admin-api-');

const JOB = { name: 'vector', resources: ['tiles/sample-vector'], zoom: '0-4', concurrency: 2 };

async function mirrorServer(data: string, extra: Record<string, unknown> = {}): Promise<Tilemirror> {
  const config = parseConfig(
    {
      server: { host: '127.0.0.1', port: 0, requestLog: false },
      data,
      keys: [{ key: KEY }],
      admin: { keys: [ADMIN, OTHER_ADMIN] },
      logLevel: 'info',
      mirror: { upstream: sim.url, key: KEY, jobs: [JOB] },
      ...extra,
    },
    'test',
    process.cwd(),
    {},
  );
  const log = pino({ level: 'info', base: undefined }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  const srv = await startTilemirror(config, log);
  servers.push(srv);
  return srv;
}

const jobOf = async (base: string, name = 'vector'): Promise<Record<string, any>> => (await call(base, 'GET', `/admin/api/jobs/${name}`, { key: ADMIN })).json;
const tileRequests = (): number => sim.log.filter((e) => /^\/tiles\/sample-vector\/\d+\/\d+\/\d+/.test(e.path)).length;

beforeAll(async () => {
  upstream = await startServer();
  sim = await startSimulator(upstream.url, { latencyMs: 40 });
});

afterAll(async () => {
  for (const s of servers) await s.close();
  await sim?.close();
  await upstream?.close();
  removeTempDirs();
});

describe('one server', () => {
  let srv: Tilemirror;
  let data: string;
  beforeAll(async () => {
    data = tempDir();
    srv = await mirrorServer(data);
  });

  test('reads: the Bearer header or ?key=; a missing, wrong or non-admin key gets 403 JSON; never a CORS header', async () => {
    for (const path of ['/admin/api/jobs', '/admin/api/stores', '/admin/api/jobs/vector', '/admin/status.json']) {
      const ok = await call(srv.url, 'GET', path, { key: ADMIN });
      expect([path, ok.status]).toEqual([path, 200]);
      expect(ok.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(ok.headers['cache-control']).toBe('no-store');
      expect(ok.headers['access-control-allow-origin']).toBeUndefined();
      expect((await call(srv.url, 'GET', `${path}?key=${OTHER_ADMIN}`)).status).toBe(200);
      for (const refused of [await call(srv.url, 'GET', path), await call(srv.url, 'GET', path, { key: 'wrong' }), await call(srv.url, 'GET', path, { key: KEY })]) {
        expect([path, refused.status]).toEqual([path, 403]);
        expect(refused.headers['access-control-allow-origin']).toBeUndefined();
      }
    }
    const missing = await call(srv.url, 'GET', '/admin/api/jobs');
    expect(missing.json).toEqual({ error: expect.stringMatching(/Missing admin key/) });
    expect((await call(srv.url, 'GET', '/admin/api/jobs/nope', { key: ADMIN })).status).toBe(404);
  });

  test('writes: wrong key, missing key, key in the URL, cross-site Origin or Sec-Fetch-Site: 403, each audited without the key', async () => {
    const path = '/admin/api/jobs/vector/run';
    const attempts: [string, Parameters<typeof call>[3], string][] = [
      ['wrong key', { key: 'wrong' }, path],
      ['user key', { key: KEY }, path],
      ['missing key', {}, path],
      ['key in the URL with the header', { key: ADMIN }, `${path}?key=${ADMIN}`],
      ['key in the URL alone', {}, `${path}?key=${ADMIN}`],
      ['cross-site Origin', { key: ADMIN, headers: { Origin: 'https://evil.example' } }, path],
      ['null Origin', { key: ADMIN, headers: { Origin: 'null' } }, path],
      ['Sec-Fetch-Site cross-site', { key: ADMIN, headers: { 'Sec-Fetch-Site': 'cross-site' } }, path],
      ['Sec-Fetch-Site same-site', { key: ADMIN, headers: { 'Sec-Fetch-Site': 'same-site' } }, path],
    ];
    const before = lines.filter((l) => l.audit).length;
    for (const [what, opts, p] of attempts) {
      const r = await call(srv.url, 'POST', p, opts);
      expect([what, r.status]).toEqual([what, 403]);
      expect(r.json).toEqual({ error: expect.any(String) });
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
    }
    const audits = lines.filter((l) => l.audit).slice(before);
    expect(audits).toHaveLength(attempts.length);
    for (const a of audits) {
      expect(a.audit).toMatchObject({ what: 'run job vector', status: 403, from: '127.0.0.1', at: expect.any(String) });
      expect(JSON.stringify(a)).not.toContain(ADMIN);
    }
    // Nothing ran.
    expect((await jobOf(srv.url)).job.running).toBeUndefined();
    expect(tileRequests()).toBe(0);
  });

  test('other methods keep their answers: 405 for PUT/DELETE/PATCH (also on the admin paths), GET of a write path is not found', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      for (const p of ['/admin/api/jobs/vector/run', '/admin/api/jobs', '/maps/sample/style.json']) {
        const r = await call(srv.url, method, p, { key: ADMIN });
        expect([method, p, r.status]).toEqual([method, p, 405]);
      }
    }
    expect((await call(srv.url, 'POST', '/admin/api/jobs', { key: ADMIN })).status).toBe(405);
    expect((await call(srv.url, 'POST', '/maps/sample/style.json?key=demo')).status).toBe(405);
    expect((await call(srv.url, 'GET', '/admin/api/jobs/vector/run', { key: ADMIN })).status).toBe(404);
  });

  test('plan, run, progress, cancel, run again: the store equals a straight mirror; history and stores say so', async () => {
    const jobs = (await call(srv.url, 'GET', '/admin/api/jobs', { key: ADMIN })).json;
    expect(jobs).toMatchObject({ scheduler: false, instance: expect.stringMatching(/:\d+$/), jobs: [{ name: 'vector', runningOn: null, resources: ['tiles/sample-vector'] }] });
    expect((await call(srv.url, 'GET', '/admin/api/stores', { key: ADMIN })).json).toEqual({ stores: [] });

    const plan = (await call(srv.url, 'GET', '/admin/api/jobs/vector/plan', { key: ADMIN })).json;
    expect(plan).toMatchObject({ tiles: 341, estimateBasis: 'probed', estimatedSeconds: null, fits: true });
    expect(plan.freeBytes).toBeGreaterThan(plan.requiredBytes);
    expect(plan.requiredBytes).toBeGreaterThan(plan.estimatedBytes);
    expect(plan.message).toMatch(/needs ~.*free/);

    const run = await call(srv.url, 'POST', '/admin/api/jobs/vector/run', { key: ADMIN, headers: { Origin: srv.url, 'Sec-Fetch-Site': 'same-origin' } });
    expect([run.status, run.json]).toEqual([202, { accepted: true, instance: jobs.instance }]);
    const again = await call(srv.url, 'POST', '/admin/api/jobs/vector/run', { key: ADMIN });
    expect([again.status, again.json.runningOn]).toEqual([409, jobs.instance]);

    const moving = await waitFor('progress', async () => {
      const j = (await call(srv.url, 'GET', '/admin/api/jobs', { key: ADMIN })).json.jobs[0];
      return j.running?.progress?.done >= 30 ? j : undefined;
    });
    expect(moving.runningOn).toBe(jobs.instance);
    expect(moving.running.progress).toMatchObject({ total: 341, resource: 'tiles/sample-vector' });
    const cancel = await call(srv.url, 'POST', '/admin/api/jobs/vector/cancel', { key: ADMIN });
    expect([cancel.status, cancel.json]).toEqual([202, { cancelling: true, instance: jobs.instance }]);
    const cancelled = await waitFor('the cancelled run to end', async () => {
      const j = await jobOf(srv.url);
      return j.job.running ? undefined : j;
    });
    expect(cancelled.history).toHaveLength(1);
    expect(cancelled.history[0]).toMatchObject({ trigger: 'manual', result: 'interrupted' });
    const kept = cancelled.history[0].tiles.fetched;
    expect(kept).toBeGreaterThanOrEqual(30);
    expect(kept).toBeLessThan(341);
    expect(existsSync(join(data, 'tiles', '.sample-vector.mbtiles.staging'))).toBe(true);
    expect(existsSync(join(data, 'tiles', 'sample-vector.mbtiles'))).toBe(false);
    expect((await call(srv.url, 'POST', '/admin/api/jobs/vector/cancel', { key: ADMIN })).status).toBe(409);

    const requestsBefore = tileRequests();
    expect((await call(srv.url, 'POST', '/admin/api/jobs/vector/run', { key: ADMIN })).status).toBe(202);
    const done = await waitFor('the second run to publish', async () => {
      const j = await jobOf(srv.url);
      return !j.job.running && j.history.length === 2 ? j : undefined;
    });
    expect(done.history[0]).toMatchObject({ result: 'published' });
    // The second run resumed: it fetched only what the first had not.
    expect(done.history[0].tiles.skipped).toBeGreaterThanOrEqual(kept);
    expect(tileRequests() - requestsBefore).toBeLessThanOrEqual(341 - kept + 2);

    const published = join(data, 'tiles', 'sample-vector.mbtiles');
    const straight = tempDir();
    const r = await runMirror({ upstream: upstream.url, key: KEY, dataDir: straight, resource: 'tiles/sample-vector', zoom: [0, 4] });
    expect(r.status).toBe('published');
    const mine = contentDigest(published);
    expect(mine).toEqual(contentDigest(join(straight, 'tiles', 'sample-vector.mbtiles')));
    expect(mine.tiles).toBeGreaterThan(0);

    // The plan now rests on the stored tiles: its estimate against the published store's size.
    const replan = (await call(srv.url, 'GET', '/admin/api/jobs/vector/plan', { key: ADMIN })).json;
    expect(replan).toMatchObject({ tiles: 341, estimateBasis: 'stored', fits: true, estimatedSeconds: expect.any(Number) });
    // Bytes per stored tile row times the planned tiles: the ocean's empty tiles have no row, so it errs high.
    const size = statSync(published).size;
    expect(replan.estimatedBytes).toBeGreaterThanOrEqual(size);
    expect(replan.estimatedBytes).toBeLessThanOrEqual(size * 1.3);
    // The first plan, from probed tiles, within a factor of two of what was stored.
    expect(plan.estimatedBytes).toBeGreaterThan(size / 2);
    expect(plan.estimatedBytes).toBeLessThan(size * 2);
    process.stdout.write(`admin plan of tiles/sample-vector z0-4: probed ${plan.estimatedBytes} B, stored ${replan.estimatedBytes} B, published file ${size} B\n`);

    const stores = await waitFor('the store listed', async () => {
      const s = (await call(srv.url, 'GET', '/admin/api/stores', { key: ADMIN })).json.stores;
      return s.length === 1 ? s : undefined;
    });
    expect(stores[0]).toMatchObject({
      id: 'tiles/sample-vector',
      kind: 'tiles',
      format: 'pbf',
      storage: 'mbtiles',
      minzoom: 0,
      maxzoom: 4,
      tiles: mine.tiles,
      bytes: size,
      publishedAt: expect.any(String),
      version: expect.any(String),
      origin: { type: 'upstream', url: `${sim.url}/` },
      job: 'vector',
    });
    expect(JSON.stringify(stores)).not.toContain(`key=${KEY}`);
    // The history names the version the run published, as the store list does.
    expect(done.history[0].resources[0].version).toBe(stores[0].version);
    const coverage = (await call(srv.url, 'GET', `/admin/api/stores/${encodeURIComponent('tiles/sample-vector')}/coverage?z=3`, { key: ADMIN })).json;
    expect(coverage).toMatchObject({ type: 'FeatureCollection', z: 3, expected: 64, truncated: false });
    expect(coverage.features[0].properties).toEqual({ type: 'mirrored' });
    expect(coverage.features.slice(1).every((f: any) => f.properties.type === 'tile' && f.properties.z === 3)).toBe(true);
    expect(coverage.tiles).toBe(coverage.features.length - 1);
    expect((await call(srv.url, 'GET', '/admin/api/stores/tiles%2Fsample-vector/coverage?z=9', { key: ADMIN })).status).toBe(400);

    // Every write above was audited once: who (the key's label), from where, what, when, the outcome.
    const audits = lines.filter((l) => l.audit && l.audit.status !== 403);
    expect(audits.map((a) => [a.audit!.what, a.audit!.status])).toEqual([
      ['run job vector', 202],
      ['run job vector', 409],
      ['cancel job vector', 202],
      ['cancel job vector', 409],
      ['run job vector', 202],
    ]);
    expect(audits[0].audit).toMatchObject({ who: 'admin key #1', from: '127.0.0.1', outcome: 'accepted' });
  });
});

describe('two servers sharing a data directory and redis', () => {
  let redis: TestRedis | undefined;
  afterAll(async () => {
    await redis?.stop();
  });

  redisTest('Run now on both at once runs once: one 202, one 409 naming the instance; the tiles fetched by one run', async () => {
    redis = await startRedis('admin-api-redis-pw');
    const data = tempDir();
    const extra = { scheduler: { redis: redis.url, lockTtlSeconds: 5 } };
    const [a, b] = [await mirrorServer(data, extra), await mirrorServer(data, extra)];
    sim.reset();
    const answers = await Promise.all([a, b].map((s) => call(s.url, 'POST', '/admin/api/jobs/vector/run', { key: ADMIN })));
    expect(answers.map((r) => r.status).sort()).toEqual([202, 409]);
    const refused = answers.find((r) => r.status === 409)!;
    expect(refused.json.error).toMatch(/already running on/);
    await waitFor('the run to publish', async () => {
      const j = await jobOf(a.url);
      return !j.job.running && j.history.length === 1 ? j : undefined;
    });
    const j = await jobOf(b.url);
    expect(j.history).toHaveLength(1);
    expect(j.history[0].result).toBe('published');
    expect(j.job.runs).toBe(1);
    // One run's 341 tiles, plus the tiles each server's plan probed before asking for the lock (about 20, at least
    // one a zoom: at most 25 here): a second run would have added 341 more.
    expect(tileRequests()).toBeGreaterThanOrEqual(341);
    expect(tileRequests()).toBeLessThanOrEqual(341 + 2 * 25);
  });
});
