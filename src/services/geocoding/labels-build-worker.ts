// The label index build in a worker thread (labels-build-thread.ts starts it): opens its own tile reader on the
// store file (the same file and signature the catalog serves, so the same version), builds the index into the
// given temporary file and target, and posts the build's statistics or its error. The main thread ends it (after
// the answer, or to stop it).

import { parentPort, workerData } from 'node:worker_threads';
import { openTileStore } from '../../store/open';
import type { TileStore } from '../../store/tile-reader';
import { buildLabelIndex } from './labels-build';

export interface BuildJob {
  file: string;
  id: string;
  signature: string;
  target: string;
  tmp: string;
}

export type BuildAnswer = { stats: import('./labels-build').LabelIndexStats } | { error: string };

async function run(job: BuildJob): Promise<BuildAnswer> {
  let store: TileStore | undefined;
  try {
    // No tile cache: the build reads every tile once, through the scan, which bypasses any cache.
    store = openTileStore(job.file, 'tiles', job.id, job.signature);
    // This thread serves nothing: long transactions, long slices.
    return { stats: await buildLabelIndex(store, job.target, { alone: true, sliceMs: 1000, tmp: job.tmp }) };
  } catch (err) {
    return { error: (err as Error).message };
  } finally {
    store?.close();
  }
}

if (parentPort) void run(workerData as BuildJob).then((answer) => parentPort?.postMessage(answer));
