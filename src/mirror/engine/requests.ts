// The upstream requests a store's run is expected to make, and the check at the start of a tile store's run that
// they fit in what is left of the month's budget. Expected: the tiles of the plan not yet current in the file the
// run would start from (a previous run's staging file, or the published store), the documents (discovery's, which
// every run asks again, and a document store's own), plus retries at the last run's rate against the upstream.
// `plan`, the admin plan and the start of every run use it, as they use space.ts for the disk.

import { currentTiles, startingFile, type StorePaths } from '../../store/mbtiles/staging';
import { discoverKind } from '../discovery/kinds';
import { plannedFingerprint, type Planned } from '../plan';
import { refreshCutoff } from '../refresh';
import { storesOf, type ResourceRef } from '../resource';
import type { UpstreamClient } from '../upstream/client';
import { checkMonth, expectedRequests, monthOf, type ExpectedRequests, type MonthCheck, type RequestBudget } from '../upstream/request-budget';
import type { LastRunRequests } from '../../store/data-dir/request-ledger';
import type { Run } from './begin-end';

/** Tiles of the plan a run would fetch or revalidate: all but those current in the file it would start from. */
export function tilesNotCurrent(planned: Planned, paths: StorePaths, base: string, maxAge: number | undefined): number {
  const start = startingFile(paths, plannedFingerprint(base, planned));
  if (!start) return planned.total;
  const { cutoff } = refreshCutoff(Date.now(), maxAge, start.origin === 'resumed', start.refresh);
  return Math.max(0, planned.total - currentTiles(start.file, planned.plans, cutoff, start.origin !== 'resumed'));
}

/** A tile store's next run: its tiles not yet current, the `discoveryRequests` its planning took, and retries. */
export function tileStoreRequests(planned: Planned, paths: StorePaths, client: UpstreamClient, maxAge: number | undefined, discoveryRequests: number, last?: LastRunRequests): ExpectedRequests {
  return expectedRequests(tilesNotCurrent(planned, paths, client.base, maxAge), discoveryRequests, last);
}

/**
 * A document store's next run (each of a fontstack's fonts): discovered with `client` (a weather catalog or a
 * dataset asks the upstream), its discovery's requests plus every document it would fetch; a document store is
 * fetched whole every run.
 */
export async function documentStoreRequests(client: UpstreamClient, ref: ResourceRef, signal: AbortSignal | undefined, last?: LastRunRequests): Promise<ExpectedRequests> {
  const before = client.stats.requests;
  let documents = 0;
  for (const store of storesOf(ref)) {
    const d = await discoverKind(store, { client, signal });
    documents += d.fetches?.groups.reduce((n, g) => n + g.length, 0) ?? 0;
  }
  return expectedRequests(0, documents + client.stats.requests - before, last);
}

/** The sum of several stores' expected requests. */
export function sumExpected(list: ExpectedRequests[]): ExpectedRequests {
  const sum = { tiles: 0, documents: 0, retries: 0, total: 0 };
  for (const e of list) for (const k of Object.keys(sum) as (keyof ExpectedRequests)[]) sum[k] += e[k];
  return sum;
}

/** `expected` against what is left of the month for the budget's upstream; a run capped at `maxRequests` needs no more. */
export function monthCheckOf(budget: RequestBudget, what: string, expected: number, maxRequests: number | undefined): MonthCheck {
  return checkMonth(what, expected, maxRequests, budget.opts.upstream, monthOf(Date.now()), budget.monthLeft(), budget.perMonth);
}

/**
 * The check at the start of a tile store's run, once it is planned and before its staging file is opened: with a
 * monthly budget, the tiles not yet current plus retries must fit in what is left of the month (discovery's
 * requests are already spent). A run that cannot fit fails here with one line naming both figures.
 */
export function requestsForRun(run: Run, planned: Planned): boolean {
  const budget = run.opts.budget;
  if (!budget || budget.perMonth === null) return true;
  const expected = tileStoreRequests(planned, run.paths, run.client, run.opts.maxAge, 0, budget.lastRun());
  // What the run's own cap still allows (earlier stores of the run spent the rest).
  const max = budget.maxRequests === undefined ? undefined : Math.max(0, budget.maxRequests - budget.spent);
  const check = monthCheckOf(budget, `${run.resource} (${expected.tiles} tiles not yet current)`, expected.total, max);
  if (check.fits) return true;
  run.result.problems.push(check.message);
  run.log(`${run.resource}: ${check.message}`);
  return false;
}
