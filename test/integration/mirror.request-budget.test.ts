// The account's requests, known and bounded, against a running upstream (a tilemirror serving the sample, behind the
// simulator that counts every request it gets). `plan` states the requests a run will make; `--max-requests` stops a
// run cleanly in one line, its progress kept, and the next run resumes; a monthly budget refuses a run whose plan
// cannot fit in what is left, and stops the runs of two processes sharing one data directory at exactly the
// budget; the ledger counts what the upstream received. Then the same through the admin API's Run now: the history
// row, the job list, /metrics and the refusal (429).

import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { RequestLedger } from '../../src/store/data-dir/request-ledger';
import { storePaths } from '../../src/store/mbtiles/staging';
import { startSimulator, type UpstreamSimulator } from '../fixtures/upstream-simulator';
import { call } from '../helpers/admin-api';
import { built, ROOT } from '../helpers/dist';
import { parseMetrics, total } from '../helpers/prometheus';
import { KEY, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';
import { waitFor } from '../helpers/wait';

const CLI = built('cli.js');
const ADMIN = 'admin-key-budget-71c2';
const run = promisify(execFile);
const month = (): string => new Date().toISOString().slice(0, 7);

let upstream: TestServer;
let sim: UpstreamSimulator;
const { tempDir, removeTempDirs } = tempDirs('tm-budget-');

beforeAll(async () => {
  upstream = await startServer();
  sim = await startSimulator(upstream.url);
}, 60_000);

afterAll(async () => {
  await sim?.close();
  await upstream?.close();
  removeTempDirs();
});

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[]): Promise<Ran> {
  return run(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...process.env, TILEMIRROR_UPSTREAM_KEY: KEY } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

const isTile = (path: string): boolean => /^\/maps\/sample\/(256\/)?\d+\/\d+\/\d+/.test(path);
const tileRequests = (): number => sim.log.filter((e) => isTile(e.path)).length;
const origin = (): string => new URL(sim.url).origin;
const ledgerSpent = (dir: string): number => {
  const ledger = new RequestLedger(dir);
  try {
    return ledger.spent(month()).get(origin()) ?? 0;
  } finally {
    ledger.close();
  }
};

test('`plan` states the requests; --max-requests stops the run in one line, progress kept; the next run resumes; the ledger counts what the upstream got', async () => {
  const dir = tempDir();
  sim.reset();
  const common = ['--upstream', sim.url, '--data', dir, '--zoom', '0-3', 'maps/sample'];

  const plan = await cli(['plan', '--sample', '0', ...common]);
  expect(plan.code).toBe(0);
  const line = plan.stdout.split('\n').find((l) => l.includes('upstream requests:'));
  expect(line).toMatch(/^ {2}upstream requests: ~\d+ \(170 tiles not yet current, \d+ documents, ~0 retries at the last run's rate\)$/);
  const expected = Number(/~(\d+)/.exec(line!)![1]);
  const documents = Number(/(\d+) documents/.exec(line!)![1]);
  expect(expected).toBe(170 + documents);
  // The plan's own requests are its discovery's: what it counts as documents.
  expect(sim.log.length).toBe(documents);

  sim.reset();
  const capped = await cli(['mirror', '--max-requests', '60', '--concurrency', '4', ...common]);
  expect(capped.code).toBe(3);
  // Exactly the cap reached the upstream: no request beyond it, none lost on the way.
  expect(sim.log.length).toBe(60);
  const said = capped.stderr.split('\n').filter((l) => /request budget/.test(l));
  expect(said).toEqual(["maps/sample: stopped: the run's request budget is reached (60 upstream requests, --max-requests or the job's maxRequests); progress is kept, run again to resume"]);
  expect(capped.stdout).toMatch(/^maps\/sample: interrupted$/m);
  expect(capped.stdout).not.toMatch(/failed: /);
  expect(existsSync(storePaths(dir, 'maps', 'sample').staging)).toBe(true);
  const firstTiles = tileRequests();
  const stored = Number(/(\d+) fetched and stored/.exec(capped.stdout)![1]);
  expect(stored).toBe(firstTiles);

  // The plan now counts only what is left.
  const again = await cli(['plan', '--sample', '0', ...common]);
  expect(again.stdout).toContain(`(${170 - stored} tiles not yet current,`);

  sim.reset();
  const resumed = await cli(['mirror', '--concurrency', '4', ...common]);
  expect(resumed.code).toBe(0);
  expect(resumed.stderr).toContain('maps/sample: resuming the previous run');
  // Every tile once over the two runs: nothing fetched twice.
  expect(tileRequests()).toBe(170 - stored);
  expect(resumed.stdout).toContain(`${stored} already stored`);

  // The ledger holds every request the upstream received from this data directory: two plans, two runs.
  expect(ledgerSpent(dir)).toBe(documents + 60 + documents + sim.log.length);
}, 60_000);

test('a monthly budget: a run that cannot fit is refused before it starts; two processes sharing it never go beyond it', async () => {
  const dir = tempDir();
  sim.reset();
  const common = ['--upstream', sim.url, '--data', dir, '--zoom', '0-3', 'maps/sample'];

  const plan = await cli(['plan', '--sample', '0', '--requests-per-month', '100', ...common]);
  expect(plan.code).toBe(1);
  expect(plan.stdout).toMatch(new RegExp(`^does not fit: not enough upstream requests left this month: maps/sample needs ~17\\d, but only \\d+ of the 100 of ${month()} are left for ${origin()} \\(mirror.requestsPerMonth; renewed on \\d{4}-\\d\\d-01 UTC\\)$`, 'm'));

  const refused = await cli(['mirror', '--requests-per-month', '100', ...common]);
  expect(refused.code).toBe(1);
  const said = refused.stderr.split('\n').filter((l) => /not enough upstream requests/.test(l));
  expect(said).toHaveLength(1);
  expect(said[0]).toMatch(/^maps\/sample: not enough upstream requests left this month: maps\/sample \(170 tiles not yet current\) needs ~170, but only \d+ of the 100 /);
  expect(refused.stdout).toMatch(/problem: not enough upstream requests left this month/);
  expect(tileRequests()).toBe(0);
  expect(existsSync(storePaths(dir, 'maps', 'sample').staging)).toBe(false);

  // Two processes on the data directory, each mirroring a store of its own whose plan fits in what is left (172 and
  // 87 requests): together they ask for more than the month has. Never more than it reaches the upstream (a run that
  // ends with part of its reservation unsent gives it back, after the other may have stopped), and the ledger
  // counts exactly what did.
  const spentBefore = ledgerSpent(dir);
  const budget = spentBefore + 230;
  const start = (resource: string): Promise<Ran> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, 'mirror', '--upstream', sim.url, '--data', dir, '--zoom', '0-3', '--rate', '60', '--concurrency', '2', '--requests-per-month', String(budget), resource], {
        cwd: ROOT,
        env: { ...process.env, TILEMIRROR_UPSTREAM_KEY: KEY },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.once('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });
  sim.reset();
  const a = start('maps/sample');
  await waitFor('the first run to be under way', () => tileRequests() >= 10);
  const b = start('tiles/sample-vector');
  const outcomes = await Promise.all([a, b]);
  expect(sim.log.length).toBeLessThanOrEqual(230);
  expect(ledgerSpent(dir)).toBe(spentBefore + sim.log.length);
  const stopped = outcomes.filter((r) => r.code === 3);
  expect(stopped).not.toHaveLength(0);
  for (const r of outcomes) expect([0, 3]).toContain(r.code);
  for (const r of stopped) {
    expect(r.stderr).toMatch(new RegExp(`stopped: the month's request budget of ${origin().replace(/\./g, '\\.')} is spent \\(${budget} requests in ${month()}`));
  }
  for (const r of outcomes) expect(r.stdout).not.toMatch(/failed: /);
}, 60_000);

test("Run now: the job's maxRequests stops the run, its history row, the job list and /metrics carry the requests; a run that cannot fit the month is refused (429)", async () => {
  const dir = tempDir();
  const perMonth = 1000;
  sim.reset();
  const server = await startServer({
    dataDir: dir,
    config: {
      admin: { keys: [ADMIN] },
      mirror: {
        upstream: sim.url,
        key: KEY,
        requestsPerMonth: { [`${sim.url}/`]: perMonth },
        jobs: [
          { name: 'capped', resources: ['maps/sample'], zoom: '0-3', concurrency: 2, maxRequests: 50 },
          { name: 'big', resources: ['maps/sample'], zoom: '0-5', concurrency: 2 },
        ],
      },
    },
  });
  try {
    const api = (method: string, path: string): ReturnType<typeof call> => call(server.url, method, path, { key: ADMIN });

    const plan = (await api('GET', '/admin/api/jobs/capped/plan')).json;
    expect(plan.requests).toMatchObject({ tiles: 170, retries: 0, upstream: origin(), month: month(), perMonth, needed: 50, fits: true });
    expect(plan.requests.expected).toBe(170 + plan.requests.documents);
    expect(plan.resources[0].requests).toBe(plan.requests.expected);

    expect((await api('POST', '/admin/api/jobs/capped/run')).status).toBe(202);
    const row = await waitFor('the capped run to end', async () => (await api('GET', '/admin/api/jobs/capped')).json.history[0]);
    expect(row).toMatchObject({ result: 'interrupted', exitCode: 3, requests: 50 });
    expect(row.resources[0]).toMatchObject({ resource: 'maps/sample', status: 'interrupted', requests: 50 });
    expect(row.lastError).toBe("maps/sample: the run's request budget is reached (50 upstream requests, --max-requests or the job's maxRequests); progress is kept, run again to resume");
    expect(row.tiles.failed).toBe(0);

    const list = (await api('GET', '/admin/api/jobs')).json;
    const capped = list.jobs.find((j: { name: string }) => j.name === 'capped');
    expect(capped.lastRun.requests).toBe(50);
    // Every request the upstream got from this data directory: the plans' and the run's.
    expect(list.requestBudget).toEqual({ month: month(), upstreams: [{ upstream: origin(), spent: sim.log.length, perMonth }] });

    const metrics = parseMetrics((await call(server.url, 'GET', '/metrics')).text);
    expect(total(metrics, 'tilemirror_mirror_upstream_requests_total', { job: 'capped' })).toBe(50);
    expect(total(metrics, 'tilemirror_mirror_upstream_requests_total', { job: 'big' })).toBe(0);
    expect(total(metrics, 'tilemirror_mirror_upstream_month_requests', { upstream: origin() })).toBe(sim.log.length);
    expect(total(metrics, 'tilemirror_mirror_upstream_month_request_budget', { upstream: origin() })).toBe(perMonth);

    // 2,730 tiles cannot fit in what is left of 1,000: refused before anything is fetched.
    const bigPlan = (await api('GET', '/admin/api/jobs/big/plan')).json;
    expect(bigPlan.requests).toMatchObject({ tiles: 2730 - row.tiles.stored, fits: false, perMonth });
    const before = tileRequests();
    const refused = await api('POST', '/admin/api/jobs/big/run');
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatch(new RegExp(`^not enough upstream requests left this month: job big needs ~\\d+, but only \\d+ of the ${perMonth} of ${month()} are left for `));
    // Retry-After in seconds: until midnight UTC of the first of next month, when the budget renews.
    const now = new Date();
    const renews = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    expect(Math.abs(Date.now() + Number(refused.headers['retry-after']) * 1000 - renews)).toBeLessThan(60_000);
    expect(refused.json.renewsAt).toBe(new Date(renews).toISOString().slice(0, 10));
    expect(refused.json.plan.requests.fits).toBe(false);
    expect(tileRequests()).toBe(before);
    expect((await api('GET', '/admin/api/jobs/big')).json.job.runs).toBe(0);
  } finally {
    await server.close();
  }
}, 60_000);
