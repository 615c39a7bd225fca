// The refresh rules, pure: which stored tiles are current (the max-age cutoff), what a revalidation asks
// (conditional headers), how an answer is judged, and what to write given what is stored and what came back.

import type { TileFormat } from '../store/types';
import type { Judgement } from './upstream/client';
import type { AttemptOutcome } from './upstream/retry';
import { validateTile, type TileVerdict } from './upstream/validate';

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

/** Judges an upstream tile answer: a usable verdict with its validators, or a failed attempt (retried or not). */
export function judgeTile(format: TileFormat, conditional = false) {
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

/**
 * Tiles the upstream vouched for after the cutoff are current; older ones are revalidated. A resumed run keeps
 * the cutoff of the run it continues (`previous`, as saved in the staging store), so what that run already
 * revalidated is not asked again.
 */
export function refreshCutoff(startedMs: number, maxAgeSeconds: number | undefined, resumed: boolean, previous: string | undefined): { maxAgeMs: number; cutoff: number } {
  const maxAgeMs = Math.max(0, maxAgeSeconds ?? DEFAULT_MAX_AGE) * 1000;
  try {
    const prev = JSON.parse(previous ?? 'null') as { maxAgeMs?: number; cutoff?: number } | null;
    if (resumed && prev?.maxAgeMs === maxAgeMs && typeof prev.cutoff === 'number') return { maxAgeMs, cutoff: prev.cutoff };
  } catch {
    /* unreadable: a fresh cutoff */
  }
  return { maxAgeMs, cutoff: startedMs - maxAgeMs };
}
