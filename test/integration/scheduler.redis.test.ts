// The scheduler's Redis coordination against a real redis-server (loopback, no persistence, a password):
// a firing is claimed once; the running lock keeps a second run of the job out, also across firings, and is
// extended while the run lasts (held past its TTL); after release the next firing is free; two schedulers
// sharing a data directory record the loser's skip; an unreachable Redis skips the firing (fail closed); the
// password is in no log line, error or state file. Config and key naming without a server.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pino from 'pino';
import { parseConfig } from '../../src/config/load';
import { lockKeys, RedisCoordinator } from '../../src/mirror/jobs/coordination';
import { createRedactor } from '../../src/mirror/upstream/redact';
import { coordinationUrl, Scheduler, SKIPPED_ELSEWHERE, SKIPPED_NO_COORDINATION, type JobRunner } from '../../src/mirror/jobs/schedule';
import { runRecord } from '../../src/mirror/jobs/job-status';
import { readJobStates } from '../../src/store/data-dir/job-state';
import { gatedTest } from '../helpers/clients';
import { freePort, REDIS_SERVER, startRedis, type TestRedis } from '../helpers/redis';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const redisTest = gatedTest('redis-server', { bins: [REDIS_SERVER], packages: ['redis-server'] });
const PASSWORD = 'sched-Redis-pw-3f9d71';

const { tempDir, removeTempDirs } = tempDirs('tm-sched-redis-');
afterAll(() => {
  removeTempDirs();
});

describe('configuration and naming (no server)', () => {
  test('scheduler.redis takes redis:// and rediss:// URLs; other schemes are refused without echoing the password', () => {
    const c = parseConfig({ scheduler: { redis: `redis://:${PASSWORD}@h:6379/2` } }, 't', '/', {});
    expect(c.scheduler).toEqual({ redis: `redis://:${PASSWORD}@h:6379/2`, lockTtlSeconds: 30, keyPrefix: 'tilemirror' });
    expect(parseConfig({}, 't', '/', {}).scheduler).toEqual({ lockTtlSeconds: 30, keyPrefix: 'tilemirror' });
    let message = '';
    try {
      parseConfig({ scheduler: { redis: `http://:${PASSWORD}@h:6379`, lockTtlSeconds: 1 } }, 't', '/', {});
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/scheduler\.redis/);
    expect(message).toMatch(/scheduler\.lockTtlSeconds/);
    expect(message).not.toContain(PASSWORD);
  });

  test('the URL comes from the config, else from the variable redisEnv names', () => {
    const env = { TM_REDIS: 'redis://r:6379' };
    expect(coordinationUrl(parseConfig({ scheduler: { redisEnv: 'TM_REDIS' } }, 't', '/', env), env)).toBe('redis://r:6379');
    expect(coordinationUrl(parseConfig({ scheduler: { redisEnv: 'TM_REDIS' } }, 't', '/', {}), {})).toBeUndefined();
    expect(coordinationUrl(parseConfig({ scheduler: { redis: 'redis://a:1', redisEnv: 'TM_REDIS' } }, 't', '/', env), env)).toBe('redis://a:1');
  });

  test('lock keys: one per job and firing, one per job while it runs', () => {
    const slot = new Date('2026-11-23T03:00:00Z');
    expect(lockKeys('tm', 'nightly', slot)).toEqual({ firing: 'tm:job:nightly:firing:2026-11-23T03:00:00.000Z', running: 'tm:job:nightly:running' });
    expect(lockKeys('tm', 'nightly', undefined)).toEqual({ running: 'tm:job:nightly:running' });
  });

  test('the redactor hides the password of any URL with user info', () => {
    const redact = createRedactor();
    expect(redact(`connect redis://:${PASSWORD}@10.0.0.5:6379/0 failed`)).toBe('connect redis://:***@10.0.0.5:6379/0 failed');
    expect(redact('rediss://user:p%40ss@h:6380')).toBe('rediss://user:***@h:6380');
    expect(redact('redis://h:6379 and http://host:80/x@y')).toBe('redis://h:6379 and http://host:80/x@y');
  });
});

describe('against redis-server', () => {
  let redis: TestRedis | undefined;
  let url = '';
  const lines: string[] = [];
  const log = pino({ level: 'debug', base: undefined }, { write: (s: string) => void lines.push(s) });

  beforeAll(async () => {
    redis = await startRedis(PASSWORD);
    url = redis.url;
  });
  afterAll(async () => {
    await redis?.stop();
    expect(lines.join('')).not.toContain(PASSWORD);
  });

  const coordinator = (ttlMs: number, prefix: string): RedisCoordinator => new RedisCoordinator({ url, ttlMs, prefix, log, redact: createRedactor(PASSWORD) });

  redisTest('a firing is claimed once; the running lock is extended past its TTL and keeps later firings out until released', async () => {
    // A 3 s TTL, extended every second: two seconds of slack for an extension delayed by a busy machine (1.5 s,
    // extended every 0.5 s, lost its lock once in a full suite run on two loaded cores).
    const one = coordinator(3000, 'tm-a');
    const two = coordinator(3000, 'tm-a');
    const probe = new Redis(url);
    try {
      const t1 = new Date('2026-01-01T00:00:00Z');
      const t2 = new Date('2026-01-01T00:00:03Z');
      const claim = await one.claim('job', t1);
      expect(claim).toBeDefined();
      expect(await two.claim('job', t1)).toBeUndefined();
      const started = Date.now();
      // Held over three of its TTLs: only extensions keep it.
      await waitFor('three TTLs to pass', () => Date.now() - started > 9000, { intervalMs: 250 });
      expect(await probe.exists('tm-a:job:job:running')).toBe(1);
      expect(claim!.signal.aborted).toBe(false);
      // The next firing, elsewhere, while the run goes on: refused by the running lock.
      expect(await two.claim('job', t2)).toBeUndefined();
      await claim!.release();
      expect(await probe.exists('tm-a:job:job:running')).toBe(0);
      // The firing lock stays until it expires, so the same firing is never run again; a new firing runs anywhere.
      expect(await two.claim('job', t1)).toBeUndefined();
      const next = await two.claim('job', new Date('2026-01-01T00:00:06Z'));
      expect(next).toBeDefined();
      await next!.release();
      // Another job is independent.
      const other = await one.claim('other', t1);
      expect(other).toBeDefined();
      await other!.release();
    } finally {
      probe.disconnect();
      await one.close();
      await two.close();
    }
  }, 60_000);

  redisTest('two schedulers on one data directory: one runs the firing, the other records it as skipped', async () => {
    const data = tempDir();
    const raw = { data, scheduler: { redis: url, keyPrefix: 'tm-b', lockTtlSeconds: 5 }, mirror: { upstream: 'http://127.0.0.1:9', jobs: [{ name: 'nightly', resources: ['tiles/v'], schedule: '0 3 * * *' }] } };
    const ran: number[] = [];
    const runner = (id: number): JobRunner => async (_job, _data, trigger) => {
      ran.push(id);
      return { record: runRecord(trigger, new Date(), new Date(), []), results: [], usageError: false };
    };
    const schedulers = [1, 2].map((id) => new Scheduler({ config: parseConfig(raw, 't', '/', {}), log, runJob: runner(id) }).start());
    try {
      const slot = new Date('2026-02-01T03:00:00Z');
      for (const s of schedulers) expect(s.fire('nightly', 'schedule', slot)).toBe('started');
      await Promise.all(schedulers.map((s) => s.whenIdle()));
      expect(ran).toHaveLength(1);
      const st = readJobStates(data).jobs.nightly;
      expect(st).toMatchObject({ runs: 1, skipped: 1, lastSkipped: { reason: SKIPPED_ELSEWHERE } });
      expect(readFileSync(join(data, '.tilemirror-jobs.json'), 'utf8')).not.toContain(PASSWORD);
    } finally {
      await Promise.all(schedulers.map((s) => s.stop()));
    }
  }, 60_000);

  redisTest('redis unreachable: the firing is skipped (fail closed) and recorded, the password in no line', async () => {
    const data = tempDir();
    const closed = await freePort();
    const raw = { data, scheduler: { redis: `redis://:${PASSWORD}@127.0.0.1:${closed}` }, mirror: { upstream: 'http://127.0.0.1:9', jobs: [{ name: 'nightly', resources: ['tiles/v'], schedule: '0 3 * * *' }] } };
    let ran = 0;
    const s = new Scheduler({
      config: parseConfig(raw, 't', '/', {}),
      log,
      runJob: async (_job, _data, trigger) => {
        ran++;
        return { record: runRecord(trigger, new Date(), new Date(), []), results: [], usageError: false };
      },
    }).start();
    try {
      s.fire('nightly', 'schedule', new Date('2026-02-01T03:00:00Z'));
      await s.whenIdle();
      expect(ran).toBe(0);
      expect(readJobStates(data).jobs.nightly).toMatchObject({ runs: 0, skipped: 1, lastSkipped: { reason: SKIPPED_NO_COORDINATION } });
      const skippedLine = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === `mirror job ${SKIPPED_NO_COORDINATION}`);
      expect(skippedLine).toBeDefined();
      expect(lines.join('')).not.toContain(PASSWORD);
    } finally {
      await s.stop();
    }
  }, 60_000);
});
