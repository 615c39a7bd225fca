// `/admin/status.json` and `/admin/`: the mirror jobs (schedule, live progress, last result, errors, next run)
// for operators. Behind the configured admin keys (`admin.keys`, admin-auth.ts): another key gets 403; with no
// admin key configured both paths answer 404, as if they did not exist. The upstream key is never part of the state.

import type { JobView } from '../../store/job-state';
import { formatBytes, formatDuration } from '../../store/units';
import type { Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { escapeHtml as esc } from '../html';
import { checkAdminRead as checkAdmin, PRIVATE } from './admin-auth';

export interface StatusDocument {
  generatedAt: string;
  /** Whether this process runs the schedules (`tilemirror serve` with scheduled jobs). */
  scheduler: boolean;
  jobs: JobView[];
}

/** The status of every configured job, from the job status the server was started with (none: no jobs known). */
export function statusDocument(ctx: RequestContext): StatusDocument {
  const { jobStatus } = ctx.services;
  return { generatedAt: new Date().toISOString(), scheduler: jobStatus?.live ?? false, jobs: jobStatus?.views() ?? [] };
}

export function adminStatusJson(ctx: RequestContext): Reply {
  checkAdmin(ctx);
  return {
    status: 200,
    body: Buffer.from(JSON.stringify(statusDocument(ctx), null, 1)),
    type: 'application/json; charset=utf-8',
    compressible: true,
    cache: 'none',
    headers: PRIVATE,
  };
}


function when(iso: string | undefined): string {
  return iso ? esc(iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')) : '–';
}

const seconds = (s: number | undefined): string => formatDuration(s ?? NaN);

function stateCell(j: StatusDocument['jobs'][number]): string {
  const p = j.running?.progress;
  if (!j.running) return 'idle';
  if (!p) return `running since ${when(j.running.startedAt)} (${esc(j.running.trigger)}), planning`;
  const pct = p.total ? Math.min(100, (p.done / p.total) * 100) : 100;
  return `running (${esc(j.running.trigger)}): ${esc(p.resource)} [${p.resourceIndex}/${p.resources}]<br>
<progress max="100" value="${pct.toFixed(1)}"></progress> ${p.done}/${p.total} tiles (${pct.toFixed(1)}%),
${p.tilesPerSecond} tiles/s, ${esc(formatBytes(p.bytes))}, ${p.failed} errors, ETA ${seconds(p.etaSeconds)}`;
}

function lastCell(j: StatusDocument['jobs'][number]): string {
  const r = j.lastRun;
  if (!r) return 'never run';
  const ms = Date.parse(r.endedAt) - Date.parse(r.startedAt);
  return `<span class="${esc(r.result)}">${esc(r.result)}</span> ${when(r.endedAt)} (${esc(r.trigger)}, ${seconds(ms / 1000)})<br>
${r.tiles.planned} planned: ${r.tiles.fetched} fetched, ${r.tiles.stored} stored, ${r.tiles.empty} empty, ${r.tiles.skipped} already stored, ${r.tiles.failed} failed; ${esc(formatBytes(r.bytes))}`;
}

function errorsCell(j: StatusDocument['jobs'][number]): string {
  const parts: string[] = [];
  if (j.lastRun) parts.push(`${j.lastRun.errors} in the last run`);
  if (j.failures) parts.push(`${j.failures} failed run${j.failures === 1 ? '' : 's'} of ${j.runs}`);
  if (j.skipped) parts.push(`${j.skipped} firing${j.skipped === 1 ? '' : 's'} skipped (${esc(j.lastSkipped?.reason)}, last ${when(j.lastSkipped?.at)})`);
  const last = j.lastRun?.lastError ? `<br><code>${esc(j.lastRun.lastError)}</code>` : '';
  return `${parts.join('; ') || 'none'}${last}`;
}

/** A small page for people: refreshes itself every few seconds; every value is escaped. */
export function adminStatusPage(ctx: RequestContext): Reply {
  checkAdmin(ctx);
  const doc = statusDocument(ctx);
  const rows = doc.jobs.map(
    (j) => `<tr><td><b>${esc(j.name)}</b>${j.unconfigured ? ' (no longer configured)' : ''}<br><small>${j.resources.map(esc).join(', ')}</small></td>
<td>${j.schedule ? `<code>${esc(j.schedule)}</code> ${esc(j.timezone)}` : 'on demand'}</td>
<td>${stateCell(j)}</td><td>${lastCell(j)}</td><td>${errorsCell(j)}</td><td>${when(j.nextRun)}</td></tr>`,
  );
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="5">
<meta name="robots" content="noindex"><title>tilemirror: mirror jobs</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:.4em .8em;text-align:left;vertical-align:top;border-bottom:1px solid #ddd}
.published{color:#070}.failed{color:#b00}.interrupted{color:#a60}code{font-size:12px}</style></head><body>
<h1>Mirror jobs</h1>
<p>${doc.scheduler ? 'Schedules run in this server.' : 'No schedules run in this server process; showing the saved state.'} Updated ${when(doc.generatedAt)}; refreshes every 5 s. <a href="${esc(`${ctx.baseUrl}/admin/status.json?key=${encodeURIComponent(ctx.query.get('key') ?? '')}`)}">JSON</a></p>
<table><tr><th>job</th><th>schedule</th><th>now</th><th>last run</th><th>errors</th><th>next run</th></tr>
${rows.join('\n') || '<tr><td colspan="6">No jobs configured (mirror.jobs).</td></tr>'}
</table></body></html>
`;
  return {
    status: 200,
    body: Buffer.from(html),
    type: 'text/html; charset=utf-8',
    compressible: true,
    cache: 'none',
    headers: { ...PRIVATE, 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'" },
  };
}
