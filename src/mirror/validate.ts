// Every tile is checked before it is stored: a mirror that stores a truncated PNG or an HTML error page
// serves it for months. Pure functions of the response, so each rule is tested without a network.

import { gunzipSync, gzipSync } from 'node:zlib';
import { isGzip, sniffImageFormat } from '../store/formats';
import type { TileFormat } from '../store/types';

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

/** The raster really is the format and (png, jpg) ends as a complete file: catches truncated bodies without Content-Length. */
export function checkRaster(data: Buffer, format: 'png' | 'jpg' | 'webp'): string | undefined {
  const sniffed = sniffImageFormat(data);
  if (sniffed !== format) return `body is ${sniffed ?? 'not an image'}, expected ${format}`;
  if (format === 'png' && !data.subarray(data.length - 8).equals(PNG_END)) return 'png is truncated (no IEND chunk)';
  if (format === 'jpg' && !(data[data.length - 2] === 0xff && data[data.length - 1] === 0xd9)) return 'jpg is truncated (no EOI marker)';
  if (format === 'webp' && data.readUInt32LE(4) + 8 !== data.length) return 'webp size does not match its RIFF header';
  return undefined;
}

/**
 * Judges one tile response. `encoding` is the response's Content-Encoding: a gzip-encoded vector tile is kept
 * as sent (that is how it is stored); a plain one is gzipped here.
 */
export function validateTile(res: RawResponse, format: TileFormat): TileVerdict {
  const { status, body } = res;
  if (status === 204 || status === 404) return { kind: 'empty', status };
  if (status !== 200) {
    const retry = status === 429 || status === 408 || (status >= 500 && status !== 501);
    return { kind: 'bad', retry, reason: `HTTP ${status}`, status };
  }
  const declared = header(res, 'content-length');
  if (declared !== undefined && Number(declared) !== body.length) {
    return { kind: 'bad', retry: true, reason: `body of ${body.length} bytes, Content-Length says ${declared}` };
  }
  const type = header(res, 'content-type');
  if (!contentTypeMatches(type, format)) return { kind: 'bad', retry: true, reason: `Content-Type ${type} is not ${format}` };
  const encoding = (header(res, 'content-encoding') ?? 'identity').trim().toLowerCase();

  if (format === 'pbf') {
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

  if (encoding !== 'identity') return { kind: 'bad', retry: false, reason: `unexpected Content-Encoding ${encoding} on a ${format} tile` };
  if (body.length === 0) return { kind: 'bad', retry: true, reason: 'empty body' };
  if (format === 'basis') return { kind: 'tile', data: body };
  const problem = checkRaster(body, format);
  return problem ? { kind: 'bad', retry: true, reason: problem } : { kind: 'tile', data: body };
}
