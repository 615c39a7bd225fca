// `tilemirror plan`: what a run would fetch, per pyramid and zoom, and with sampling an estimated size from
// tiles fetched from the upstream (evenly spread through each zoom). Nothing is written.

import { tileAt } from '../geo/tile-bands';
import { isDocumentKind, type TileFormat } from '../store/types';
import { documentPlanNote } from './discovery/kinds';
import { upstreamTileUrl } from './discovery/tile-url';
import { createRedactor } from './upstream/redact';
import { judgeTile } from './refresh';
import { createClient } from './engine/begin-end';
import type { MirrorOptions } from './engine/options';
import { discoverAndPlan } from './engine/plan';
import { refOf } from './resource';

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
}

/** What a run would fetch, per pyramid and zoom; with `sample` > 0 an estimated size from that many tiles. */
export async function planReport(opts: MirrorOptions & { sample?: number }): Promise<PlanReport> {
  const redact = createRedactor(opts.key);
  const ref = refOf(opts.resource);
  if (isDocumentKind(ref.kind)) return { resource: `${ref.kind}/${ref.id}`, pyramids: [], total: 0, sampled: 0, notes: [documentPlanNote(ref)] };
  const client = createClient(opts, redact);
  try {
    const p = await discoverAndPlan(client, ref, opts);
    const report: PlanReport = {
      resource: `${ref.kind}/${ref.id}`,
      pyramids: [],
      total: p.total,
      seconds: opts.rate && opts.rate > 0 ? p.total / opts.rate : undefined,
      sampled: 0,
      notes: [...p.discovered.notes.map(redact), ...p.notes],
    };
    const sampleTotal = opts.sample ?? 0;
    const zoomCount = p.plans.reduce((n, pl) => n + pl.zooms.length, 0);
    const perZoom = sampleTotal > 0 ? Math.max(1, Math.ceil(sampleTotal / zoomCount)) : 0;
    let estimate = 0;
    for (const plan of p.plans) {
      const upstream = p.discovered.pyramids.find((u) => u.pyramid.name === plan.pyramid)!;
      const entry: PlanReport['pyramids'][number] = { pyramid: plan.pyramid, format: upstream.pyramid.format, tileSize: upstream.pyramid.tileSize, zooms: [], tiles: plan.count };
      for (const zp of plan.zooms) {
        const row: { z: number; tiles: number; estimatedBytes?: number } = { z: zp.z, tiles: zp.count };
        const k = Math.min(perZoom, zp.count);
        if (k > 0) {
          // Evenly spaced through the zoom's tiles, so one dense corner does not stand for the whole area.
          const picks = Array.from({ length: k }, (_, i) => tileAt(zp, Math.floor(((i + 0.5) * zp.count) / k))!);
          const sizes = await Promise.all(
            picks.map((t) =>
              client
                .request(upstreamTileUrl(upstream, zp.z, t.x, t.y), judgeTile(upstream.pyramid.format), opts.signal)
                .then(({ verdict: v }) => (v.kind === 'tile' ? v.data.length : 0))
                .catch(() => undefined),
            ),
          );
          const ok = sizes.filter((s): s is number => s !== undefined);
          report.sampled += ok.length;
          if (ok.length) {
            row.estimatedBytes = Math.round((ok.reduce((a, b) => a + b, 0) / ok.length) * zp.count);
            estimate += row.estimatedBytes;
          }
        }
        entry.zooms.push(row);
      }
      report.pyramids.push(entry);
    }
    if (report.sampled > 0) report.estimatedBytes = estimate;
    return report;
  } finally {
    client.close();
  }
}
