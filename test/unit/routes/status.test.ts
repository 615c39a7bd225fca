// src/http/routes/status.ts in process: /admin/status.json behind the admin keys (404 with none configured, 403
// without an admin key), the persisted state of the configured jobs.

import * as status from '../../../src/http/routes/status';
import type { RunRecord } from '../../../src/job-contracts';
import { JobStateFile } from '../../../src/store/data-dir/job-state';
import { FREE_KEY, failure, inProcess, json, patternsOf, PAID_KEY, SAMPLE_DIR } from '../../helpers/in-process';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-status-');

const ADMIN = 'admin-key-5f1e7c3b';
const TEXT = 'text/plain; charset=utf-8';
const PATHS = ['/admin/status.json'];

const hidden = inProcess();
// A data directory with the state of two configured jobs: `vector` scheduled and never run, `image` on demand
// whose last run failed with an error message holding markup.
const data = tempDir();
const lastRun: RunRecord = {
  trigger: 'manual',
  startedAt: '2024-05-01T10:00:00.000Z',
  endedAt: '2024-05-01T10:00:30.000Z',
  result: 'failed',
  exitCode: 1,
  tiles: { planned: 10, fetched: 8, stored: 7, empty: 1, skipped: 0, failed: 2 },
  bytes: 12345,
  errors: 2,
  lastError: '<script>alert("x")</script> & more',
  resources: [],
};
new JobStateFile(data).update('image', (st) => {
  st.lastRun = lastRun;
  st.runs = 1;
  st.failures = 1;
});
const app = inProcess({
  dataDir: data,
  config: {
    admin: { keys: [ADMIN] },
    mirror: {
      upstream: 'http://127.0.0.1:9/',
      jobs: [
        { name: 'vector', resources: ['tiles/sample-vector'], schedule: '0 3 * * *', timezone: 'UTC' },
        { name: 'image', resources: ['images/sample-image'] },
      ],
    },
  },
});
const sampleWithAdmin = inProcess({ dataDir: SAMPLE_DIR, config: { admin: { keys: [ADMIN] } } });
afterAll(async () => {
  for (const a of [hidden, app, sampleWithAdmin]) await a.close();
  removeTempDirs();
});

interface Doc {
  generatedAt: string;
  scheduler: boolean;
  jobs: { name: string; resources: string[]; schedule?: string; runs: number; failures: number; lastRun?: RunRecord }[];
}

test('the route table gives status.ts its pattern, public (the handler checks the admin key)', () => {
  expect(patternsOf(status)).toEqual(['/admin/status.json']);
});

test.each(PATHS)('without admin keys configured %s does not exist (404)', async (path) => {
  expect(failure(await hidden.get(path, { key: ADMIN }))).toEqual({ status: 404, type: TEXT, message: 'Not found' });
});

test.each(PATHS)('%s needs an admin key: none or an API key get 403', async (path) => {
  expect(failure(await app.get(path, { key: null }))).toEqual({ status: 403, type: TEXT, message: 'Missing admin key' });
  for (const key of [PAID_KEY, FREE_KEY]) expect(failure(await app.get(path, { key }))).toEqual({ status: 403, type: TEXT, message: 'Not an admin key' });
  expect((await app.get(path, { key: ADMIN })).status).toBe(200);
});

test('status.json: the configured jobs with their persisted state, never cached', async () => {
  const r = await app.get('/admin/status.json', { key: ADMIN });
  expect(r).toMatchObject({
    status: 200,
    type: 'application/json; charset=utf-8',
    cache: 'none',
    headers: { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff' },
  });
  const doc = json<Doc>(r);
  expect(doc.scheduler).toBe(false);
  expect(doc.jobs.map((j) => [j.name, j.resources, j.schedule, j.runs, j.failures])).toEqual([
    ['vector', ['tiles/sample-vector'], '0 3 * * *', 0, 0],
    ['image', ['images/sample-image'], undefined, 1, 1],
  ]);
  expect(doc.jobs[1].lastRun).toEqual(lastRun);
  expect(json<Doc>(await sampleWithAdmin.get('/admin/status.json', { key: ADMIN })).jobs).toEqual([]);
});

test('every route of status.ts was reached, and nothing failed unexpectedly', () => {
  expect(patternsOf(status).filter((p) => !app.reached.has(p))).toEqual([]);
  expect([hidden, app, sampleWithAdmin].flatMap((a) => a.failures)).toEqual([]);
});
