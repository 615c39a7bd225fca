// Answers are written together, once the event loop has handled every request that was ready, not one by one as
// each is built. Why: on loopback (a local client, a benchmark, a proxy on the same host) each write(2) of an
// answer also runs the reader's side of TCP and wakes the reader if it sleeps. Written one by one, ~20 µs of our
// code apart, the reader has finished the previous answer and gone back to sleep before the next arrives, and
// every write pays a wake-up through the hypervisor; written back to back, one wake-up serves the batch. Measured
// on a 2-core AMD EPYC VM (wrk, 64 connections, pinned cores), interleaved runs: 19-29k req/s one by one, 31-37k
// batched, bare node:http 40-49k; a bare server slowed by 15 µs of busy work per request fell from 49.6k to 19.1k
// req/s for the same reason. Through nginx sharing the same two cores it measured neither better nor worse
// (README, scale-out).
//
// The batch is written in the `check` phase that follows the I/O callbacks that built it (setImmediate), or as soon
// as it holds `maxSize` answers, which bounds what an answer waits for the others: at most `maxSize - 1` answers'
// writes, a couple of milliseconds under full load, nothing on an idle server. Pipelined answers of one connection
// keep their order (Node queues a connection's answers itself).

/** Writes one queued answer; must not depend on being called in the same tick as `add`. */
export type WriteAnswer<A, B, C, D> = (a: A, b: B, c: C, d: D) => void;

export class ReplyBatch<A, B, C, D> {
  // Flat, four slots per answer: no object or closure allocated per request.
  private items: unknown[] = [];
  private scheduled = false;

  constructor(
    private readonly write: WriteAnswer<A, B, C, D>,
    private readonly maxSize = 64,
  ) {}

  /** Queues one answer for the end of this turn of the event loop. */
  add(a: A, b: B, c: C, d: D): void {
    this.items.push(a, b, c, d);
    if (this.items.length >= this.maxSize * 4) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.onImmediate);
    }
  }

  private readonly onImmediate = (): void => {
    this.scheduled = false;
    this.flush();
  };

  /** Writes every queued answer now. A throw does not hold back the others: it is raised once all are written. */
  flush(): void {
    const items = this.items;
    if (items.length === 0) return;
    this.items = [];
    let failure: { err: unknown } | undefined;
    for (let i = 0; i < items.length; i += 4) {
      try {
        this.write(items[i] as A, items[i + 1] as B, items[i + 2] as C, items[i + 3] as D);
      } catch (err) {
        failure ??= { err };
      }
    }
    if (failure) throw failure.err;
  }
}
