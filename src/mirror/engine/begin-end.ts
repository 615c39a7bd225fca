// The opening and the end every run of a store shares, tile stores and document stores alike. Begin: the lock
// that keeps a second process off the store, the run's redacted log, an empty result, the store's paths and the
// upstream client. End: the client closed, the lock released, the request counts and the time recorded.

import { mkdirSync } from 'node:fs';
import { diskFullLine, isDiskFull } from '../../store/data-dir/disk-space';
import { acquireLock, type Lock } from '../../store/data-dir/lock';
import { storePaths, type StorePaths } from '../../store/mbtiles/staging';
import { sourceBase, sourceOrigins } from '../discovery/sources';
import { LockError, UpstreamError } from '../errors';
import type { ProgressSnapshot } from '../progress';
import type { ResourceRef } from '../resource';
import { UpstreamClient } from '../upstream/client';
import { createRedactor, type Redactor } from '../upstream/redact';
import { DEFAULT_CONCURRENCY, type MirrorOptions } from './options';
import { RequestBudgetReached } from '../upstream/request-budget';
import { budgetStopped, emptyResult, interrupted, type MirrorResult } from './result';

/** One run of one store, from its lock to its end: what every step works with. */
export interface Run {
  opts: MirrorOptions;
  ref: ResourceRef;
  /** `kind/id`, as the result and the log name it. */
  resource: string;
  started: number;
  redact: Redactor;
  /** The caller's log, every line redacted. */
  log: (line: string) => void;
  result: MirrorResult;
  paths: StorePaths;
  lock: Lock;
  client: UpstreamClient;
}

/** The upstream client of a run: a generic source's origin is its upstream, and the key goes there and nowhere else. */
export function createClient(opts: MirrorOptions, redact: Redactor): UpstreamClient {
  return new UpstreamClient({
    base: opts.source ? sourceBase(opts.source) : opts.upstream,
    key: opts.key,
    keyOrigins: opts.source ? sourceOrigins(opts.source) : undefined,
    connections: opts.concurrency ?? DEFAULT_CONCURRENCY,
    http2: opts.http2,
    rate: opts.rate,
    timeoutMs: opts.timeoutMs,
    retry: opts.retry,
    redact,
    budget: opts.budget,
    onRetry: (url, reason, delay) => opts.log?.(redact(`retrying ${url} in ${delay} ms: ${reason}`)),
  });
}

/** Locks the store and opens the run; or returns the finished (failed) result saying another run holds the store. */
export function beginRun(opts: MirrorOptions, ref: ResourceRef): Run | { done: MirrorResult } {
  const started = Date.now();
  const redact = createRedactor(opts.key);
  const log = (line: string): void => opts.log?.(redact(line));
  const resource = `${ref.kind}/${ref.id}`;
  const result = emptyResult(resource);
  const paths = storePaths(opts.dataDir, ref.kind, ref.id);
  mkdirSync(paths.dir, { recursive: true });
  let lock: Lock;
  try {
    lock = acquireLock(paths.lock);
  } catch (err) {
    if (!(err instanceof LockError)) throw err;
    result.problems.push(redact(err.message));
    log(`${resource}: ${err.message}`);
    result.elapsedMs = Date.now() - started;
    return { done: result };
  }
  let client: UpstreamClient;
  try {
    client = createClient(opts, redact);
  } catch (err) {
    lock.release();
    throw err;
  }
  return { opts, ref, resource, started, redact, log, result, paths, lock, client };
}

/**
 * How a run that threw ends: stopped by its signal (and not by an upstream answer) is `interrupted`, exit 3, to
 * resume later; anything else stays `failed` with the (redacted) reason among its problems.
 */
export function recordRunError(run: Run, err: unknown): void {
  if (err instanceof RequestBudgetReached) stopOnBudget(run, err);
  else if (isDiskFull(err)) {
    const line = diskFullLine(run.opts.dataDir);
    run.result.problems.push(line);
    run.log(`${run.resource}: ${line}`);
  } else if (run.opts.signal?.aborted && !(err instanceof UpstreamError)) interrupted(run.result);
  else run.result.problems.push(run.redact(err instanceof Error ? err.message : String(err)));
}

/** A run the request budget stopped: interrupted (resumable), said in one line. */
export function stopOnBudget(run: Run, err: RequestBudgetReached): void {
  run.log(`${run.resource}: stopped: ${budgetStopped(run.result, err)}`);
}

/** The end of every run, whatever happened: the client closed, the lock released, the request counts and time recorded. */
export function endRun(run: Run): void {
  const { result, client } = run;
  try {
    client.close();
  } finally {
    run.lock.release();
  }
  result.requests = client.stats.requests;
  result.bytes = client.stats.bytes;
  result.retries = client.stats.retries;
  result.hedges = client.stats.hedges;
  result.elapsedMs = Date.now() - run.started;
}

/** The run's progress so far. */
export function progressOf(run: Run): ProgressSnapshot {
  const { result, client } = run;
  return {
    resource: run.resource,
    total: result.planned,
    done: result.fetched + result.skipped + result.failed,
    fetched: result.fetched,
    skipped: result.skipped,
    failed: result.failed,
    bytes: client.stats.bytes,
    retries: client.stats.retries,
    elapsedMs: Date.now() - run.started,
  };
}
