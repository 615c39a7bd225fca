// The opening every run shares, for tile stores and document stores alike: its redacted log, an empty result,
// the store's paths, and the lock that keeps a second process off the same store.

import { mkdirSync } from 'node:fs';
import type { StoreKind } from '../../store/types';
import { acquireLock, type Lock } from '../../store/lock';
import { LockError, UpstreamError } from '../errors';
import type { UpstreamClient } from '../upstream/client';
import { createRedactor, type Redactor } from '../upstream/redact';
import type { MirrorOptions, MirrorResult } from './run';
import { storePaths, type StorePaths } from '../../store/staging';

export interface RunStart {
  started: number;
  redact: Redactor;
  log: (line: string) => void;
  resource: string;
  result: MirrorResult;
  paths: StorePaths;
}

/** Locks the store, or returns the finished (failed) result saying another run holds it. */
export function beginRun(opts: MirrorOptions, ref: { kind: StoreKind; id: string }): (RunStart & { lock: Lock }) | { done: MirrorResult } {
  const started = Date.now();
  const redact = createRedactor(opts.key);
  const log = (line: string): void => opts.log?.(redact(line));
  const resource = `${ref.kind}/${ref.id}`;
  const result = emptyResult(resource);
  const paths = storePaths(opts.dataDir, ref.kind, ref.id);
  mkdirSync(paths.dir, { recursive: true });
  try {
    return { started, redact, log, resource, result, paths, lock: acquireLock(paths.lock) };
  } catch (err) {
    if (!(err instanceof LockError)) throw err;
    result.problems.push(redact(err.message));
    log(`${resource}: ${err.message}`);
    result.elapsedMs = Date.now() - started;
    return { done: result };
  }
}

/** A result with nothing done yet: `failed` until the run says otherwise. */
export function emptyResult(resource: string): MirrorResult {
  return {
    resource,
    status: 'failed',
    exitCode: 1,
    planned: 0,
    fetched: 0,
    stored: 0,
    empty: 0,
    skipped: 0,
    revalidated: 0,
    unchanged: 0,
    notModified: 0,
    writes: 0,
    failed: 0,
    failedPermanently: 0,
    failures: [],
    requests: 0,
    retries: 0,
    bytes: 0,
    elapsedMs: 0,
    notes: [],
    problems: [],
  };
}

/**
 * How a run that threw ends: stopped by its signal (and not by an upstream answer) is `interrupted`, exit 3, to
 * resume later; anything else stays `failed` with the (redacted) reason among its problems.
 */
export function recordRunError(result: MirrorResult, err: unknown, signal: AbortSignal | undefined, redact: Redactor): void {
  if (signal?.aborted && !(err instanceof UpstreamError)) {
    result.status = 'interrupted';
    result.exitCode = 3;
  } else {
    result.problems.push(redact(err instanceof Error ? err.message : String(err)));
  }
}

/** The end of every run, whatever happened: the client closed, the lock released, the request counts and time recorded. */
export function endRun(result: MirrorResult, client: UpstreamClient, lock: Lock, started: number): void {
  try {
    client.close();
  } finally {
    lock.release();
  }
  result.requests = client.stats.requests;
  result.bytes = client.stats.bytes;
  result.retries = client.stats.retries;
  result.elapsedMs = Date.now() - started;
}
