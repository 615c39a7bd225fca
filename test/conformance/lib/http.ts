// HTTP for the conformance suite: plain GETs with nothing decoded by the client (the bytes, status and headers exactly
// as the server sent them), a bounded pool for the many tile requests, and the wording failure messages share.
import type { IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { rawGet } from '../../helpers/server';

export interface Answer {
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  /** The body after undoing a Content-Encoding: gzip (none is asked for, but a server may still send one). */
  body: Buffer;
  /** The media type of Content-Type without parameters, lower case; '' when absent. */
  mediaType: string;
  /** The whole Content-Type header, '' when absent. */
  contentType: string;
}

/** The media type of a Content-Type or Format value without its parameters, lower case. */
export function essence(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

export async function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const r = await rawGet(url, headers);
  const encoding = String(r.headers['content-encoding'] ?? '').toLowerCase();
  const body = encoding === 'gzip' ? gunzipSync(r.body) : r.body;
  const contentType = String(r.headers['content-type'] ?? '');
  return { url, status: r.status, headers: r.headers, body, mediaType: essence(contentType), contentType };
}

/** Runs `fn` over `items` with at most `limit` in flight, results in the order of `items`. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Tile requests in flight at once: enough to overlap I/O, few enough for two busy cores. */
export const TILE_CONCURRENCY = 4;

/** What came back, in one line for a failure message: status, Content-Type and the start of a textual body. */
export function summary(a: Answer): string {
  const textual = /xml|json|text|html/.test(a.mediaType);
  const start = textual ? ` «${a.body.toString('utf8').replace(/\s+/g, ' ').slice(0, 160)}»` : a.body.length ? ` (${a.body.length} bytes)` : ' (empty body)';
  return `${a.status} ${a.contentType || '(no Content-Type)'}${start}`;
}

/**
 * Fails with every problem found, one per line, or passes when there is none. A test that checks many layers, formats
 * or tiles collects the problems of all of them, so one run shows every case that is wrong, not just the first.
 * `checked` counts the cases actually looked at: none is a failure too (a check that found nothing to check has
 * shown nothing).
 */
export function assertNoProblems(problems: readonly string[], checked: number, what: string): void {
  if (!problems.length && checked < 1) throw new Error(`nothing was checked: 0 ${what}`);
  if (!problems.length) return;
  const shown = problems.slice(0, 60);
  const more = problems.length > shown.length ? `\n… and ${problems.length - shown.length} more` : '';
  throw new Error(`${problems.length} problem(s) in ${checked} ${what}:\n- ${shown.join('\n- ')}${more}`);
}

/** Appends KVP parameters to an advertised request URL prefix (OWS 06-121r3 §7.2.1: it may end with `?` or `&`). */
export function withParams(prefix: string, params: ReadonlyArray<readonly [string, string]>): string {
  const query = params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  if (!query) return prefix;
  if (prefix.endsWith('?') || prefix.endsWith('&')) return prefix + query;
  return prefix + (prefix.includes('?') ? '&' : '?') + query;
}
