// Upstream documents (JSON descriptions, glyph ranges, sprite files): how an answer is judged, and one JSON
// document fetched and checked.

import { gunzipSync } from 'node:zlib';
import { isGzip } from '../../store/bytes/formats';
import { decodeBody, type Judgement, type UpstreamClient } from './client';
import type { RawResponse } from './validate';

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * Judges a document response: 200 gives the body with its transfer gzip undone (also a gzip body sent without
 * Content-Encoding, as some glyph servers do), passed through `check` (a message: invalid, retried); 404 (and
 * 204) give undefined; other statuses are failed attempts (5xx and 429 retried by the client's policy).
 */
export function judgeDocument(check: (body: Buffer) => string | undefined) {
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
    const problem = check(body);
    return problem ? { ok: false, outcome: { kind: 'invalid', message: problem } } : { ok: true, value: body };
  };
}

/** A JSON document's bytes as received, or undefined on 404; `check` validates the parsed value. */
export async function fetchJsonDocument(
  client: UpstreamClient,
  path: string,
  check: (value: unknown) => string | undefined,
  signal?: AbortSignal,
): Promise<{ bytes: Buffer; value: unknown } | undefined> {
  let parsed: unknown;
  const bytes = await client.request(
    client.resolve(path),
    judgeDocument((body) => {
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch (err) {
        return `not JSON: ${(err as Error).message}`;
      }
      return check(parsed);
    }),
    signal,
  );
  return bytes === undefined ? undefined : { bytes, value: parsed };
}

/** The line a document that could not be fetched adds to the failures. */
export function failureOf(path: string, err: unknown): string {
  return `${path}: ${err instanceof Error ? err.message : String(err)}`;
}
