// Mirror metrics of scheduled jobs, over real HTTP: a tilemirror serving the sample is the upstream; a second one
// runs the jobs of its configuration (fired by its scheduler) and /metrics shows a running job's progress, then
// the finished runs by outcome, the last run's tiles and the last success.

import { parseConfig } from '../../src/config/load';
import { startTilemirror, type Tilemirror } from '../../src/serve';
import { parseMetrics, select, total, type Sample } from '../helpers/prometheus';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-metrics-mirror-');

let upstream: TestServer;
let mirror: Tilemirror;
let data: string;

async function scrape(): Promise<Sample[]> {
  const r = await rawGet(`${mirror.url}/metrics`);
  expect(r.status).toBe(200);
  return parseMetrics(r.body.toString('utf8'));
}

beforeAll(async () => {
  upstream = await startServer();
  data = tempDir();
  const config = parseConfig(
    {
      server: { host: '127.0.0.1', port: 0, requestLog: false },
      data,
      keys: [{ key: KEY }],
      logLevel: 'silent',
      mirror: {
        upstream: upstream.url,
        key: KEY,
        jobs: [
          // 341 tiles at 100 requests/s: the run lasts seconds, long enough to be seen running.
          { name: 'vector', resources: ['tiles/sample-vector'], zoom: '0-4', schedule: '0 3 * * *', timezone: 'UTC', rate: 100, concurrency: 4 },
          // An upstream where nothing listens: the run fails.
          { name: 'broken', resources: ['tiles/sample-vector'], zoom: '0-1', schedule: '0 4 * * *', timezone: 'UTC', upstream: 'http://127.0.0.1:9/', timeout: 1, failureBudget: 0 },
        ],
      },
    },
    'test',
    process.cwd(),
    {},
  );
  mirror = await startTilemirror(config);
});

afterAll(async () => {
  await mirror?.close();
  await upstream?.close();
  removeTempDirs();
});

test('before any run: each job is known, not running, with no runs', async () => {
  const s = await scrape();
  expect(select(s, 'tilemirror_mirror_job_running').map((x) => [x.labels.job, x.value])).toEqual([
    ['vector', 0],
    ['broken', 0],
  ]);
  expect(total(s, 'tilemirror_mirror_runs_total')).toBe(0);
  const next = select(s, 'tilemirror_mirror_next_run_timestamp_seconds', { job: 'vector' });
  expect(next).toHaveLength(1);
  // 03:00 UTC of today or tomorrow.
  expect(new Date(next[0].value * 1000).toISOString()).toMatch(/T03:00:00\.000Z$/);
  expect(next[0].value * 1000).toBeGreaterThan(Date.now());
});

test('a running job shows its progress; the finished run counts as published with its tiles', async () => {
  const started = Date.now();
  expect(mirror.scheduler?.fire('vector', 'schedule')).toBe('started');
  const during = await waitFor('progress of the running job', async () => {
    const s = await scrape();
    return total(s, 'tilemirror_mirror_progress_tiles', { job: 'vector', state: 'done' }) > 0 && s;
  });
  expect(total(during, 'tilemirror_mirror_job_running', { job: 'vector' })).toBe(1);
  expect(total(during, 'tilemirror_mirror_progress_tiles', { job: 'vector', state: 'total' })).toBe(341);
  expect(total(during, 'tilemirror_mirror_progress_resources', { job: 'vector', state: 'total' })).toBe(1);
  await mirror.scheduler?.whenIdle('vector');
  const after = await scrape();
  expect(total(after, 'tilemirror_mirror_job_running', { job: 'vector' })).toBe(0);
  expect(select(after, 'tilemirror_mirror_progress_tiles', { job: 'vector' })).toEqual([]);
  expect(select(after, 'tilemirror_mirror_runs_total', { job: 'vector' }).map((x) => [x.labels.outcome, x.value])).toEqual([
    ['published', 1],
    ['failed', 0],
    ['interrupted', 0],
  ]);
  expect(total(after, 'tilemirror_mirror_last_run_tiles', { job: 'vector', state: 'planned' })).toBe(341);
  expect(total(after, 'tilemirror_mirror_last_run_tiles', { job: 'vector', state: 'failed' })).toBe(0);
  const success = total(after, 'tilemirror_mirror_last_success_timestamp_seconds', { job: 'vector' }) * 1000;
  expect(success).toBeGreaterThanOrEqual(started - 1000);
  expect(success).toBeLessThanOrEqual(Date.now());
  // The store it published is served (once the catalog's rescan found it), and named by the store series.
  await waitFor('the published store in /metrics', async () => select(await scrape(), 'tilemirror_store_info', { kind: 'tiles', id: 'sample-vector' }).length === 1);
}, 60_000);

test('a failed run counts as failed, with no last success', async () => {
  expect(mirror.scheduler?.fire('broken', 'schedule')).toBe('started');
  await mirror.scheduler?.whenIdle('broken');
  const s = await scrape();
  expect(select(s, 'tilemirror_mirror_runs_total', { job: 'broken' }).map((x) => [x.labels.outcome, x.value])).toEqual([
    ['published', 0],
    ['failed', 1],
    ['interrupted', 0],
  ]);
  expect(select(s, 'tilemirror_mirror_last_success_timestamp_seconds', { job: 'broken' })).toEqual([]);
  expect(select(s, 'tilemirror_mirror_last_run_timestamp_seconds', { job: 'broken' })).toHaveLength(1);
  // A failed job does not make the server unready.
  expect((await rawGet(`${mirror.url}/health/ready`)).status).toBe(200);
}, 60_000);
