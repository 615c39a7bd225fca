// Request metrics on the hot path: one counter slot per (route pattern, status code), found through two Map
// lookups and bumped in place: no label object, no string built, no prom-client call per request. prom-client
// reads the slots when /metrics is scraped (counters through `collect`, the histogram through its own `get`).
// Route labels are the route table's patterns (never the raw URL), so their number is bounded by the table.

import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Latency buckets (seconds) for a tile server: a cached tile answers in well under a millisecond, a static map in seconds. */
export const DURATION_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The route label of a request that matched no route of the table (404, 405, 414, a bad request target). */
export const NO_ROUTE = 'none';
/** The route label of the viewer's static library files. */
export const ASSETS_ROUTE = '/assets/*';

class Slot {
  count = 0;
  bytes = 0;
  seconds = 0;
  /** Observations per bucket (not cumulative); the last counts those above the largest bound. */
  readonly buckets = new Float64Array(DURATION_BUCKETS.length + 1);
}

const statusClass = (code: number): string => `${Math.floor(code / 100)}xx`;

/** Requests, response bytes and latency by route and status, kept in plain numbers until a scrape reads them. */
export class RequestMetrics {
  private readonly slots = new Map<string, Map<number, Slot>>();

  /** Counts one answered request; `startedAt` is a `performance.now()` stamp taken when it arrived, `now` one taken as it was answered. */
  record(route: string, status: number, bytes: number, startedAt: number, now: number = performance.now()): void {
    let byStatus = this.slots.get(route);
    if (byStatus === undefined) this.slots.set(route, (byStatus = new Map()));
    let slot = byStatus.get(status);
    if (slot === undefined) byStatus.set(status, (slot = new Slot()));
    const seconds = (now - startedAt) / 1000;
    slot.count++;
    slot.bytes += bytes;
    slot.seconds += seconds;
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]) i++;
    slot.buckets[i]++;
  }

  /** Every slot with its labels (at scrape time only). */
  *entries(): Generator<[route: string, code: number, slot: Slot]> {
    for (const [route, byStatus] of this.slots) for (const [code, slot] of byStatus) yield [route, code, slot];
  }

  /** Registers the request families on `registry`. */
  register(registry: Registry): void {
    const entries = () => this.entries();
    const counter = (name: string, help: string, value: (slot: Slot) => number) =>
      new Counter({
        name,
        help,
        labelNames: ['route', 'code', 'class'],
        registers: [registry],
        collect() {
          this.reset();
          for (const [route, code, slot] of entries()) this.inc({ route, code, class: statusClass(code) }, value(slot));
        },
      });
    counter('tilemirror_http_requests_total', 'HTTP requests answered, by route pattern and status code', (slot) => slot.count);
    counter('tilemirror_http_response_bytes_total', 'Bytes of response bodies sent (after compression; none for HEAD, 204 and 304), by route pattern and status code', (slot) => slot.bytes);
    registry.registerMetric(new SlotHistogram(this));
  }
}

const DURATION_NAME = 'tilemirror_http_request_duration_seconds';
const DURATION_HELP = 'Time from a request arriving to its answer being handed to the socket, by route pattern and status class';

interface ExportedValue {
  metricName: string;
  labels: Record<string, string | number>;
  /** What prom-client's histogram export carries besides `labels` (merged into them by its JSON export). */
  sharedLabels: Record<string, string>;
  value: number;
}

/**
 * `tilemirror_http_request_duration_seconds`, by route and status class, read from the slots. A prom-client
 * Histogram that never observes: the registry writes the text format from `getForPromString`, which gives ours.
 */
class SlotHistogram extends Histogram<'route' | 'class'> {
  constructor(private readonly source: RequestMetrics) {
    super({ name: DURATION_NAME, help: DURATION_HELP, labelNames: ['route', 'class'], buckets: [...DURATION_BUCKETS], registers: [] });
  }

  // prom-client's Registry calls this (not `get`) when writing the text format; `get` maps over it.
  async getForPromString(): Promise<{ name: string; help: string; type: string; values: ExportedValue[]; aggregator: string }> {
    const merged = new Map<string, { route: string; cls: string; buckets: Float64Array; seconds: number; count: number }>();
    for (const [route, code, slot] of this.source.entries()) {
      const cls = statusClass(code);
      const key = `${route}\n${cls}`;
      let m = merged.get(key);
      if (!m) merged.set(key, (m = { route, cls, buckets: new Float64Array(DURATION_BUCKETS.length + 1), seconds: 0, count: 0 }));
      for (let i = 0; i < slot.buckets.length; i++) m.buckets[i] += slot.buckets[i];
      m.seconds += slot.seconds;
      m.count += slot.count;
    }
    const values: ExportedValue[] = [];
    const value = (suffix: string, labels: Record<string, string | number>, v: number) => values.push({ metricName: `${DURATION_NAME}_${suffix}`, labels, sharedLabels: {}, value: v });
    for (const { route, cls, buckets, seconds, count } of merged.values()) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += buckets[i];
        value('bucket', { route, class: cls, le }, cumulative);
      });
      value('bucket', { route, class: cls, le: '+Inf' }, count);
      value('sum', { route, class: cls }, seconds);
      value('count', { route, class: cls }, count);
    }
    return { name: DURATION_NAME, help: DURATION_HELP, type: 'histogram', values, aggregator: 'sum' };
  }
}

/** Failures that are not a request's status: stores that cannot be opened, damaged tiles, handler errors (500). */
export class FailureCounters {
  readonly storeOpen: Counter;
  readonly damagedTiles: Counter;
  readonly handler: Counter;

  constructor(registry: Registry) {
    const registers = [registry];
    this.storeOpen = new Counter({ name: 'tilemirror_store_open_failures_total', help: 'Store files that could not be opened (reported once per file version and error)', registers });
    this.damagedTiles = new Counter({ name: 'tilemirror_damaged_tiles_total', help: 'Stored tiles whose gzip cannot be decompressed (answered 500; once per tile and store version)', registers });
    this.handler = new Counter({ name: 'tilemirror_handler_errors_total', help: 'Requests whose handler failed unexpectedly or whose reply could not be written (answered 500)', registers });
  }
}

/** The registry of one server and the instruments written outside a scrape. */
export interface ServerMetrics {
  registry: Registry;
  requests: RequestMetrics;
  failures: FailureCounters;
  /** The text /metrics answers: this registry's, or in a `serve --workers` worker every worker's (metrics-cluster.ts). */
  scrape: () => Promise<string>;
}

/** A registry with Node's process metrics (RSS, heap, event loop lag, GC, handles), the request families and the failure counters. */
export function createServerMetrics(): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new RequestMetrics();
  requests.register(registry);
  return { registry, requests, failures: new FailureCounters(registry), scrape: () => registry.metrics() };
}
