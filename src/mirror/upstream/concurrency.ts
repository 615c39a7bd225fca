// How many requests the mirror keeps in flight: adaptive, between 1 and the run's `--concurrency`. A far upstream
// (tens of milliseconds away) needs many requests in flight to fill the link, a near or busy one gains nothing from
// them but queues; neither can be known before the run, so the limit is found while it runs:
// - it starts at a few requests and grows (doubling, later by a quarter) while each step up brings at least
//   GAIN more answers per second and the mean latency holds (at most LATENCY_FACTOR x the lowest seen, plus
//   LATENCY_SLACK_MS); a step that does not pay is taken back and the next one is tried HOLD_WINDOWS later;
// - it halves when the upstream says it is overloaded (429, 503, a timeout), once per round trip: answers to
//   requests sent before the last halving do not halve it again.
// A window is at least as many answers as the limit (about one round trip) and at least MIN_WINDOW_MS; a window
// in which the limit was never reached (too few tiles left, a rate limit binding) teaches nothing.

export const START_LIMIT = 8;
/** A step up must bring this much more throughput (a fraction). */
const GAIN = 0.1;
const LATENCY_FACTOR = 2;
/** Latency rises below this many milliseconds do not stop growth (on loopback they are all queueing of ~1 ms). */
const LATENCY_SLACK_MS = 10;
const MIN_WINDOW_MS = 50;
const HOLD_WINDOWS = 10;

export interface Slot {
  /** Sequence number of the request (the order it got its slot). */
  readonly seq: number;
  /** When the request went out (latency is counted from here, not from the wait for a slot or a token). */
  started: number;
}

/** What an answer says about the upstream's load; 'failed': no answer that says anything of the load (a reset, a stop): neither counted nor halving. */
export type LoadSignal = 'answered' | 'overloaded' | 'failed';

interface Waiter {
  resolve: (s: Slot) => void;
  reject: (e: Error) => void;
  signal?: AbortSignal;
}

export class AdaptiveLimit {
  /** Requests allowed in flight now. */
  limit: number;
  inFlight = 0;
  /** Most requests in flight at once so far. */
  maxInFlight = 0;
  private seq = 0;
  /** Answers to requests with a lower sequence number were sent before the last halving. */
  private halvedAtSeq = 0;
  private readonly waiters: Waiter[] = [];
  /** Run signals listened to: one listener each (not one per waiter), dropping that run's waiters when it aborts. */
  private readonly watched = new WeakSet<AbortSignal>();
  private winStart: number;
  private winDone = 0;
  private winLatency = 0;
  private winSaturated = false;
  private lowestLatency = Infinity;
  /** The limit and throughput before the step up being judged; undefined when no step is being judged. */
  private before: { limit: number; rate: number } | undefined;
  private slowStart = true;
  private hold = 0;

  constructor(
    readonly max: number,
    private readonly now: () => number = () => performance.now(),
    start = START_LIMIT,
  ) {
    this.limit = Math.max(1, Math.min(max, start));
    this.winStart = now();
  }

  /** A slot for one request: at once when fewer than the limit are in flight, else in arrival order. */
  acquire(signal?: AbortSignal): Slot | Promise<Slot> {
    if (this.inFlight < this.limit && this.waiters.length === 0) return this.grant();
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (signal && !this.watched.has(signal)) {
      this.watched.add(signal);
      signal.addEventListener('abort', () => this.drop(signal), { once: true });
    }
    return new Promise<Slot>((resolve, reject) => this.waiters.push({ resolve, reject, signal }));
  }

  private drop(signal: AbortSignal): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i];
      if (w.signal !== signal) continue;
      this.waiters.splice(i, 1);
      w.reject(signal.reason as Error);
    }
  }

  /** Notes that the slot's request goes out now. */
  sending(slot: Slot): void {
    slot.started = this.now();
  }

  /** Gives the slot back with what its answer said of the upstream's load. */
  release(slot: Slot, signal: LoadSignal): void {
    this.inFlight--;
    const now = this.now();
    if (signal === 'overloaded') this.overloaded(slot);
    else if (signal === 'answered') {
      this.winDone++;
      this.winLatency += now - slot.started;
      if (this.winDone >= this.limit && now - this.winStart >= MIN_WINDOW_MS) this.judge(now);
    }
    this.wake();
  }

  private grant(): Slot {
    this.inFlight++;
    if (this.inFlight > this.maxInFlight) this.maxInFlight = this.inFlight;
    if (this.inFlight >= this.limit) this.winSaturated = true;
    return { seq: ++this.seq, started: this.now() };
  }

  private wake(): void {
    while (this.waiters.length && this.inFlight < this.limit) {
      this.waiters.shift()!.resolve(this.grant());
    }
  }

  private overloaded(slot: Slot): void {
    if (slot.seq <= this.halvedAtSeq) return;
    this.halvedAtSeq = this.seq;
    this.limit = Math.max(1, Math.floor(this.limit / 2));
    this.slowStart = false;
    this.before = undefined;
    this.hold = HOLD_WINDOWS;
    this.newWindow(this.now());
  }

  private newWindow(now: number): void {
    this.winStart = now;
    this.winDone = 0;
    this.winLatency = 0;
    this.winSaturated = this.inFlight >= this.limit;
  }

  /** The end of a window: step up, take a step back, or hold. */
  private judge(now: number): void {
    const rate = (this.winDone * 1000) / (now - this.winStart);
    const latency = this.winLatency / this.winDone;
    const saturated = this.winSaturated;
    this.newWindow(now);
    if (!saturated) return;
    this.lowestLatency = Math.min(this.lowestLatency, latency);
    const latencyHolds = latency <= this.lowestLatency * LATENCY_FACTOR + LATENCY_SLACK_MS;
    if (this.before) {
      const paid = rate >= this.before.rate * (1 + GAIN) && latencyHolds;
      if (!paid) {
        this.limit = this.before.limit;
        this.before = undefined;
        this.slowStart = false;
        this.hold = HOLD_WINDOWS;
        return;
      }
    } else if (this.hold > 0) {
      this.hold--;
      return;
    }
    this.before = undefined;
    if (this.limit >= this.max || !latencyHolds) return;
    const next = Math.min(this.max, this.slowStart ? this.limit * 2 : Math.max(this.limit + 1, Math.ceil(this.limit * 1.25)));
    this.before = { limit: this.limit, rate };
    this.limit = next;
  }

}
