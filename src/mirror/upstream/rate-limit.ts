// Throttling the upstream by requests per second (users' first wish for a seeder), independent of concurrency:
// a token bucket refilled continuously at `rate` tokens/s holding at most `burst` tokens. A request that finds
// the bucket empty reserves a token anyway (the count goes negative) and waits until its turn, so concurrent
// workers queue fairly in arrival order instead of all waking at once.
// With a burst of 1 the starts are also kept at least 1/rate apart on the clock: waiters a busy event loop wakes
// late together go one after another, so no second ever sees more than `rate` starts.
// The bucket is also the run's one gate: when the upstream says "Retry-After", `pauseUntil` closes it for every
// worker, not only the one that was told; a polite client sends nothing at all until the time given.

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const systemClock: Clock = { now: () => performance.now(), sleep: abortableSleep };

export class TokenBucket {
  private tokens: number;
  private last: number;
  /** Clock time before which no request may start (a Retry-After); 0: open. */
  private pausedUntil = 0;
  /** When the last request started (burst 1: the next starts 1/rate later at the earliest). */
  private lastStart = -Infinity;

  /**
   * @param rate tokens per second; Infinity or 0 means unlimited
   * @param burst largest number of requests sent back to back (default: one second's worth, at least 1)
   */
  constructor(readonly rate: number, readonly burst = Math.max(1, Math.floor(rate)), private readonly clock: Clock = systemClock) {
    this.tokens = this.burst;
    this.last = clock.now();
  }

  get unlimited(): boolean {
    return !Number.isFinite(this.rate) || this.rate <= 0;
  }

  /** Milliseconds the caller must wait for its token (0: go now); reserves the token. Pure bookkeeping, no timers. */
  reserve(): number {
    if (this.unlimited) return 0;
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.rate) * 1000;
  }

  /** Closes the gate for `ms` from now (a longer pause already set wins). */
  pauseFor(ms: number): void {
    if (!(ms > 0)) return;
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
  }

  /** Milliseconds the gate stays closed (0: open). */
  pausedFor(): number {
    return Math.max(0, this.pausedUntil - this.clock.now());
  }

  /** Waits for the gate to open and then for a token. */
  async take(signal?: AbortSignal): Promise<void> {
    // A loop: the pause may be extended while this caller sleeps (another 429 arrived).
    for (let paused = this.pausedFor(); paused > 0; paused = this.pausedFor()) await this.clock.sleep(paused, signal);
    if (!this.unlimited && this.pausedUntil > 0 && this.last < this.pausedUntil) {
      // No burst right after a pause: the bucket does not fill while the upstream asked for quiet.
      this.tokens = Math.min(this.tokens, 1);
      this.last = Math.max(this.last, this.pausedUntil);
    }
    const wait = this.reserve();
    if (wait > 0) await this.clock.sleep(wait, signal);
    if (this.burst === 1 && !this.unlimited) {
      const interval = 1000 / this.rate;
      for (let early = this.lastStart + interval - this.clock.now(); early > 0; early = this.lastStart + interval - this.clock.now()) await this.clock.sleep(early, signal);
      this.lastStart = this.clock.now();
    }
  }
}
