import type { IncomingMessage, ServerResponse } from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import { digestTag } from '../store/bytes/etag';
import { MAX_PLAIN_TILE_BYTES } from '../store/bytes/plain-tiles';
import type { Reply } from './reply';

export interface CachePolicy {
  tilesMaxAge: number;
  documentsMaxAge: number;
}

/** Accept-Encoding allows gzip (and does not refuse it with q=0). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  const m = /(?:^|,)\s*(gzip|\*)\s*(?:;\s*q\s*=\s*([0-9.]+))?/i.exec(value);
  return !!m && (m[2] === undefined || Number(m[2]) > 0);
}

// The Cache-Control values of a policy, written once (not a template string per tile).
const cacheControls = new WeakMap<CachePolicy, { tile: string; document: string; none: string }>();

function cacheControl(reply: Reply, policy: CachePolicy): string {
  let values = cacheControls.get(policy);
  if (!values) {
    values = { tile: `public, max-age=${policy.tilesMaxAge}`, document: `public, max-age=${policy.documentsMaxAge}, must-revalidate`, none: 'no-cache' };
    cacheControls.set(policy, values);
  }
  return values[reply.cache];
}

/** True when an If-None-Match header lists the tag (or `*`); weak and strong forms compare equal. */
function matchesEtag(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const v = t.trim().replace(/^W\//, '');
    return v === '*' || v === tag;
  });
}

const MIN_COMPRESS = 512;

/**
 * Writes a Reply: Content-Type, Cache-Control, ETag (304 on If-None-Match), gzip negotiation, HEAD.
 * One function for the Express app and the fast tile path, so both answer alike. It never throws: a reply that
 * cannot be written as described (e.g. a header value Node refuses) answers a plain 500, or ends the connection
 * when the headers are already out; the error is returned for the caller to log. Otherwise returns the bytes of
 * the body written (0 for HEAD, 204, 304), for the metrics.
 */
export function sendReply(
  req: IncomingMessage,
  res: ServerResponse,
  reply: Reply,
  policy: CachePolicy,
  extraHeaders?: Record<string, string>,
): Error | number {
  try {
    return writeReply(req, res, reply, policy, extraHeaders);
  } catch (err) {
    if (!res.headersSent) {
      res.removeHeader('Content-Encoding');
      const body = Buffer.from('Internal error\n');
      res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-cache', 'Content-Length': body.length });
      res.end(req.method === 'HEAD' ? undefined : body);
    } else {
      res.destroy();
    }
    return err as Error;
  }
}

function writeReply(req: IncomingMessage, res: ServerResponse, reply: Reply, policy: CachePolicy, extraHeaders?: Record<string, string>): number {
  let body = reply.body;
  let encoded = false;
  // Accept-Encoding is read only for a body that could be sent gzipped (not for a PNG tile: a regex saved per request).
  if (body && reply.gzipped) {
    if (acceptsGzip(req.headers['accept-encoding'])) encoded = true;
    // Tile handlers supply `plain`; inflating here is the fallback for a reply without it (a throw is caught above).
    else body = reply.plain ?? gunzipSync(body, { maxOutputLength: MAX_PLAIN_TILE_BYTES });
  } else if (body && reply.compressible && body.length >= MIN_COMPRESS && acceptsGzip(req.headers['accept-encoding'])) {
    body = gzipSync(body, { level: 6 });
    encoded = true;
  }
  const baseTag = reply.etag ?? digestTag(reply.body ?? '');
  const tag = `"${baseTag}${encoded ? '-gz' : ''}"`;

  // A spread in the literal, not Object.assign: V8 copies a small object of a known shape without walking its keys.
  const headers: Record<string, string | number> = { 'Cache-Control': cacheControl(reply, policy), ETag: tag, ...extraHeaders };
  if (reply.headers) {
    // The reply's own Vary (Accept, say) adds to the dispatcher's (Origin, the X-Forwarded-* headers).
    const vary = headers.Vary;
    Object.assign(headers, reply.headers);
    if (vary && reply.headers.Vary) headers.Vary = `${vary}, ${reply.headers.Vary}`;
  }
  if (reply.gzipped || reply.compressible) headers.Vary = headers.Vary ? `${headers.Vary}, Accept-Encoding` : 'Accept-Encoding';

  // 204 too: an absent tile that is still absent revalidates like any other.
  if ((reply.status === 200 || reply.status === 204) && matchesEtag(req.headers['if-none-match'], tag)) {
    res.writeHead(304, headers);
    res.end();
    return 0;
  }
  if (reply.type) headers['Content-Type'] = reply.type;
  if (encoded) headers['Content-Encoding'] = 'gzip';
  if (reply.status === 204 || reply.status === 304 || !body) {
    res.writeHead(reply.status, headers);
    res.end();
    return 0;
  }
  headers['Content-Length'] = body.length;
  res.writeHead(reply.status, headers);
  if (req.method === 'HEAD') {
    res.end();
    return 0;
  }
  res.end(body);
  return body.length;
}
