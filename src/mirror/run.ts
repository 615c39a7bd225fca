// One mirror run of one resource: lock, discover, plan, fetch into the staging store, verify, publish.
// Exit codes: 0 published, 1 failed (the published store untouched, progress kept for the next run),
// 2 usage error, 3 interrupted (progress checkpointed, resumable).

import { createHash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Bounds } from '../geo/bounds';
import type { RunOutcome } from '../store/job-state';
import { isDocumentKind, type Pyramid, type TileFormat } from '../store/types';
import type { StoreHeader } from '../store/writer';
import { UpstreamClient, type Judgement } from './client';
import { discover, documentPlanNote, mirrorDocuments, parseResource, type Discovered, type ResourceRef } from './discoverers';
import { dependencyLine } from './document-run';
import { tileUrl } from './discoverers/common';
import type { PolygonArea } from './area';
import { planBounds, planPyramid, planSignature } from './plan';
import { tileAt, tilesOfAll, type PyramidPlan, type TileTask } from '../geo/tile-bands';
import { RunStopped, UpstreamError, UsageError } from './errors';
import type { ProgressSnapshot } from './progress';
import { publishStaging, verifyStaging } from '../store/publish';
import { beginRun, recordRunError } from './run-start';
import { createRedactor, type Redactor } from './redact';
import { discoverSource, sourceBase, type GenericSource } from './sources';
import type { AttemptOutcome, RetryPolicy } from './retry';
import { assertNoSecret } from './rewrite';
import { StagingStore, STATE, storedFormat, storePaths, type StagingOrigin } from '../store/staging';
import { validateTile, type TileVerdict } from './validate';

export interface MirrorOptions {
  /** Upstream base URL, e.g. https://api.maptiler.com (a key in it is ignored: use `key`). */
  upstream: string;
  dataDir: string;
  /** `tiles/ID`, `maps/ID`, `images/ID`, `fonts/FONTSTACK`, `sprites/ID`, `data/ID`, `weather`, `ogc`. */
  resource: string | ResourceRef;
  /**
   * Maps: also mirror what the style needs offline, after the map: its fonts (every font of every `text-font`)
   * and its sprite. Default false: the run's notes name them (the weather catalog's keyframe tilesets are part
   * of `weather` and always mirrored).
   */
  withDependencies?: boolean;
  /** Maps: pixel ratios to mirror, e.g. [1, 2] adds the @2x pyramids (default [1]). */
  scales?: number[];
  /** Maps: tile formats to mirror, e.g. ['png', 'webp'] (default: the upstream TileJSON's format). */
  formats?: TileFormat[];
  key?: string;
  /** Inclusive zoom range; default: the upstream's. */
  zoom?: [number, number];
  /** Areas in degrees; default: the upstream's bounds. */
  bboxes?: Bounds[];
  /** GeoJSON polygon areas (see area.ts); with bboxes, the plan is the union of all of them. */
  areas?: PolygonArea[];
  /** A generic source (any TileJSON or WMTS capabilities URL) for a `tiles/ID` resource; `upstream` is then its origin. */
  source?: GenericSource;
  /** Requests in flight (default 8). */
  concurrency?: number;
  /** Requests per second (default: unlimited). */
  rate?: number;
  /** Per-request timeout (ms, default 30 s). */
  timeoutMs?: number;
  retry?: RetryPolicy;
  /** Tiles that may fail (after their retries) before the run stops; default 100. */
  failureBudget?: number;
  /**
   * Seconds a stored tile stays current (default 7 days): older ones are revalidated with a conditional request
   * (If-None-Match / If-Modified-Since) and rewritten only when they changed; 0 revalidates every tile.
   */
  maxAge?: number;
  /** Aborting stops the run gracefully: requests in flight finish and are stored, nothing new starts. */
  signal?: AbortSignal;
  /** Human-readable lines (already redacted). */
  log?: (line: string) => void;
  /** Called about once a second and at the end. */
  onProgress?: (p: ProgressSnapshot) => void;
  /** Called after each planned tile is settled (tests use it to interrupt a run midway). */
  onTile?: (task: TileTask, outcome: 'stored' | 'empty' | 'skipped' | 'failed') => void;
  batchSize?: number;
  batchMs?: number;
}

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
  failures: string[];
  requests: number;
  retries: number;
  bytes: number;
  elapsedMs: number;
  published?: string;
  notes: string[];
  problems: string[];
  /** Runs this one caused: a style's fonts and sprite (withDependencies), the weather keyframe tilesets, a stack's fonts. */
  dependencies?: MirrorResult[];
}

function refOf(resource: string | ResourceRef): ResourceRef {
  return typeof resource === 'string' ? parseResource(resource) : resource;
}

/** Identifies the upstream resource a store mirrors: staging or published files of another one are not reused. */
export function fingerprintOf(base: string, d: Discovered): string {
  const sources = d.sources.map((s) => [s.pyramid.name, s.pyramid.format, s.pyramid.tileSize, s.pyramid.scale, s.template]);
  return createHash('sha256').update(JSON.stringify([base, d.kind, d.id, sources])).digest('hex').slice(0, 32);
}

export interface Planned {
  ref: ResourceRef;
  discovered: Discovered;
  plans: PyramidPlan[];
  /** The header to write: pyramids narrowed to the planned zooms and areas. */
  header: StoreHeader;
  total: number;
}

/** Pyramids narrowed to what the plan holds (the served TileJSON and bounds checks then describe the mirror). */
export function planDiscovered(d: Discovered, zoom?: [number, number], bboxes: Bounds[] = [], areas: PolygonArea[] = []): Omit<Planned, 'ref'> {
  const plans: PyramidPlan[] = [];
  const pyramids: Pyramid[] = [];
  for (const s of d.sources) {
    const plan = planPyramid(s.pyramid.name, s.pyramid, bboxes, zoom, areas, s.limits);
    if (plan.zooms.length === 0) continue;
    plans.push(plan);
    pyramids.push({
      ...s.pyramid,
      minzoom: plan.zooms[0].z,
      maxzoom: plan.zooms[plan.zooms.length - 1].z,
      bounds: planBounds(s.pyramid.bounds, [...bboxes, ...areas.map((a) => a.bbox)]),
    });
  }
  if (plans.length === 0) {
    const offered = d.sources.map((s) => `${s.pyramid.minzoom}-${s.pyramid.maxzoom}`).join(', ');
    throw new UsageError(`${d.kind}/${d.id}: the requested zooms ${zoom?.join('-')} are outside the upstream's (${offered})`);
  }
  return { discovered: d, plans, header: { ...d.header, pyramids }, total: plans.reduce((n, p) => n + p.count, 0) };
}

export const DEFAULT_MAX_AGE = 7 * 24 * 3600;

type GoodVerdict = Exclude<TileVerdict, { kind: 'bad' }>;
/** A usable answer and the validators that came with it. */
type Answer = { verdict: GoodVerdict; validators: { etag?: string; lastModified?: string } };

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** Request headers that ask the upstream to answer 304 when the stored tile is still current. */
export function conditionalHeaders(known: { etag?: string; lastModified?: string }): Record<string, string> | undefined {
  const h: Record<string, string> = {};
  if (known.etag) h['If-None-Match'] = known.etag;
  if (known.lastModified) h['If-Modified-Since'] = known.lastModified;
  return Object.keys(h).length ? h : undefined;
}

/** Outcome of a revalidation, as a pure function: what to write given what is stored and what came back. */
export function refreshAction(stored: 'tile' | 'empty' | 'absent', storedData: Buffer | undefined, verdict: GoodVerdict): 'write' | 'write-empty' | 'unchanged' {
  if (verdict.kind === 'not-modified') return 'unchanged';
  if (verdict.kind === 'empty') return stored === 'empty' ? 'unchanged' : 'write-empty';
  return stored === 'tile' && storedData !== undefined && storedData.equals(verdict.data) ? 'unchanged' : 'write';
}

function judgeTile(format: TileFormat, conditional = false) {
  return (res: Parameters<typeof validateTile>[0]): Judgement<Answer> => {
    const v = validateTile(res, format);
    if (v.kind === 'not-modified' && !conditional) {
      return { ok: false, outcome: { kind: 'invalid', message: '304 to a request that was not conditional', retryable: false } };
    }
    if (v.kind !== 'bad') {
      const etag = one(res.headers.etag);
      const lastModified = one(res.headers['last-modified']);
      return { ok: true, value: { verdict: v, validators: { ...(etag && { etag }), ...(lastModified && { lastModified }) } } };
    }
    const retryAfter = res.headers['retry-after'];
    const outcome: AttemptOutcome =
      v.status !== undefined
        ? { kind: 'status', status: v.status, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter }
        : { kind: 'invalid', message: v.reason, retryable: v.retry };
    return { ok: false, outcome };
  };
}

export function createClient(opts: MirrorOptions, redact: Redactor): UpstreamClient {
  return new UpstreamClient({
    // A generic source's origin is its upstream: the key goes there and nowhere else.
    base: opts.source ? sourceBase(opts.source) : opts.upstream,
    key: opts.key,
    connections: opts.concurrency ?? 8,
    rate: opts.rate,
    timeoutMs: opts.timeoutMs,
    retry: opts.retry,
    redact,
    onRetry: (url, reason, delay) => opts.log?.(redact(`retrying ${url} in ${delay} ms: ${reason}`)),
  });
}

/** Discovers a resource and plans it (no store is touched): what `plan` prints and `mirror` runs. */
export async function discoverAndPlan(
  client: UpstreamClient,
  ref: ResourceRef,
  opts: Pick<MirrorOptions, 'zoom' | 'bboxes' | 'areas' | 'source' | 'signal' | 'dataDir' | 'scales' | 'formats'>,
): Promise<Planned> {
  const paths = storePaths(opts.dataDir, ref.kind, ref.id);
  const ctx = { client, signal: opts.signal, knownFormat: storedFormat([paths.staging, paths.published]), scales: opts.scales, formats: opts.formats };
  const discovered = opts.source ? await discoverSource(ref.kind, ref.id, opts.source, ctx) : await discover(ref, ctx);
  return { ref, ...planDiscovered(discovered, opts.zoom, opts.bboxes, opts.areas) };
}

/** Mirrors one resource. Never throws for upstream or store trouble: the result says what happened. Throws UsageError. */
export async function runMirror(opts: MirrorOptions): Promise<MirrorResult> {
  const ref = refOf(opts.resource);
  // Document resources have no tile plan: the document engine stages, verifies and publishes them alike.
  if (isDocumentKind(ref.kind)) return mirrorDocuments({ ...ref, kind: ref.kind }, opts, { runMirror, createClient });
  const wanted: ResourceRef[] = [];
  const result = await runTiles(opts, ref, wanted);
  if (wanted.length && result.status !== 'interrupted' && !opts.signal?.aborted) {
    // A map's tile sets, fonts and sprite, each its own store, after the map (whose run named them). Tile sets
    // keep the map's zooms and areas (a style's vector source is usually far larger than the part wanted).
    result.dependencies = [];
    for (const d of wanted) {
      if (opts.signal?.aborted) break;
      const area = d.kind === 'tiles' ? {} : { zoom: undefined, bboxes: undefined, areas: undefined };
      const r = await runMirror({ ...opts, resource: d, withDependencies: false, ...area, source: undefined, scales: undefined, formats: undefined });
      result.dependencies.push(r);
      result.notes.push(`dependency ${dependencyLine(r)}`);
      opts.log?.(createRedactor(opts.key)(`${result.resource}: dependency ${dependencyLine(r)}`));
      if (r.status === 'interrupted') break;
    }
  }
  return result;
}

/** One run of a tiled resource (tiles, maps, images); `wanted` receives what to mirror after it (withDependencies). */
async function runTiles(opts: MirrorOptions, ref: ResourceRef, wanted: ResourceRef[]): Promise<MirrorResult> {
  const begun = beginRun(opts, ref);
  if ('done' in begun) return begun.done;
  const { started, redact, log, resource, result, paths, lock } = begun;

  const client = createClient(opts, redact);
  // Stops everything at once (fatal answer, failure budget): requests in flight are aborted.
  const hard = new AbortController();
  const stopping = (): boolean => hard.signal.aborted || !!opts.signal?.aborted;
  let staging: StagingStore | undefined;
  const snapshot = (): ProgressSnapshot => ({
    resource,
    total: result.planned,
    done: result.fetched + result.skipped + result.failed,
    fetched: result.fetched,
    skipped: result.skipped,
    failed: result.failed,
    bytes: client.stats.bytes,
    retries: client.stats.retries,
    elapsedMs: Date.now() - started,
  });
  let ticker: NodeJS.Timeout | undefined;

  try {
    const planned = await discoverAndPlan(client, ref, { ...opts, signal: opts.signal });
    const { discovered, plans, header } = planned;
    result.planned = planned.total;
    result.notes.push(...discovered.notes.map(redact));
    for (const n of result.notes) log(`${resource}: ${n}`);
    if (opts.withDependencies) wanted.push(...(discovered.dependencies ?? []));

    // The key must not reach the store: the documents were rewritten, this proves it.
    for (const d of discovered.documents) assertNoSecret(d.data, opts.key, `${resource} ${d.path}`);
    assertNoSecret(JSON.stringify(header), opts.key, `${resource} metadata`);

    staging = StagingStore.open({
      paths,
      header,
      fingerprint: fingerprintOf(client.base, discovered),
      upstream: client.base,
      plans,
      planSignature: planSignature(plans),
      batchSize: opts.batchSize,
      batchMs: opts.batchMs,
    });
    result.origin = staging.origin;
    if (staging.origin !== 'new') log(`${resource}: ${staging.origin === 'resumed' ? 'resuming the previous run' : 'starting from the published store'}`);
    const st = staging;
    // Tiles the upstream vouched for after the cutoff are current; older ones are revalidated. A resumed run
    // keeps the cutoff of the run it continues, so what that run already revalidated is not asked again.
    const maxAgeMs = Math.max(0, opts.maxAge ?? DEFAULT_MAX_AGE) * 1000;
    let cutoff = started - maxAgeMs;
    try {
      const prev = JSON.parse(st.getState(STATE.refresh) ?? 'null') as { maxAgeMs?: number; cutoff?: number } | null;
      if (st.origin === 'resumed' && prev?.maxAgeMs === maxAgeMs && typeof prev.cutoff === 'number') cutoff = prev.cutoff;
    } catch {
      /* unreadable: a fresh cutoff */
    }
    st.setState(STATE.refresh, JSON.stringify({ maxAgeMs, cutoff }));
    st.writer.batch(() => {
      for (const d of discovered.documents) st.putDocument(d.path, d.contentType, d.data);
    });
    const planned_ = new Set(plans.map((p) => p.pyramid));
    for (const p of discovered.prefetched) {
      if (planned_.has(p.task.pyramid) && !st.has(p.task)) {
        // Only if the plan holds it; the generator then finds it stored and skips it.
        if (plans.some((pl) => pl.pyramid === p.task.pyramid && pl.zooms.some((z) => z.z === p.task.z))) {
          st.record(p.task, { data: p.data }, { checkedAt: Date.now() }).catch(() => undefined);
        }
      }
    }
    st.flush();

    const formats = new Map(discovered.sources.map((s) => [s.pyramid.name, s]));
    const tasks = tilesOfAll(plans);
    const budget = opts.failureBudget ?? 100;
    let fatal: string | undefined;

    ticker = setInterval(() => {
      st.flushIfDue();
      opts.onProgress?.(snapshot());
    }, Math.min(1000, opts.batchMs ?? 1000));

    const worker = async (): Promise<void> => {
      let sinceYield = 0;
      while (!stopping()) {
        const next = tasks.next();
        if (next.done) return;
        const task = next.value;
        const known = st.lookup(task);
        if (known.kind !== 'absent' && (known.checkedAt ?? -Infinity) >= cutoff) {
          result.skipped++;
          opts.onTile?.(task, 'skipped');
          // A resumed run may skip a long stretch synchronously: let timers and I/O run now and then.
          if (++sinceYield >= 2000) {
            sinceYield = 0;
            await yieldToLoop();
          }
          continue;
        }
        const source = formats.get(task.pyramid)!;
        const url = tileUrl(source.template, task.z, task.x, task.y, source.matrixIds?.[task.z]);
        const revalidating = known.kind !== 'absent';
        const headers = revalidating ? conditionalHeaders(known) : undefined;
        try {
          const { verdict, validators } = await client.request(
            url,
            judgeTile(source.pyramid.format, !!headers),
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
          let outcome: 'stored' | 'empty' | 'skipped';
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
          opts.onTile?.(task, outcome);
        } catch (err) {
          if (err instanceof RunStopped || hard.signal.aborted) return;
          result.failed++;
          const msg = redact(err instanceof Error ? err.message : String(err));
          if (result.failures.length < 20) result.failures.push(`${task.pyramid} ${task.z}/${task.x}/${task.y}: ${msg}`);
          opts.onTile?.(task, 'failed');
          const status = err instanceof UpstreamError ? err.status : undefined;
          if (status === 401 || status === 403) fatal = `the upstream refused the key (HTTP ${status}): ${msg}`;
          else if (result.failed > budget) fatal = `more than ${budget} tiles failed (the failure budget)`;
          if (fatal) hard.abort(new RunStopped(fatal));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 8) }, worker));
    clearInterval(ticker);
    st.flush();
    result.writes = st.tileWrites;
    st.setState(STATE.checkpoint, JSON.stringify({ at: new Date().toISOString(), ...snapshot() }));

    if (fatal) {
      result.problems.push(fatal);
      log(`${resource}: stopped: ${fatal}`);
    } else if (opts.signal?.aborted) {
      result.status = 'interrupted';
      result.exitCode = 3;
      log(`${resource}: interrupted; progress is kept, run the same command again to resume`);
    } else if (result.failed > 0) {
      result.problems.push(`${result.failed} tiles failed; run the same command again to retry them`);
    } else {
      const v = verifyStaging(st, plans);
      if (v.ok) {
        publishStaging(st, paths.published);
        staging = undefined;
        result.status = 'published';
        result.exitCode = 0;
        result.published = paths.published;
      } else {
        result.problems.push(...v.problems);
      }
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    recordRunError(result, err, opts.signal, redact);
  } finally {
    if (ticker) clearInterval(ticker);
    try {
      staging?.close();
    } finally {
      client.close();
      lock.release();
    }
    result.requests = client.stats.requests;
    result.bytes = client.stats.bytes;
    result.retries = client.stats.retries;
    result.elapsedMs = Date.now() - started;
    if (result.planned > 0) opts.onProgress?.(snapshot());
  }
  return result;
}

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
      notes: p.discovered.notes.map(redact),
    };
    const sampleTotal = opts.sample ?? 0;
    const zoomCount = p.plans.reduce((n, pl) => n + pl.zooms.length, 0);
    const perZoom = sampleTotal > 0 ? Math.max(1, Math.ceil(sampleTotal / zoomCount)) : 0;
    let estimate = 0;
    for (const plan of p.plans) {
      const source = p.discovered.sources.find((s) => s.pyramid.name === plan.pyramid)!;
      const entry: PlanReport['pyramids'][number] = { pyramid: plan.pyramid, format: source.pyramid.format, tileSize: source.pyramid.tileSize, zooms: [], tiles: plan.count };
      for (const zp of plan.zooms) {
        const row: { z: number; tiles: number; estimatedBytes?: number } = { z: zp.z, tiles: zp.count };
        const k = Math.min(perZoom, zp.count);
        if (k > 0) {
          // Evenly spaced through the zoom's tiles, so one dense corner does not stand for the whole area.
          const picks = Array.from({ length: k }, (_, i) => tileAt(zp, Math.floor(((i + 0.5) * zp.count) / k))!);
          const sizes = await Promise.all(
            picks.map((t) =>
              client
                .request(tileUrl(source.template, zp.z, t.x, t.y, source.matrixIds?.[zp.z]), judgeTile(source.pyramid.format), opts.signal)
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
