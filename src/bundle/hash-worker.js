// @ts-check
'use strict';
// The SHA-256 loops of bundle checking (started by verify.ts; plain JavaScript, because a worker thread runs outside
// ts-jest and the same file must run from src/ under the tests and from dist/ in production: tsc copies it there).
// verify.ts runs hashJobs in worker threads and on its own thread (one copy of the loop), and hashStream in the
// import's hashing thread. A thread started with workerData.hashWorker runs one of them; required, it only exports.

const { createHash } = require('node:crypto');
const { closeSync, openSync, readSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');

const CHUNK = 4 * 1024 * 1024;

/**
 * Hashes whole jobs, taking the next one not yet taken from the shared counter `next` (so several threads share the
 * work), and reports each: report(index, hex, null) or report(index, null, error message).
 * @param {{ file: string, offset: number, size: number }[]} jobs
 * @param {Int32Array} next
 * @param {(index: number, hex: string | null, error: string | null) => void} report
 */
function hashJobs(jobs, next, report) {
  const buf = Buffer.allocUnsafe(CHUNK);
  for (let i = Atomics.add(next, 0, 1); i < jobs.length; i = Atomics.add(next, 0, 1)) {
    const job = jobs[i];
    const hash = createHash('sha256');
    let fd;
    try {
      fd = openSync(job.file, 'r');
      for (let done = 0; done < job.size; ) {
        const n = readSync(fd, buf, 0, Math.min(buf.length, job.size - done), job.offset + done);
        if (n === 0) throw new Error('ends early');
        hash.update(buf.subarray(0, n));
        done += n;
      }
    } catch (err) {
      report(i, null, /** @type {Error} */ (err).message);
      continue;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    report(i, hash.digest('hex'), null);
  }
}

/**
 * Hashes the byte ranges the import's reader posts ([shared buffer, offset, length, part, last piece of its part?,
 * sequence]) in the order posted, posts [part, hex] at the end of each part, and publishes the sequence of the last
 * range hashed in the shared `hashed` counter so the reader knows when it may overwrite a buffer (-1: the hashing
 * failed). ['end'] ends it.
 * @param {import('node:worker_threads').MessagePort} port
 * @param {Int32Array} hashed
 */
function hashStream(port, hashed) {
  /** @type {Map<number, import('node:crypto').Hash>} */
  const hashes = new Map();
  port.on('message', (m) => {
    if (m[0] === 'end') {
      port.close();
      return;
    }
    const [buf, offset, length, part, last, seq] = m;
    try {
      let h = hashes.get(part);
      if (!h) hashes.set(part, (h = createHash('sha256')));
      h.update(new Uint8Array(buf, offset, length));
      if (last) {
        port.postMessage([part, h.digest('hex')]);
        hashes.delete(part);
      }
    } catch (err) {
      // The reader waits on `hashed`: -1 tells it the hashing failed instead of leaving it waiting.
      Atomics.store(hashed, 0, -1);
      Atomics.notify(hashed, 0);
      throw err;
    }
    Atomics.store(hashed, 0, seq);
    Atomics.notify(hashed, 0);
  });
}

if (parentPort && workerData && workerData.hashWorker === 'parts') {
  const port = parentPort;
  hashJobs(workerData.jobs, new Int32Array(workerData.next), (i, hex, error) => port.postMessage([i, hex, error]));
} else if (parentPort && workerData && workerData.hashWorker === 'stream') {
  hashStream(parentPort, new Int32Array(workerData.hashed));
}

module.exports = { hashJobs };
