// A small data volume, as a new user's might be: a 12 MB tmpfs this test mounts (and removes). A plan that cannot
// fit is refused before anything is fetched, by `plan` (CLI) and by Run now (507), each with one line naming
// both figures. A run whose estimate fits but whose volume fills while it runs (a file written beside it, as
// another program would) stops at once: one line "the data volume is full: …", no tile failures, no more
// upstream requests; the published store is untouched and still served; once the file is deleted the next run
// resumes from the progress kept and publishes.

import { execFile, execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { parseConfig } from '../../src/config/load';
import { startTilemirror, type Tilemirror } from '../../src/serve';
import { startSimulator, type UpstreamSimulator } from '../fixtures/upstream-simulator';
import { call } from '../helpers/admin-api';
import { built } from '../helpers/dist';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-disk-full-');

const ADMIN = 'admin-key-disk-3e9a5c';
const ROOT = resolve(__dirname, '../..');
const run = promisify(execFile);

let upstream: TestServer;
let sim: UpstreamSimulator;
let mirror: Tilemirror | undefined;
let volume = '';
let mounted = false;
const lines: { msg: string }[] = [];

/** Fills the volume with a file until the system says ENOSPC; returns its path. */
function fill(dir: string): string {
  const file = join(dir, 'filler.bin');
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  }
  // The last partial page too.
  try {
    for (;;) writeSync(fd, chunk, 0, 512);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  return file;
}

const jobOf = async (name: string): Promise<Record<string, any>> => (await call(mirror!.url, 'GET', `/admin/api/jobs/${name}`, { key: ADMIN })).json;
const tileRequests = (): number => sim.log.filter((e) => /^\/maps\/sample\/(256\/)?\d+\/\d+\/\d+/.test(e.path)).length;

beforeAll(async () => {
  volume = tempDir();
  // Mounting needs root (this machine's tests run as root): a failure is this test's failure, never a skip.
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=12m', 'tmpfs', volume]);
  mounted = true;
  mkdirSync(join(volume, 'data'));
  upstream = await startServer();
  sim = await startSimulator(upstream.url, { latencyMs: 30 });
  const config = parseConfig(
    {
      server: { host: '127.0.0.1', port: 0, requestLog: false },
      data: join(volume, 'data'),
      keys: [{ key: KEY }],
      admin: { keys: [ADMIN] },
      logLevel: 'info',
      mirror: {
        upstream: sim.url,
        key: KEY,
        jobs: [
          { name: 'small', resources: ['maps/sample'], zoom: '0-2', concurrency: 2 },
          { name: 'mid', resources: ['maps/sample'], zoom: '0-3', concurrency: 2 },
          { name: 'big', resources: ['maps/sample'], zoom: '0-5', concurrency: 2 },
        ],
      },
    },
    'test',
    process.cwd(),
    {},
  );
  mirror = await startTilemirror(config, pino({ level: 'info', base: undefined }, { write: (s: string) => void lines.push(JSON.parse(s)) }));
});

afterAll(async () => {
  await mirror?.close();
  await sim?.close();
  await upstream?.close();
  if (mounted) execFileSync('umount', [volume]);
  removeTempDirs();
});

test('a plan that cannot fit: `plan` and Run now refuse it up front, one line naming both figures, nothing fetched', async () => {
  sim.reset();
  const refusedPlan = await run(process.execPath, [built('cli.js'), 'plan', '--upstream', sim.url, '--key', KEY, '--data', join(volume, 'data'), '--zoom', '0-5', 'maps/sample'], { cwd: ROOT }).then(
    (r) => ({ code: 0, stdout: r.stdout }),
    (e: { stdout: string; code: number }) => e,
  );
  expect(refusedPlan.code).toBe(1);
  const { stdout } = refusedPlan;
  const line = stdout.split('\n').find((l) => l.startsWith('does not fit'));
  expect(line).toMatch(/^does not fit: not enough space on the data volume: .* needs ~\d+(\.\d+)? MB .*, but only \d+(\.\d+)? MB is free on /);
  process.stdout.write(`${line}\n`);

  // `mirror` itself checks before its staging file is opened: refused, exit 1, one line, no store file.
  const refusedRun = await run(process.execPath, [built('cli.js'), 'mirror', '--upstream', sim.url, '--key', KEY, '--data', join(volume, 'data'), '--zoom', '0-5', 'maps/sample'], { cwd: ROOT }).then(
    () => ({ code: 0, stdout: '', stderr: '' }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  expect(refusedRun.code).toBe(1);
  // The line on stderr as it happens, and again as the summary's problem.
  const said = refusedRun.stderr.split('\n').filter((l) => /not enough space/.test(l));
  expect(said).toHaveLength(1);
  expect(refusedRun.stdout).toMatch(/problem: not enough space on the data volume/);
  expect(said[0]).toMatch(/^maps\/sample: not enough space on the data volume: .* needs ~[\d.]+ MB .* but only [\d.]+ MB is free/);
  expect(`${refusedRun.stdout}${refusedRun.stderr}`).not.toMatch(/disk is full|failed: /);
  expect(existsSync(join(volume, 'data', 'maps', '.sample.mbtiles.staging'))).toBe(false);

  const plan = (await call(mirror!.url, 'GET', '/admin/api/jobs/big/plan', { key: ADMIN })).json;
  expect(plan).toMatchObject({ tiles: 2730, estimateBasis: 'probed', fits: false });
  expect(plan.freeBytes).toBeLessThanOrEqual(12 * 1024 * 1024);
  expect(plan.requiredBytes).toBeGreaterThan(plan.freeBytes);
  const before = tileRequests();
  const refused = await call(mirror!.url, 'POST', '/admin/api/jobs/big/run', { key: ADMIN });
  expect(refused.status).toBe(507);
  expect(refused.json.error).toMatch(/^not enough space on the data volume: job big \(2730 tiles\) needs ~[\d.]+ MB .* but only [\d.]+ MB is free/);
  // Only the plan's probes reached the upstream; no run started.
  expect(tileRequests() - before).toBeLessThanOrEqual(30);
  expect((await jobOf('big')).job.runs).toBe(0);
});

test('the volume fills during a run: it stops at once with one line, the published store serves on, and resumes once space is freed', async () => {
  // A published store first (z0-2).
  expect((await call(mirror!.url, 'POST', '/admin/api/jobs/small/run', { key: ADMIN })).status).toBe(202);
  await waitFor('small to publish', async () => ((await jobOf('small')).history[0]?.result === 'published' ? true : undefined));
  const tile = `${mirror!.url}/maps/sample/0/0/0.png?key=${KEY}`;
  await waitFor('the store served', async () => ((await rawGet(tile)).status === 200 ? true : undefined));
  const publishedFile = join(volume, 'data', 'maps', 'sample.mbtiles');
  const publishedSize = statSync(publishedFile).size;

  // z0-3 fits the estimate; the volume fills once it runs.
  const plan = (await call(mirror!.url, 'GET', '/admin/api/jobs/mid/plan', { key: ADMIN })).json;
  expect(plan).toMatchObject({ tiles: 170, estimateBasis: 'stored', fits: true });
  expect((await call(mirror!.url, 'POST', '/admin/api/jobs/mid/run', { key: ADMIN })).status).toBe(202);
  await waitFor('mid to make progress', async () => {
    const j = (await call(mirror!.url, 'GET', '/admin/api/jobs', { key: ADMIN })).json.jobs.find((x: { name: string }) => x.name === 'mid');
    return j.running?.progress?.fetched >= 10 ? true : undefined;
  });
  const filler = fill(volume);
  const atFull = tileRequests();
  const stopped = await waitFor('mid to stop', async () => {
    const j = await jobOf('mid');
    return !j.job.running && j.history.length === 1 ? j : undefined;
  });
  // Requests in flight when the volume filled (two workers) finish; nothing new starts.
  expect(tileRequests() - atFull).toBeLessThanOrEqual(4);
  const record = stopped.history[0];
  expect(record).toMatchObject({ result: 'failed', tiles: { failed: 0 } });
  expect(record.lastError).toMatch(/the data volume is full: /);
  expect(record.tiles.fetched).toBeLessThan(170);
  const full = lines.filter((l) => /the data volume is full/.test(l.msg));
  expect(full).toHaveLength(1);
  expect(full[0].msg).toMatch(/^maps\/sample: stopped: the data volume is full: .*progress is kept/);
  expect(lines.filter((l) => /disk is full|failed: /.test(l.msg))).toEqual([]);
  const requestsAfter = tileRequests();

  // The published store is untouched and still served.
  expect(statSync(publishedFile).size).toBe(publishedSize);
  expect((await rawGet(tile)).status).toBe(200);
  expect(tileRequests()).toBe(requestsAfter);

  // Space freed: the next run resumes the progress kept and publishes z0-3.
  unlinkSync(filler);
  expect((await call(mirror!.url, 'POST', '/admin/api/jobs/mid/run', { key: ADMIN })).status).toBe(202);
  const resumed = await waitFor('mid to publish', async () => {
    const j = await jobOf('mid');
    return !j.job.running && j.history.length === 2 ? j : undefined;
  });
  expect(resumed.history[0]).toMatchObject({ result: 'published', tiles: { planned: 170, failed: 0 } });
  expect(resumed.history[0].tiles.skipped).toBeGreaterThanOrEqual(record.tiles.fetched);
  expect(lines.some((l) => /resuming the previous run/.test(l.msg))).toBe(true);
  await waitFor('z3 served', async () => ((await rawGet(`${mirror!.url}/maps/sample/3/4/2.png?key=${KEY}`)).status === 200 ? true : undefined));
});
