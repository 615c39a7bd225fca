// src/http/routes/maps.ts in process: raster map tiles, 512 px and 256 px, @2x, other raster formats, and the
// answers to bad addresses, against the bytes the sample's map store holds.

import sharp from 'sharp';
import * as maps from '../../../src/http/routes/maps';
import { failure, inProcess, patternsOf, storeFile } from '../../helpers/in-process';
import { readStoredTile } from '../../helpers/stored-tiles';

const app = inProcess();
afterAll(() => app.close());

const MAP = storeFile('maps', 'sample');
const TILE = '/maps/:mapId/[:size(256)/]:z/:x/:y([^/.@]+)[:scale(@\\d+x)].:format';

const pixels = async (b: Buffer | undefined) => {
  const m = await sharp(b).metadata();
  return [m.width, m.height, m.format];
};

test('the route table gives maps.ts its one pattern', () => {
  expect(patternsOf(maps)).toEqual([TILE]);
});

test('a 512 px tile: the stored bytes, png, cached as a tile with an ETag', async () => {
  const r = await app.get('/maps/sample/2/1/1.png');
  expect(r).toMatchObject({ status: 200, type: 'image/png', cache: 'tile' });
  expect(r.etag).toEqual(expect.any(String));
  expect(r.body?.equals(readStoredTile(MAP, { z: 2, x: 1, y: 1 }))).toBe(true);
  expect(await pixels(r.body)).toEqual([512, 512, 'png']);
});

test('a 256 px tile under /256/: the bytes of the 256 px pyramid', async () => {
  const r = await app.get('/maps/sample/256/2/1/1.png');
  expect(r).toMatchObject({ status: 200, type: 'image/png', cache: 'tile' });
  expect(r.body?.equals(readStoredTile(MAP, { z: 2, x: 1, y: 1 }, '256'))).toBe(true);
  expect(await pixels(r.body)).toEqual([256, 256, 'png']);
});

test('@2x doubles the pixels of the same area, for both sizes, upscaled at the deepest zoom', async () => {
  expect(await pixels((await app.get('/maps/sample/3/4/2@2x.png')).body)).toEqual([1024, 1024, 'png']);
  expect(await pixels((await app.get('/maps/sample/256/3/4/2@2x.png')).body)).toEqual([512, 512, 'png']);
  const deepest = await app.get('/maps/sample/5/10/12@2x.png');
  expect(deepest).toMatchObject({ status: 200, type: 'image/png', cache: 'tile' });
  expect(await pixels(deepest.body)).toEqual([1024, 1024, 'png']);
});

test.each([
  ['jpg', 'image/jpeg', 'jpeg'],
  ['webp', 'image/webp', 'webp'],
])('%s is converted from the stored png, with a stable ETag', async (ext, type, format) => {
  const r = await app.get(`/maps/sample/1/0/0.${ext}`);
  expect(r).toMatchObject({ status: 200, type, cache: 'tile' });
  expect(await pixels(r.body)).toEqual([512, 512, format]);
  expect((await app.get(`/maps/sample/1/0/0.${ext}`)).etag).toBe(r.etag);
});

test('unknown query parameters are ignored', async () => {
  expect((await app.get('/maps/sample/0/0/0.png', { query: { foo: 'bar', f: 'json' } })).status).toBe(200);
});

describe('bad addresses are 400 naming the part, unknown maps 404', () => {
  test.each([
    ['/maps/sample/1/2/0.png', 'Out of bounds: tile 1/2/0 does not exist'],
    ['/maps/sample/1/1/0.gif', 'Invalid format: gif (use png, jpg, webp or basis)'],
    ['/maps/sample/1/1/0@3x.png', 'Invalid scale: @3x (only @2x)'],
    ['/maps/sample/0/0/0.basis', 'Invalid format: basis tiles are not mirrored for this map'],
  ])('%s → 400 %s', async (path, text) => {
    expect(failure(await app.get(path))).toEqual({ status: 400, type: 'text/plain; charset=utf-8', message: text });
  });

  test.each([
    ['/maps/sample/a/0/0.png', /^Invalid z\b/],
    ['/maps/sample/-1/0/0.png', /^Invalid z\b/],
    ['/maps/sample/1e1/0/0.png', /^Invalid z\b/],
    ['/maps/sample/1/0/2.png', /^Out of bounds: tile 1\/0\/2\b/],
    ['/maps/sample/6/0/0.png', /^Out of bounds: zoom 6\b/],
    ['/maps/sample/99/0/0.png', /^Out of bounds: zoom 99\b/],
    ['/maps/sample/0/0/0.PNGX', /^Invalid format: PNGX\b/],
    ['/maps/sample/1/0/1.5.png', /^Invalid format\b/],
    ['/maps/%E0%A4%A/0/0/0.png', /^Invalid percent-encoding in the path$/],
  ])('%s → 400 %s', async (path, text) => {
    const r = failure(await app.get(path));
    expect(r).toEqual({ status: 400, type: 'text/plain; charset=utf-8', message: expect.stringMatching(text) });
    expect(r.message.length).toBeLessThan(200);
  });

  test.each(['/maps/nope/0/0/0.png', '/maps/nope/256/0/0/0.png', '/maps/nope/0/0/0@2x.png'])('%s → 404 Unknown map: nope', async (path) => {
    expect(failure(await app.get(path))).toEqual({ status: 404, type: 'text/plain; charset=utf-8', message: 'Unknown map: nope' });
  });
});

test('every route of maps.ts was reached, and nothing failed unexpectedly', () => {
  expect([...app.reached]).toEqual(expect.arrayContaining(patternsOf(maps)));
  expect(app.failures).toEqual([]);
});
