import { copyFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMetrics, select, total } from '../helpers/prometheus';
import { rawGet, SAMPLE_DIR, serverConfig, startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-ready-');

// Liveness answers whenever the process does; readiness only when the instance should get traffic. Both
// situations below are real: an empty data directory (a shared volume not yet filled) that a store is then
// published into, and a scheduled job that cannot start (its area file does not exist).

interface Report {
  ready: boolean;
  checks: Record<string, { ok: boolean; [k: string]: unknown }>;
}

async function ready(url: string): Promise<{ status: number; report: Report; type: string }> {
  const r = await rawGet(`${url}/health/ready`);
  return { status: r.status, report: JSON.parse(r.body.toString('utf8')) as Report, type: String(r.headers['content-type']) };
}

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => removeTempDirs());

test('an empty data directory is live but not ready; a store published into it makes it ready', async () => {
  const data = join(dir, 'data');
  mkdirSync(join(data, 'tiles'), { recursive: true });
  // A file that is not a store: skipped (counted as failed), it serves nothing.
  writeFileSync(join(data, 'tiles', 'junk.mbtiles'), 'not SQLite');
  const srv: TestServer = await startServer({ dataDir: data });
  try {
    for (const path of ['/health', '/health/live']) {
      const live = await rawGet(`${srv.url}${path}`);
      expect([path, live.status, live.body.toString()]).toEqual([path, 200, 'ok\n']);
    }
    const before = await ready(srv.url);
    expect(before.status).toBe(503);
    expect(before.type).toBe('application/json; charset=utf-8');
    expect(before.report).toEqual({
      ready: false,
      checks: {
        stores: { ok: false, open: 0, failed: 1, unreadableFolders: 0 },
        scheduler: { ok: true, state: 'none' },
        indexes: expect.objectContaining({ ok: true }),
      },
    });
    // Published as the mirror does: written beside, then renamed into place.
    const staging = join(dir, 'sample-vector.mbtiles');
    copyFileSync(join(SAMPLE_DIR, 'tiles', 'sample-vector.mbtiles'), staging);
    renameSync(staging, join(data, 'tiles', 'sample-vector.mbtiles'));
    const after = await waitFor('readiness after the publication', async () => {
      const r = await ready(srv.url);
      return r.status === 200 && r;
    });
    expect(after.report.ready).toBe(true);
    expect(after.report.checks.stores).toEqual({ ok: true, open: 1, failed: 1, unreadableFolders: 0 });
    // The store now served is the one /metrics names; the junk file was reported once.
    const metrics = parseMetrics((await rawGet(`${srv.url}/metrics`)).body.toString('utf8'));
    expect(select(metrics, 'tilemirror_store_info').map((s) => `${s.labels.kind}/${s.labels.id}`)).toEqual(['tiles/sample-vector']);
    expect(select(metrics, 'tilemirror_stores').map((s) => [s.labels.state, s.value])).toEqual([
      ['open', 1],
      ['failed', 1],
    ]);
    expect(total(metrics, 'tilemirror_store_open_failures_total')).toBe(1);
  } finally {
    await srv.close();
  }
});

/** A data directory of its own holding the sample's vector tile set: a scheduler persists its jobs' state there. */
function vectorOnly(): string {
  const data = join(dir, 'data');
  mkdirSync(join(data, 'tiles'), { recursive: true });
  copyFileSync(join(SAMPLE_DIR, 'tiles', 'sample-vector.mbtiles'), join(data, 'tiles', 'sample-vector.mbtiles'));
  return data;
}

test('a scheduled job that cannot start: the server serves, live, but is not ready, naming the scheduler', async () => {
  const srv = await startServer({
    dataDir: vectorOnly(),
    config: {
      ...serverConfig(),
      mirror: {
        upstream: 'http://127.0.0.1:9/',
        jobs: [{ name: 'nightly', resources: ['tiles/sample-vector'], schedule: '0 3 * * *', timezone: 'UTC', areas: [join(dir, 'no-such-area.geojson')] }],
      },
    },
  });
  try {
    expect(srv.server.scheduler).toBeUndefined();
    expect((await rawGet(`${srv.url}/health/live`)).status).toBe(200);
    expect((await rawGet(`${srv.url}/tiles/sample-vector/0/0/0.pbf?key=demo`)).status).toBe(200);
    const r = await ready(srv.url);
    expect(r.status).toBe(503);
    expect(r.report.ready).toBe(false);
    expect(r.report.checks.scheduler).toEqual({ ok: false, state: 'failed' });
    expect(r.report.checks.stores.ok).toBe(true);
    // Public: the body names states, never the path of the missing file.
    expect(JSON.stringify(r.report)).not.toContain('no-such-area');
  } finally {
    await srv.close();
  }
});

test('a scheduler that starts is ready', async () => {
  const srv = await startServer({
    dataDir: vectorOnly(),
    config: { ...serverConfig(), mirror: { upstream: 'http://127.0.0.1:9/', jobs: [{ name: 'nightly', resources: ['tiles/sample-vector'], schedule: '0 3 * * *', timezone: 'UTC' }] } },
  });
  try {
    expect(srv.server.scheduler).toBeDefined();
    const r = await ready(srv.url);
    expect([r.status, r.report]).toEqual([200, { ready: true, checks: expect.objectContaining({ scheduler: { ok: true, state: 'running' } }) }]);
  } finally {
    await srv.close();
  }
});
