import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { brotliCompressSync, deflateRawSync, deflateSync, gunzipSync, gzipSync } from 'node:zlib';
import { checkPng, crc32, validateTile, type RawResponse } from '../../src/mirror/upstream/validate';

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A real 4x4 grey PNG: every chunk with its CRC. */
function makePng(): Buffer {
  const ihdr = Buffer.from([0, 0, 0, 4, 0, 0, 0, 4, 8, 0, 0, 0, 0]);
  const rows = Buffer.concat(Array.from({ length: 4 }, (_, i) => Buffer.from([0, 10 * i, 20 * i, 30 * i, 40 * i])));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}
const PNG = makePng();
const JPG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(20, 2), Buffer.from([0xff, 0xd9])]);
const MVT = Buffer.concat([Buffer.from([0x1a, 0x05]), Buffer.from('layer')]);

function res(status: number, body: Buffer, headers: Record<string, string> = {}): RawResponse {
  return { status, body, headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) };
}

describe('tile validation', () => {
  test('a complete png with the right type and length is stored as is', () => {
    const v = validateTile(res(200, PNG, { 'Content-Type': 'image/png', 'Content-Length': String(PNG.length) }), 'png');
    expect(v).toEqual({ kind: 'tile', data: PNG });
  });

  test('204 and 404 are empty tiles, not errors', () => {
    expect(validateTile(res(204, Buffer.alloc(0)), 'png')).toEqual({ kind: 'empty', status: 204 });
    expect(validateTile(res(404, Buffer.from('Not found')), 'pbf')).toEqual({ kind: 'empty', status: 404 });
  });

  test('5xx and 429 are retryable, 403 and 400 are not', () => {
    expect(validateTile(res(503, Buffer.alloc(0)), 'png')).toMatchObject({ kind: 'bad', retry: true, status: 503 });
    expect(validateTile(res(429, Buffer.alloc(0)), 'png')).toMatchObject({ kind: 'bad', retry: true, status: 429 });
    expect(validateTile(res(403, Buffer.from('Invalid key')), 'png')).toMatchObject({ kind: 'bad', retry: false, status: 403 });
    expect(validateTile(res(400, Buffer.from('Out of bounds')), 'png')).toMatchObject({ kind: 'bad', retry: false, status: 400 });
  });

  test('a body shorter than its Content-Length is rejected', () => {
    const v = validateTile(res(200, PNG.subarray(0, 10), { 'Content-Type': 'image/png', 'Content-Length': String(PNG.length) }), 'png');
    expect(v).toMatchObject({ kind: 'bad', retry: true });
  });

  test('a truncated png without Content-Length is caught by its missing IEND', () => {
    expect(validateTile(res(200, PNG.subarray(0, PNG.length - 4), { 'Content-Type': 'image/png' }), 'png')).toMatchObject({ kind: 'bad', reason: expect.stringContaining('truncated') });
    expect(validateTile(res(200, JPG.subarray(0, JPG.length - 1), { 'Content-Type': 'image/jpeg' }), 'jpg')).toMatchObject({ kind: 'bad' });
    expect(validateTile(res(200, JPG, { 'Content-Type': 'image/jpeg' }), 'jpg')).toEqual({ kind: 'tile', data: JPG });
  });

  test('wrong content type or magic bytes are rejected (an HTML error page with status 200)', () => {
    expect(validateTile(res(200, PNG, { 'Content-Type': 'text/html' }), 'png')).toMatchObject({ kind: 'bad', retry: true });
    expect(validateTile(res(200, Buffer.from('<html>oops</html>'), { 'Content-Type': 'image/png' }), 'png')).toMatchObject({ kind: 'bad' });
    expect(validateTile(res(200, JPG, { 'Content-Type': 'image/png' }), 'png')).toMatchObject({ kind: 'bad', reason: expect.stringContaining('jpg') });
    expect(validateTile(res(200, Buffer.alloc(0), { 'Content-Type': 'image/png' }), 'png')).toMatchObject({ kind: 'bad' });
  });

  test('gzip vector tiles are kept as sent; a corrupt stream is rejected', () => {
    const gz = gzipSync(MVT);
    expect(validateTile(res(200, gz, { 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'gzip' }), 'pbf')).toEqual({ kind: 'tile', data: gz });
    const corrupt = Buffer.from(gz);
    corrupt[corrupt.length - 6] ^= 0xff; // the CRC no longer matches
    expect(validateTile(res(200, corrupt, { 'Content-Encoding': 'gzip' }), 'pbf')).toMatchObject({ kind: 'bad', retry: true });
    expect(validateTile(res(200, gz.subarray(0, gz.length - 5), { 'Content-Encoding': 'gzip' }), 'pbf')).toMatchObject({ kind: 'bad' });
    expect(validateTile(res(200, MVT, { 'Content-Encoding': 'gzip' }), 'pbf')).toMatchObject({ kind: 'bad' });
  });

  test('a plain vector tile is stored gzipped; an empty one is an empty tile', () => {
    const v = validateTile(res(200, MVT, { 'Content-Type': 'application/vnd.mapbox-vector-tile' }), 'pbf');
    expect(v.kind).toBe('tile');
    if (v.kind === 'tile') expect(gunzipSync(v.data)).toEqual(MVT);
    expect(validateTile(res(200, Buffer.alloc(0), { 'Content-Type': 'application/x-protobuf' }), 'pbf')).toEqual({ kind: 'empty', status: 200 });
    expect(validateTile(res(200, Buffer.from('{"error":1}'), { 'Content-Type': 'application/x-protobuf' }), 'pbf')).toMatchObject({ kind: 'bad' });
  });

  test('CRC-32 is the PNG one', () => {
    expect(crc32(Buffer.from('IEND'))).toBe(0xae426082);
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });

  test('a png whose data has a flipped bit (magic bytes and IEND intact) is caught by the chunk CRC', () => {
    for (let bit = 0; bit < 8 * (PNG.length - 20); bit += 7) {
      const flipped = Buffer.from(PNG);
      const at = 8 + Math.floor(bit / 8);
      if (at >= PNG.length - 12) break;
      flipped[at] ^= 1 << bit % 8;
      expect(checkPng(flipped)).toBeDefined();
    }
    expect(checkPng(PNG)).toBeUndefined();
    // Garbage between a valid signature and a valid IEND.
    const garbage = Buffer.concat([PNG.subarray(0, 8), Buffer.alloc(40, 0x55), PNG.subarray(PNG.length - 12)]);
    expect(validateTile(res(200, garbage, { 'Content-Type': 'image/png' }), 'png')).toMatchObject({ kind: 'bad', retry: true });
    expect(checkPng(Buffer.concat([PNG, Buffer.from([0])]))).toMatch(/after IEND/);
  });

  test('every tile of the sample map passes the png check', () => {
    const db = new Database(resolve(__dirname, '../../mirror/maps/sample.mbtiles'), { readonly: true });
    try {
      const tiles = db.prepare('SELECT tile_data FROM tiles LIMIT 200').pluck().all() as Buffer[];
      expect(tiles.length).toBeGreaterThan(10);
      // Cheap enough for every tile: measured ~0.02 ms per 256/512 px tile (not asserted: timings vary by machine).
      for (const t of tiles) expect(checkPng(t)).toBeUndefined();
    } finally {
      db.close();
    }
  });

  test('304 is "not modified"', () => {
    expect(validateTile(res(304, Buffer.alloc(0)), 'png')).toEqual({ kind: 'not-modified' });
  });

  test('an unsupported encoding is not retried; a corrupt encoded body is', () => {
    expect(validateTile(res(200, PNG, { 'Content-Encoding': 'zstd', 'Content-Type': 'image/png' }), 'png')).toMatchObject({ kind: 'bad', retry: false });
    expect(validateTile(res(200, PNG, { 'Content-Encoding': 'br', 'Content-Type': 'image/png' }), 'png')).toMatchObject({ kind: 'bad', retry: true });
  });

  test('rasters in a transport encoding (tileserver-gl-light gzips its PNGs) are decoded, then checked', () => {
    for (const [encoding, body] of [
      ['gzip', gzipSync(PNG)],
      ['deflate', deflateSync(PNG)],
      ['deflate', deflateRawSync(PNG)],
      ['br', brotliCompressSync(PNG)],
    ] as const) {
      expect(validateTile(res(200, body, { 'Content-Encoding': encoding, 'Content-Type': 'image/png' }), 'png')).toEqual({ kind: 'tile', data: PNG });
    }
    const cut = gzipSync(PNG).subarray(0, 30);
    expect(validateTile(res(200, cut, { 'Content-Encoding': 'gzip' }), 'png')).toMatchObject({ kind: 'bad', retry: true });
  });

  test('the magic bytes decide under a generic or image Content-Type; another format than the source is permanent', () => {
    for (const t of ['application/octet-stream', 'binary/octet-stream', undefined, 'image/jpeg']) {
      expect(validateTile(res(200, PNG, t ? { 'Content-Type': t } : {}), 'png')).toEqual({ kind: 'tile', data: PNG });
    }
    // A PNG where the source has JPEG tiles: the upstream answers the same bytes to every retry.
    expect(validateTile(res(200, PNG, { 'Content-Type': 'image/jpeg' }), 'jpg')).toMatchObject({ kind: 'bad', retry: false, reason: expect.stringContaining('body is png') });
    expect(validateTile(res(200, JPG, { 'Content-Type': 'application/octet-stream' }), 'png')).toMatchObject({ kind: 'bad', retry: false });
    // Not an image at all under a generic type (a cut transfer, an error page): retried.
    expect(validateTile(res(200, Buffer.from('<html>busy</html>'), { 'Content-Type': 'application/octet-stream' }), 'png')).toMatchObject({ kind: 'bad', retry: true });
  });
});
