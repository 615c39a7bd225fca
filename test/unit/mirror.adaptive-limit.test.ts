// The adaptive in-flight limit and the hedging bookkeeping, on a clock the test moves: what raises and lowers the
// limit, what a stalled request gives back, and when a request is hedged.

import { AdaptiveLimit, FALL_SIGNALS, PRESSURE_HIGH, PRESSURE_WINDOW, START_LIMIT, type LoadSignal, type Slot } from '../../src/mirror/upstream/concurrency';
import { HEDGE_MIN_MS, RecentLatencies, hedgeAfterMs } from '../../src/mirror/upstream/hedging';
import { ACCIDENT_BASE_MS, ACCIDENT_MAX_MS, DEFAULT_RETRY, backoffDelay, decideRetry, isOverload } from '../../src/mirror/upstream/retry';

class Clock {
  t = 0;
  now = (): number => this.t;
}

function limiter(max = 128): { lim: AdaptiveLimit; clock: Clock } {
  const clock = new Clock();
  return { lim: new AdaptiveLimit(max, clock.now), clock };
}

const granted = (s: Slot | Promise<Slot>): Slot => {
  if (s instanceof Promise) throw new Error('expected a slot at once');
  return s;
};

/**
 * One round trip: fills the limit, lets `ms` pass, answers every request with `signal` (or what `signalOf` says for
 * the i-th); returns the limit after it.
 */
function roundTrip(lim: AdaptiveLimit, clock: Clock, ms: number, signalOf: (i: number) => LoadSignal = () => 'answered'): number {
  const slots: Slot[] = [];
  while (lim.inFlight < lim.limit) slots.push(granted(lim.acquire()));
  for (const s of slots) lim.sending(s);
  clock.t += ms;
  slots.forEach((s, i) => lim.release(s, signalOf(i)));
  return lim.limit;
}

describe('the adaptive in-flight limit', () => {
  test('grows while more in flight brings more answers per second', () => {
    const { lim, clock } = limiter();
    expect(lim.limit).toBe(START_LIMIT);
    // A far upstream: every request takes 60 ms whatever the number in flight, so throughput grows with the limit.
    for (let i = 0; i < 10; i++) roundTrip(lim, clock, 60);
    expect(lim.limit).toBeGreaterThanOrEqual(64);
  });

  test('a 500, a reset or a bad body (failed) neither lowers it nor counts as an answer', () => {
    const { lim, clock } = limiter();
    for (let i = 0; i < 20; i++) roundTrip(lim, clock, 60, () => 'failed');
    expect(lim.limit).toBe(START_LIMIT);
  });

  test('a lone refusal among healthy answers does not lower it', () => {
    const { lim, clock } = limiter();
    for (let i = 0; i < 8; i++) roundTrip(lim, clock, 60);
    const before = lim.limit;
    for (let i = 0; i < 5; i++) roundTrip(lim, clock, 60, (j) => (j === 0 ? 'overloaded' : 'answered'));
    expect(lim.limit).toBeGreaterThanOrEqual(before);
  });

  test('overload signals that are not alone halve it once per round trip; while their share is low it doubles back within a few windows', () => {
    const { lim, clock } = limiter();
    for (let i = 0; i < 4; i++) roundTrip(lim, clock, 60);
    const before = lim.limit;
    // FALL_SIGNALS refusals and a fourth in the same round trip: one fall.
    expect(roundTrip(lim, clock, 60, (i) => (i < FALL_SIGNALS + 1 ? 'overloaded' : 'answered'))).toBe(Math.floor(before / 2));
    let windows = 0;
    while (lim.limit < before && windows < 10) {
      roundTrip(lim, clock, 60);
      windows++;
    }
    expect(lim.limit).toBeGreaterThanOrEqual(before);
    expect(windows).toBeLessThanOrEqual(3);
  });

  test('refusals that make up much of the answers (a real overload) keep it down: no quick climb back', () => {
    const { lim, clock } = limiter();
    for (let i = 0; i < 4; i++) roundTrip(lim, clock, 60);
    const before = lim.limit;
    // More than PRESSURE_HIGH refusals among the last PRESSURE_WINDOW answers, then healthy answers at the same rate.
    const slots = Array.from({ length: PRESSURE_WINDOW }, () => granted(lim.acquire()));
    for (const s of slots) lim.sending(s);
    clock.t += 60;
    slots.forEach((s, i) => lim.release(s, i < PRESSURE_HIGH + 1 ? 'overloaded' : 'answered'));
    expect(lim.pressure.high).toBe(true);
    const fallen = lim.limit;
    expect(fallen).toBe(Math.floor(before / 2));
    // The same throughput at every limit (a saturated upstream): a step up does not pay, so it stays where it fell.
    for (let i = 0; i < 6; i++) {
      const n = lim.limit;
      roundTrip(lim, clock, n);
    }
    expect(lim.limit).toBeLessThan(before);
  });

  test('one slow answer in a window does not stop growth (medians)', () => {
    const { lim, clock } = limiter();
    for (let i = 0; i < 6; i++) {
      const slots: Slot[] = [];
      while (lim.inFlight < lim.limit) slots.push(granted(lim.acquire()));
      for (const s of slots) lim.sending(s);
      clock.t += 60;
      // All but the first answer after 60 ms; the first after 5 s.
      slots.slice(1).forEach((s) => lim.release(s, 'answered'));
      clock.t += 4940;
      lim.release(slots[0], 'answered');
    }
    expect(lim.limit).toBeGreaterThan(START_LIMIT);
  });

  test('a stalled request gives its place under the limit to another, and still counts against the ceiling', () => {
    const { lim } = limiter(10);
    const slots = Array.from({ length: START_LIMIT }, () => granted(lim.acquire()));
    expect(lim.acquire()).toBeInstanceOf(Promise);
    lim.leave(slots[0]);
    lim.leave(slots[1]);
    // The waiter got the first place given back; one more fits under the limit, and then the ceiling (10) binds.
    expect(lim.total).toBe(START_LIMIT + 1);
    granted(lim.acquire());
    expect(lim.total).toBe(10);
    lim.leave(slots[2]);
    expect(lim.acquire()).toBeInstanceOf(Promise);
    // A stalled request's answer is no sample and gives back only its place under the ceiling.
    lim.release(slots[0], 'answered');
    expect(lim.total).toBe(10);
    expect(lim.inFlight).toBe(START_LIMIT);
  });

  test('an urgent request (a hedge) goes before the ones waiting', async () => {
    const { lim } = limiter(START_LIMIT);
    const slots = Array.from({ length: START_LIMIT }, () => granted(lim.acquire()));
    const order: string[] = [];
    const waiting = (lim.acquire() as Promise<Slot>).then(() => order.push('waiting'));
    const urgent = (lim.acquire(undefined, true) as Promise<Slot>).then(() => order.push('urgent'));
    lim.release(slots[0], 'answered');
    lim.release(slots[1], 'answered');
    await Promise.all([waiting, urgent]);
    expect(order).toEqual(['urgent', 'waiting']);
  });
});

describe('hedging and retries', () => {
  test('a request is hedged after max(4 x p95, 1 s) of the recent healthy answers', () => {
    expect(hedgeAfterMs(undefined)).toBe(HEDGE_MIN_MS);
    expect(hedgeAfterMs(100)).toBe(1000);
    expect(hedgeAfterMs(400)).toBe(1600);
    expect(hedgeAfterMs(400, 50)).toBe(1600);
    expect(hedgeAfterMs(5, 50)).toBe(50);
    const r = new RecentLatencies();
    expect(r.p95()).toBeUndefined();
    for (let i = 1; i <= 100; i++) r.add(i);
    expect(r.p95()).toBe(95);
    // Only the last 256 answers count.
    for (let i = 0; i < 256; i++) r.add(7);
    expect(r.p95()).toBe(7);
  });

  test('an accident backs off from ACCIDENT_BASE_MS to at most ACCIDENT_MAX_MS, an overload signal from baseMs up to maxMs', () => {
    const one = (): number => 1;
    expect(backoffDelay(1, DEFAULT_RETRY, one, false)).toBe(ACCIDENT_BASE_MS);
    expect(backoffDelay(1, DEFAULT_RETRY, one, true)).toBe(DEFAULT_RETRY.baseMs);
    expect(backoffDelay(8, DEFAULT_RETRY, one, false)).toBe(ACCIDENT_MAX_MS);
    expect(backoffDelay(8, DEFAULT_RETRY, one, true)).toBe(Math.min(DEFAULT_RETRY.maxMs, DEFAULT_RETRY.baseMs * 2 ** 7));
    expect(isOverload({ kind: 'status', status: 500 })).toBe(false);
    expect(isOverload({ kind: 'network', message: 'reset' })).toBe(false);
    expect(isOverload({ kind: 'invalid', message: 'garbage' })).toBe(false);
    expect(isOverload({ kind: 'status', status: 429 })).toBe(true);
    expect(isOverload({ kind: 'network', message: 'timed out', timeout: true })).toBe(true);
    expect(decideRetry(8, { kind: 'status', status: 500 }, DEFAULT_RETRY, 0, one)).toEqual({ retry: true, delayMs: ACCIDENT_MAX_MS });
    expect(decideRetry(9, { kind: 'status', status: 500 }, DEFAULT_RETRY, 0, one).retry).toBe(false);
  });
});
