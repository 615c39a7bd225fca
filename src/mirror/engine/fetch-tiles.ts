// The fetch step of a tile store's run: a pool of workers (the run's concurrency; the client's adaptive limit lets
// as many of them send at once as pays) takes the plan's tiles one at a time; a tile still current in the staging
// store is skipped, an older one is revalidated with a conditional request, a new one fetched; each answer is
// judged (../refresh.ts) and recorded. A refused key or a spent failure budget stops everything at once; an
// interrupt lets the requests in flight finish. Progress is checkpointed into the staging store, so the next run
// resumes where this one stopped.

import { setMaxListeners } from 'node:events';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { tilesOfAll, type TileTask } from '../../geo/tile-bands';
import { diskFullLine, isDiskFull } from '../../store/data-dir/disk-space';
import { STATE, type KnownTile } from '../../store/mbtiles/staging';
import { upstreamTileUrl } from '../discovery/tile-url';
import type { UpstreamPyramid } from '../discovery/types';
import { RunStopped, UpstreamError } from '../errors';
import type { Planned } from '../plan';
import { conditionalHeaders, judgeTile, refreshAction } from '../refresh';
import { RequestBudgetReached } from '../upstream/request-budget';
import { progressOf, stopOnBudget, type Run } from './begin-end';
import { DEFAULT_CONCURRENCY } from './options';
import { failedLine, interrupted } from './result';
import { tileKey, type StagedTiles } from './stage';

type TileOutcome = 'stored' | 'empty' | 'skipped' | 'failed';

/**
 * Fetches the plan's tiles into the staging store. True when every planned tile was settled and none failed;
 * otherwise the result says why (a refused key, the failure budget, an interrupt, failed tiles).
 */
export async function fetchTiles(run: Run, planned: Planned, staged: StagedTiles): Promise<boolean> {
  const { opts, result, client, redact, resource } = run;
  const { staging: st, cutoff, prefetched } = staged;
  // Stops everything at once (fatal answer, failure budget): requests in flight are aborted.
  const hard = new AbortController();
  // Set once the request budget is spent: no new request starts, those in flight finish and are stored.
  let spent: RequestBudgetReached | undefined;
  // Every worker may wait on it at once (for its turn under --rate): not a leak.
  setMaxListeners((opts.concurrency ?? DEFAULT_CONCURRENCY) + 16, hard.signal);
  const stopping = (): boolean => hard.signal.aborted || !!opts.signal?.aborted || !!spent;
  const upstreams = new Map(planned.discovered.pyramids.map((u) => [u.pyramid.name, u]));
  const tasks = tilesOfAll(planned.plans);
  const budget = opts.failureBudget ?? 100;
  let fatal: string | undefined;

  const settle = (task: TileTask, outcome: TileOutcome): void => opts.onTile?.(task, outcome);
  /** A write that found the data volume full stops the run at once, as a fatal answer does: the tile is no failure. */
  const volumeFull = (err: unknown): boolean => {
    if (!isDiskFull(err)) return false;
    fatal ??= diskFullLine(opts.dataDir);
    hard.abort(new RunStopped(fatal));
    return true;
  };

  /** One tile: fetched (or revalidated) and recorded; a failure counted, and the run stopped when it is fatal. */
  const fetchTile = async (task: TileTask, upstream: UpstreamPyramid, known: KnownTile): Promise<void> => {
    const url = upstreamTileUrl(upstream, task.z, task.x, task.y);
    const revalidating = known.kind !== 'absent';
    const headers = revalidating ? conditionalHeaders(known) : undefined;
    try {
      const { verdict, validators } = await client.request(
        url,
        judgeTile(upstream.pyramid.format, !!headers),
        hard.signal,
        () => {
          if (stopping()) throw new RunStopped();
        },
        headers,
      );
      const v = { ...validators, checkedAt: Date.now() };
      // A 304 may omit validators it did not change (RFC 9110): keep the stored ones then.
      if (verdict.kind === 'not-modified') {
        v.etag ??= known.kind !== 'absent' ? known.etag : undefined;
        v.lastModified ??= known.kind !== 'absent' ? known.lastModified : undefined;
      }
      const action = refreshAction(known.kind, known.kind === 'tile' && verdict.kind === 'tile' ? st.tileData(task) : undefined, verdict);
      let outcome: TileOutcome;
      // The worker waits for the commit: a SIGKILL then loses only the tiles in flight, one per worker.
      if (action === 'unchanged') {
        await st.record(task, { touch: true }, v);
        result.unchanged++;
        if (verdict.kind === 'not-modified') result.notModified++;
        outcome = 'skipped';
      } else if (verdict.kind === 'tile') {
        await st.record(task, { data: verdict.data }, v);
        result.stored++;
        outcome = 'stored';
      } else {
        await st.record(task, { emptyStatus: verdict.kind === 'empty' ? verdict.status : 204 }, v);
        result.empty++;
        outcome = 'empty';
      }
      if (revalidating) result.revalidated++;
      result.fetched++;
      settle(task, outcome);
    } catch (err) {
      if (err instanceof RequestBudgetReached) spent ??= err;
      if (err instanceof RequestBudgetReached || err instanceof RunStopped || hard.signal.aborted || volumeFull(err)) return;
      result.failed++;
      if (err instanceof UpstreamError && err.permanent) result.failedPermanently++;
      const msg = redact(err instanceof Error ? err.message : String(err));
      if (result.failures.length < 20) result.failures.push(`${task.pyramid} ${task.z}/${task.x}/${task.y}: ${msg}`);
      settle(task, 'failed');
      const status = err instanceof UpstreamError ? err.status : undefined;
      if (status === 401 || status === 403) fatal = `the upstream refused the key (HTTP ${status}): ${msg}`;
      else if (result.failed > budget) fatal = `more than ${budget} tiles failed (the failure budget)`;
      if (fatal) hard.abort(new RunStopped(fatal));
    }
  };

  const worker = async (): Promise<void> => {
    let sinceYield = 0;
    while (!stopping()) {
      const next = tasks.next();
      if (next.done) return;
      const task = next.value;
      const known = st.lookup(task);
      if (known.kind !== 'absent' && (known.checkedAt ?? -Infinity) >= cutoff) {
        result.skipped++;
        settle(task, 'skipped');
        // A resumed run may skip a long stretch synchronously: let timers and I/O run now and then.
        if (++sinceYield >= 2000) {
          sinceYield = 0;
          await yieldToLoop();
        }
        continue;
      }
      const early = known.kind === 'absent' ? prefetched.get(tileKey(task)) : undefined;
      if (early) {
        try {
          await st.record(task, { data: early }, { checkedAt: Date.now() });
        } catch (err) {
          if (volumeFull(err)) return;
          throw err;
        }
        result.stored++;
        result.fetched++;
        settle(task, 'stored');
        continue;
      }
      await fetchTile(task, upstreams.get(task.pyramid)!, known);
    }
  };

  const ticker = setInterval(() => {
    try {
      st.flushIfDue();
    } catch (err) {
      // The waiters of the batch were told; anything but a full volume reaches them as their own failure.
      volumeFull(err);
    }
    opts.onProgress?.(progressOf(run));
  }, Math.min(1000, opts.batchMs ?? 1000));
  try {
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? DEFAULT_CONCURRENCY) }, worker));
  } finally {
    clearInterval(ticker);
  }
  try {
    st.flush();
    st.setState(STATE.checkpoint, JSON.stringify({ at: new Date().toISOString(), ...progressOf(run) }));
  } catch (err) {
    // What was committed stays: the next run resumes from it.
    if (!volumeFull(err)) throw err;
  }
  result.writes = st.tileWrites;

  if (fatal) {
    result.problems.push(fatal);
    if (result.failedPermanently > 0) result.problems.push(failedLine(result.failed, result.failedPermanently));
    run.log(`${resource}: stopped: ${fatal}`);
    return false;
  }
  if (spent) {
    stopOnBudget(run, spent);
    return false;
  }
  if (opts.signal?.aborted) {
    interrupted(result);
    run.log(`${resource}: interrupted; progress is kept, run the same command again to resume`);
    return false;
  }
  if (result.failed > 0) {
    result.problems.push(failedLine(result.failed, result.failedPermanently));
    return false;
  }
  return true;
}
