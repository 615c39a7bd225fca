// Scheduled mirroring inside `serve`: a tilemirror serving the sample is the upstream; a second one, configured
// with a job firing every second, mirrors from it into a fresh data directory. The job runs and publishes, a
// firing during the run is skipped and recorded, /admin/status.json and /admin/ show progress, the result and
// the next run behind the admin key (403 for other keys, 404 when none is configured), closing stops cleanly,
// `tilemirror status` prints the persisted state, and the upstream key is in no response, log line or file.

import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { stringify } from 'yaml';
import { parseConfig } from '../../src/config/load';
import { startTilemirror as start, type Tilemirror } from '../../src/serve';
import { SKIPPED_STILL_RUNNING } from '../../src/mirror/jobs/schedule';
import { readJobStates } from '../../src/store/data-dir/job-state';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { built } from '../helpers/dist';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const SECRET = 'tm-upstream-Sched-4b8e2d0c9a';
const ADMIN = 'admin-key-5f1e7c3b';
const KEY_ENV = 'TM_STATUS_TEST_UPSTREAM_KEY';
const ROOT = resolve(__dirname, '../..');

let upstream: TestServer;
let mirror: Tilemirror | undefined;
let data: string;
const logLines: string[] = [];
const bodies: string[] = [];
const { tempDir, removeTempDirs } = tempDirs('tm-status-');

/** The mirror server's configuration, as the YAML file would hold it. */
function rawConfig(dataDir: string, upstreamUrl: string): Record<string, unknown> {
  return {
    server: { host: '127.0.0.1', port: 0, requestLog: true },
    data: dataDir,
    keys: [{ key: KEY }],
    admin: { keys: [ADMIN] },
    logLevel: 'debug',
    mirror: {
      upstream: upstreamUrl,
      keyEnv: KEY_ENV,
      jobs: [
        // 341 tiles at 100 requests/s: a run lasts over two seconds, so the every-second schedule fires during it.
        { name: 'vector', resources: ['tiles/sample-vector'], zoom: '0-4', schedule: '* * * * * *', timezone: 'UTC', rate: 100, concurrency: 4 },
        { name: 'image', resources: ['images/sample-image'], zoom: '0-1' },
      ],
    },
  };
}

async function get(path: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const res = await rawGet(`${mirror!.url}${path}`);
  const body = res.body.toString('utf8');
  bodies.push(body);
  return { status: res.status, body, headers: res.headers };
}

async function status(): Promise<{ scheduler: boolean; jobs: Record<string, any>[] }> {
  const res = await get(`/admin/status.json?key=${ADMIN}`);
  expect(res.status).toBe(200);
  return JSON.parse(res.body);
}

const until = <T>(what: string, fn: () => Promise<T | undefined>): Promise<T> => waitFor(what, fn, { intervalMs: 100 });

beforeAll(async () => {
  upstream = await startServer({ config: { keys: [{ key: KEY, plan: 'paid' }, { key: SECRET, plan: 'paid' }] } });
  data = tempDir();
  process.env[KEY_ENV] = SECRET;
});

afterAll(async () => {
  await mirror?.close();
  await upstream?.close();
  delete process.env[KEY_ENV];
  removeTempDirs();
});

describe('a job on a cron schedule inside serve', () => {
  let running: Record<string, any> | undefined;
  let vector: Record<string, any>;

  test('starts with the server, runs, publishes; a firing during the run is skipped', async () => {
    const config = parseConfig(rawConfig(data, upstream.url), 'test', process.cwd(), {});
    const log = pino({ level: 'debug', base: undefined }, { write: (s: string) => void logLines.push(s) });
    mirror = await start(config, log);
    expect(mirror.scheduler?.scheduled.map((j) => j.name)).toEqual(['vector']);

    // While it runs: live progress.
    running = await until('a running job with progress', async () => {
      const j = (await status()).jobs.find((x) => x.name === 'vector');
      return j?.running?.progress?.done > 0 ? j : undefined;
    });
    expect(running!.running).toMatchObject({ trigger: 'schedule', progress: { resource: 'tiles/sample-vector', total: 341, resourceIndex: 1, resources: 1 } });
    expect(running!.running.progress.tilesPerSecond).toBeGreaterThan(0);
    expect(running!.running.progress).toHaveProperty('failed', 0);

    vector = await until('the first run to publish', async () => {
      const j = (await status()).jobs.find((x) => x.name === 'vector');
      return j?.lastRun ? j : undefined;
    });
    expect(vector.lastRun).toMatchObject({ trigger: 'schedule', result: 'published', exitCode: 0, errors: 0, tiles: { planned: 341, failed: 0 } });
    expect(vector.lastRun.tiles.fetched + vector.lastRun.tiles.skipped).toBe(341);
    expect(vector.lastRun.resources[0]).toMatchObject({ resource: 'tiles/sample-vector', status: 'published' });
    expect(vector.skipped).toBeGreaterThanOrEqual(1);
    expect(vector.lastSkipped.reason).toBe(SKIPPED_STILL_RUNNING);
    expect(vector).toMatchObject({ schedule: '* * * * * *', timezone: 'UTC', failures: 0 });
    expect(Date.parse(vector.nextRun)).toBeGreaterThan(Date.parse(vector.lastRun.startedAt));
    // The job without a schedule never ran.
    expect((await status()).jobs.find((x) => x.name === 'image')).toMatchObject({ name: 'image', runs: 0 });
    expect(existsSync(join(data, 'tiles/sample-vector.mbtiles'))).toBe(true);

    const tile = await until('the published store to be served', async () => {
      const r = await rawGet(`${mirror!.url}/tiles/sample-vector/0/0/0?key=${KEY}`);
      return r.status === 200 ? r : undefined;
    });
    expect(tile.headers['content-type']).toMatch(/protobuf/);

    const msgs = logLines.map((l) => JSON.parse(l)).filter((l) => l.job === 'vector').map((l) => l.msg);
    expect(msgs).toEqual(expect.arrayContaining(['mirror job scheduled', 'mirror job started', 'mirror resource finished', 'mirror job finished', `mirror job ${SKIPPED_STILL_RUNNING}`]));
  });

  test('the status endpoints need an admin key: none or an API key get 403', async () => {
    for (const path of ['/admin/status.json']) {
      expect((await get(path)).status).toBe(403);
      expect((await get(`${path}?key=${KEY}`)).status).toBe(403);
      expect((await get(`${path}?key=${SECRET}`)).status).toBe(403);
      expect((await get(`${path}?key=${ADMIN}`)).status).toBe(200);
    }
    const json = await get(`/admin/status.json?key=${ADMIN}`);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.headers['cache-control']).toBe('no-store');
  });

  test('the console page holds no data: it answers without a key and names no job', async () => {
    const page = await get('/admin/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).not.toContain('vector');
  });

  test('a server without admin keys hides the endpoints (404)', async () => {
    for (const path of ['/admin/status.json', '/admin/']) {
      const r = await rawGet(`${upstream.url}${path}?key=${KEY}`);
      expect(r.status).toBe(404);
    }
  });

  test('closing stops the schedule cleanly: no run left running, the state kept', async () => {
    await mirror!.close();
    mirror = undefined;
    const st = readJobStates(data).jobs.vector;
    expect(st.running).toBeUndefined();
    expect(st.runs).toBeGreaterThanOrEqual(1);
    expect(['published', 'interrupted']).toContain(st.lastRun?.result);
    // No staging, journal, lock or temporary file left behind.
    expect(readdirSync(join(data, 'tiles')).filter((f) => f.startsWith('.'))).toEqual([]);
    expect(readdirSync(data).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const runs = st.runs;
    await new Promise((r) => setTimeout(r, 1500));
    expect(readJobStates(data).jobs.vector.runs).toBe(runs);
  });
});

describe('command line', () => {
  const cli = built('cli.js');
  const run = promisify(execFile);
  let configFile: string;

  beforeAll(() => {
    configFile = join(tempDir(), 'tilemirror.yaml');
    writeFileSync(configFile, stringify(rawConfig(data, upstream.url)));
  }, 120_000);

  async function tilemirror(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
    const clean = { ...process.env };
    delete clean[KEY_ENV];
    try {
      const r = await run(process.execPath, [cli, ...args], { env: { ...clean, ...env }, cwd: ROOT });
      return { code: 0, out: r.stdout, err: r.stderr };
    } catch (e) {
      const x = e as { code: number; stdout: string; stderr: string };
      return { code: x.code, out: x.stdout, err: x.stderr };
    }
  }

  test('mirror --config runs a named job now, with progress and a summary; unknown jobs exit 2', async () => {
    const m = await tilemirror(['mirror', '--config', configFile, 'image'], { [KEY_ENV]: SECRET });
    expect(m.code).toBe(0);
    expect(m.out).toContain('images/sample-image: published');
    expect(m.out).toMatch(/^job image: published: 1 resource, 5 tiles planned/m);
    expect(m.err).toContain(`job image: images/sample-image from ${upstream.url} (key from $${KEY_ENV})`);
    expect(m.err).toMatch(/image: images\/sample-image \d+\/5 tiles/);
    const bad = await tilemirror(['mirror', '--config', configFile, 'nope'], { [KEY_ENV]: SECRET });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('unknown job nope (configured: vector, image)');
    // Flags the jobs' own fields decide are refused rather than ignored.
    const flag = await tilemirror(['mirror', '--config', configFile, '--zoom', '0-2', 'image']);
    expect(flag.code).toBe(2);
    expect(flag.err).toContain('set --zoom in the file');
    // Without the key the upstream refuses: the job fails, exit 1, the refusal recorded.
    const refused = await tilemirror(['mirror', '--config', configFile, '--data', tempDir(), 'image']);
    expect(refused.code).toBe(1);
    for (const t of [m.out, m.err, bad.out, bad.err, refused.out, refused.err]) expect(t).not.toContain(SECRET);
  });

  test('status prints the persisted state as a table and as JSON', async () => {
    const t = await tilemirror(['status', '--config', configFile]);
    expect(t.code).toBe(0);
    const lines = t.out.split('\n');
    expect(lines[0]).toMatch(/^JOB\s+SCHEDULE\s+STATE\s+LAST RUN \(END\)\s+RESULT\s+FETCHED\s+STORED\s+FAILED\s+ERRORS\s+NEXT RUN$/);
    expect(t.out).toMatch(/^vector\s+\* \* \* \* \* \* \(UTC\)\s+idle\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\s+(published|interrupted)\s+\d+/m);
    expect(t.out).toMatch(/^image\s+on demand\s+idle\s+\S+ \S+\s+published\s+/m);
    expect(t.out).toMatch(/firings? skipped \(skipped: still running\)/);

    const asked = Date.now();
    const j = await tilemirror(['status', '--config', configFile, '--json']);
    const answered = Date.now();
    expect(j.code).toBe(0);
    const doc = JSON.parse(j.out);
    expect(doc.data).toBe(data);
    const v = doc.jobs.find((x: { name: string }) => x.name === 'vector');
    expect(v).toMatchObject({ schedule: '* * * * * *', timezone: 'UTC' });
    expect(v.skipped).toBeGreaterThanOrEqual(1);
    // Not served now: the next run is computed from the cron expression (every second) when the command ran.
    expect(Date.parse(v.nextRun)).toBeGreaterThan(asked);
    expect(Date.parse(v.nextRun)).toBeLessThanOrEqual(answered + 1000);
    expect(doc.jobs.find((x: { name: string }) => x.name === 'image').lastRun).toMatchObject({ trigger: 'manual', result: 'published' });

    expect((await tilemirror(['status'])).code).toBe(2);
    for (const text of [t.out, t.err, j.out, j.err]) expect(text).not.toContain(SECRET);
  });
});

describe('the upstream key', () => {
  test('appears in no response, log line or file of the data directory', () => {
    expect(bodies.length).toBeGreaterThan(10);
    for (const b of bodies) expect(b.includes(SECRET)).toBe(false);
    expect(logLines.length).toBeGreaterThan(5);
    expect(logLines.filter((l) => l.includes(SECRET))).toEqual([]);
    const files: string[] = [];
    const walk = (d: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) (e.isDirectory() ? walk(join(d, e.name)) : files.push(join(d, e.name)));
    };
    walk(data);
    expect(files).toContain(join(data, '.tilemirror-jobs.json'));
    for (const f of files) {
      const bytes = readFileSync(f);
      expect({ f, found: bytes.includes(SECRET) || bytes.includes(encodeURIComponent(SECRET)) }).toEqual({ f, found: false });
    }
  });
});
