// One mirror run of one resource: lock, discover, plan, fetch into the staging store, verify, publish.
// Exit codes: 0 published, 1 failed (the published store untouched, progress kept for the next run),
// 2 usage error, 3 interrupted (progress checkpointed, resumable).

import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Bounds } from '../../geo/bounds';
import { tilesOfAll, type TileTask } from '../../geo/tile-bands';
import type { RunOutcome } from '../../store/job-state';
import { publishStaging, verifyStaging } from '../../store/publish';
import { StagingStore, STATE, storedFormat, storePaths, type StagingOrigin } from '../../store/staging';
import { isDocumentKind, type TileFormat } from '../../store/types';
import type { PolygonArea } from '../area';
import { UpstreamClient } from '../upstream/client';
import { discover, mirrorDocuments } from '../discovery/kinds';
import { upstreamTileUrl } from '../discovery/tile-url';
import { parseResource, type ResourceRef } from '../resource';
import { dependencyLine } from './document-run';
import { RunStopped, UpstreamError, UsageError } from '../errors';
import { fingerprintOf, planDiscovered, planSignature, type Planned } from '../plan';
import type { ProgressSnapshot } from '../progress';
import { createRedactor, type Redactor } from '../upstream/redact';
import { conditionalHeaders, judgeTile, refreshAction, refreshCutoff } from '../refresh';
import type { RetryPolicy } from '../upstream/retry';
import { assertNoSecret } from '../rewrite';
import { beginRun, endRun, recordRunError } from './run-start';
import { discoverSource, sourceBase, sourceOrigins, type GenericSource } from '../discovery/sources';

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
  /** Of the failed tiles, those the upstream answers the same every time (an OGC exception, another format): a rerun will not help. */
  failedPermanently: number;
  failures: string[];
  /** What the store holds once published: each pyramid's zooms and bounds (narrowed by --zoom, --bbox, areas). */
  mirrored?: { pyramid: string; minzoom: number; maxzoom: number; bounds: Bounds }[];
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

export function refOf(resource: string | ResourceRef): ResourceRef {
  return typeof resource === 'string' ? parseResource(resource) : resource;
}

export function createClient(opts: MirrorOptions, redact: Redactor): UpstreamClient {
  return new UpstreamClient({
    // A generic source's origin is its upstream: the key goes there and nowhere else.
    base: opts.source ? sourceBase(opts.source) : opts.upstream,
    key: opts.key,
    keyOrigins: opts.source ? sourceOrigins(opts.source) : undefined,
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
  const ctx = {
    client,
    signal: opts.signal,
    knownFormat: storedFormat([paths.staging, paths.published]),
    scales: opts.scales,
    formats: opts.formats,
    zoom: opts.zoom,
    bboxes: [...(opts.bboxes ?? []), ...(opts.areas ?? []).map((a) => a.bbox)],
  };
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

/** What the failed tiles mean for a rerun: retried ones may succeed, permanent ones are answered the same again. */
export function failedLine(failed: number, permanent: number): string {
  if (permanent === 0) return `${failed} tiles failed; run the same command again to retry them`;
  if (permanent === failed) return `${failed} tiles failed permanently (the upstream answers them the same every time): a rerun will not help, see the failures`;
  return `${failed} tiles failed, ${permanent} of them permanently (a rerun will not help those); run the same command again to retry the other ${failed - permanent}`;
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
    result.notes.push(...discovered.notes.map(redact), ...planned.notes);
    result.mirrored = header.pyramids.map((py) => ({ pyramid: py.name, minzoom: py.minzoom, maxzoom: py.maxzoom, bounds: py.bounds }));
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
    const { maxAgeMs, cutoff } = refreshCutoff(started, opts.maxAge, st.origin === 'resumed', st.getState(STATE.refresh));
    st.setState(STATE.refresh, JSON.stringify({ maxAgeMs, cutoff }));
    st.writer.batch(() => {
      for (const d of discovered.documents) st.putDocument(d.path, d.contentType, d.data);
    });
    // Tiles discovery already fetched (a format or size probe): stored when the plan reaches them, not fetched again.
    const prefetched = new Map((discovered.prefetched ?? []).map((p) => [`${p.task.pyramid}/${p.task.z}/${p.task.x}/${p.task.y}`, p.data]));
    st.flush();

    const upstreams = new Map(discovered.pyramids.map((u) => [u.pyramid.name, u]));
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
        const early = known.kind === 'absent' ? prefetched.get(`${task.pyramid}/${task.z}/${task.x}/${task.y}`) : undefined;
        if (early) {
          await st.record(task, { data: early }, { checkedAt: Date.now() });
          result.stored++;
          result.fetched++;
          opts.onTile?.(task, 'stored');
          continue;
        }
        const upstream = upstreams.get(task.pyramid)!;
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
          if (err instanceof UpstreamError && err.permanent) result.failedPermanently++;
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
      if (result.failedPermanently > 0) result.problems.push(failedLine(result.failed, result.failedPermanently));
      log(`${resource}: stopped: ${fatal}`);
    } else if (opts.signal?.aborted) {
      result.status = 'interrupted';
      result.exitCode = 3;
      log(`${resource}: interrupted; progress is kept, run the same command again to resume`);
    } else if (result.failed > 0) {
      result.problems.push(failedLine(result.failed, result.failedPermanently));
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
      endRun(result, client, lock, started);
    }
    if (result.planned > 0) opts.onProgress?.(snapshot());
  }
  return result;
}

