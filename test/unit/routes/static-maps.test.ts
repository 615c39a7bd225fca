// src/http/routes/static-maps.ts in process: an image of the sample map compared pixel for pixel with the stored
// tile it shows, @2x and the formats, the ETag known before rendering, the plans (403 for a free key), and the
// 400 naming the bad part of a request (the messages of test/integration/static-maps.errors.test.ts).

import sharp from 'sharp';
import * as staticMaps from '../../../src/http/routes/static-maps';
import { STATIC_MAP_400S } from '../../fixtures/bad-requests';
import { FREE_KEY, failure, inProcess, patternsOf, storeFile } from '../../helpers/in-process';
import { readStoredTile } from '../../helpers/stored-tiles';

const app = inProcess();
afterAll(() => app.close());

const TEXT = 'text/plain; charset=utf-8';
const OK = '/maps/sample/static/0,0,1/100x100.png';

async function raw(b: Buffer | undefined): Promise<{ width: number; height: number; data: Buffer }> {
  const { data, info } = await sharp(b).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

test('the route table gives static-maps.ts its one pattern', () => {
  expect(patternsOf(staticMaps)).toEqual(['/maps/:mapId/static/:area/:size([^/.@]+)[:scale(@\\d+x)].:format']);
});

test('a 512 x 512 image centred on a tile at its zoom is that stored tile, pixel for pixel', async () => {
  // The centre of tile 1/1/0: longitude 90, and the latitude of a quarter of the Mercator world's height.
  const lat = (Math.atan(Math.sinh(Math.PI / 2)) * 180) / Math.PI;
  const r = await app.get(`/maps/sample/static/90,${lat},1/512x512.png?attribution=false`);
  expect(r).toMatchObject({ status: 200, type: 'image/png', cache: 'tile' });
  expect(r.etag).toEqual(expect.any(String));
  const got = await raw(r.body);
  const expected = await raw(readStoredTile(storeFile('maps', 'sample'), { z: 1, x: 1, y: 0 }));
  expect([got.width, got.height]).toEqual([512, 512]);
  expect(Buffer.compare(got.data, expected.data)).toBe(0);
});

test('@2x doubles the pixels; jpg and webp as asked; bounds-based and auto views', async () => {
  expect(await sharp((await app.get('/maps/sample/static/0,0,1/100x80@2x.png')).body).metadata()).toMatchObject({ format: 'png', width: 200, height: 160 });
  for (const [ext, type, format] of [['jpg', 'image/jpeg', 'jpeg'], ['webp', 'image/webp', 'webp']]) {
    const r = await app.get(`/maps/sample/static/0,0,1/100x80.${ext}`);
    expect(r).toMatchObject({ status: 200, type, cache: 'tile' });
    expect(await sharp(r.body).metadata()).toMatchObject({ format, width: 100, height: 80 });
  }
  expect(await sharp((await app.get('/maps/sample/static/5,45,11,48/120x90.png')).body).metadata()).toMatchObject({ width: 120, height: 90 });
  expect(await sharp((await app.get('/maps/sample/static/auto/120x90.png?markers=8,47|9,46')).body).metadata()).toMatchObject({ width: 120, height: 90 });
});

test('the ETag is known before rendering: If-None-Match gets the reply without a body (answered 304)', async () => {
  const first = await app.get(`${OK}?markers=1,1`);
  const again = await app.get(`${OK}?markers=1,1`, { headers: { 'If-None-Match': `"${first.etag}"` } });
  expect(again).toEqual({ status: 200, type: 'image/png', cache: 'tile', etag: first.etag });
  expect((await app.get(`${OK}?markers=1,2`)).etag).not.toBe(first.etag);
});

test('paid plans only: a free key gets 403; an unknown map is 404', async () => {
  expect((await app.get(OK)).status).toBe(200);
  expect(failure(await app.get(OK, { key: FREE_KEY }))).toEqual({ status: 403, type: TEXT, message: 'Static maps are not available on the free plan' });
  expect(failure(await app.get('/maps/nowhere/static/0,0,1/100x100.png'))).toEqual({ status: 404, type: TEXT, message: 'Unknown map: nowhere' });
});

test('a render whose client went away is abandoned (499), not rendered', async () => {
  const gone = new AbortController();
  gone.abort();
  expect(failure(await app.get(OK, { signal: gone.signal }))).toEqual({ status: 499, type: TEXT, message: 'static map render abandoned: the client went away' });
});

test.each(STATIC_MAP_400S)('%s is 400 (%s)', async (path, message) => {
  expect(failure(await app.get(path))).toEqual({ status: 400, type: TEXT, message: expect.stringMatching(message) });
});

test('at most 100 path and markers parameters', async () => {
  const r = await app.get(OK, { query: { markers: Array.from({ length: 101 }, (_, i) => `${i % 90},1`) } });
  expect(failure(r)).toEqual({ status: 400, type: TEXT, message: expect.stringMatching(/Too many path and markers parameters: 101/) });
});

test('latlng swaps the order of query coordinates', async () => {
  expect((await app.get(OK, { query: { markers: '60,170' } })).status).toBe(400);
  expect((await app.get(OK, { query: { markers: '60,170', latlng: 'true' } })).status).toBe(200);
});

test('every route of static-maps.ts was reached, and nothing failed unexpectedly', () => {
  expect([...app.reached]).toEqual(expect.arrayContaining(patternsOf(staticMaps)));
  expect(app.failures).toEqual([]);
});
