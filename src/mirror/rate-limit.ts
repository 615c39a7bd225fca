// Throttling the upstream by requests per second (users' first wish for a seeder), independent of concurrency:
// a token bucket refilled continuously at `rate` tokens/s holding at most `burst` tokens. A request that finds
// the bucket empty reserves a token anyway (the count goes negative) and waits until its turn, so concurrent
// workers queue fairly in arrival order instead of all waking at once.

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

  /** Waits for a token. */
  async take(signal?: AbortSignal): Promise<void> {
    const wait = this.reserve();
    if (wait > 0) await this.clock.sleep(wait, signal);
  }
}
