// Checking every part of a bundle: sizes first (a truncated or missing part is named at once, synchronously), then
// the SHA-256 of each part. Two ways: `startHashing` reads and hashes the parts in worker threads (at most
// MAX_WORKERS, plus the calling thread with finish()); `StreamHashing` hashes, in one worker thread, the bytes the
// import's payload reader reads anyway (buffers shared with the worker, so the bundle is read once), and reads only
// what the reader skipped. The import publishes nothing before every hash agrees.

import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { BundleError } from './manifest';
import { sharedBuffer, type OpenedBundle, type ReadHashing } from './parts';
import { hashJobs } from './hash-worker';

const MAX_WORKERS = 4;
const CHUNK = 4 * 1024 * 1024;
/** The hashing loops, in plain JavaScript so that a worker loads them from src/ (ts-jest) and from dist/ alike. */
const HASH_WORKER = join(__dirname, 'hash-worker.js');

interface Job {
  file: string;
  offset: number;
  size: number;
}

type Outcome = { hex: string | null; error: string | null };

/** The calling thread's share of the work: the same loop as a worker's (hash-worker.js), results into `out`. */
function hashHere(jobs: Job[], next: Int32Array, out: Map<number, Outcome>): void {
  hashJobs(jobs, next, (i: number, hex: string | null, error: string | null) => out.set(i, { hex, error }));
}

function worker(jobs: Job[], next: SharedArrayBuffer, out: Map<number, Outcome>): Promise<void> {
  return new Promise((resolve, reject) => {
    const w = new Worker(HASH_WORKER, { workerData: { hashWorker: 'parts', jobs, next } });
    w.on('message', ([index, hex, error]: [number, string | null, string | null]) => out.set(index, { hex, error }));
    w.on('error', reject);
    w.on('exit', () => resolve());
  });
}

/** Refuses a missing part or one whose size is not the manifest's (a truncated copy), before any hashing. */
export function checkPartSizes(b: OpenedBundle): void {
  b.manifest.parts.forEach((p, i) => {
    if (!p.name) return;
    const file = b.locations[i].file;
    if (!existsSync(file)) throw new BundleError(`${p.name} is missing from ${b.path}`);
    const size = statSync(file).size;
    if (size !== p.size) throw new BundleError(`${p.name} is ${size} bytes, the manifest says ${p.size}: truncated or damaged`);
  });
}

/** The hashing of a bundle's parts, under way. */
export interface Hashing {
  /** Hashes, on the calling thread, whatever no worker has taken yet (synchronously); `result` then settles. */
  finish(): void;
  /** Lets no thread take another part (those under way finish); `result` then rejects unless every part was done. */
  abort(): void;
  /** Settles once every part is hashed: rejects with a BundleError naming the first damaged or unreadable part. */
  readonly result: Promise<void>;
}

/**
 * Starts hashing every part in `workers` threads (at most MAX_WORKERS), beside the calling thread, which can join
 * in with finish() once it has nothing better to do.
 */
export function startHashing(b: OpenedBundle, workers: number): Hashing {
  const parts = b.manifest.parts;
  const label = (i: number): string => parts[i].name || `${b.path} (bytes ${b.locations[i].offset}-${b.locations[i].offset + parts[i].size})`;
  const jobs: Job[] = parts.map((p, i) => ({ file: b.locations[i].file, offset: b.locations[i].offset, size: p.size }));
  const nextBuffer = new SharedArrayBuffer(4);
  const next = new Int32Array(nextBuffer);
  const out = new Map<number, Outcome>();
  const threads = Math.max(1, Math.min(MAX_WORKERS, workers, parts.length));
  const all = Promise.all(Array.from({ length: threads }, () => worker(jobs, nextBuffer, out)));
  const result = all.then(() => {
    parts.forEach((p, i) => {
      const r = out.get(i);
      if (!r || r.error) throw new BundleError(`${label(i)}: cannot be read (${r?.error ?? 'no result'})`);
      if (r.hex !== p.sha256) throw new BundleError(`${label(i)}: SHA-256 ${r.hex} does not match the manifest's ${p.sha256}: the part is damaged`);
    });
  });
  return { finish: () => hashHere(jobs, next, out), abort: () => void Atomics.store(next, 0, jobs.length), result };
}

/** Hashes every part (one worker per core) and settles once all are done, like startHashing's result. */
export async function hashParts(b: OpenedBundle, workers = availableParallelism()): Promise<void> {
  await startHashing(b, workers).result;
}

/** Sizes, then every hash: resolves only for a bundle whose parts are all intact. */
export async function verifyParts(b: OpenedBundle): Promise<void> {
  checkPartSizes(b);
  await hashParts(b);
}

/**
 * Hashing the payload from the import's own reads: the reader reads each byte once, into buffers shared with one
 * hashing thread, which hashes them while the main thread applies the records (no second read of the bundle).
 * Bytes the reader never reads (stores skipped, or left unread after a damaged record) are read by finish().
 * Nothing is trusted before `result` settles: it resolves only once every part's SHA-256 matched the manifest.
 */
export class StreamHashing implements Hashing, ReadHashing {
  /** Payload bytes hashed (posted) so far, from 0: the stream has no gaps. */
  private fed = 0;
  private seq = 0;
  private readonly hashed = new Int32Array(new SharedArrayBuffer(4));
  private readonly worker: Worker;
  private readonly digests = new Map<number, string>();
  private readonly ends: number[] = [];
  private finished = false;
  readonly result: Promise<void>;

  constructor(private readonly b: OpenedBundle) {
    let end = 0;
    for (const p of b.manifest.parts) this.ends.push((end += p.size));
    this.worker = new Worker(HASH_WORKER, { workerData: { hashWorker: 'stream', hashed: this.hashed.buffer } });
    this.worker.on('message', ([part, hex]: [number, string]) => this.digests.set(part, hex));
    const exited = new Promise<void>((resolve, reject) => {
      this.worker.on('error', reject);
      this.worker.on('exit', () => resolve());
    });
    const parts = b.manifest.parts;
    const label = (i: number): string => parts[i].name || `${b.path} (bytes ${b.locations[i].offset}-${b.locations[i].offset + parts[i].size})`;
    this.result = exited.then(() => {
      if (!this.finished || this.aborted) throw new BundleError('the hashing of the bundle stopped before its end');
      parts.forEach((p, i) => {
        const hex = this.digests.get(i);
        if (hex !== p.sha256) throw new BundleError(`${label(i)}: SHA-256 ${hex ?? '(none)'} does not match the manifest's ${p.sha256}: the part is damaged`);
      });
    });
  }

  /** The sequence number a later wait() needs to know that everything posted so far is hashed. */
  get posted(): number {
    return this.seq;
  }

  /** Blocks until the range posted as `seq` (and every one before it) is hashed: its buffer may be reused then. */
  wait(seq: number): void {
    // A thread that could not start (or died) never moves the counter: after a minute without progress, give up.
    let stalled = 0;
    for (let h = Atomics.load(this.hashed, 0); h < seq; ) {
      if (h < 0) throw new BundleError('the hashing thread failed: nothing was changed');
      if (Atomics.wait(this.hashed, 0, h, 1000) === 'timed-out' && ++stalled >= 60) throw new BundleError('the hashing thread stopped answering: nothing was changed');
      const now = Atomics.load(this.hashed, 0);
      if (now !== h) stalled = 0;
      h = now;
    }
  }

  /**
   * `bytes` (in a sharedBuffer) were read at payload position `pos`, within one part: hashes
   * the part of them not hashed yet; a gap before them is read and hashed first.
   */
  feed(pos: number, bytes: Buffer): void {
    if (pos > this.fed) this.readThrough(pos);
    const skip = this.fed - pos;
    if (skip >= bytes.length) return;
    this.post(bytes.subarray(skip));
  }

  private post(bytes: Buffer): void {
    const part = this.partAt(this.fed);
    this.fed += bytes.length;
    if (this.fed > this.ends[part]) throw new Error('a hashed range crosses a part boundary');
    this.worker.postMessage([bytes.buffer, bytes.byteOffset, bytes.length, part, this.fed === this.ends[part], ++this.seq]);
  }

  private partAt(pos: number): number {
    let i = 0;
    while (this.ends[i] <= pos) i++;
    return i;
  }

  /** Reads and hashes the payload from where the stream stands to `stop` (two buffers in turn). */
  private readThrough(stop: number): void {
    const bufs = [sharedBuffer(CHUNK), sharedBuffer(CHUNK)];
    const last = [0, 0];
    for (let k = 0; this.fed < stop; k ^= 1) {
      const part = this.partAt(this.fed);
      const start = part === 0 ? 0 : this.ends[part - 1];
      const n = Math.min(CHUNK, stop - this.fed, this.ends[part] - this.fed);
      this.wait(last[k]);
      const fd = openSync(this.b.locations[part].file, 'r');
      let got: number;
      try {
        got = readSync(fd, bufs[k], 0, n, this.b.locations[part].offset + this.fed - start);
      } finally {
        closeSync(fd);
      }
      if (got !== n) throw new BundleError(`${this.b.manifest.parts[part].name || this.b.path}: short read (truncated?)`);
      this.post(bufs[k].subarray(0, n));
      last[k] = this.seq;
    }
  }

  /** Stops the hashing thread without hashing the rest: `result` then rejects (nothing may be published). */
  abort(): void {
    if (this.finished) return;
    this.finished = true;
    this.aborted = true;
    this.worker.postMessage(['end']);
  }

  private aborted = false;

  /** Hashes whatever the reader did not read, and lets the hashing thread end; `result` then settles. */
  finish(): void {
    if (this.finished) return;
    try {
      this.readThrough(this.b.manifest.payloadBytes);
    } finally {
      this.finished = true;
      this.worker.postMessage(['end']);
    }
  }
}
