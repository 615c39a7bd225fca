// A configured job's next run worked out before it starts (the admin API's plan, and the check before Run now):
// each resource discovered and planned, its size estimated from the tiles already stored or a few probed, the
// time at the last run's rate, and the whole against the free space of the data volume; the upstream requests it
// is expected to make (engine/requests.ts) against what is left of the month's budget. The plan's own requests
// (discovery, probes) count against the month too.

import { checkSpace } from '../../store/data-dir/disk-space';
import type { JobPlan, RunRecord } from '../../job-contracts';
import { storePaths } from '../../store/mbtiles/staging';
import { isDocumentKind } from '../../store/types';
import { formatBytes } from '../../store/units';
import { createClient } from '../engine/begin-end';
import { discoverAndPlan } from '../engine/plan';
import { renderedTiles } from '../plan';
import { probedEstimate, storedEstimate, type SizeEstimate } from '../engine/space';
import { createRedactor } from '../upstream/redact';
import { documentStoreRequests, sumExpected, tileStoreRequests } from '../engine/requests';
import { checkMonth, monthOf, type ExpectedRequests } from '../upstream/request-budget';
import { jobBudget, jobMirrorOptions, type MirrorJob } from './jobs-config';

/** Tiles probed per plan when nothing is stored yet, spread over its zooms (as `plan --sample` does). */
export const PLAN_SAMPLE = 20;

/** Tiles a second at the last run's pace (tiles fetched over its duration), or undefined without a measurable run. */
export function lastRate(last: RunRecord | undefined): number | undefined {
  if (!last) return undefined;
  const seconds = (Date.parse(last.endedAt) - Date.parse(last.startedAt)) / 1000;
  return seconds > 0 && last.tiles.fetched > 0 ? last.tiles.fetched / seconds : undefined;
}

/** Plans every resource of the job (discovery talks to the upstream; nothing is written). Throws what discovery throws, redacted. */
export async function planJob(job: MirrorJob, dataDir: string, last: RunRecord | undefined, signal?: AbortSignal): Promise<JobPlan> {
  const redact = createRedactor(job.key);
  const resources: JobPlan['resources'] = [];
  const expected: ExpectedRequests[] = [];
  let staged = 0;
  const budget = jobBudget(job, dataDir, false);
  const lastRequests = budget.lastRun();
  try {
    for (const ref of job.resources) {
      const resource = `${ref.kind}/${ref.id}`;
      const opts = { ...jobMirrorOptions(job, ref, dataDir), signal, budget };
      const client = createClient(opts, redact);
      try {
        if (isDocumentKind(ref.kind)) {
          const e = await documentStoreRequests(client, ref, signal, lastRequests);
          expected.push(e);
          resources.push({ resource, tiles: 0, estimatedBytes: 0, estimateBasis: 'none', requiredBytes: 0, requests: e.total, savedByRender: 0 });
          continue;
        }
        const planned = await discoverAndPlan(client, ref, opts);
        const paths = storePaths(dataDir, ref.kind, ref.id);
        const e = tileStoreRequests(planned, paths, client, job.maxAge, client.stats.requests, lastRequests);
        expected.push(e);
        const estimate: SizeEstimate = storedEstimate(planned, paths) ?? (await probedEstimate(client, planned, paths, PLAN_SAMPLE, signal));
        staged += estimate.stagedBytes;
        const one = checkSpace(dataDir, estimate.bytes, estimate.stagedBytes);
        resources.push({ resource, tiles: planned.total, estimatedBytes: estimate.bytes, estimateBasis: estimate.basis, requiredBytes: one.requiredBytes, requests: e.total, savedByRender: renderedTiles(planned) });
      } catch (err) {
        throw new PlanError(`${resource}: ${redact(err instanceof Error ? err.message : String(err))}`, err);
      } finally {
        client.close();
      }
    }
  } finally {
    budget.close();
  }
  const tiles = resources.reduce((n, r) => n + r.tiles, 0);
  const estimatedBytes = resources.reduce((n, r) => n + r.estimatedBytes, 0);
  const bases = new Set(resources.map((r) => r.estimateBasis).filter((b) => b !== 'none'));
  const estimateBasis: JobPlan['estimateBasis'] = bases.has('probed') ? 'probed' : bases.has('stored') ? 'stored' : 'none';
  // The job's resources run one after another and each publishes before the next: the volume must hold them all.
  const space = checkSpace(dataDir, estimatedBytes, staged, `job ${job.name} (${tiles} tiles)`);
  const rate = lastRate(last);
  const estimatedSeconds = rate ? Math.round(tiles / rate) : null;
  const sum = sumExpected(expected);
  const month = checkMonth(`job ${job.name}`, sum.total, job.maxRequests, budget.opts.upstream, monthOf(Date.now()), budget.monthLeft(), budget.perMonth);
  const savedByRender = resources.reduce((n, r) => n + r.savedByRender, 0);
  const requests = { expected: sum.total, tiles: sum.tiles, documents: sum.documents, retries: sum.retries, savedByRender, upstream: month.upstream, month: month.month, needed: month.needed, left: month.left, perMonth: month.perMonth, fits: month.fits, message: month.message };
  const message = estimateBasis === 'none' && tiles > 0 ? `job ${job.name} (${tiles} tiles): no size estimate (no tile stored or probed); the data volume has ${formatBytes(space.freeBytes)} free` : space.message;
  return { tiles, estimatedBytes, estimateBasis, estimatedSeconds, freeBytes: space.freeBytes, requiredBytes: space.requiredBytes, fits: space.fits, message, requests, resources };
}

/** A plan that could not be made (its message names the resource); `cause` says why (a spent request budget, say). */
export class PlanError extends Error {
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
  }
}
