// A server that does not run the schedules (a `serve --workers` worker: the primary runs them) shows the job state
// the scheduler persists, read from the data directory on every request, and says it runs no schedules. The
// state is written by JobStateFile as another process would, so the test needs no running mirror.

import pino from 'pino';
import { parseConfig } from '../../src/config/load';
import { startTilemirror, type Tilemirror } from '../../src/serve';
import { JobStateFile } from '../../src/store/data-dir/job-state';
import { rawGet } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-status-reader-');

const ADMIN = 'admin-key-9c2d4e6f';
let data: string;
let srv: Tilemirror | undefined;

beforeAll(async () => {
  data = tempDir();
  const config = parseConfig(
    {
      server: { host: '127.0.0.1', port: 0, requestLog: false },
      data,
      keys: [{ key: 'demo' }],
      admin: { keys: [ADMIN] },
      logLevel: 'silent',
      mirror: {
        upstream: 'http://127.0.0.1:9',
        jobs: [{ name: 'nightly', resources: ['tiles/sample-vector'], schedule: '0 3 * * *', timezone: 'UTC' }],
      },
    },
    'test',
    process.cwd(),
    {},
  );
  srv = await startTilemirror(config, pino({ level: 'silent' }), { schedule: false });
});

afterAll(async () => {
  await srv?.close();
  removeTempDirs();
});

async function statusJson(): Promise<{ scheduler: boolean; jobs: Record<string, unknown>[] }> {
  const res = await rawGet(`${srv!.url}/admin/status.json?key=${ADMIN}`);
  expect(res.status).toBe(200);
  return JSON.parse(res.body.toString('utf8')) as { scheduler: boolean; jobs: Record<string, unknown>[] };
}

test('without schedules in this process: no scheduler, the configured job from the persisted state', async () => {
  expect(srv!.scheduler).toBeUndefined();
  const before = await statusJson();
  expect(before.scheduler).toBe(false);
  expect(before.jobs).toEqual([expect.objectContaining({ name: 'nightly', runs: 0, failures: 0, schedule: '0 3 * * *', timezone: 'UTC' })]);
  expect(before.jobs[0]).not.toHaveProperty('lastRun');

  // Another process (the cluster primary) records a finished run: the next request shows it.
  new JobStateFile(data).update('nightly', (st) => {
    st.runs = 1;
    st.lastRun = {
      trigger: 'schedule',
      startedAt: '2026-01-02T03:00:00.000Z',
      endedAt: '2026-01-02T03:00:05.000Z',
      result: 'published',
      exitCode: 0,
      tiles: { planned: 5, fetched: 5, stored: 4, empty: 1, skipped: 0, failed: 0 },
      bytes: 2048,
      errors: 0,
      resources: [],
    };
  });
  const after = await statusJson();
  expect(after.scheduler).toBe(false);
  expect(after.jobs[0]).toMatchObject({ name: 'nightly', runs: 1, lastRun: { result: 'published', tiles: { stored: 4, empty: 1 }, bytes: 2048 } });

});
