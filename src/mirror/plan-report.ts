// `tilemirror plan`: what a run would fetch, per pyramid and zoom, and with sampling an estimated size from
// tiles fetched from the upstream (evenly spread through each zoom); the upstream requests it would make, against
// what is left of the month's budget when the options carry one. Nothing is written but the plan's own requests
// (discovery, samples), counted in the request ledger as every run's are.

import { isDocumentKind, type TileFormat } from '../store/types';
import { documentPlanNote } from './discovery/kinds';
import { createRedactor } from './upstream/redact';
import { createClient } from './engine/begin-end';
import type { MirrorOptions } from './engine/options';
import { discoverAndPlan, rasterModeOf } from './engine/plan';
import { renderedTiles } from './plan';
import { checkSpace, fileBytes, storeBytesFor, type SpaceCheck } from '../store/data-dir/disk-space';
import { storePaths } from '../store/mbtiles/staging';
import { sampleZooms, storedEstimate } from './engine/space';
import { refOf } from './resource';
import { documentStoreRequests, monthCheckOf, tileStoreRequests } from './engine/requests';
import type { ExpectedRequests, MonthCheck } from './upstream/request-budget';

export interface PlanReport {
  resource: string;
  pyramids: { pyramid: string; format: TileFormat; tileSize: number; zooms: { z: number; tiles: number; estimatedBytes?: number }[]; tiles: number }[];
  total: number;
  /** Seconds at the configured rate (undefined: no rate limit). */
  seconds?: number;
  /** From a sample of tiles fetched from the upstream (undefined without sampling). */
  estimatedBytes?: number;
  sampled: number;
  notes: string[];
  /** The estimate against the free space of the data volume (absent when nothing could be estimated). */
  space?: SpaceCheck & { basis: 'stored' | 'probed' };
  /** The upstream requests a run would make (absent when discovery failed: the notes say why). */
  requests?: ExpectedRequests;
  /** Those against what is left of the month (with a budget in the options). */
  month?: MonthCheck;
  /**
   * A map planned with `raster: render`: its raster pyramids, described but not fetched, and the upstream requests
   * that saves (their tiles, as a mirror of the same zooms and areas fetches them).
   */
  raster?: { mode: 'render'; savedRequests: number; pyramids: { pyramid: string; tiles: number }[] };
}

/** What a run would fetch, per pyramid and zoom; with `sample` > 0 an estimated size from that many tiles. */
export async function planReport(opts: MirrorOptions & { sample?: number; maxRequests?: number }): Promise<PlanReport> {
  const redact = createRedactor(opts.key);
  const ref = refOf(opts.resource);
  rasterModeOf(ref, opts.raster);
  const client = createClient(opts, redact);
  const last = opts.budget?.lastRun();
  const withMonth = (r: PlanReport): PlanReport => (opts.budget && r.requests ? { ...r, month: monthCheckOf(opts.budget, r.resource, r.requests.total, opts.maxRequests) } : r);
  try {
    if (isDocumentKind(ref.kind)) {
      const report: PlanReport = { resource: `${ref.kind}/${ref.id}`, pyramids: [], total: 0, sampled: 0, notes: [documentPlanNote(ref)] };
      try {
        report.requests = await documentStoreRequests(client, ref, opts.signal, last);
      } catch (err) {
        report.notes.push(redact(`upstream requests not known: ${err instanceof Error ? err.message : String(err)}`));
      }
      return withMonth(report);
    }
    const p = await discoverAndPlan(client, ref, opts);
    const paths = storePaths(opts.dataDir, ref.kind, ref.id);
    const requests = tileStoreRequests(p, paths, client, opts.maxAge, client.stats.requests, last);
    const report: PlanReport = {
      resource: `${ref.kind}/${ref.id}`,
      pyramids: [],
      total: p.total,
      seconds: opts.rate && opts.rate > 0 ? p.total / opts.rate : undefined,
      sampled: 0,
      notes: [...p.discovered.notes.map(redact), ...p.notes],
      requests,
      ...(p.rendered && { raster: { mode: 'render' as const, savedRequests: renderedTiles(p), pyramids: p.rendered.map((r) => ({ pyramid: r.pyramid, tiles: r.count })) } }),
    };
    const samples = await sampleZooms(client, p, opts.sample ?? 0, opts.signal);
    let estimate = 0;
    for (const plan of p.plans) {
      const upstream = p.discovered.pyramids.find((u) => u.pyramid.name === plan.pyramid)!;
      const entry: PlanReport['pyramids'][number] = { pyramid: plan.pyramid, format: upstream.pyramid.format, tileSize: upstream.pyramid.tileSize, zooms: [], tiles: plan.count };
      for (const s of samples.filter((x) => x.pyramid === plan.pyramid)) {
        report.sampled += s.sampled;
        if (s.estimatedBytes !== undefined) estimate += s.estimatedBytes;
        entry.zooms.push({ z: s.z, tiles: s.tiles, ...(s.estimatedBytes !== undefined && { estimatedBytes: s.estimatedBytes }) });
      }
      report.pyramids.push(entry);
    }
    if (report.sampled > 0) report.estimatedBytes = estimate;
    const what = `${report.resource} (${p.total} tiles)`;
    const stored = report.estimatedBytes === undefined ? storedEstimate(p, paths) : undefined;
    if (stored) report.space = { ...checkSpace(opts.dataDir, stored.bytes, stored.stagedBytes, what), basis: 'stored' };
    else if (report.estimatedBytes !== undefined) report.space = { ...checkSpace(opts.dataDir, storeBytesFor(report.estimatedBytes), fileBytes(paths.staging), what), basis: 'probed' };
    return withMonth(report);
  } finally {
    client.close();
  }
}
