import type { ServerResponse } from 'node:http';
import { ServiceError } from '../errors';

// The bodies of answers handed to connections but not yet sent are held in the process's memory until the client
// has read them (the kernel takes a few hundred KB to a few MB per connection; the rest waits in the socket's write
// queue). A tile body is the tile cache's own buffer, shared, and small; a rendered static map is a new buffer of
// over a megabyte (4096 px) that a slow reader pins for as long as it reads. Here every body of COUNTED_BYTES or
// more is counted from the moment it is written until its response closes (sent, or the connection cut), and a
// route that makes a big new body (a static map render) first reserves room: at once while the bodies held are
// under the budget, else in turn behind at most MAX_WAITING others; beyond, `too-busy` (503 with Retry-After).
// A reservation counts the largest recent body of such answers (decaying by a tenth per answer), until the real
// body is written. What the budget can be exceeded by: the answers admitted while it still had room, each at most one
// render (the render queue runs one big render at a time).

/** Bodies this size or bigger are counted; smaller ones (nearly every tile) cost no bookkeeping. */
export const COUNTED_BYTES = 64 * 1024;

/** Most requests waiting for room; beyond, they are refused at once. */
export const MAX_WAITING = 16;

/** On a response: the bytes it holds of the budget (-1 once it closed and gave them back). */
const HELD = Symbol('answer bytes held');
type HeldResponse = ServerResponse & { [HELD]?: number };

interface Waiter {
  start: () => void;
}

export class AnswerBudget {
  private held = 0;
  private readonly waiting: Waiter[] = [];
  /** The largest recent body reserved for, a tenth less per answer since (bytes); a 4096 px sample map is ~1.2 MB. */
  private estimate = 1024 * 1024;

  constructor(
    private readonly budget: number,
    /** Retry-After of a refusal: about when slow readers holding the budget have been closed (stalled-sockets.ts). */
    private readonly retryAfterSeconds: number,
  ) {}

  /**
   * Reserves room for one big body on `res`: at once while the bodies held are under the budget, else in turn.
   * Throws `too-busy` when MAX_WAITING requests already wait, `abandoned` when `signal` fires while waiting.
   */
  async reserve(res: ServerResponse, signal: AbortSignal): Promise<void> {
    if ((res as HeldResponse)[HELD] !== undefined) return;
    if (this.waiting.length === 0 && this.held < this.budget) return this.hold(res, this.estimate);
    if (this.waiting.length >= MAX_WAITING) {
      throw new ServiceError('too-busy', `Too many large answers being sent; retry in ${this.retryAfterSeconds} s`, this.retryAfterSeconds);
    }
    if (signal.aborted) throw new ServiceError('abandoned', 'waiting for room to answer: the client went away');
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          signal.removeEventListener('abort', onAbort);
          this.hold(res, this.estimate);
          resolve();
        },
      };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(waiter);
        if (i < 0) return;
        this.waiting.splice(i, 1);
        reject(new ServiceError('abandoned', 'waiting for room to answer: the client went away'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** A body of `bytes` was written to `res`: counted (in place of its reservation) until the response closes. */
  written(res: ServerResponse, bytes: number): void {
    const held = (res as HeldResponse)[HELD];
    if (held === -1) return;
    if (held === undefined) {
      if (bytes >= COUNTED_BYTES) this.hold(res, bytes);
      return;
    }
    this.estimate = Math.max(COUNTED_BYTES, bytes, Math.round(0.9 * this.estimate));
    (res as HeldResponse)[HELD] = bytes;
    this.held += bytes - held;
    if (bytes < held) this.startWaiting();
  }

  private hold(res: ServerResponse, bytes: number): void {
    (res as HeldResponse)[HELD] = bytes;
    this.held += bytes;
    // 'close' comes once the response is sent (after 'finish') or its connection is gone.
    res.once('close', () => {
      this.held -= (res as HeldResponse)[HELD] ?? 0;
      (res as HeldResponse)[HELD] = -1;
      this.startWaiting();
    });
  }

  private startWaiting(): void {
    while (this.waiting.length > 0 && this.held < this.budget) (this.waiting.shift() as Waiter).start();
  }
}
