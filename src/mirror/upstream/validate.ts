// Every tile is checked before it is stored: a mirror that stores a truncated PNG or an HTML error page
// serves it for months. Pure functions of the response, so each rule is tested without a network.

import * as zlib from 'node:zlib';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ogcException } from './ogc-exception';
import { isGzip, sniffImageFormat } from '../../store/bytes/formats';
import type { TileFormat } from '../../store/types';

/** A response as the client received it: bytes exactly as sent (no content decoding). */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export type TileVerdict =
  /** Bytes to store (pbf: gzip-compressed, as the sample and the MBTiles convention have them). */
  | { kind: 'tile'; data: Buffer }
  /** Inside the bounds but nothing there (204, 404, an empty vector tile): recorded, served as 204. */
  | { kind: 'empty'; status: number }
  /** 304 to a conditional request: the stored tile is still current. */
  | { kind: 'not-modified' }
  /** Not storable: `retry` says whether another attempt might do better. */
  | { kind: 'bad'; retry: boolean; reason: string; status?: number };

export function header(res: RawResponse, name: string): string | undefined {
  const v = res.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}

const TYPES: Record<TileFormat, string[]> = {
  png: ['image/png'],
  jpg: ['image/jpeg', 'image/jpg'],
  webp: ['image/webp'],
  pbf: ['application/x-protobuf', 'application/vnd.mapbox-vector-tile', 'application/octet-stream', 'application/protobuf'],
  basis: ['image/basis', 'application/octet-stream'],
};

/** Whether a Content-Type (parameters ignored) is one a tile of this format may carry; absent is tolerated. */
export function contentTypeMatches(contentType: string | undefined, format: TileFormat): boolean {
  if (!contentType) return true;
  const base = contentType.split(';')[0].trim().toLowerCase();
  return TYPES[format].includes(base);
}

const PNG_END = Buffer.from([0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);

let CRC_TABLE: Int32Array | undefined;

/** CRC-32 (the PNG and gzip one): zlib's when this Node has it (20.15+), else a table. */
export function crc32(data: Uint8Array): number {
  const native = (zlib as { crc32?: (d: Uint8Array) => number }).crc32;
  if (native) return native(data) >>> 0;
  if (!CRC_TABLE) {
    CRC_TABLE = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      CRC_TABLE[n] = c;
    }
  }
  let c = -1;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/**
 * Walks a PNG's chunks and checks every chunk's CRC: catches bit flips and garbage behind valid magic bytes
 * (the case a magic-byte and IEND check misses) at the cost of one CRC pass (~50 µs for a 256 px tile),
 * far cheaper than decoding. Structure too: IHDR first, IEND last, nothing after it.
 */
export function checkPng(data: Buffer): string | undefined {
  let at = 8;
  let first = true;
  while (at + 12 <= data.length) {
    const len = data.readUInt32BE(at);
    const end = at + 12 + len;
    if (len > 0x7fffffff || end > data.length) return 'png is truncated (a chunk runs past the end)';
    const type = data.toString('latin1', at + 4, at + 8);
    if (first && type !== 'IHDR') return 'png does not start with IHDR';
    first = false;
    if (crc32(data.subarray(at + 4, at + 8 + len)) !== data.readUInt32BE(at + 8 + len)) return `png chunk ${type} at ${at} is corrupt (CRC mismatch)`;
    at = end;
    if (type === 'IEND') return at === data.length ? undefined : 'png has bytes after IEND';
  }
  return 'png is truncated (no IEND chunk)';
}

/** The raster really is the format and (png, jpg) ends as a complete file: catches truncated bodies without Content-Length. */
export function checkRaster(data: Buffer, format: 'png' | 'jpg' | 'webp'): string | undefined {
  const sniffed = sniffImageFormat(data);
  if (sniffed !== format) return `body is ${sniffed ?? 'not an image'}, expected ${format}`;
  if (format === 'png' && !data.subarray(data.length - 8).equals(PNG_END)) return 'png is truncated (no IEND chunk)';
  if (format === 'png') return checkPng(data);
  if (format === 'jpg' && !(data[data.length - 2] === 0xff && data[data.length - 1] === 0xd9)) return 'jpg is truncated (no EOI marker)';
  if (format === 'webp' && data.readUInt32LE(4) + 8 !== data.length) return 'webp size does not match its RIFF header';
  return undefined;
}

/**
 * Undoes a transport Content-Encoding (gzip, deflate, br): some servers compress every answer, rasters included
 * (tileserver-gl-light gzips its PNG tiles). Undefined for an encoding we do not know; throws on a corrupt stream.
 */
export function decodeTransport(body: Buffer, encoding: string): Buffer | undefined {
  switch (encoding) {
    case 'identity':
      return body;
    case 'gzip':
    case 'x-gzip':
      return zlib.gunzipSync(body);
    case 'deflate':
      // RFC 9110 says zlib-wrapped; some servers send raw deflate.
      try {
        return zlib.inflateSync(body);
      } catch {
        return zlib.inflateRawSync(body);
      }
    case 'br':
      return zlib.brotliDecompressSync(body);
    default:
      return undefined;
  }
}

/** Content-Types that say nothing about the bytes (object stores send these): the magic bytes decide. */
const GENERIC_TYPES = new Set(['application/octet-stream', 'binary/octet-stream', 'application/binary', 'application/unknown']);

/**
 * Judges one tile response. A vector tile gzip-encoded in transport is kept as sent (that is how it is stored);
 * a plain one is gzipped here. A raster sent with a transport encoding is decoded first. Where the Content-Type
 * is generic, absent or another image type, the magic bytes say what the body is; a body in another image format
 * than the pyramid's is a permanent failure (a retry gets the same bytes), a body that is no image at all (an
 * error page, a cut transfer) is retried.
 */
export function validateTile(res: RawResponse, format: TileFormat): TileVerdict {
  const { status } = res;
  if (status === 204 || status === 404) return { kind: 'empty', status };
  if (status === 304) return { kind: 'not-modified' };
  if (status !== 200) {
    const retry = status === 429 || status === 408 || (status >= 500 && status !== 501);
    return { kind: 'bad', retry, reason: `HTTP ${status}`, status };
  }
  const declared = header(res, 'content-length');
  if (declared !== undefined && Number(declared) !== res.body.length) {
    return { kind: 'bad', retry: true, reason: `body of ${res.body.length} bytes, Content-Length says ${declared}` };
  }
  const type = header(res, 'content-type');
  const encoding = (header(res, 'content-encoding') ?? 'identity').trim().toLowerCase();

  if (format === 'pbf') {
    const { body } = res;
    if (!contentTypeMatches(type, format)) return { kind: 'bad', retry: true, reason: `Content-Type ${type} is not ${format}` };
    if (encoding !== 'identity' && encoding !== 'gzip') return { kind: 'bad', retry: false, reason: `unsupported Content-Encoding ${encoding}` };
    if (body.length === 0) return { kind: 'empty', status };
    if (encoding === 'gzip' || isGzip(body)) {
      if (!isGzip(body)) return { kind: 'bad', retry: true, reason: 'Content-Encoding gzip but the body is not gzip' };
      let plain: Buffer;
      try {
        // Inflating proves the stream is complete and uncorrupted (a CRC check); the gzip bytes are what is kept.
        plain = gunzipSync(body);
      } catch (err) {
        return { kind: 'bad', retry: true, reason: `corrupt gzip: ${(err as Error).message}` };
      }
      return plain.length === 0 ? { kind: 'empty', status } : { kind: 'tile', data: body };
    }
    // A plain protobuf: its first byte is a field key; layers are field 3 (wire type 2) = 0x1a.
    if (body[0] !== 0x1a) return { kind: 'bad', retry: true, reason: 'body is not a vector tile (first byte is not a layer)' };
    return { kind: 'tile', data: gzipSync(body, { level: 6 }) };
  }

  let body: Buffer | undefined;
  try {
    body = decodeTransport(res.body, encoding);
  } catch (err) {
    return { kind: 'bad', retry: true, reason: `corrupt ${encoding} body: ${(err as Error).message}` };
  }
  if (!body) return { kind: 'bad', retry: false, reason: `unsupported Content-Encoding ${encoding} on a ${format} tile` };
  if (body.length === 0) return { kind: 'bad', retry: true, reason: 'empty body' };
  if (format === 'basis') return contentTypeMatches(type, format) ? { kind: 'tile', data: body } : { kind: 'bad', retry: true, reason: `Content-Type ${type} is not ${format}` };
  const sniffed = sniffImageFormat(body);
  // A WMS ServiceException (or OWS ExceptionReport) in place of the image: permanent when its code names a fault in
  // the request (LayerNotDefined, TileOutOfRange…), retried when it is the server's own trouble (no code).
  const exception = sniffed ? undefined : ogcException(body);
  if (exception !== undefined) return { kind: 'bad', retry: !exception.permanent, reason: `the server answered with an OGC exception: ${exception.text}` };
  const base = type?.split(';')[0].trim().toLowerCase();
  if (sniffed && sniffed !== format) {
    return { kind: 'bad', retry: false, reason: `body is ${sniffed}${type ? ` (Content-Type ${type})` : ''}, the source's tiles are ${format}: not retried, the upstream answers the same` };
  }
  // An image type may be wrong (the bytes decide); a document type (text/html, JSON) is an error page or a
  // portal's answer whatever its first bytes, worth another try.
  if (base && !GENERIC_TYPES.has(base) && !base.startsWith('image/')) return { kind: 'bad', retry: true, reason: `Content-Type ${type} is not ${format}` };
  if (!sniffed && base && !GENERIC_TYPES.has(base) && !contentTypeMatches(type, format)) {
    return { kind: 'bad', retry: true, reason: `Content-Type ${type} is not ${format}` };
  }
  const problem = checkRaster(body, format);
  return problem ? { kind: 'bad', retry: true, reason: problem } : { kind: 'tile', data: body };
}
