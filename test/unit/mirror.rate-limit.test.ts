import { TokenBucket, type Clock } from '../../src/mirror/upstream/rate-limit';

function fakeClock(): Clock & { t: number } {
  const c = {
    t: 0,
    now: () => c.t,
    sleep: async (ms: number) => {
      c.t += ms;
    },
  };
  return c;
}

/**
 * A clock for concurrent sleepers: time stands still while any of them can run, and jumps to the earliest
 * wake-up when all of them sleep. Deterministic, however busy the machine.
 */
function virtualClock(): Clock & { runUntil(done: Promise<unknown>): Promise<void> } {
  let t = 0;
  const sleepers: { at: number; wake: () => void }[] = [];
  const settle = (): Promise<void> => new Promise((r) => setImmediate(r));
  return {
    now: () => t,
    sleep: (ms: number) => new Promise<void>((wake) => sleepers.push({ at: t + ms, wake })),
    async runUntil(done: Promise<unknown>): Promise<void> {
      let finished = false;
      void done.then(() => (finished = true));
      for (;;) {
        await settle();
        if (finished) return;
        if (!sleepers.length) throw new Error('nothing sleeps and the work is not done');
        sleepers.sort((x, y) => x.at - y.at);
        const next = sleepers.shift()!;
        t = Math.max(t, next.at);
        next.wake();
      }
    },
  };
}

describe('token bucket', () => {
  test('a burst goes at once, then one request per 1/rate', () => {
    const clock = fakeClock();
    const b = new TokenBucket(10, 3, clock);
    expect([b.reserve(), b.reserve(), b.reserve()]).toEqual([0, 0, 0]);
    // The 4th and 5th reserve their slots 100 and 200 ms ahead (concurrent callers queue in order).
    expect(b.reserve()).toBeCloseTo(100);
    expect(b.reserve()).toBeCloseTo(200);
    clock.t += 1000;
    // Refilled to the burst, not beyond.
    expect([b.reserve(), b.reserve(), b.reserve()]).toEqual([0, 0, 0]);
    expect(b.reserve()).toBeGreaterThan(0);
  });

  test('sequential takes hold the rate over time (fake clock)', async () => {
    const clock = fakeClock();
    const b = new TokenBucket(20, 1, clock);
    for (let i = 0; i < 101; i++) await b.take();
    // 100 intervals of 50 ms after the first token.
    expect(clock.t).toBeCloseTo(5000, 0);
  });

  test('unlimited when the rate is 0', () => {
    const b = new TokenBucket(0);
    for (let i = 0; i < 1000; i++) expect(b.reserve()).toBe(0);
  });

  test('8 concurrent workers, 25 requests at 50/s: one start every 20 ms, in order, 480 ms in all (virtual clock)', async () => {
    const clock = virtualClock();
    const b = new TokenBucket(50, 1, clock);
    const times: number[] = [];
    let left = 25;
    const done = Promise.all(
      Array.from({ length: 8 }, async () => {
        while (left-- > 0) {
          await b.take();
          times.push(clock.now());
        }
      }),
    );
    await clock.runUntil(done);
    // The burst of 1 goes at 0, then the bucket's 1/rate: never two starts closer than 20 ms, none later than needed.
    expect(times).toEqual(Array.from({ length: 25 }, (_, i) => i * 20));
  });

  test('an aborted wait rejects', async () => {
    const b = new TokenBucket(1, 1);
    await b.take();
    const ac = new AbortController();
    const p = b.take(ac.signal);
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
  });
});

describe('the shared Retry-After gate', () => {
  test('a pause holds every caller until it ends, unlimited rate or not', async () => {
    for (const rate of [0, 100]) {
      const clock = fakeClock();
      const b = new TokenBucket(rate, 5, clock);
      b.pauseFor(2000);
      expect(b.pausedFor()).toBe(2000);
      const starts: number[] = [];
      await Promise.all(Array.from({ length: 3 }, async () => {
        await b.take();
        starts.push(clock.t);
      }));
      expect(Math.min(...starts)).toBeGreaterThanOrEqual(2000);
      expect(b.pausedFor()).toBe(0);
    }
  });

  test('a longer pause extends a shorter one, never the reverse', () => {
    const clock = fakeClock();
    const b = new TokenBucket(0, 1, clock);
    b.pauseFor(1000);
    b.pauseFor(300);
    expect(b.pausedFor()).toBe(1000);
    b.pauseFor(5000);
    expect(b.pausedFor()).toBe(5000);
  });

  test('no burst right after a pause: the bucket did not fill while the upstream asked for quiet', async () => {
    const clock = fakeClock();
    const b = new TokenBucket(10, 10, clock);
    for (let i = 0; i < 10; i++) b.reserve();
    b.pauseFor(5000);
    await b.take();
    expect(clock.t).toBeGreaterThanOrEqual(5000);
    // The next one waits its 1/rate turn instead of finding 10 tokens saved up.
    expect(b.reserve()).toBeGreaterThan(0);
  });
});
