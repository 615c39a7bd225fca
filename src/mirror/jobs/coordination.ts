// Scheduled jobs across several `tilemirror serve` instances: each firing runs once, wherever it is claimed first.
// The claim is two Redis locks taken with Redlock (@sesamecare-oss/redlock over ioredis), never a lease of our own:
//   {prefix}:job:{name}:firing:{slot}   one per job and scheduled time (the cron slot, the same on every instance),
//                                       so a firing runs on one instance and the next one can run on any;
//   {prefix}:job:{name}:running         one per job while a run lasts, so a run that outlasts its interval is not
//                                       joined by a second run elsewhere (the same no-overlap rule as in one process).
// Both are extended while the run lasts. The running lock is released at the end; the firing lock is left to expire
// (lockTtl after the last extension), so an instance that comes to the same slot late still finds it taken.
// A lock that could not be extended before it expired is lost: the run is interrupted (its progress is kept).
// Redis unreachable at a firing: the firing is skipped (fail closed) rather than risk running twice.

import type { Lock, Redlock } from '@sesamecare-oss/redlock';
import type { Redis } from 'ioredis';

// Redlock and ioredis are required when a Redis coordinator is made (decision 0021): a server whose schedules
// share no Redis never loads them (~8 MB resident with their dependencies).
type RedlockModule = typeof import('@sesamecare-oss/redlock');
const redlockModule = (): RedlockModule => require('@sesamecare-oss/redlock') as RedlockModule;
import type { Logger } from 'pino';
import type { Redactor } from '../upstream/redact';

/** A firing this instance won: the run goes on while `signal` is not aborted; `release` when it ends. */
export interface Claim {
  signal: AbortSignal;
  release(): Promise<void>;
}

export interface Coordinator {
  /**
   * Claims the job for one firing (`slot`: its scheduled time; none for a manual run, which takes only the running
   * lock). Undefined when another instance holds it; throws when the lock service cannot answer.
   */
  claim(job: string, slot: Date | undefined): Promise<Claim | undefined>;
  close(): Promise<void>;
}

export interface RedisCoordinatorOptions {
  url: string;
  ttlMs: number;
  prefix: string;
  log: Logger;
  /** Hides the URL's password (and the upstream keys) in every line this module logs. */
  redact: Redactor;
}

/** The redis lock keys of a firing (pure, so the naming can be tested). */
export function lockKeys(prefix: string, job: string, slot: Date | undefined): { firing?: string; running: string } {
  return { ...(slot && { firing: `${prefix}:job:${job}:firing:${slot.toISOString()}` }), running: `${prefix}:job:${job}:running` };
}

/** True when Redlock refused because the resource is held (every vote against was a ResourceLockedError). */
async function heldElsewhere(err: unknown): Promise<boolean> {
  const { ExecutionError, ResourceLockedError } = redlockModule();
  if (!(err instanceof ExecutionError) || err.attempts.length === 0) return false;
  const stats = await Promise.all(err.attempts);
  return stats.every((s) => s.votesAgainst.size > 0 && [...s.votesAgainst.values()].every((e) => e instanceof ResourceLockedError));
}

export class RedisCoordinator implements Coordinator {
  private readonly redis: Redis;
  private readonly redlock: Redlock;
  private lastError?: string;

  constructor(private readonly opts: RedisCoordinatorOptions) {
    const log = opts.log;
    // Few retries per command: a firing is decided now or skipped, not queued behind a long outage.
    const { Redis: RedisClient } = require('ioredis') as typeof import('ioredis');
    this.redis = new RedisClient(opts.url, { maxRetriesPerRequest: 1, connectTimeout: 5000, enableAutoPipelining: false });
    this.redis.on('error', (err: Error) => {
      // ioredis reports every failed reconnection: one line per distinct error, redacted.
      const message = opts.redact(err.message);
      if (message === this.lastError) return;
      this.lastError = message;
      log.warn({ err: message }, 'scheduler: redis unavailable');
    });
    this.redis.on('ready', () => {
      if (this.lastError !== undefined) log.info('scheduler: redis available again');
      this.lastError = undefined;
    });
    // retryCount 0: a held lock means another instance has the firing; there is nothing to wait for.
    this.redlock = new (redlockModule().Redlock)([this.redis], { retryCount: 0, driftFactor: 0.01 });
    // Contention is normal (ResourceLockedError); anything else also surfaces through claim/extend.
    this.redlock.on('error', () => undefined);
  }

  private async take(key: string): Promise<Lock | undefined> {
    try {
      return await this.redlock.acquire([key], this.opts.ttlMs);
    } catch (err) {
      if (await heldElsewhere(err)) return undefined;
      throw new Error(`cannot take the lock ${key} in redis: ${this.opts.redact(err instanceof Error ? err.message : String(err))}`);
    }
  }

  async claim(job: string, slot: Date | undefined): Promise<Claim | undefined> {
    const keys = lockKeys(this.opts.prefix, job, slot);
    const firing = keys.firing ? await this.take(keys.firing) : undefined;
    if (keys.firing && !firing) return undefined;
    // The firing lock stays taken even when the job is running elsewhere: this slot is decided.
    const running = await this.take(keys.running);
    if (!running) return undefined;
    return this.hold(firing ? [firing, running] : [running], this.opts.log.child({ job }));
  }

  /**
   * One lock of `key`, extended while held (as a job's): undefined when another instance holds it; throws when the
   * lock service cannot answer. Released by `release`, or left to expire by an instance that stops.
   */
  async lock(key: string): Promise<Claim | undefined> {
    const lock = await this.take(key);
    return lock && this.hold([lock], this.opts.log);
  }

  /** The connection to Redis, for the keys that travel with the locks (a render run's bands and results). */
  get client(): Redis {
    return this.redis;
  }

  /** Extends `locks` every third of their TTL until released; the last one is released at the end. */
  private hold(locks: Lock[], log: Logger): Claim {
    const lost = new AbortController();
    const extend = async (): Promise<void> => {
      for (const [i, lock] of locks.entries()) {
        try {
          locks[i] = await lock.extend(this.opts.ttlMs);
        } catch (err) {
          if (Date.now() < lock.expiration) {
            log.warn({ lock: lock.resources[0], err: this.opts.redact(err instanceof Error ? err.message : String(err)) }, 'scheduler: cannot extend the job lock yet; trying again');
          } else if (!lost.signal.aborted) {
            log.error({ lock: lock.resources[0] }, 'scheduler: the job lock expired; interrupting the run');
            lost.abort(new Error('the job lock in redis expired'));
          }
        }
      }
    };
    let extending = Promise.resolve();
    const timer = setInterval(() => (extending = extending.then(extend)), Math.max(500, Math.floor(this.opts.ttlMs / 3)));
    timer.unref();
    return {
      signal: lost.signal,
      release: async () => {
        clearInterval(timer);
        await extending;
        const current = locks[locks.length - 1];
        try {
          await current.release();
        } catch (err) {
          // It expires on its own after the TTL.
          log.warn({ lock: current.resources[0], err: this.opts.redact(err instanceof Error ? err.message : String(err)) }, 'scheduler: cannot release the running lock; it expires on its own');
        }
      },
    };
  }

  async close(): Promise<void> {
    // QUIT only over a working connection; otherwise (reconnecting after an outage) stop reconnecting at once.
    if (this.redis.status === 'ready') {
      try {
        await this.redis.quit();
        return;
      } catch {
        /* disconnect below */
      }
    }
    this.redis.disconnect();
  }
}
