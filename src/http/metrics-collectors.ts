// What /metrics reads at scrape time from the rest of the server: the stores served (one series per store, so the
// cardinality is the number of stores), the tile memory cache, the static-map render queue and the mirror jobs (one
// series per configured job). Nothing here runs per request. `aggregator` says how the workers of a cluster add
// up (metrics-cluster.ts): what each worker has of its own is summed, what they all read alike is taken once.

import { Counter, Gauge, type Registry } from 'prom-client';
import type { StaticMaps } from '../services/static-maps';
import type { Catalog } from '../store/catalog/catalog';
import type { JobStatusReader, JobView } from '../job-contracts';

const seconds = (iso: string | undefined): number | undefined => {
  const ms = iso === undefined ? NaN : Date.parse(iso);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
};

/** The served stores and the tile memory cache. */
export function registerStoreMetrics(registry: Registry, catalog: Catalog): void {
  const registers = [registry];
  new Gauge({
    name: 'tilemirror_store_info',
    aggregator: 'max',
    help: 'One series per open store, valued 1: its kind, id and served version (the ETag base; it changes on every publication)',
    labelNames: ['kind', 'id', 'version'],
    registers,
    collect() {
      this.reset();
      for (const v of catalog.versions()) this.set({ kind: v.kind, id: v.id, version: v.version }, 1);
    },
  });
  new Gauge({
    name: 'tilemirror_store_published_timestamp_seconds',
    aggregator: 'max',
    help: 'When the served file of each open store was published (its modification time)',
    labelNames: ['kind', 'id'],
    registers,
    collect() {
      this.reset();
      for (const v of catalog.versions()) this.set({ kind: v.kind, id: v.id }, v.publishedMs / 1000);
    },
  });
  new Gauge({
    name: 'tilemirror_stores',
    aggregator: 'max',
    help: 'Store files of the data directory: open (served), failed (skipped: cannot be opened)',
    labelNames: ['state'],
    registers,
    collect() {
      const s = catalog.status();
      this.set({ state: 'open' }, s.open);
      this.set({ state: 'failed' }, s.failed);
    },
  });
  const cache = () => catalog.tileCacheStats() ?? { hits: 0, misses: 0, bytes: 0, maxBytes: 0 };
  new Counter({
    name: 'tilemirror_tile_cache_requests_total',
    help: 'Lookups in the tile memory cache (tiles, known absences, inflated copies), by result: hit or miss',
    labelNames: ['result'],
    registers,
    collect() {
      const c = cache();
      this.reset();
      this.inc({ result: 'hit' }, c.hits);
      this.inc({ result: 'miss' }, c.misses);
    },
  });
  new Gauge({
    name: 'tilemirror_tile_cache_bytes',
    help: 'Bytes held by the tile memory cache (used) and its bound (capacity, cache.memoryMb)',
    labelNames: ['state'],
    registers,
    collect() {
      const c = cache();
      this.set({ state: 'used' }, c.bytes);
      this.set({ state: 'capacity' }, c.maxBytes);
    },
  });
}

/** The static-map render queue of this server. */
export function registerStaticMapMetrics(registry: Registry, staticMaps: StaticMaps): void {
  const registers = [registry];
  new Gauge({
    name: 'tilemirror_static_map_queue_waiting',
    help: 'Static maps waiting for their turn to render',
    registers,
    collect() {
      this.set(staticMaps.renderCounts().waiting);
    },
  });
  new Counter({
    name: 'tilemirror_static_map_renders_total',
    help: 'Static map renders by outcome: started; dropped (client gone while waiting); stopped (client gone while rendering); refused (queue full, 503)',
    labelNames: ['outcome'],
    registers,
    collect() {
      const c = staticMaps.renderCounts();
      this.reset();
      for (const outcome of ['started', 'dropped', 'stopped', 'refused'] as const) this.inc({ outcome }, c[outcome]);
    },
  });
}

type Views = () => JobView[];

/** One gauge or counter per job whose value comes from the job views read once per scrape. */
function perJob(registry: Registry, views: Views, kind: 'gauge' | 'counter', name: string, help: string, labelNames: string[], fill: (set: (labels: Record<string, string>, v: number) => void, job: JobView) => void): void {
  // Every worker of a cluster reads the same job state: the aggregate takes it once, not summed.
  const config = { name, help, labelNames: ['job', ...labelNames], registers: [registry], aggregator: 'max' as const };
  const collect = function (this: Gauge | Counter): void {
    this.reset();
    const set = (labels: Record<string, string>, v: number) => (this instanceof Gauge ? this.set(labels, v) : this.inc(labels, v));
    for (const job of views()) fill((labels, v) => set({ job: job.name, ...labels }, v), job);
  };
  if (kind === 'gauge') new Gauge({ ...config, collect });
  else new Counter({ ...config, collect });
}

/**
 * The mirror jobs, from the job status the server reads (the live scheduler, or the persisted state): progress
 * of a running run, the last run's tiles, runs by outcome, last success. The views are read once per scrape.
 */
export function registerMirrorMetrics(registry: Registry, jobStatus: JobStatusReader): void {
  let cached: { at: number; views: JobView[] } | undefined;
  // Every family below reads the same snapshot within one scrape (the persisted job state is read from a file).
  const views: Views = () => {
    const now = Date.now();
    if (!cached || now - cached.at > 250) cached = { at: now, views: jobStatus.views() };
    return cached.views;
  };
  perJob(registry, views, 'gauge', 'tilemirror_mirror_job_running', 'Whether a run of the job is going on (1) or not (0)', [], (set, j) => set({}, j.running ? 1 : 0));
  perJob(registry, views, 'gauge', 'tilemirror_mirror_progress_tiles', "Tiles of the running run's current resource: done, total, failed", ['state'], (set, j) => {
    const p = j.running?.progress;
    if (!p) return;
    set({ state: 'done' }, p.done);
    set({ state: 'total' }, p.total);
    set({ state: 'failed' }, p.failed);
  });
  perJob(registry, views, 'gauge', 'tilemirror_mirror_progress_resources', 'Resources of the running run: current (1-based) and total', ['state'], (set, j) => {
    const p = j.running?.progress;
    if (!p) return;
    set({ state: 'current' }, p.resourceIndex);
    set({ state: 'total' }, p.resources);
  });
  perJob(registry, views, 'gauge', 'tilemirror_mirror_last_run_tiles', 'Tiles of the last finished run, by state (planned, fetched, stored, empty, skipped, failed)', ['state'], (set, j) => {
    const t = j.lastRun?.tiles;
    if (t) for (const [state, n] of Object.entries(t)) set({ state }, n);
  });
  perJob(registry, views, 'counter', 'tilemirror_mirror_runs_total', 'Finished runs of the job, by outcome: published, failed, interrupted', ['outcome'], (set, j) => {
    const interrupted = j.interrupted ?? 0;
    set({ outcome: 'published' }, Math.max(0, j.runs - j.failures - interrupted));
    set({ outcome: 'failed' }, j.failures);
    set({ outcome: 'interrupted' }, interrupted);
  });
  perJob(registry, views, 'counter', 'tilemirror_mirror_skipped_firings_total', 'Scheduled firings skipped because the previous run was still going', [], (set, j) => set({}, j.skipped));
  perJob(registry, views, 'gauge', 'tilemirror_mirror_last_success_timestamp_seconds', 'End of the last run that published every resource', [], (set, j) => {
    const t = seconds(j.lastSuccessAt);
    if (t !== undefined) set({}, t);
  });
  perJob(registry, views, 'gauge', 'tilemirror_mirror_last_run_timestamp_seconds', 'End of the last finished run, whatever its outcome', [], (set, j) => {
    const t = seconds(j.lastRun?.endedAt);
    if (t !== undefined) set({}, t);
  });
  perJob(registry, views, 'gauge', 'tilemirror_mirror_next_run_timestamp_seconds', 'Next scheduled firing', [], (set, j) => {
    const t = seconds(j.nextRun);
    if (t !== undefined) set({}, t);
  });
  perJob(registry, views, 'counter', 'tilemirror_mirror_upstream_requests_total', "Upstream requests the job's runs sent: its finished runs' and the running one's so far", [], (set, j) => {
    set({}, (j.requestsTotal ?? 0) + (j.running?.progress?.requests ?? 0));
  });
  const budget = jobStatus.requestBudget?.bind(jobStatus);
  if (!budget) return;
  // The ledger is one file every worker reads alike: taken once, not summed.
  new Gauge({
    name: 'tilemirror_mirror_upstream_month_requests',
    help: "Upstream requests of this calendar month (UTC), every job, mirror and plan of the data directory, per upstream (key-free origin)",
    labelNames: ['upstream'],
    aggregator: 'max',
    registers: [registry],
    collect() {
      this.reset();
      for (const u of budget().upstreams) this.set({ upstream: u.upstream }, u.spent);
    },
  });
  new Gauge({
    name: 'tilemirror_mirror_upstream_month_request_budget',
    help: 'The monthly upstream request budget (mirror.requestsPerMonth) per upstream that has one',
    labelNames: ['upstream'],
    aggregator: 'max',
    registers: [registry],
    collect() {
      this.reset();
      for (const u of budget().upstreams) if (u.perMonth !== null) this.set({ upstream: u.upstream }, u.perMonth);
    },
  });
}
