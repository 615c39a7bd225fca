// What the CLI prints, as pure functions of results: a resource's summary, a job's, a plan, the status table.

import { formatBytes, formatDuration } from '../store/units';
import { isDocumentKind } from '../store/types';
import type { JobView, RunRecord } from '../job-contracts';
import type { PlanReport } from './plan-report';
import { tileRate } from './progress';
import type { MirrorResult } from './engine/result';

export function formatSummary(r: MirrorResult): string[] {
  const secs = r.elapsedMs / 1000;
  const rate = tileRate({ resource: r.resource, total: r.planned, done: 0, fetched: r.fetched, skipped: r.skipped, failed: r.failed, bytes: r.bytes, retries: r.retries, elapsedMs: r.elapsedMs });
  const lines = [
    `${r.resource}: ${r.status}${r.published ? ` -> ${r.published}` : ''}`,
    `  ${r.planned} ${isDocumentKind(r.resource.split('/')[0]) ? 'documents' : 'tiles'} planned: ${r.stored} fetched and stored, ${r.empty} empty, ${r.skipped} already stored, ${r.failed} failed`,
    `  ${r.requests} requests (${r.retries} retries${r.hedges ? `, ${r.hedges} hedged` : ''}), ${formatBytes(r.bytes)} in ${formatDuration(secs)} (${rate.toFixed(0)} tiles/s)`,
  ];
  for (const m of r.mirrored ?? []) lines.push(`  ${m.pyramid === 'main' ? 'mirrored' : `pyramid ${m.pyramid}`}: z${m.minzoom}-${m.maxzoom}, bounds ${m.bounds.map((v) => Math.round(v * 1e4) / 1e4).join(',')}`);
  if (r.revalidated > 0) lines.push(`  ${r.revalidated} stored tiles revalidated: ${r.unchanged} unchanged (${r.notModified} answered 304), ${r.writes} tile rows written`);
  for (const f of r.failures) lines.push(`  failed: ${f}`);
  for (const p of r.problems) lines.push(`  problem: ${p}`);
  for (const n of r.notes) lines.push(`  note: ${n}`);
  return lines;
}

export function formatPlan(p: PlanReport, rate?: number): string[] {
  const lines = [`${p.resource}: ${p.total} tiles`];
  for (const py of p.pyramids) {
    lines.push(`  pyramid ${py.pyramid} (${py.format}, ${py.tileSize} px): ${py.tiles} tiles`);
    for (const z of py.zooms) lines.push(`    z${String(z.z).padStart(2)}  ${String(z.tiles).padStart(12)}${z.estimatedBytes !== undefined ? `  ~${formatBytes(z.estimatedBytes)}` : ''}`);
  }
  if (p.estimatedBytes !== undefined) lines.push(`  estimated size: ~${formatBytes(p.estimatedBytes)} (from ${p.sampled} sampled tiles)`);
  const q = p.requests;
  if (q) lines.push(`  upstream requests: ~${q.total} (${q.tiles} tiles not yet current, ${q.documents} documents, ~${q.retries} retries at the last run's rate)`);
  if (p.raster) lines.push(`  raster: render (saves ${p.raster.savedRequests} requests of the ${p.raster.pyramids.map((py) => py.pyramid).join('/')} px pyramids)`);
  lines.push(p.seconds !== undefined ? `  time at ${rate} req/s: ${formatDuration(p.seconds)}` : '  time: no rate limit set (--rate); bounded by the upstream and --concurrency');
  for (const n of p.notes) lines.push(`  note: ${n}`);
  return lines;
}

export function formatJobSummary(name: string, r: RunRecord): string {
  const secs = (Date.parse(r.endedAt) - Date.parse(r.startedAt)) / 1000;
  return `job ${name}: ${r.result}: ${r.resources.length} resource${r.resources.length === 1 ? '' : 's'}, ${r.tiles.planned} tiles planned, ${r.tiles.fetched} fetched, ${r.tiles.stored} stored, ${r.tiles.failed} failed, ${r.errors} errors, ${formatBytes(r.bytes)} in ${formatDuration(secs)}`;
}

const cell = (iso: string | undefined): string => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-');

/** The rows `tilemirror status` prints: one line per job, then its last error and skipped firings indented. */
export function formatStatusTable(views: JobView[]): string[] {
  const header = ['JOB', 'SCHEDULE', 'STATE', 'LAST RUN (END)', 'RESULT', 'FETCHED', 'STORED', 'FAILED', 'ERRORS', 'NEXT RUN'];
  const rows = views.map((v) => {
    const r = v.lastRun;
    const p = v.running?.progress;
    const state = v.running ? `running${p ? ` ${p.done}/${p.total}` : ''}` : 'idle';
    return [
      v.name + (v.unconfigured ? ' (not configured)' : ''),
      v.schedule ? `${v.schedule} (${v.timezone})` : 'on demand',
      state,
      cell(r?.endedAt),
      r?.result ?? 'never run',
      String(r?.tiles.fetched ?? '-'),
      String(r?.tiles.stored ?? '-'),
      String(r?.tiles.failed ?? '-'),
      String(r?.errors ?? '-'),
      cell(v.nextRun),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cols: string[]): string => cols.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  const out = [line(header)];
  views.forEach((v, i) => {
    out.push(line(rows[i]));
    if (v.lastRun?.lastError) out.push(`  last error: ${v.lastRun.lastError}`);
    if (v.skipped) out.push(`  ${v.skipped} firing${v.skipped === 1 ? '' : 's'} skipped (${v.lastSkipped?.reason}), last at ${cell(v.lastSkipped?.at)}`);
  });
  return out;
}
