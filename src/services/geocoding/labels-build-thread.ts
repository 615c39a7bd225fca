// Builds a label index in a worker thread, so a serving process keeps its event loop: the build's last statements
// (the indexes' sorts, FTS5's merge) run for seconds at a country's size and cannot be cut into slices. The worker
// opens its own reader on the store's file and writes a temporary file renamed onto the target when complete, as
// buildLabelIndex does in process; the caller opens the index after that (the rename is the publication).
//
// The worker is the compiled labels-build-worker.js beside this file. Run from the TypeScript sources (ts-jest),
// there is none beside it: the one of dist/ is used when built, otherwise the build runs in this thread in slices.

import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { TileStore } from '../../store/tile-reader';
import { buildLabelIndex, type BuildOptions, type LabelIndexStats } from './labels-build';
import type { BuildAnswer, BuildJob } from './labels-build-worker';

function workerScript(): string | undefined {
  const own = join(__dirname, 'labels-build-worker.js');
  if (existsSync(own)) return own;
  const built = join(__dirname, '..', '..', '..', 'dist', 'services', 'geocoding', 'labels-build-worker.js');
  return existsSync(built) ? built : undefined;
}

/** Builds the index of `store` into `target` in a worker thread (in this thread, sliced, when there is no worker). */
export function buildLabelIndexInThread(store: TileStore, target: string, opts: BuildOptions = {}): Promise<LabelIndexStats> {
  const script = workerScript();
  if (!script) return buildLabelIndex(store, target, opts);
  const job: BuildJob = {
    file: store.file,
    id: store.info.id,
    signature: store.signature,
    target,
    tmp: `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  };
  return new Promise<LabelIndexStats>((resolve, reject) => {
    const worker = new Worker(script, { workerData: job });
    let settled = false;
    const finish = (err: Error | undefined, stats?: LabelIndexStats) => {
      if (settled) return;
      settled = true;
      // Removed once the thread has ended, so it cannot write the file again after.
      const ended = worker.terminate().catch(() => undefined);
      opts.signal?.removeEventListener('abort', onAbort);
      if (err) {
        void ended.then(() => rmSync(job.tmp, { force: true }));
        reject(err);
      } else resolve(stats as LabelIndexStats);
    };
    // A stopping process does not wait for the build: the thread ends, its temporary file is removed.
    const onAbort = () => finish(new Error('label index build aborted'));
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort);
    worker.on('message', (answer: BuildAnswer) => {
      if ('stats' in answer) finish(undefined, answer.stats);
      else finish(new Error(answer.error));
    });
    worker.on('error', (err) => finish(err));
    worker.on('exit', (code) => finish(new Error(`label index build stopped (thread exit ${code})`)));
  });
}
