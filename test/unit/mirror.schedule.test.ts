// The scheduler's decisions without a network: config validation of jobs, keys and admin keys; next runs in
// time zones (across a DST change); no overlapping runs of a job (a firing during a run is skipped and
// recorded); the persisted job state; the status table and the progress output.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { ConfigError, parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { formatStatusTable } from '../../src/mirror/report';
import { configuredJobs, jobMirrorOptions, selectJobs } from '../../src/mirror/jobs/jobs-config';
import { ProgressPrinter, type ProgressSnapshot } from '../../src/mirror/progress';
import type { MirrorResult } from '../../src/mirror/engine/result';
import { DEFAULT_CONCURRENCY } from '../../src/mirror/engine/options';
import { decideFiring, jobProgress, runJob, Scheduler, SKIPPED_STILL_RUNNING, type JobRun, type JobRunHooks } from '../../src/mirror/jobs/schedule';
import { nextRunOf } from '../../src/mirror/jobs/job-status';
import { jobViews, runRecord } from '../../src/mirror/jobs/job-status';
import { readJobStates, JobStateFile, JOB_STATE_FILE } from '../../src/store/data-dir/job-state';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-sched-');
afterAll(() => {
  removeTempDirs();
});

function config(mirror: Record<string, unknown>, extra: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}): Config {
  return parseConfig({ data: tempDir(), mirror, ...extra }, 'test.yaml', '/', env);
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('no error');
}

const JOB = { name: 'nightly', resources: ['tiles/v'] };

describe('configuration of mirror jobs', () => {
  test('a full job parses into the typed form', () => {
    const c = config({
      upstream: 'https://api.example.com',
      timezone: 'Europe/Zurich',
      rate: 50,
      jobs: [{ ...JOB, zoom: '0-8', bboxes: [[5.9, 45.8, 10.5, 47.8], '170,-10,-170,10'], schedule: '0 3 * * *', concurrency: 4, http2: true }, { name: 'b', resources: ['maps/m'], zoom: 5, timezone: 'UTC' }],
    });
    expect(c.mirror.jobs[0]).toMatchObject({ zoom: [0, 8], bboxes: [[5.9, 45.8, 10.5, 47.8], [170, -10, -170, 10]], schedule: '0 3 * * *', concurrency: 4 });
    expect(c.mirror.jobs[1].zoom).toEqual([5, 5]);
    expect(c.mirror).toMatchObject({ keyEnv: 'TILEMIRROR_UPSTREAM_KEY', concurrency: DEFAULT_CONCURRENCY, http2: false, timeout: 30, failureBudget: 100 });
    expect(c.admin.keys).toEqual([]);
    const jobs = configuredJobs(c, {});
    expect(jobs[0]).toMatchObject({ name: 'nightly', upstream: 'https://api.example.com', timezone: 'Europe/Zurich', rate: 50, concurrency: 4, timeoutMs: 30000, resources: [{ kind: 'tiles', id: 'v' }] });
    expect(jobs[1].timezone).toBe('UTC');
    // A job without its own fields runs as `tilemirror mirror` with no flags does.
    expect(DEFAULT_CONCURRENCY).toBe(128);
    expect(jobs[0]).toMatchObject({ concurrency: 4, http2: true });
    expect(jobs[1]).toMatchObject({ concurrency: 128, http2: false });
  });

  test('an empty config has no jobs and no admin keys', () => {
    const c = parseConfig({}, 'defaults', '/', {});
    expect(c.mirror.jobs).toEqual([]);
    expect(c.admin.keys).toEqual([]);
  });

  test('bad fields are reported by their path', () => {
    const msg = errorOf(() =>
      config({
        upstream: 'https://u.example',
        jobs: [
          { ...JOB, schedule: '61 * * * *', timezone: 'Mars/Olympus', zoom: '9-2', bboxes: ['1,2,3', [0, 10, 5, 5]], rate: -1 },
          { ...JOB, resources: [] },
          { name: 'x y', resources: ['tiles/a'], cron: '* * * * *' },
        ],
      }),
    );
    expect(msg).toMatch(/^invalid configuration in test\.yaml:/);
    expect(msg).toMatch(/mirror\.jobs\[0\]\.schedule: not a valid cron expression/);
    expect(msg).toMatch(/mirror\.jobs\[0\]\.timezone: not a time zone known/);
    expect(msg).toMatch(/mirror\.jobs\[0\]\.zoom: need 0 <= MIN <= MAX/);
    expect(msg).toMatch(/mirror\.jobs\[0\]\.bboxes\[0\]/);
    expect(msg).toMatch(/mirror\.jobs\[0\]\.bboxes\[1\]: need -90 <= S <= N <= 90/);
    expect(msg).toMatch(/mirror\.jobs\[0\]\.rate/);
    expect(msg).toMatch(/mirror\.jobs\[1\]\.resources: at least one resource/);
    expect(msg).toMatch(/mirror\.jobs\[2\]\.name/);
    expect(msg).toMatch(/mirror\.jobs\[2\]: Unrecognized key: "cron"/);
  });

  test('duplicate job names, a missing upstream and short admin keys are refused', () => {
    expect(errorOf(() => config({ upstream: 'https://u.example', jobs: [JOB, JOB] }))).toMatch(/mirror\.jobs\[1\]\.name: duplicate job name "nightly"/);
    expect(errorOf(() => config({ jobs: [JOB] }))).toMatch(/mirror\.jobs\[0\]\.upstream: no upstream/);
    expect(errorOf(() => config({}, { admin: { keys: ['short'] } }))).toMatch(/admin\.keys\[0\]: an admin key needs at least 8 characters/);
    expect(errorOf(() => config({ keyEnv: 'not a name' }))).toMatch(/mirror\.keyEnv: an environment variable name/);
  });

  test('a resource of an unknown kind names its field; every kind of the spec is accepted', () => {
    const c = config({ upstream: 'https://u.example', jobs: [{ name: 'w', resources: ['tiles/ok', 'nope/x'] }] });
    expect(errorOf(() => configuredJobs(c, {}))).toMatch(/mirror\.jobs\[0\]\.resources\[1\]: unknown resource "nope\/x"/);
    const all = config({ upstream: 'https://u.example', jobs: [{ name: 'a', resources: ['weather', 'ogc', 'data/d', 'sprites/s', 'fonts/A,B'] }] });
    expect(configuredJobs(all, {})[0].resources.map((r) => `${r.kind}/${r.id}`)).toEqual(['weather/latest', 'ogc/conformance', 'data/d', 'sprites/s', 'fonts/A,B']);
  });

  test('the key comes from --key, then the environment variable, then the file', () => {
    const c = config({ upstream: 'https://u.example', key: 'from-file', jobs: [JOB, { ...JOB, name: 'other', keyEnv: 'OTHER_KEY' }] });
    expect(configuredJobs(c, {}).map((j) => [j.key, j.keySource])).toEqual([
      ['from-file', 'config mirror.key'],
      ['from-file', 'config mirror.key'],
    ]);
    const env = { TILEMIRROR_UPSTREAM_KEY: 'from-env', OTHER_KEY: 'other-env' };
    expect(configuredJobs(c, env).map((j) => [j.key, j.keySource])).toEqual([
      ['from-env', '$TILEMIRROR_UPSTREAM_KEY'],
      ['other-env', '$OTHER_KEY'],
    ]);
    expect(configuredJobs(c, env, 'cli').map((j) => j.key)).toEqual(['cli', 'cli']);
    const open = config({ upstream: 'https://u.example', jobs: [JOB] });
    expect(configuredJobs(open, {})[0].key).toBeUndefined();
  });

  test('jobs are selected by name, in the order named; unknown names are a usage error', () => {
    const jobs = configuredJobs(config({ upstream: 'https://u.example', jobs: [JOB, { ...JOB, name: 'b' }] }), {});
    expect(selectJobs(jobs, []).map((j) => j.name)).toEqual(['nightly', 'b']);
    expect(selectJobs(jobs, ['b', 'nightly']).map((j) => j.name)).toEqual(['b', 'nightly']);
    expect(() => selectJobs(jobs, ['b', 'nope'])).toThrow('unknown job nope (configured: nightly, b)');
  });
});

describe('next run in the job\'s time zone', () => {
  afterEach(() => jest.useRealTimers());

  test('03:00 every day in Zurich, New York and UTC, across the spring DST change', () => {
    // Saturday 2025-03-29 12:00 UTC; Europe switches to summer time on the 30th at 02:00 local.
    jest.useFakeTimers({ now: new Date('2025-03-29T12:00:00Z'), doNotFake: ['nextTick', 'setImmediate'] });
    expect(nextRunOf('0 3 * * *', 'Europe/Zurich')?.toISOString()).toBe('2025-03-30T01:00:00.000Z'); // 03:00 CEST
    expect(nextRunOf('0 3 * * *', 'America/New_York')?.toISOString()).toBe('2025-03-30T07:00:00.000Z'); // 03:00 EDT
    expect(nextRunOf('0 3 * * *', 'UTC')?.toISOString()).toBe('2025-03-30T03:00:00.000Z');
    // A day before, Zurich was still on winter time.
    jest.setSystemTime(new Date('2025-03-28T12:00:00Z'));
    expect(nextRunOf('0 3 * * *', 'Europe/Zurich')?.toISOString()).toBe('2025-03-29T02:00:00.000Z');
  });

  test('seconds fields and weekdays', () => {
    jest.useFakeTimers({ now: new Date('2025-01-01T00:00:00.500Z'), doNotFake: ['nextTick', 'setImmediate'] });
    expect(nextRunOf('* * * * * *', 'UTC')?.toISOString()).toBe('2025-01-01T00:00:01.000Z');
    expect(nextRunOf('*/15 * * * * *', 'UTC')?.toISOString()).toBe('2025-01-01T00:00:15.000Z');
    // 2025-01-01 is a Wednesday: the next Monday 06:30 in Tokyo is 2025-01-06 06:30 JST = 2025-01-05 21:30 UTC.
    expect(nextRunOf('30 6 * * 1', 'Asia/Tokyo')?.toISOString()).toBe('2025-01-05T21:30:00.000Z');
  });
});

function fakeResult(resource: string, over: Partial<MirrorResult> = {}): MirrorResult {
  return {
    resource,
    status: 'published',
    exitCode: 0,
    planned: 10,
    fetched: 8,
    stored: 7,
    empty: 1,
    skipped: 2,
    revalidated: 0,
    unchanged: 0,
    notModified: 0,
    writes: 8,
    failed: 0,
    failures: [],
    requests: 8,
    retries: 0,
    bytes: 1000,
    elapsedMs: 50,
    notes: [],
    problems: [],
    ...over,
  } as MirrorResult;
}

describe('run records', () => {
  test('a job\'s resources are summed; any failure fails the run; an interruption wins', () => {
    const t0 = new Date('2025-01-01T00:00:00Z');
    const t1 = new Date('2025-01-01T00:00:05Z');
    const ok = runRecord('schedule', t0, t1, [fakeResult('tiles/a'), fakeResult('maps/b')]);
    expect(ok).toMatchObject({ result: 'published', exitCode: 0, errors: 0, tiles: { planned: 20, fetched: 16, stored: 14, empty: 2, skipped: 4, failed: 0 }, bytes: 2000 });
    expect(ok.lastError).toBeUndefined();
    const bad = runRecord('manual', t0, t1, [fakeResult('tiles/a'), fakeResult('maps/b', { status: 'failed', exitCode: 1, failed: 3, failures: ['tiles 3/1/1: HTTP 500'], problems: ['3 tiles failed'] })]);
    expect(bad).toMatchObject({ result: 'failed', exitCode: 1, errors: 4 });
    expect(bad.lastError).toBe('maps/b: tiles 3/1/1: HTTP 500');
    expect(runRecord('manual', t0, t1, [fakeResult('a', { status: 'interrupted', exitCode: 3 })]).result).toBe('interrupted');
    expect(runRecord('manual', t0, t1, [], ['tiles/x: zooms outside the upstream\'s'])).toMatchObject({ result: 'failed', errors: 1 });
  });

  test('runJob runs the resources in order, stops at an interruption and redacts what it reports', async () => {
    const c = config({ upstream: 'https://u.example', key: 'sekrit-key', jobs: [{ name: 'j', resources: ['tiles/a', 'tiles/b', 'tiles/c'] }] });
    const [job] = configuredJobs(c, {});
    const seen: string[] = [];
    const lines: string[] = [];
    const run: JobRunHooks['run'] = async (opts) => {
      const res = String(typeof opts.resource === 'string' ? opts.resource : `${opts.resource.kind}/${opts.resource.id}`);
      seen.push(res);
      opts.log?.(`fetching ${res} with key=sekrit-key`);
      if (res === 'tiles/b') throw new Error('the upstream said sekrit-key is bad');
      return fakeResult(res, res === 'tiles/c' ? { status: 'interrupted', exitCode: 3 } : {});
    };
    const out = await runJob(job, c.data, 'manual', { run, log: (l) => lines.push(l) });
    expect(seen).toEqual(['tiles/a', 'tiles/b', 'tiles/c']);
    expect(out.record.result).toBe('interrupted');
    expect(out.record.lastError).toBe('tiles/b: the upstream said *** is bad');
    expect(lines.join('\n')).not.toContain('sekrit-key');
  });
});

/** A runner whose runs end when the test says so. */
function controlledRunner() {
  const pending: { name: string; signal?: AbortSignal; finish: (r?: Partial<MirrorResult>) => void }[] = [];
  const runner = (job: { name: string }, _data: string, trigger: 'schedule' | 'manual', hooks: JobRunHooks): Promise<JobRun> =>
    new Promise((resolve) => {
      const started = new Date();
      const entry = {
        name: job.name,
        signal: hooks.signal,
        finish: (over: Partial<MirrorResult> = {}) => {
          const results = [fakeResult('tiles/v', over)];
          resolve({ record: runRecord(trigger, started, new Date(), results), results, usageError: false });
        },
      };
      hooks.signal?.addEventListener('abort', () => entry.finish({ status: 'interrupted', exitCode: 3 }));
      hooks.onProgress?.(jobProgress({ resource: 'tiles/v', total: 10, done: 4, fetched: 4, skipped: 0, failed: 1, bytes: 400, retries: 0, elapsedMs: 2000 }, 0, 1), {} as ProgressSnapshot);
      pending.push(entry);
    });
  return { pending, runner };
}

function memoryLogger() {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'debug', base: undefined }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { log, lines };
}

describe('the scheduler', () => {
  test('firing decisions: never two runs of a job, nothing new while stopping', () => {
    expect(decideFiring({ known: true, running: false, stopping: false })).toBe('started');
    expect(decideFiring({ known: true, running: true, stopping: false })).toBe('skipped');
    expect(decideFiring({ known: true, running: false, stopping: true })).toBe('stopped');
    expect(decideFiring({ known: false, running: false, stopping: false })).toBe('unknown');
  });

  test('a firing during a run is skipped and recorded; the run\'s result and next run are persisted', async () => {
    const c = config({ upstream: 'https://u.example', key: 'sekrit-key', jobs: [{ ...JOB, schedule: '0 3 * * *', timezone: 'UTC' }, { name: 'manual-only', resources: ['tiles/m'] }] });
    const { pending, runner } = controlledRunner();
    const { log, lines } = memoryLogger();
    const s = new Scheduler({ config: c, log, runJob: runner }).start();
    try {
      expect(s.scheduled.map((j) => j.name)).toEqual(['nightly']);
      const next = s.nextRun('nightly')!;
      expect(next.getUTCHours()).toBe(3);
      expect(readJobStates(c.data).jobs.nightly.nextRun).toBe(next.toISOString());

      expect(s.fire('nightly', 'schedule')).toBe('started');
      expect(s.isRunning('nightly')).toBe(true);
      expect(s.fire('nightly', 'schedule')).toBe('skipped');
      expect(s.fire('nightly', 'schedule')).toBe('skipped');
      expect(s.fire('nope')).toBe('unknown');
      expect(pending).toHaveLength(1);

      const during = readJobStates(c.data).jobs.nightly;
      expect(during.running).toMatchObject({ trigger: 'schedule', pid: process.pid });
      expect(during).toMatchObject({ skipped: 2, lastSkipped: { reason: SKIPPED_STILL_RUNNING } });
      const live = s.views().find((v) => v.name === 'nightly')!;
      expect(live.running?.progress).toMatchObject({ done: 4, total: 10, tilesPerSecond: 2, failed: 1, etaSeconds: 3 });

      pending[0].finish();
      await s.whenIdle('nightly');
      const after = readJobStates(c.data).jobs.nightly;
      expect(after.running).toBeUndefined();
      expect(after).toMatchObject({ runs: 1, failures: 0, skipped: 2, lastRun: { result: 'published', trigger: 'schedule', tiles: { fetched: 8 } }, nextRun: next.toISOString() });
      expect(after.lastSuccessAt).toBe(after.lastRun!.endedAt);

      // Idle again: the next firing runs; a failed run is counted.
      expect(s.fire('nightly', 'schedule')).toBe('started');
      pending[1].finish({ status: 'failed', exitCode: 1, failed: 2, failures: ['x: HTTP 500'], problems: ['2 tiles failed'] });
      await s.whenIdle();
      expect(readJobStates(c.data).jobs.nightly).toMatchObject({ runs: 2, failures: 1, lastRun: { result: 'failed', errors: 3 } });

      const msgs = lines.map((l) => `${l.msg} ${l.job ?? ''}`);
      expect(msgs).toEqual(expect.arrayContaining(['mirror job scheduled nightly', 'mirror job started nightly', `mirror job ${SKIPPED_STILL_RUNNING} nightly`, 'mirror job finished nightly']));
      expect(JSON.stringify(lines)).not.toContain('sekrit-key');
      expect(readFileSync(join(c.data, JOB_STATE_FILE), 'utf8')).not.toContain('sekrit-key');
    } finally {
      await s.stop();
    }
  });

  test('stop interrupts a running job, waits for it and fires nothing more', async () => {
    const c = config({ upstream: 'https://u.example', jobs: [{ ...JOB, schedule: '* * * * * *' }] });
    const { pending, runner } = controlledRunner();
    const s = new Scheduler({ config: c, log: memoryLogger().log, runJob: runner }).start();
    expect(s.fire('nightly')).toBe('started');
    await s.stop();
    expect(pending[0].signal?.aborted).toBe(true);
    expect(s.isRunning('nightly')).toBe(false);
    expect(s.fire('nightly')).toBe('stopped');
    const st = readJobStates(c.data).jobs.nightly;
    expect(st).toMatchObject({ lastRun: { result: 'interrupted', trigger: 'manual' } });
    expect(st.running).toBeUndefined();
    expect(st.nextRun).toBeUndefined();
  });

  test('a job state left "running" by a dead process is not shown as running', () => {
    const c = config({ upstream: 'https://u.example', jobs: [JOB] });
    const store = new JobStateFile(c.data);
    store.update('nightly', (st) => {
      st.running = { trigger: 'schedule', startedAt: new Date().toISOString(), pid: 2 ** 22 + 12345 };
    });
    expect(jobViews(c, readJobStates(c.data))[0].running).toBeUndefined();
  });
});

describe('the job state file', () => {
  test('updates merge per job, are atomic and leave no temporary file', () => {
    const dir = tempDir();
    const a = new JobStateFile(dir);
    const b = new JobStateFile(dir);
    a.update('one', (st) => void (st.runs = 1));
    b.update('two', (st) => void (st.runs = 2));
    a.update('one', (st) => void (st.skipped = 5));
    expect(readJobStates(dir).jobs).toMatchObject({ one: { runs: 1, skipped: 5 }, two: { runs: 2 } });
    expect(readdirSync(dir)).toEqual([JOB_STATE_FILE]);
  });

  test('a corrupt file reads as empty state and is replaced on the next write', () => {
    const dir = tempDir();
    require('node:fs').writeFileSync(join(dir, JOB_STATE_FILE), '{"jobs": {"x": ');
    expect(readJobStates(dir).jobs).toEqual({});
    new JobStateFile(dir).update('x', (st) => void (st.runs = 1));
    expect(readJobStates(dir).jobs.x.runs).toBe(1);
  });

  test('the status table shows every job with its last run, errors and next run', () => {
    const c = config({ upstream: 'https://u.example', jobs: [{ ...JOB, schedule: '0 3 * * *', timezone: 'UTC' }, { name: 'adhoc', resources: ['maps/m'] }] });
    const store = new JobStateFile(c.data);
    const rec = runRecord('schedule', new Date('2025-01-01T03:00:00Z'), new Date('2025-01-01T03:00:09Z'), [fakeResult('tiles/v', { status: 'failed', failed: 2, failures: ['tiles 1/0/0: HTTP 503'] })]);
    store.update('nightly', (st) => {
      st.lastRun = rec;
      st.skipped = 1;
      st.lastSkipped = { at: '2025-01-01T03:00:01.000Z', reason: SKIPPED_STILL_RUNNING };
    });
    store.update('gone', (st) => void (st.runs = 3));
    const views = jobViews(c, readJobStates(c.data), (n) => (n === 'nightly' ? '2099-01-01T03:00:00.000Z' : undefined));
    const text = formatStatusTable(views).join('\n');
    expect(text).toMatch(/^JOB\s+SCHEDULE\s+STATE\s+LAST RUN \(END\)\s+RESULT\s+FETCHED\s+STORED\s+FAILED\s+ERRORS\s+NEXT RUN$/m);
    expect(text).toMatch(/^nightly\s+0 3 \* \* \* \(UTC\)\s+idle\s+2025-01-01 03:00:09Z\s+failed\s+8\s+7\s+2\s+2\s+2099-01-01 03:00:00Z$/m);
    expect(text).toMatch(/^ {2}last error: tiles\/v: tiles 1\/0\/0: HTTP 503$/m);
    expect(text).toMatch(/1 firing skipped \(skipped: still running\)/);
    expect(text).toMatch(/^adhoc\s+on demand\s+idle\s+-\s+never run/m);
    expect(text).toMatch(/^gone \(not configured\)/m);
  });
});

describe('progress output', () => {
  const snap = (done: number): ProgressSnapshot => ({ resource: 'tiles/v', total: 100, done, fetched: done, skipped: 0, failed: 2, bytes: 2048 * done, retries: 1, elapsedMs: 1000 + done * 10 });

  test('off a terminal: one line a second, prefixed with the job', () => {
    const out: string[] = [];
    let now = 5000;
    const p = new ProgressPrinter({ isTTY: false, write: (s: string) => out.push(s) }, 1000, () => now, 'nightly');
    p.update(snap(10));
    now = 5500;
    p.update(snap(20));
    now = 6200;
    p.update(snap(30));
    p.finish();
    expect(out).toHaveLength(2);
    expect(out[1]).toMatch(/^nightly: tiles\/v 30\/100 tiles \(30\.0%\), \d+ tiles\/s, 60\.0 KB, 2 errors, 1 retries, ETA \S+\n$/);
  });

  test('on a terminal: a cli-progress bar with done/total, tiles/s, bytes, errors and ETA', () => {
    let text = '';
    const sink = { isTTY: true, columns: 200, write: (s: string) => void (text += s), on: () => sink, removeListener: () => sink };
    const p = new ProgressPrinter(sink, 1000, Date.now, 'nightly');
    p.update(snap(50), true);
    p.finish();
    expect(text).toMatch(/nightly tiles\/v \[#{12}-{12}\] 50% \| 50\/100 tiles \| \d+ tiles\/s \| 100\.0 KB \| 2 errors \| ETA \S+/);
  });
});

describe('job options for maps', () => {
  test('withDependencies, scales, formats and maxAge pass from the config to the run', () => {
    const config = parseConfig(
      {
        mirror: {
          upstream: 'http://127.0.0.1:9',
          jobs: [{ name: 'm', resources: ['maps/sample'], withDependencies: true, scales: [1, 2], formats: ['png', 'webp'], maxAge: 3600 }],
        },
      },
      't',
      process.cwd(),
      {},
    );
    const [job] = configuredJobs(config, {});
    const o = jobMirrorOptions(job, job.resources[0], '/tmp/x');
    expect(o).toMatchObject({ withDependencies: true, scales: [1, 2], formats: ['png', 'webp'], maxAge: 3600 });
    expect(() => parseConfig({ mirror: { upstream: 'http://x', jobs: [{ name: 'm', resources: ['maps/a'], scales: [3] }] } }, 't', process.cwd(), {})).toThrow(/jobs\[0\]\.scales/);
  });
});
