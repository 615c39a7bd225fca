// Checking every part of a bundle: sizes first (a truncated or missing part is named at once, synchronously), then
// the SHA-256 of each part, in worker threads (one per core, at most MAX_WORKERS) so a 2-core machine hashes two
// parts at a time. Each worker reads its parts with plain positional reads. `hashParts` only starts the work: the
// import builds its hidden staging stores while the workers hash, and publishes nothing before they agree.

import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { BundleError } from './manifest';
import type { OpenedBundle } from './parts';

const MAX_WORKERS = 4;

/** Runs in a worker: hashes the given ranges and posts [index, hex] for each (or an error message). */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { openSync, readSync, closeSync } = require('node:fs');
const buf = Buffer.allocUnsafe(4 * 1024 * 1024);
for (const job of workerData) {
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
    parentPort.postMessage([job.index, null, err.message]);
    continue;
  } finally {
    closeSync(fd);
  }
  parentPort.postMessage([job.index, hash.digest('hex'), null]);
}
`;

interface Job {
  index: number;
  file: string;
  offset: number;
  size: number;
}

function hashIn(jobs: Job[]): Promise<Map<number, { hex: string | null; error: string | null }>> {
  return new Promise((resolve, reject) => {
    const out = new Map<number, { hex: string | null; error: string | null }>();
    const worker = new Worker(WORKER, { eval: true, workerData: jobs });
    worker.on('message', ([index, hex, error]: [number, string | null, string | null]) => out.set(index, { hex, error }));
    worker.on('error', reject);
    worker.on('exit', () => resolve(out));
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

/**
 * Hashes every part in `workers` threads (default one per core) and settles once all are done: rejects with a
 * BundleError naming the first damaged or unreadable part. The workers run beside the calling thread.
 */
export async function hashParts(b: OpenedBundle, workers = availableParallelism()): Promise<void> {
  const parts = b.manifest.parts;
  const label = (i: number): string => parts[i].name || `${b.path} (bytes ${b.locations[i].offset}-${b.locations[i].offset + parts[i].size})`;
  const lanesCount = Math.max(1, Math.min(MAX_WORKERS, workers, parts.length));
  const lanes: Job[][] = Array.from({ length: lanesCount }, () => []);
  parts.forEach((p, i) => lanes[i % lanesCount].push({ index: i, file: b.locations[i].file, offset: b.locations[i].offset, size: p.size }));
  const results = await Promise.all(lanes.map(hashIn));
  const merged = new Map(results.flatMap((m) => [...m]));
  parts.forEach((p, i) => {
    const r = merged.get(i);
    if (!r || r.error) throw new BundleError(`${label(i)}: cannot be read (${r?.error ?? 'no result'})`);
    if (r.hex !== p.sha256) throw new BundleError(`${label(i)}: SHA-256 ${r.hex} does not match the manifest's ${p.sha256}: the part is damaged`);
  });
}

/** Sizes, then every hash: resolves only for a bundle whose parts are all intact. */
export async function verifyParts(b: OpenedBundle): Promise<void> {
  checkPartSizes(b);
  await hashParts(b);
}
