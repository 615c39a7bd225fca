// Writing a big file behind the writer: a worker thread calls fdatasync on it every FLUSH_EVERY_MS while the main
// thread keeps writing, so the disk works while the CPU does, and the fsync before the publishing rename only
// flushes the last moments' pages instead of the whole file. The kernel would start this writeback by itself only
// once dirty pages pass its background threshold (10 % of memory by default: gigabytes on a big host). Durability
// still comes from the fsync in publishFile; this only moves the disk's work earlier. The worker needs no event
// loop on the main thread: it is told to stop through shared memory.

import { Worker } from 'node:worker_threads';

const FLUSH_EVERY_MS = 100;

/** Files smaller than this are flushed by the publishing fsync alone: a flushing thread would cost more than it saves. */
export const FLUSH_BEHIND_BYTES = 32 * 1024 * 1024;

const WORKER = `
const { workerData } = require('node:worker_threads');
const { openSync, fdatasyncSync, closeSync } = require('node:fs');
const stop = new Int32Array(workerData.stop);
let fd;
try {
  fd = openSync(workerData.file, 'r');
  while (Atomics.load(stop, 0) === 0) {
    fdatasyncSync(fd);
    Atomics.wait(stop, 0, 0, workerData.every);
  }
} catch {
  // the file went away (the staging store was abandoned): nothing to flush
} finally {
  if (fd !== undefined) closeSync(fd);
}
`;

export interface FlushBehind {
  /** Tells the worker to stop (it ends after its current fdatasync); returns at once. */
  stop(): void;
}

/** Starts flushing `file` (which must exist) behind its writer. */
export function flushBehind(file: string): FlushBehind {
  const stop = new SharedArrayBuffer(4);
  const worker = new Worker(WORKER, { eval: true, workerData: { file, stop, every: FLUSH_EVERY_MS } });
  worker.unref();
  // A failure to flush early is not a failure of the import: publishFile's fsync is the one that counts.
  worker.on('error', () => undefined);
  const flag = new Int32Array(stop);
  return {
    stop: () => {
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
    },
  };
}
