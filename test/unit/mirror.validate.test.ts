import { gunzipSync, gzipSync } from 'node:zlib';
import { validateTile, type RawResponse } from '../../src/mirror/validate';

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(20, 1),
  Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]),
]);
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

  test('an unsupported encoding is not retried', () => {
    expect(validateTile(res(200, PNG, { 'Content-Encoding': 'br', 'Content-Type': 'image/png' }), 'png')).toMatchObject({ kind: 'bad', retry: false });
  });
});
