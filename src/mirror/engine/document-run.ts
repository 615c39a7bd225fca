// The document engine: mirrors resources that are documents only (fonts, sprites, data, weather, ogc). They have
// no tile plan, so a run is: lock, collect every document from the upstream (a kind's collector validates each
// one), mirror the prerequisites (the weather catalog's keyframe tilesets), write a fresh staging store, verify it
// (integrity_check, every document read back byte for byte), publish it by one rename. Exactly the guarantees of
// a tile run: a failed or interrupted run leaves the published store untouched and readers never see a half store.
// Documents are few and small (a font is 256 glyph ranges), so a run always starts over instead of resuming.

import { existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { isGzip } from '../../store/formats';
import type { DocumentKind } from '../../store/types';
import type { StoreHeader } from '../../store/writer';
import { decodeBody, type Judgement, type UpstreamClient } from '../upstream/client';
import { fingerprint } from '../plan';
import { beginRun, endRun, recordRunError } from './begin-end';
import { assertNoSecret } from '../rewrite';
import { publishDocuments } from '../../store/document-staging';
import type { RawResponse } from '../upstream/validate';
import type { MirrorOptions } from './options';
import { dependencyLine, type MirrorResult } from './result';
import type { ResourceRef } from '../resource';

/** A document to store, as validated by a collector. */
export interface FetchedDoc {
  path: string;
  contentType: string;
  data: Buffer;
}

export interface CollectContext {
  client: UpstreamClient;
  signal?: AbortSignal;
  /** Requests in flight (fonts fetch their ranges in parallel). */
  concurrency: number;
  /** The published store of this resource when there is one (read-only): e.g. the keyframes the last weather run named. */
  published?: string;
  /** Called after each document request settles. */
  onDocument?: () => void;
}

/** What a collector found upstream. */
export interface Collected {
  header: StoreHeader;
  documents: FetchedDoc[];
  /** Documents asked for. */
  planned: number;
  /** Asked for but not there (404, or a glyph range without glyphs): not stored, served as the upstream does. */
  absent: number;
  /** Documents that could not be fetched or failed validation (after retries): the store is not published. */
  failures: string[];
  notes: string[];
  /** The upstream has no such resource (e.g. 404 for sprite.json): nothing to publish. */
  missing?: string;
  /** Resources that must be mirrored and published before this store is (the weather keyframe tilesets). */
  prerequisites?: ResourceRef[];
}

export type Collector = (ref: ResourceRef, ctx: CollectContext) => Promise<Collected>;

/** What the engine needs from run.ts (passed in, so this module does not import it at run time). */
export interface EngineDeps {
  runMirror: (opts: MirrorOptions) => Promise<MirrorResult>;
}


const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * Judges a document response: 200 gives the body with its transfer gzip undone (also a gzip body sent without
 * Content-Encoding, as some glyph servers do), passed through `check` (a message: invalid, retried); 404 (and
 * 204) give undefined; other statuses are failed attempts (5xx and 429 retried by the client's policy).
 */
export function judgeDocument(check: (body: Buffer, res: RawResponse) => string | undefined) {
  return (res: RawResponse): Judgement<Buffer | undefined> => {
    if (res.status === 404 || res.status === 204) return { ok: true, value: undefined };
    if (res.status !== 200) {
      const text = res.body.subarray(0, 200).toString('utf8').trim();
      return { ok: false, outcome: { kind: 'status', status: res.status, retryAfter: one(res.headers['retry-after']), ...(text && { message: text }) } };
    }
    const declared = one(res.headers['content-length']);
    if (declared !== undefined && Number(declared) !== res.body.length) {
      return { ok: false, outcome: { kind: 'invalid', message: `body of ${res.body.length} bytes, Content-Length says ${declared}` } };
    }
    const type = (one(res.headers['content-type']) ?? '').split(';')[0].trim().toLowerCase();
    if (type === 'text/html') return { ok: false, outcome: { kind: 'invalid', message: `Content-Type ${type} is an error page` } };
    let body: Buffer;
    try {
      body = decodeBody(res);
      if (isGzip(body)) body = gunzipSync(body);
    } catch (err) {
      return { ok: false, outcome: { kind: 'invalid', message: `corrupt body: ${(err as Error).message}` } };
    }
    const problem = check(body, res);
    return problem ? { ok: false, outcome: { kind: 'invalid', message: problem } } : { ok: true, value: body };
  };
}

/** A JSON document's bytes as received, or undefined on 404; `check` validates the parsed value. */
export async function fetchJsonDocument(
  ctx: CollectContext,
  path: string,
  check: (value: unknown) => string | undefined,
): Promise<{ bytes: Buffer; value: unknown } | undefined> {
  let parsed: unknown;
  const bytes = await ctx.client.request(
    ctx.client.resolve(path),
    judgeDocument((body) => {
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch (err) {
        return `not JSON: ${(err as Error).message}`;
      }
      return check(parsed);
    }),
    ctx.signal,
  );
  ctx.onDocument?.();
  return bytes === undefined ? undefined : { bytes, value: parsed };
}

/** Runs `fn` over items with at most `n` in flight; stops taking new items once `stop()` says so. */
export async function pool<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>, stop: () => boolean): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !stop()) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(n, items.length)) }, worker));
}


/**
 * Mirrors one document store (`{data}/{kind}/{id}.mbtiles`) with `collect`. Never throws for upstream or store
 * trouble: the result says what happened.
 */
export async function mirrorDocumentStore(ref: ResourceRef & { kind: DocumentKind }, opts: MirrorOptions, collect: Collector, deps: EngineDeps): Promise<MirrorResult> {
  const run = beginRun(opts, ref);
  if ('done' in run) return run.done;
  const { started, redact, log, resource, result, paths, client } = run;
  const progress = (): void =>
    opts.onProgress?.({
      resource,
      total: result.planned,
      done: result.fetched + result.failed,
      fetched: result.fetched,
      skipped: 0,
      failed: result.failed,
      bytes: client.stats.bytes,
      retries: client.stats.retries,
      elapsedMs: Date.now() - started,
    });
  try {
    const collected = await collect(ref, {
      client,
      signal: opts.signal,
      concurrency: Math.max(1, opts.concurrency ?? 8),
      published: existsSync(paths.published) ? paths.published : undefined,
      onDocument: () => {
        result.fetched++;
        if (result.fetched % 32 === 0) progress();
      },
    });
    result.planned = collected.planned;
    result.stored = collected.documents.length;
    result.empty = collected.absent;
    result.failed = collected.failures.length;
    result.fetched = Math.max(result.fetched - result.failed, result.stored + result.empty);
    result.failures.push(...collected.failures.slice(0, 20).map(redact));
    result.notes.push(...collected.notes.map(redact));
    for (const n of result.notes) log(`${resource}: ${n}`);

    if (opts.signal?.aborted) {
      result.status = 'interrupted';
      result.exitCode = 3;
      return result;
    }
    if (collected.missing) {
      result.problems.push(redact(collected.missing));
      return result;
    }
    if (collected.failures.length) {
      result.problems.push(`${collected.failures.length} documents failed; the published store is untouched, run again to retry`);
      return result;
    }
    // The key must not reach the store, whatever the upstream echoed.
    for (const d of collected.documents) assertNoSecret(d.data, opts.key, `${resource} ${d.path}`);
    assertNoSecret(JSON.stringify(collected.header), opts.key, `${resource} metadata`);

    // Prerequisites first: the store is published only when everything it names is.
    const pre: MirrorResult[] = [];
    for (const p of collected.prerequisites ?? []) {
      if (opts.signal?.aborted) break;
      log(`${resource}: mirroring ${p.kind}/${p.id}`);
      const r = await deps.runMirror({ ...opts, resource: p });
      pre.push(r);
      result.notes.push(dependencyLine(r));
      if (r.status === 'interrupted') break;
    }
    if (pre.length) result.dependencies = pre;
    if (opts.signal?.aborted || pre.some((r) => r.status === 'interrupted')) {
      result.status = 'interrupted';
      result.exitCode = 3;
      return result;
    }
    const unpublished = pre.filter((r) => r.status !== 'published');
    if (unpublished.length) {
      result.problems.push(`${unpublished.map((r) => r.resource).join(', ')} not published: ${ref.kind}/${ref.id} keeps its previous version`);
      return result;
    }

    const problems = publishDocuments(paths, collected.header, collected.documents, { fingerprint: fingerprint([client.base, ref.kind, ref.id, ref.upstreamPath ?? null]), upstream: client.base });
    if (problems.length) {
      result.problems.push(...problems);
      return result;
    }
    result.status = 'published';
    result.exitCode = 0;
    result.published = paths.published;
    result.writes = collected.documents.length;
  } catch (err) {
    recordRunError(run, err);
  } finally {
    endRun(run);
    progress();
  }
  return result;
}

/** The message of a failed document request, for the failures list. */
export function failureOf(path: string, err: unknown): string {
  return `${path}: ${err instanceof Error ? err.message : String(err)}`;
}
