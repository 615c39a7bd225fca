// The renderer browsers: `size` slots, each one Chromium process with one page (two pages in one browser stall:
// the one in the background is throttled), started when a render first needs it and closed after a while idle. Renders wait in a bounded queue;
// each attempt has a deadline, and a browser that crashes or passes the deadline is killed, replaced, and the render
// tried once more on the new one. What fails then is `unavailable`, never an error without a kind.

import { ServiceError } from '../../errors';
import type { RenderBrowser } from './browser';

export interface PoolOptions {
  /** Browser processes (renders at once). */
  size: number;
  /** Renders waiting for a browser; beyond, `too-busy`. */
  maxWaiting: number;
  /** One attempt's time (the browser's start aside: it has its own timeout). */
  deadlineMs: number;
  /** Starts one browser. */
  launch(): Promise<RenderBrowser>;
  /** A browser was killed (crash or deadline) and will be replaced: for the log. */
  onReplaced(why: string, pid: number): void;
  /** A browser with no render for this long is closed (its memory given back); the next render starts another. */
  idleMs: number;
}

/** Counts since start (RendererState's). */
export interface PoolCounts {
  rendered: number;
  failed: number;
  restarts: number;
}

interface Slot {
  browser?: RenderBrowser;
  busy: boolean;
  idle?: NodeJS.Timeout;
}

interface Job {
  work: (browser: RenderBrowser) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/** A browser that answers nothing stays dead: marks an attempt the deadline ended. */
class DeadlineExceeded extends Error {}

export class BrowserPool {
  readonly counts: PoolCounts = { rendered: 0, failed: 0, restarts: 0 };
  private readonly slots: Slot[];
  private readonly waiting: Job[] = [];
  private closed = false;
  /** Moving average of an attempt's time (ms), for Retry-After. */
  private avgMs = 2000;

  constructor(private readonly opts: PoolOptions) {
    this.slots = Array.from({ length: opts.size }, () => ({ busy: false }));
  }

  get inFlight(): number {
    return this.slots.filter((s) => s.busy).length;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Browsers running now. */
  get running(): RenderBrowser[] {
    return this.slots.flatMap((s) => (s.browser?.alive ? [s.browser] : []));
  }

  /**
   * Runs `work` on a browser of the pool: at once when one is free, else after the renders waiting before it.
   * `too-busy` when `maxWaiting` already wait; `abandoned` when `signal` fires while waiting.
   */
  run<T>(work: (browser: RenderBrowser) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.closed) return Promise.reject(new ServiceError('unavailable', 'the renderer is closed'));
    if (signal?.aborted) return Promise.reject(new ServiceError('abandoned', 'render abandoned: nobody waits for it'));
    return new Promise<T>((resolve, reject) => {
      const job: Job = { work, resolve: resolve as (v: unknown) => void, reject, signal };
      const free = this.slots.find((s) => !s.busy);
      if (free) return void this.start(free, job);
      if (this.waiting.length >= this.opts.maxWaiting) {
        const seconds = Math.min(60, Math.max(1, Math.ceil((this.avgMs * (this.waiting.length + 1)) / 1000 / this.slots.length)));
        return reject(new ServiceError('too-busy', `Too many renders waiting for a browser (${this.waiting.length}); retry in ${seconds} s`, seconds));
      }
      job.onAbort = () => {
        const i = this.waiting.indexOf(job);
        if (i < 0) return;
        this.waiting.splice(i, 1);
        reject(new ServiceError('abandoned', 'render abandoned while waiting: nobody waits for it'));
      };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      this.waiting.push(job);
    });
  }

  private start(slot: Slot, job: Job): void {
    slot.busy = true;
    clearTimeout(slot.idle);
    if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    void this.attempt(slot, job, 1).finally(() => {
      slot.busy = false;
      const next = this.waiting.shift();
      if (next && !this.closed) return this.start(slot, next);
      slot.idle = setTimeout(() => this.closeIdle(slot), this.opts.idleMs);
      // An idle browser never keeps the process alive.
      slot.idle.unref();
    });
  }

  private closeIdle(slot: Slot): void {
    const { browser } = slot;
    if (slot.busy || !browser) return;
    slot.browser = undefined;
    void browser.close();
  }

  private async attempt(slot: Slot, job: Job, n: number): Promise<void> {
    let browser: RenderBrowser;
    try {
      browser = await this.browserOf(slot);
    } catch (err) {
      this.counts.failed++;
      return job.reject(err instanceof ServiceError ? err : new ServiceError('unavailable', `no renderer browser: ${(err as Error).message}`));
    }
    const t0 = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineExceeded(`no answer within ${this.opts.deadlineMs / 1000} s`)), this.opts.deadlineMs);
    });
    try {
      const value = await Promise.race([job.work(browser), deadline]);
      this.avgMs = 0.8 * this.avgMs + 0.2 * (performance.now() - t0);
      this.counts.rendered++;
      job.resolve(value);
    } catch (err) {
      const broken = err instanceof DeadlineExceeded || !browser.alive;
      if (!broken || this.closed) {
        this.counts.failed++;
        return job.reject(err);
      }
      // The browser is killed whatever happened to it: a hung one would hold its slot forever.
      const why = err instanceof DeadlineExceeded ? `render past its deadline (${err.message})` : (err as Error).message;
      browser.kill();
      slot.browser = undefined;
      this.counts.restarts++;
      this.opts.onReplaced(why, browser.pid);
      if (n < 2) return this.attempt(slot, job, n + 1);
      this.counts.failed++;
      job.reject(new ServiceError('unavailable', `render failed twice, each time on a new browser: ${why}`));
    } finally {
      clearTimeout(timer);
    }
  }

  private async browserOf(slot: Slot): Promise<RenderBrowser> {
    if (slot.browser?.alive) return slot.browser;
    if (slot.browser) this.counts.restarts++;
    slot.browser = undefined;
    const browser = await this.opts.launch();
    if (this.closed) {
      await browser.close();
      throw new ServiceError('unavailable', 'the renderer is closed');
    }
    slot.browser = browser;
    return browser;
  }

  /** Stops every browser; waiting renders are refused as `unavailable` (those in flight fail as their browser goes). */
  async close(): Promise<void> {
    this.closed = true;
    for (const slot of this.slots) clearTimeout(slot.idle);
    for (const job of this.waiting.splice(0)) job.reject(new ServiceError('unavailable', 'the renderer is closed'));
    await Promise.all(this.slots.map((s) => s.browser?.close()));
  }
}
