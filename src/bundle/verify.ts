// Checking every part of a bundle: sizes first (a truncated or missing part is named at once, synchronously), then
// the SHA-256 of each part, in worker threads (at most MAX_WORKERS) that take the parts one by one. Each reads its
// parts with plain positional reads. `startHashing` only starts the work: the import builds its hidden staging
// stores while the workers hash, then hashes the parts left on its own thread too, and publishes nothing before
// every hash agrees.

import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { BundleError } from './manifest';
import type { OpenedBundle } from './parts';

const MAX_WORKERS = 4;
const CHUNK = 4 * 1024 * 1024;

/**
 * Runs in a worker: takes the next part not yet taken (a shared counter, so the import's main thread can take
 * parts too once its staging work is done) and posts [index, hex] for each (or an error message).
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { openSync, readSync, closeSync } = require('node:fs');
const buf = Buffer.allocUnsafe(${CHUNK});
const next = new Int32Array(workerData.next);
for (let i = Atomics.add(next, 0, 1); i < workerData.jobs.length; i = Atomics.add(next, 0, 1)) {
  const job = workerData.jobs[i];
  const hash = createHash('sha256');
  const fd = openSync(job.file, 'r');
  try {
    for (let done = 0; done < job.size; ) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, job.size - done), job.offset + done);
      if (n === 0) throw new Error('ends early');
      hash.update(buf.subarray(0, n));
      done += n;
    }
  } catch (err) {
    parentPort.postMessage([i, null, err.message]);
    continue;
  } finally {
    closeSync(fd);
  }
  parentPort.postMessage([i, hash.digest('hex'), null]);
}
`;

interface Job {
  file: string;
  offset: number;
  size: number;
}

type Outcome = { hex: string | null; error: string | null };

/** The calling thread's share of the work: the same loop as a worker's, results into `out`. */
function hashHere(jobs: Job[], next: Int32Array, out: Map<number, Outcome>): void {
  const buf = Buffer.allocUnsafe(CHUNK);
  for (let i = Atomics.add(next, 0, 1); i < jobs.length; i = Atomics.add(next, 0, 1)) {
    const hash = createHash('sha256');
    let fd: number | undefined;
    try {
      fd = openSync(jobs[i].file, 'r');
      for (let done = 0; done < jobs[i].size; ) {
        const n = readSync(fd, buf, 0, Math.min(buf.length, jobs[i].size - done), jobs[i].offset + done);
        if (n === 0) throw new Error('ends early');
        hash.update(buf.subarray(0, n));
        done += n;
      }
      out.set(i, { hex: hash.digest('hex'), error: null });
    } catch (err) {
      out.set(i, { hex: null, error: (err as Error).message });
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
}

function worker(jobs: Job[], next: SharedArrayBuffer, out: Map<number, Outcome>): Promise<void> {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { eval: true, workerData: { jobs, next } });
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
  /** Hashes, on the calling thread, every part no worker has taken yet (synchronously). */
  help(): void;
  /** Settles once every part is hashed: rejects with a BundleError naming the first damaged or unreadable part. */
  readonly result: Promise<void>;
}

/**
 * Starts hashing every part in `workers` threads (at most MAX_WORKERS), beside the calling thread, which can join
 * in with help() once it has nothing better to do.
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
  return { help: () => hashHere(jobs, next, out), result };
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
