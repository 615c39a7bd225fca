import { write, writeSync } from 'node:fs';

// Where the server's JSON log lines go (pino writes each line here). pino's own destination (sonic-boom 4) measures
// the byte length of its whole pending buffer on every line, which flattens a string of up to 16 KB each time: ~3 µs
// a line, about 7 % of a tile request's time (bench/profile.js). Here lines are kept in an array and joined once per
// write(2): ~0.3 µs a line. Asynchronous: a slow reader of stdout never blocks the event loop; what it cannot take
// piles up to `maxBacklogBytes`, beyond which lines are dropped and counted, and the count is logged when it drains.

export interface BatchedDestinationOptions {
  /** File descriptor (1: stdout). */
  fd?: number;
  /** Pending bytes that start a write (smaller batches wait for `flush()`, which the logger calls every 250 ms). */
  minBytes?: number;
  /** Pending bytes beyond which lines are dropped (a stuck reader must not grow the heap without bound). */
  maxBacklogBytes?: number;
}

export class BatchedDestination {
  private readonly fd: number;
  private readonly minBytes: number;
  private readonly maxBacklog: number;
  private lines: string[] = [];
  private pending = 0;
  private writing = false;
  private dropped = 0;
  /** stdout is gone (EPIPE, EBADF…): nothing more is written. */
  private closed = false;

  constructor(opts: BatchedDestinationOptions = {}) {
    this.fd = opts.fd ?? 1;
    this.minBytes = opts.minBytes ?? 4096;
    this.maxBacklog = opts.maxBacklogBytes ?? 16 * 1024 * 1024;
  }

  /** pino's stream interface: one serialized line (with its newline). */
  write(line: string): boolean {
    if (this.closed) return true;
    if (this.pending + line.length > this.maxBacklog) {
      this.dropped++;
      return true;
    }
    this.lines.push(line);
    this.pending += line.length;
    if (!this.writing && this.pending >= this.minBytes) this.startWrite();
    return true;
  }

  private drained: (() => void)[] = [];

  /**
   * Starts writing whatever is pending (unless a write is already under way: it continues when that ends);
   * `done` (pino's `logger.flush(cb)`) is called once everything pending now is written, or cannot be.
   */
  flush(done?: () => void): void {
    if (done) this.drained.push(done);
    if (!this.writing && (this.pending > 0 || this.dropped > 0)) this.startWrite();
    else if (!this.writing) this.settle();
  }

  /** Nothing pending and nothing being written: the flush callbacks are due. */
  private settle(): void {
    const due = this.drained;
    if (due.length === 0) return;
    this.drained = [];
    for (const cb of due) cb();
  }

  /** At exit: writes what is pending synchronously (a write under way finishes on its own or is lost with the process). */
  flushSync(): void {
    if (this.closed) return;
    const data = this.take();
    try {
      let off = 0;
      while (off < data.length) off += writeSync(this.fd, data, off);
    } catch {
      // stdout gone or full at exit: nothing more can be said.
    }
  }

  /** The pending lines as one buffer, with a note of the lines dropped since the last write. */
  private take(): Buffer {
    if (this.dropped > 0) {
      this.lines.push(`${JSON.stringify({ level: 40, time: Date.now(), dropped: this.dropped, msg: 'log lines dropped: stdout did not keep up' })}\n`);
      this.dropped = 0;
    }
    const data = Buffer.from(this.lines.join(''));
    this.lines = [];
    this.pending = 0;
    return data;
  }

  private startWrite(): void {
    if (this.closed) return;
    this.writing = true;
    this.writeOut(this.take(), 0);
  }

  private writeOut(data: Buffer, offset: number): void {
    write(this.fd, data, offset, data.length - offset, null, (err, written) => {
      if (err) {
        const busy = (err as NodeJS.ErrnoException).code === 'EAGAIN' || (err as NodeJS.ErrnoException).code === 'EBUSY';
        if (busy) {
          // A non-blocking pipe that is full: try again shortly; new lines keep piling up (bounded) meanwhile.
          setTimeout(() => this.writeOut(data, offset), 10).unref();
          return;
        }
        this.closed = true;
        this.writing = false;
        this.lines = [];
        this.pending = 0;
        this.settle();
        return;
      }
      if (offset + written < data.length) return this.writeOut(data, offset + written);
      this.writing = false;
      // Callers of flush() wait for what was pending when they asked: keep going until nothing is.
      if (this.pending >= this.minBytes || (this.drained.length > 0 && this.pending > 0)) this.startWrite();
      else this.settle();
    });
  }
}
