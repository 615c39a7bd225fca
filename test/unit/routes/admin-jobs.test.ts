// src/http/routes/admin-jobs.ts in process: the jobs and one job's history from the persisted state, and the
// checks of the writes before anything runs (a key in the URL, a cross-site request); a server process that runs
// no jobs answers the writes and the plan 503. Running, cancelling and planning for real: test/integration/admin.api.test.ts.

import * as adminJobs from '../../../src/http/routes/admin-jobs';
import type { RunRecord } from '../../../src/job-contracts';
import { JobStateFile } from '../../../src/store/data-dir/job-state';
import { failure, inProcess, json, patternsOf } from '../../helpers/in-process';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-admin-jobs-');

const ADMIN = 'admin-key-jobs-6b0e1f';
const data = tempDir();
const record = (i: number): RunRecord => ({
  trigger: 'manual',
  startedAt: `2024-05-0${i}T10:00:00.000Z`,
  endedAt: `2024-05-0${i}T10:00:30.000Z`,
  result: 'published',
  exitCode: 0,
  tiles: { planned: 10, fetched: 10, stored: 10, empty: 0, skipped: 0, failed: 0 },
  bytes: 1000 * i,
  errors: 0,
  resources: [],
});
new JobStateFile(data).update('image', (st) => {
  st.history = [record(3), record(2), record(1)];
  st.lastRun = record(3);
  st.runs = 3;
});
const app = inProcess({ dataDir: data, config: { admin: { keys: [ADMIN] }, mirror: { upstream: 'http://127.0.0.1:9/', jobs: [{ name: 'image', resources: ['images/sample-image'] }] } } });
const bearer = { key: null, headers: { Authorization: `Bearer ${ADMIN}` } };
afterAll(async () => {
  await app.close();
  removeTempDirs();
});

test('the route table gives admin-jobs.ts its five patterns', () => {
  expect(patternsOf(adminJobs)).toEqual(['/admin/api/jobs', '/admin/api/jobs/:name([^/]+)', '/admin/api/jobs/:name([^/]+)/plan', '/admin/api/jobs/:name([^/]+)/run', '/admin/api/jobs/:name([^/]+)/cancel']);
});

test('the jobs, with the instance and who runs each; the history of one, newest first; the list leaves histories out', async () => {
  const list = json<{ instance: string; scheduler: boolean; jobs: Record<string, unknown>[] }>(await app.get('/admin/api/jobs', bearer));
  expect(list).toMatchObject({ scheduler: false, instance: expect.stringMatching(/^.+:\d+$/), jobs: [{ name: 'image', runs: 3, runningOn: null }] });
  expect(list.jobs[0]).not.toHaveProperty('history');
  const one = json<{ job: { name: string }; history: RunRecord[] }>(await app.get('/admin/api/jobs/image', bearer));
  expect(one.job.name).toBe('image');
  expect(one.history.map((r) => r.bytes)).toEqual([3000, 2000, 1000]);
  expect(failure(await app.get('/admin/api/jobs/nope', bearer))).toMatchObject({ status: 404, type: 'application/json; charset=utf-8' });
});

test('writes: a key in the URL or a cross-site request is refused before anything else; no job control here is a 503', async () => {
  for (const action of ['run', 'cancel']) {
    const path = `/admin/api/jobs/image/${action}`;
    expect(failure(await app.get(path, { key: ADMIN, headers: { Authorization: `Bearer ${ADMIN}` } }))).toMatchObject({ status: 403, message: expect.stringMatching(/key in the URL/) });
    expect(failure(await app.get(path, { key: null, headers: { Authorization: `Bearer ${ADMIN}`, Origin: 'https://elsewhere.example' } }))).toMatchObject({ status: 403 });
    expect(failure(await app.get(path, { key: null, headers: { Authorization: `Bearer ${ADMIN}`, 'Sec-Fetch-Site': 'cross-site' } }))).toMatchObject({ status: 403 });
    expect(failure(await app.get(path, { key: null, headers: { Authorization: 'Bearer wrong-key' } }))).toMatchObject({ status: 403 });
    expect(failure(await app.get(path, { key: null, headers: { Authorization: `Bearer ${ADMIN}`, Origin: 'https://maps.example.org', 'Sec-Fetch-Site': 'same-origin' } }))).toMatchObject({ status: 503 });
  }
  expect(failure(await app.get('/admin/api/jobs/image/plan', bearer))).toMatchObject({ status: 503 });
});
