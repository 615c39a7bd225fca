// A render job's run shared by the instances of one Redis (`scheduler.redis`): the instance that runs the job
// offers the metatiles it still needs as bands; every instance with a renderer (the read-only ones too) takes free
// bands with the same Redlock locks as the schedules, draws them with its own browsers and queues the encoded
// tiles in Redis; the job's instance, the one writer, takes them into its staging file and publishes as always.
// Keys, under `{prefix}:render:`:
//   runs                 a set of the run ids on offer
//   run:{id}             the run (JSON: map, versions, formats, bands), expiring unless its job's instance renews it
//   run:{id}:band:{i}    the lock of band i, held (and extended) while an instance draws it
//   run:{id}:done        a set of the bands drawn (their tiles stored or queued)
//   run:{id}:drawn       a list of drawn metatiles (one message each: header and tiles), taken by the job's instance
// A helper queues a band's metatiles before it marks the band done, and holds back while the queue is long, so
// Redis holds a few metatiles at a time. A helper that dies leaves its band's lock to expire; the band is drawn
// again by whoever takes it next. A run whose instance dies expires with its keys; its next run resumes from the
// staging file (services/prerender.ts), as a run on one instance does.

import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { BandLease, DrawnMetatile, Metatile, RunSharing, SharedRun, SharedRunSpec } from '../../services/prerender';
import type { RenderedTile } from '../../services/renderer/types';
import type { RenderFormat } from '../../store/renders/render-store';
import type { Redactor } from '../upstream/redact';
import type { RedisCoordinator } from './coordination';
import type { RenderHost } from './render-job';

/** Drawn metatiles queued at most before a helper waits for the job's instance to take them. */
const QUEUE_LIMIT = 8;
/** How often a helper looks for runs on offer. */
const POLL_MS = 1000;

interface RunKeys {
  run: string;
  done: string;
  drawn: string;
  band(i: number): string;
}

/** The keys of run `id` (pure, so the naming can be tested). */
export function runKeys(prefix: string, id: string): RunKeys {
  const run = `${prefix}:render:run:${id}`;
  return { run, done: `${run}:done`, drawn: `${run}:drawn`, band: (i) => `${run}:band:${i}` };
}

/** One drawn metatile as queued: a 4-byte header length, the header (JSON), the tiles' bytes one after another. */
export function encodeDrawn(d: DrawnMetatile): Buffer {
  const header = Buffer.from(JSON.stringify({ band: d.band, index: d.index, tiles: d.tiles.map((t) => ({ ...t.tile, bytes: t.data.length })) }));
  const size = Buffer.alloc(4);
  size.writeUInt32BE(header.length);
  return Buffer.concat([size, header, ...d.tiles.map((t) => t.data)]);
}

/** The drawn metatile of a queued message; throws on a message that does not add up. */
export function decodeDrawn(buf: Buffer): DrawnMetatile {
  const size = buf.readUInt32BE(0);
  const header = JSON.parse(buf.subarray(4, 4 + size).toString('utf8')) as { band: number; index: number; tiles: (RenderedTile['tile'] & { bytes: number })[] };
  let at = 4 + size;
  const tiles = header.tiles.map(({ bytes, ...tile }) => {
    const data = buf.subarray(at, at + bytes);
    at += bytes;
    return { tile, data: Buffer.from(data) };
  });
  if (at !== buf.length) throw new Error(`a drawn metatile's message has ${buf.length} bytes, its header says ${at}`);
  return { band: header.band, index: header.index, tiles };
}

/** A run as offered in Redis. */
interface Offer extends SharedRunSpec {
  id: string;
  job: string;
}

export interface RenderShareOptions {
  /** The locks and the connection (a coordinator of its own: this one's connection carries the queued tiles). */
  coordinator: RedisCoordinator;
  prefix: string;
  ttlMs: number;
  log: Logger;
  /** Hides the Redis URL's password in what this module logs. */
  redact: Redactor;
}

/** Offers this instance's render runs to the others, and draws theirs. */
export class RenderShare {
  private readonly redis: Redis;
  private readonly own = new Set<string>();
  private readonly helping = new Map<string, AbortController>();
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly opts: RenderShareOptions) {
    this.redis = opts.coordinator.client;
  }

  /** The sharing a render job of `job` runs with. */
  sharing(job: string): RunSharing {
    return { open: (spec) => this.open(job, spec) };
  }

  private async open(job: string, spec: SharedRunSpec): Promise<SharedRun> {
    const id = randomUUID();
    const keys = runKeys(this.opts.prefix, id);
    const runs = `${this.opts.prefix}:render:runs`;
    const offer: Offer = { id, job, ...spec };
    const ttl = this.opts.ttlMs;
    this.own.add(id);
    await this.redis.multi().set(keys.run, JSON.stringify(offer), 'PX', ttl).sadd(runs, id).exec();
    this.opts.log.info({ job, map: spec.mapId, bands: spec.bands.length }, 'render share: a run offered to the other instances');
    const renew = setInterval(() => {
      this.redis.multi().pexpire(keys.run, ttl).pexpire(keys.done, ttl).pexpire(keys.drawn, ttl).exec().catch(() => undefined);
    }, Math.max(500, Math.floor(ttl / 3)));
    renew.unref();
    return {
      claim: (i) => this.claimBand(keys, i),
      done: async (i) => void (await this.redis.multi().sadd(keys.done, String(i)).pexpire(keys.done, ttl).exec()),
      doneBands: async () => new Set((await this.redis.smembers(keys.done)).map(Number)),
      take: async (max) => ((await this.redis.lpopBuffer(keys.drawn, max)) ?? []).map(decodeDrawn),
      waiting: () => this.redis.llen(keys.drawn),
      close: async () => {
        clearInterval(renew);
        this.own.delete(id);
        await this.redis.multi().del(keys.run, keys.done, keys.drawn).srem(runs, id).exec();
      },
    };
  }

  /** Band `i`'s lock, unless another instance holds it or it was drawn since the caller last looked. */
  private async claimBand(keys: RunKeys, i: number): Promise<BandLease | undefined> {
    const lease = await this.opts.coordinator.lock(keys.band(i));
    if (lease && (await this.redis.sismember(keys.done, String(i))) === 1) {
      await lease.release();
      return undefined;
    }
    return lease;
  }

  /** Looks for other instances' runs every second and draws their free bands with `host`'s renderer. */
  help(host: RenderHost): void {
    const poll = async (): Promise<void> => {
      if (this.closed) return;
      try {
        await this.joinRuns(host);
      } catch (err) {
        this.opts.log.warn({ err: this.opts.redact(err instanceof Error ? err.message : String(err)) }, 'render share: cannot look for runs in redis');
      }
      if (!this.closed) this.timer = setTimeout(() => void poll(), POLL_MS).unref();
    };
    this.timer = setTimeout(() => void poll(), POLL_MS).unref();
  }

  private async joinRuns(host: RenderHost): Promise<void> {
    const runs = `${this.opts.prefix}:render:runs`;
    for (const id of await this.redis.smembers(runs)) {
      if (this.own.has(id) || this.helping.has(id)) continue;
      const text = await this.redis.get(runKeys(this.opts.prefix, id).run);
      if (text === null) {
        // Its instance stopped without withdrawing it: the run's keys expired.
        await this.redis.srem(runs, id);
        continue;
      }
      const offer = JSON.parse(text) as Offer;
      const map = host.map(offer.mapId);
      // Drawn only from the same files as the job's instance reads (a new store not yet seen here waits a poll).
      if (!map || host.renderedTiles.style(map)?.version !== offer.version || !host.renderer.state().enabled) continue;
      const stop = new AbortController();
      this.helping.set(id, stop);
      void this.draw(host, offer, stop).finally(() => this.helping.delete(id));
    }
  }

  /** Draws the free bands of `offer` once over, `host.parallel` at a time. */
  private async draw(host: RenderHost, offer: Offer, stop: AbortController): Promise<void> {
    const keys = runKeys(this.opts.prefix, offer.id);
    const log = this.opts.log.child({ job: offer.job, map: offer.mapId });
    const done = new Set((await this.redis.smembers(keys.done)).map(Number));
    const free = offer.bands.map((_, i) => i).filter((i) => !done.has(i));
    let next = 0;
    let drawn = 0;
    const onOffer = async (): Promise<boolean> => (await this.redis.exists(keys.run)) === 1 && !this.closed;
    const band = async (i: number, lease: BandLease): Promise<void> => {
      for (const [index, m] of offer.bands[i].entries()) {
        // The job's instance takes the queue as it draws; wait while it is long, and stop when the run is withdrawn.
        while ((await this.redis.llen(keys.drawn)) >= QUEUE_LIMIT) {
          if (!(await onOffer()) || lease.signal.aborted) return;
          await new Promise((r) => setTimeout(r, 200));
        }
        if (!(await onOffer()) || lease.signal.aborted) return;
        const tiles = await host.renderer.renderMetatile({ mapId: offer.mapId, styleVersion: offer.styleVersion, ...(m as Metatile), formats: offer.formats as RenderFormat[] }, stop.signal);
        await this.redis.multi().rpush(keys.drawn, encodeDrawn({ band: i, index, tiles })).pexpire(keys.drawn, this.opts.ttlMs).exec();
        drawn++;
      }
      await this.redis.multi().sadd(keys.done, String(i)).pexpire(keys.done, this.opts.ttlMs).exec();
      log.info({ band: i, bands: offer.bands.length }, 'render share: drew a band of another instance\'s run');
    };
    const workers = await Promise.allSettled(
      Array.from({ length: Math.max(1, host.parallel) }, async () => {
        while (next < free.length && !stop.signal.aborted) {
          if (!(await onOffer())) return;
          const i = free[next++];
          const lease = await this.claimBand(keys, i);
          if (!lease) continue;
          try {
            await band(i, lease);
          } finally {
            await lease.release();
          }
        }
      }),
    );
    const failure = workers.find((w) => w.status === 'rejected');
    // The band is left undone: another instance (or this one at its next poll) draws it.
    if (failure) log.warn({ err: this.opts.redact(failure.reason instanceof Error ? failure.reason.message : String(failure.reason)) }, 'render share: a band of another instance\'s run failed here');
    if (drawn > 0) log.info({ metatiles: drawn }, 'render share: drew metatiles of another instance\'s run');
  }

  /** Stops helping (bands in flight are left to their locks' expiry) and closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const stop of this.helping.values()) stop.abort();
    await this.opts.coordinator.close();
  }
}
