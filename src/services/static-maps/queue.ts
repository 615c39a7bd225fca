// The render queue: renders in flight share a budget of pixels (memory); a render that does not fit waits, in
// order. The wait is bounded (beyond `maxWaiting` waiting renders a new one is refused: RenderQueueFull),
// and a waiting render whose client went away (its AbortSignal fired) leaves the queue without running.

import { ServiceError } from '../../errors';

/** Refused because the queue is full (`too-busy`); `retryAfterSeconds` is a guess from recent render times. */
export class RenderQueueFull extends ServiceError {
  constructor(readonly waiting: number, retryAfter: number) {
    super('too-busy', `Too many static maps waiting to be rendered (${waiting}); retry in ${retryAfter} s`, retryAfter);
  }
}

/** The render was not run, or stopped at a checkpoint, because its client went away (`abandoned`). */
export class RenderAbandoned extends ServiceError {
  constructor() {
    super('abandoned', 'static map render abandoned: the client went away');
  }
}

/** Counts of what the queue did, since the process started (tests and status read them). */
export interface RenderCounts {
  /** Renders that got their share of the budget and started. */
  started: number;
  /** Renders dropped before starting (their client went away while they waited). */
  dropped: number;
  /** Renders that stopped at a checkpoint after starting (their client went away). */
  stopped: number;
  /** Renders refused because the queue was full (RenderQueueFull). */
  refused: number;
}

interface Waiter {
  weight: number;
  start: () => void;
}

export class RenderQueue {
  readonly counts: RenderCounts = { started: 0, dropped: 0, stopped: 0, refused: 0 };
  private inFlight = 0;
  private running = 0;
  private readonly waiting: Waiter[] = [];
  /** Moving average of a render's duration (ms), for Retry-After. */
  private avgMs = 500;

  constructor(private readonly budget: number) {}

  /** Renders waiting for their turn now. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Runs `work` once `weight` pixels of the budget are free (one render alone may take the whole budget).
   * Rejects with RenderQueueFull when `maxWaiting` renders already wait, and with RenderAbandoned when the
   * signal fires before the render starts. `work` gets the signal back to check at its checkpoints.
   */
  async run<T>(weight: number, maxWaiting: number, signal: AbortSignal | undefined, work: () => Promise<T>, counts: RenderCounts = this.counts): Promise<T> {
    if (signal?.aborted) {
      counts.dropped++;
      throw new RenderAbandoned();
    }
    const w = Math.min(weight, this.budget);
    if (!this.fits(w)) {
      if (this.waiting.length >= maxWaiting) {
        counts.refused++;
        const retryAfter = Math.min(60, Math.max(1, Math.ceil((this.avgMs * (this.waiting.length + 1)) / 1000 / Math.max(1, this.running))));
        throw new RenderQueueFull(this.waiting.length, retryAfter);
      }
      await this.wait(w, signal, counts);
    } else this.take(w, counts);
    const t0 = performance.now();
    try {
      return await work();
    } catch (err) {
      if (err instanceof RenderAbandoned) counts.stopped++;
      throw err;
    } finally {
      this.avgMs = 0.8 * this.avgMs + 0.2 * (performance.now() - t0);
      this.release(w);
    }
  }

  private fits(w: number): boolean {
    return this.waiting.length === 0 && (this.inFlight === 0 || this.inFlight + w <= this.budget);
  }

  private take(w: number, counts: RenderCounts): void {
    this.inFlight += w;
    this.running++;
    counts.started++;
  }

  private wait(w: number, signal: AbortSignal | undefined, counts: RenderCounts): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        weight: w,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.take(w, counts);
          resolve();
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i < 0) return;
        this.waiting.splice(i, 1);
        counts.dropped++;
        reject(new RenderAbandoned());
        // The head may have changed: whoever fits now starts.
        this.startWaiting();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private release(w: number): void {
    this.inFlight -= w;
    this.running--;
    this.startWaiting();
  }

  private startWaiting(): void {
    while (this.waiting.length > 0 && (this.inFlight === 0 || this.inFlight + this.waiting[0].weight <= this.budget)) {
      (this.waiting.shift() as Waiter).start();
    }
  }
}
