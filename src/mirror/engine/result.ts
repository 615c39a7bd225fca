// What a run came to (MirrorResult), and the lines it is summed up in: the failed tiles, a dependency's run.
// Exit codes: 0 published, 1 failed (the published store untouched, progress kept for the next run),
// 2 usage error (thrown as UsageError), 3 interrupted (by a signal or the request budget: progress checkpointed,
// resumable).

import type { Bounds } from '../../geo/bounds';
import type { RunOutcome } from '../../job-contracts';
import type { StagingOrigin } from '../../store/mbtiles/staging';
import type { RequestBudgetReached } from '../upstream/request-budget';

export interface MirrorResult {
  resource: string;
  status: RunOutcome;
  exitCode: 0 | 1 | 3;
  /** Where the run started from: a previous run's staging file, a copy of the published store, or nothing. */
  origin?: StagingOrigin;
  planned: number;
  /** Tiles requested and stored or recorded empty by this run. */
  fetched: number;
  stored: number;
  empty: number;
  /** Tiles already in the staging store and current (resumed, or copied from the published store). */
  skipped: number;
  /** Stored tiles asked about again because they were older than the max-age. */
  revalidated: number;
  /** Revalidated tiles found unchanged (not rewritten): 304s plus identical bytes or emptiness. */
  unchanged: number;
  /** Of those, the ones the upstream answered with 304 Not Modified. */
  notModified: number;
  /** Tile rows written by this run (new tiles, changed tiles, tiles that became or stopped being empty). */
  writes: number;
  failed: number;
  /** Of the failed tiles, those the upstream answers the same every time (an OGC exception, another format): a rerun will not help. */
  failedPermanently: number;
  failures: string[];
  /** What the store holds once published: each pyramid's zooms and bounds (narrowed by --zoom, --bbox, areas). */
  mirrored?: { pyramid: string; minzoom: number; maxzoom: number; bounds: Bounds }[];
  /** Requests sent, hedges included. */
  requests: number;
  retries: number;
  /** Second requests sent for requests stalled far past the others' latency (the first good answer won). */
  hedges: number;
  bytes: number;
  elapsedMs: number;
  published?: string;
  notes: string[];
  problems: string[];
  /** The runs of its dependencies: a map's tile sets, fonts and sprite (withDependencies), the weather keyframe tile sets, a fontstack's fonts. */
  dependencies?: MirrorResult[];
}

/** A result with nothing done yet: `failed` until the run says otherwise. */
export function emptyResult(resource: string): MirrorResult {
  return {
    resource,
    status: 'failed',
    exitCode: 1,
    planned: 0,
    fetched: 0,
    stored: 0,
    empty: 0,
    skipped: 0,
    revalidated: 0,
    unchanged: 0,
    notModified: 0,
    writes: 0,
    failed: 0,
    failedPermanently: 0,
    failures: [],
    requests: 0,
    retries: 0,
    hedges: 0,
    bytes: 0,
    elapsedMs: 0,
    notes: [],
    problems: [],
  };
}

/** Marks a run interrupted: exit code 3, resumable. */
export function interrupted(result: MirrorResult): void {
  result.status = 'interrupted';
  result.exitCode = 3;
}

/**
 * Marks a run the request budget stopped: interrupted (exit code 3, resumable; a tile store's progress is kept),
 * the reason and how to go on among its problems. Returns that line.
 */
export function budgetStopped(result: MirrorResult, err: RequestBudgetReached): string {
  interrupted(result);
  const next = err.scope === 'run' ? 'progress is kept, run again to resume' : 'progress is kept, run again to resume once it renews or is raised';
  const line = `${err.message}; ${next}`;
  if (!result.problems.includes(line)) result.problems.push(line);
  return line;
}

/** Marks a run published at `file`: exit code 0. */
export function published(result: MirrorResult, file: string): void {
  result.status = 'published';
  result.exitCode = 0;
  result.published = file;
}

/** What the failed tiles mean for a rerun: retried ones may succeed, permanent ones are answered the same again. */
export function failedLine(failed: number, permanent: number): string {
  if (permanent === 0) return `${failed} tiles failed; run the same command again to retry them`;
  if (permanent === failed) return `${failed} tiles failed permanently (the upstream answers them the same every time): a rerun will not help, see the failures`;
  return `${failed} tiles failed, ${permanent} of them permanently (a rerun will not help those); run the same command again to retry the other ${failed - permanent}`;
}

/** A run's upstream requests or retries with those of its dependencies' runs (a fontstack's result already sums its fonts'). */
export function totalOf(r: MirrorResult, k: 'requests' | 'retries'): number {
  if (r.resource.startsWith('fonts/')) return r[k];
  return r[k] + (r.dependencies ?? []).reduce((n, d) => n + totalOf(d, k), 0);
}

/** One line about a dependency's run, for the notes of the resource that needed it. */
export function dependencyLine(r: MirrorResult): string {
  const why = r.status === 'published' ? '' : `: ${[...r.problems, ...r.failures].slice(0, 2).join('; ') || r.status}`;
  return `${r.resource}: ${r.status}${why} (${r.stored} stored, ${r.empty} empty, ${r.skipped} already stored, ${r.failed} failed)`;
}
