// How many requests the mirror keeps in flight: adaptive, between 1 and the run's `--concurrency`. A far upstream
// (tens of milliseconds away) needs many requests in flight to fill the link, a near or busy one gains nothing from
// them but queues; neither can be known before the run, so the limit is found while it runs:
// - it starts at a few requests and grows (doubling, later by a quarter) while each step up brings at least
//   GAIN more answers per second and the window's median latency holds (at most LATENCY_FACTOR x the median of
//   the window before the step, plus LATENCY_SLACK_MS: medians, so one slow answer does not rule a window, and
//   against the window before, so a machine or link that became slower since the start does not stop growth for
//   good); a step that does not pay is taken back and the next one is tried HOLD_WINDOWS later;
// - it halves when the upstream says it is overloaded (429, 503, a timeout) and such signals are not a lone
//   refusal among healthy answers (FALL_SIGNALS of the last PRESSURE_WINDOW answers), once per round trip: answers
//   to requests sent before the last halving do not halve it again. A lone refusal is the odd request's bad luck,
//   as random losses are to a congestion control that reads loss rates rather than single losses (BBR): halving on
//   each one, at a few per cent of refusals, kept the limit at 1-4 for whole runs. After a fall while the share is
//   still low it doubles back, window by window, to the highest limit it fell from; refusals that make up a large
//   share of the answers (PRESSURE_HIGH) are a real overload: then it climbs again only step by paying step.
// Only overload signals move it down: a 500, a reset, a truncated or garbled body is one request's accident and
// is retried without touching the limit (the client reports those as 'failed').
// A request that has waited far longer than the others (the client hedges it, see client.ts) `leave`s the count:
// it keeps its connection, and still counts against `max`, but no longer holds a place under the adaptive limit,
// and its latency is not a sample. So a few stalled answers neither block the run nor talk the limit down.
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
/** Answers over which the overload share is read, and how many overload signals among them make it high. */
export const PRESSURE_WINDOW = 16;
export const PRESSURE_HIGH = 6;
/** Overload signals among the last PRESSURE_WINDOW answers that make one a reason to fall (a lone refusal is not). */
export const FALL_SIGNALS = 3;

export interface Slot {
  /** Sequence number of the request (the order it got its slot). */
  readonly seq: number;
  /** When the request went out (latency is counted from here, not from the wait for a slot or a token). */
  started: number;
  /** Left the adaptive count (see `leave`): still on the wire, no longer a place under the limit or a sample. */
  stalled: boolean;
}

/** What an answer says about the upstream's load; 'failed': no answer that says anything of the load (a reset, a 500, a bad body, a stop): neither counted nor halving. */
export type LoadSignal = 'answered' | 'overloaded' | 'failed';

interface Waiter {
  resolve: (s: Slot) => void;
  reject: (e: Error) => void;
  signal?: AbortSignal;
}

export class AdaptiveLimit {
  /** Requests allowed in flight now (stalled ones not counted). */
  limit: number;
  /** Requests in flight that count under the limit. */
  inFlight = 0;
  /** Every request in flight, stalled ones included: never more than `max`. */
  total = 0;
  /** Most requests in flight at once so far (stalled ones included). */
  maxInFlight = 0;
  private seq = 0;
  /** Answers to requests with a lower sequence number were sent before the last halving. */
  private halvedAtSeq = 0;
  private readonly waiters: Waiter[] = [];
  /** Run signals listened to: one listener each (not one per waiter), dropping that run's waiters when it aborts. */
  private readonly watched = new WeakSet<AbortSignal>();
  private winStart: number;
  private readonly winLatencies: number[] = [];
  private winSaturated = false;
  /** The limit, throughput and median latency before the step up being judged; undefined when no step is being judged. */
  private before: { limit: number; rate: number; latency: number } | undefined;
  private slowStart = true;
  private hold = 0;
  /** The limit fallen from, climbed back to by doubling (0: none). */
  private recoverTo = 0;
  /** How many of the recent answers were overload signals. */
  readonly pressure = new OverloadShare();

  constructor(
    readonly max: number,
    private readonly now: () => number = () => performance.now(),
    start = START_LIMIT,
  ) {
    this.limit = Math.max(1, Math.min(max, start));
    this.winStart = now();
  }

  private get room(): boolean {
    return this.inFlight < this.limit && this.total < this.max;
  }

  /**
   * A slot for one request: at once when there is room and nobody waits, else in arrival order; an `urgent`
   * request (a hedge) goes before the waiting ones.
   */
  acquire(signal?: AbortSignal, urgent = false): Slot | Promise<Slot> {
    if (this.room && (urgent || this.waiters.length === 0)) return this.grant();
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (signal && !this.watched.has(signal)) {
      this.watched.add(signal);
      signal.addEventListener('abort', () => this.drop(signal), { once: true });
    }
    return new Promise<Slot>((resolve, reject) => {
      const w = { resolve, reject, signal };
      if (urgent) this.waiters.unshift(w);
      else this.waiters.push(w);
    });
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

  /** The slot's request is stalled: it stays on the wire (and under `max`) but gives its place under the limit to another. */
  leave(slot: Slot): void {
    if (slot.stalled) return;
    slot.stalled = true;
    this.inFlight--;
    this.wake();
  }

  /** Gives the slot back with what its answer said of the upstream's load. */
  release(slot: Slot, signal: LoadSignal): void {
    this.total--;
    if (!slot.stalled) this.inFlight--;
    const now = this.now();
    if (signal !== 'failed') this.pressure.note(signal === 'overloaded');
    // Once refusals make up much of the answers, the fall they caused was no bad luck: no quick climb back.
    if (this.pressure.high) this.recoverTo = 0;
    if (signal === 'overloaded') this.overloaded(slot);
    else if (signal === 'answered' && !slot.stalled) {
      this.winLatencies.push(now - slot.started);
      if (this.winLatencies.length >= this.limit && now - this.winStart >= MIN_WINDOW_MS) this.judge(now);
    }
    this.wake();
  }

  private grant(): Slot {
    this.inFlight++;
    this.total++;
    if (this.total > this.maxInFlight) this.maxInFlight = this.total;
    if (this.inFlight >= this.limit) this.winSaturated = true;
    return { seq: ++this.seq, started: this.now(), stalled: false };
  }

  private wake(): void {
    while (this.waiters.length && this.room) {
      this.waiters.shift()!.resolve(this.grant());
    }
  }

  private overloaded(slot: Slot): void {
    if (slot.seq <= this.halvedAtSeq || this.pressure.signals < FALL_SIGNALS) return;
    this.halvedAtSeq = this.seq;
    const real = this.pressure.high;
    if (!real) this.recoverTo = Math.max(this.recoverTo, this.limit);
    this.limit = Math.max(1, Math.floor(this.limit / 2));
    this.slowStart = false;
    this.before = undefined;
    // A real overload is given a window to drain before growth resumes; after the odd refusal the next window
    // already climbs back.
    this.hold = real ? 1 : 0;
    this.newWindow(this.now());
  }

  private newWindow(now: number): void {
    this.winStart = now;
    this.winLatencies.length = 0;
    this.winSaturated = this.inFlight >= this.limit;
  }

  /** The end of a window: step up, take a step back, or hold. */
  private judge(now: number): void {
    const rate = (this.winLatencies.length * 1000) / (now - this.winStart);
    const latency = median(this.winLatencies);
    const saturated = this.winSaturated;
    this.newWindow(now);
    if (!saturated) return;
    if (this.hold > 0) {
      this.hold--;
      return;
    }
    if (this.limit < this.recoverTo) {
      // Back towards the limit that paid before a refusal among healthy answers: a window without a new fall is
      // all the proof it needs.
      this.limit = Math.min(this.recoverTo, this.limit * 2);
      return;
    }
    this.recoverTo = 0;
    if (this.before) {
      const paid = rate >= this.before.rate * (1 + GAIN) && latency <= this.before.latency * LATENCY_FACTOR + LATENCY_SLACK_MS;
      if (!paid) {
        this.limit = this.before.limit;
        this.before = undefined;
        this.slowStart = false;
        this.hold = HOLD_WINDOWS;
        return;
      }
    }
    this.before = undefined;
    if (this.limit >= this.max) return;
    const next = Math.min(this.max, this.slowStart ? this.limit * 2 : Math.max(this.limit + 1, Math.ceil(this.limit * 1.25)));
    this.before = { limit: this.limit, rate, latency };
    this.limit = next;
  }
}

/** The middle value (the mean of the two middle ones for an even count); `values` is reordered. */
export function median(values: number[]): number {
  values.sort((a, b) => a - b);
  const mid = values.length >> 1;
  return values.length % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

/**
 * Whether the upstream is refusing the run rather than the odd request: PRESSURE_HIGH overload signals among the
 * last PRESSURE_WINDOW answers that said anything of the load. A rate limit that binds refuses most requests
 * (the share fills at once); random refusals among healthy answers (a few per cent) almost never reach it.
 */
export class OverloadShare {
  private readonly ring = new Uint8Array(PRESSURE_WINDOW);
  private next = 0;
  private overloaded = 0;

  note(overloaded: boolean): void {
    this.overloaded += (overloaded ? 1 : 0) - this.ring[this.next];
    this.ring[this.next] = overloaded ? 1 : 0;
    this.next = (this.next + 1) % PRESSURE_WINDOW;
  }

  /** Overload signals among the last PRESSURE_WINDOW answers. */
  get signals(): number {
    return this.overloaded;
  }

  get high(): boolean {
    return this.overloaded >= PRESSURE_HIGH;
  }
}
