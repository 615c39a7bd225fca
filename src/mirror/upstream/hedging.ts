// What the client watches to beat tail latency: the latencies of recent healthy answers; a request that has waited
// far past them is hedged (client.ts). Plain bookkeeping, no timers.

/** A request is hedged once it has waited this many times the recent p95 latency ... */
export const HEDGE_FACTOR = 4;
/** ... and never before this long (ms): below it a second request costs more than the wait it saves. */
export const HEDGE_MIN_MS = 1000;
/** Healthy answers whose latency is remembered. */
const LATENCY_SAMPLES = 256;

/** When a request still unanswered is hedged: max(HEDGE_FACTOR x p95, HEDGE_MIN_MS); HEDGE_MIN_MS before any sample. */
export function hedgeAfterMs(p95: number | undefined, minMs = HEDGE_MIN_MS): number {
  return p95 === undefined ? minMs : Math.max(minMs, HEDGE_FACTOR * p95);
}

/** The latencies (ms) of the last LATENCY_SAMPLES healthy answers, and their 95th percentile. */
export class RecentLatencies {
  private readonly ring = new Float64Array(LATENCY_SAMPLES);
  private count = 0;
  private next = 0;

  add(ms: number): void {
    this.ring[this.next] = ms;
    this.next = (this.next + 1) % LATENCY_SAMPLES;
    if (this.count < LATENCY_SAMPLES) this.count++;
  }

  /** The 95th percentile (nearest rank), or undefined before any sample. */
  p95(): number | undefined {
    if (this.count === 0) return undefined;
    const sorted = this.ring.slice(0, this.count).sort();
    return sorted[Math.min(this.count - 1, Math.ceil(0.95 * this.count) - 1)];
  }
}
