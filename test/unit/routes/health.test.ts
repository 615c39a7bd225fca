// src/http/routes/health.ts in process: /health/ready, 200 when the instance should get traffic, 503 with the
// failed check otherwise (an empty data directory), public and uncached. (/health and /health/live: home.test.ts.)

import * as health from '../../../src/http/routes/health';
import { inProcess, json, patternsOf } from '../../helpers/in-process';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-not-ready-');

const app = inProcess();
const empty = tempDir();
const notReady = inProcess({ dataDir: empty });
const unwired = inProcess({ without: ['readiness'] });
afterAll(async () => {
  for (const a of [app, notReady, unwired]) await a.close();
  removeTempDirs();
});

interface Report {
  ready: boolean;
  checks: Record<string, { ok: boolean; [k: string]: unknown }>;
}

test('the route table gives health.ts its one pattern', () => {
  expect(patternsOf(health)).toEqual(['/health/ready']);
});

test('the sample: ready, every check passing, public and never cached', async () => {
  const r = await app.get('/health/ready', { key: null });
  expect(r).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', cache: 'none' });
  expect(json<Report>(r)).toEqual({
    ready: true,
    checks: {
      stores: { ok: true, open: 11, failed: 0, unreadableFolders: 0 },
      scheduler: { ok: true, state: 'none' },
      indexes: { ok: true, coordinates: 'open' },
    },
  });
});

test('an empty data directory is not ready: 503 naming the stores check', async () => {
  const r = await notReady.get('/health/ready', { key: null });
  expect(r).toMatchObject({ status: 503, type: 'application/json; charset=utf-8', cache: 'none' });
  expect(json<Report>(r)).toEqual({
    ready: false,
    checks: { stores: { ok: false, open: 0, failed: 0, unreadableFolders: 0 }, scheduler: { ok: true, state: 'none' }, indexes: expect.objectContaining({ ok: true }) },
  });
});

test('without a readiness source, answering is all there is to check', async () => {
  expect(json(await unwired.get('/health/ready', { key: null }))).toEqual({ ready: true, checks: {} });
});

test('every route of health.ts was reached, and nothing failed unexpectedly', () => {
  expect([...app.reached]).toEqual(expect.arrayContaining(patternsOf(health)));
  expect([app, notReady, unwired].flatMap((a) => a.failures)).toEqual([]);
});
