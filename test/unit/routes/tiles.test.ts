// src/http/routes/tiles.ts in process: tiles of tile sets and images as stored (gzip kept or inflated), absent
// tiles, other raster formats, bad addresses and unknown ids, against the bytes the sample's stores hold.

import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import sharp from 'sharp';
import * as tiles from '../../../src/http/routes/tiles';
import { DAMAGED_GZIP, writeDamagedVectorStore } from '../../fixtures/hand-made-stores';
import { failure, inProcess, patternsOf, plainBody, storeFile } from '../../helpers/in-process';
import { readStoredTile } from '../../helpers/stored-tiles';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-damaged-');

const app = inProcess();
afterAll(() => app.close());

const VECTOR = storeFile('tiles', 'sample-vector');
const TEXT = 'text/plain; charset=utf-8';
/** A table row's test: the path answers `status` in plain text with this message, or one matching this pattern. */
const refused = (status: number) => async (path: string, message: string | RegExp) => {
  expect(failure(await app.get(path))).toEqual({ status, type: TEXT, message: typeof message === 'string' ? message : expect.stringMatching(message) });
};

test('the route table gives tiles.ts its two patterns', () => {
  expect(patternsOf(tiles)).toEqual(['/tiles/:tilesId/:z/:x/:y([^/.@]+)[.:ext]', '/images/:imageId/:z/:x/:y([^/.@]+)[.:ext]']);
});

describe('tile sets', () => {
  test('a vector tile: gzip as stored for a client that accepts it, inflated for the others', async () => {
    const stored = readStoredTile(VECTOR, { z: 0, x: 0, y: 0 });
    const gz = await app.get('/tiles/sample-vector/0/0/0', { headers: { 'Accept-Encoding': 'gzip, deflate' } });
    expect(gz).toMatchObject({ status: 200, type: 'application/x-protobuf', cache: 'tile', gzipped: true });
    expect(gz.body?.equals(stored)).toBe(true);
    expect(gz.plain).toBeUndefined();
    const plain = await app.get('/tiles/sample-vector/0/0/0', { headers: { 'Accept-Encoding': 'identity' } });
    expect(plainBody(plain)?.equals(gunzipSync(stored))).toBe(true);
    expect(plain.etag).toBe(gz.etag);
  });

  test.each(['pbf', 'mvt'])('the .%s extension names the stored vector format', async (ext) => {
    const r = await app.get(`/tiles/sample-vector/0/0/0.${ext}`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(r).toMatchObject({ status: 200, type: 'application/x-protobuf' });
    expect(r.body?.equals(readStoredTile(VECTOR, { z: 0, x: 0, y: 0 }))).toBe(true);
  });

  test('an absent tile inside the bounds and zooms is 204, cached as a tile, with the empty ETag', async () => {
    expect(await app.get('/tiles/sample-vector/3/1/5')).toEqual({ status: 204, cache: 'tile', etag: 'empty' });
    expect(await app.get('/tiles/sample-vector/5/0/14.pbf')).toEqual({ status: 204, cache: 'tile', etag: 'empty' });
  });

  test('a terrain tile inside the bounds, as stored; in another raster format when asked', async () => {
    const r = await app.get('/tiles/sample-terrain/8/133/90');
    expect(r).toMatchObject({ status: 200, type: 'image/png', cache: 'tile' });
    expect(r.body?.equals(readStoredTile(storeFile('tiles', 'sample-terrain'), { z: 8, x: 133, y: 90 }))).toBe(true);
    const jpeg = await app.get('/tiles/sample-terrain/8/133/90.jpeg');
    expect(jpeg).toMatchObject({ status: 200, type: 'image/jpeg', cache: 'tile' });
    expect((await sharp(jpeg.body).metadata()).format).toBe('jpeg');
  });

  test('a weather keyframe is a plain tile set', async () => {
    const r = await app.get('/tiles/sample-temperature-0000/1/1/1.png');
    expect(r).toMatchObject({ status: 200, type: 'image/png' });
    expect(r.body?.equals(readStoredTile(storeFile('tiles', 'sample-temperature-0000'), { z: 1, x: 1, y: 1 }))).toBe(true);
  });

  test.each([
    ['/tiles/sample-vector/0/0/0.png', 'Invalid format: png (this tileset holds pbf)'],
    ['/tiles/sample-vector/6/0/0', 'Out of bounds: zoom 6 is outside 0-5'],
    ['/tiles/sample-terrain/11/530/360', 'Out of bounds: zoom 11 is outside 0-10'],
  ])('%s → 400 %s', refused(400));

  test.each([
    ['/tiles/sample-vector/0/0/x', /^Invalid y\b/],
    ['/tiles/sample-vector/99999999999/0/0', /^Invalid z\b/],
    ['/tiles/sample-terrain/10/0/0', /^Out of bounds: tile 10\/0\/0\b/],
  ])('%s → 400 %s', refused(400));

  test('an unknown tile set is 404', async () => {
    expect(failure(await app.get('/tiles/nope/0/0/0'))).toEqual({ status: 404, type: TEXT, message: 'Unknown tileset: nope' });
  });
});

describe('images', () => {
  const IMAGE = storeFile('images', 'sample-image');

  test('a tile of the image pyramid, as stored, with or without its extension', async () => {
    for (const path of ['/images/sample-image/3/0/3', '/images/sample-image/3/0/3.png']) {
      const r = await app.get(path);
      expect(r).toMatchObject({ status: 200, type: 'image/png', cache: 'tile' });
      expect(r.body?.equals(readStoredTile(IMAGE, { z: 3, x: 0, y: 3 }))).toBe(true);
    }
    expect(await sharp((await app.get('/images/sample-image/0/0/0.webp')).body).metadata()).toMatchObject({ format: 'webp', width: 256 });
  });

  test.each([
    ['/images/sample-image/0/1/0', 'Out of bounds: tile 0/1/0 does not exist'],
    ['/images/sample-image/9/0/0', 'Out of bounds: zoom 9 is outside 0-3'],
    ['/images/sample-image/0/0/0.gif', 'Invalid format: gif (this image holds png)'],
  ])('%s → 400 %s', refused(400));

  test('an unknown image is 404', async () => {
    expect(failure(await app.get('/images/nope/0/0/0'))).toEqual({ status: 404, type: TEXT, message: 'Unknown image: nope' });
  });
});

describe('a damaged stored tile', () => {
  const data = tempDir();
  writeDamagedVectorStore(join(data, 'tiles', 'bad.mbtiles'));
  const damaged = inProcess({ dataDir: data });
  afterAll(async () => {
    await damaged.close();
    removeTempDirs();
  });

  test('is 500 "Damaged tile" for a client that needs it inflated, the stored bytes for one that accepts gzip', async () => {
    expect(failure(await damaged.get('/tiles/bad/0/0/0'))).toEqual({ status: 500, type: TEXT, message: expect.stringMatching(/^Damaged tile/) });
    const gz = await damaged.get('/tiles/bad/0/0/0', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gz).toMatchObject({ status: 200, gzipped: true });
    expect(gz.body?.equals(DAMAGED_GZIP)).toBe(true);
  });
});

test('every route of tiles.ts was reached, and nothing failed unexpectedly', () => {
  expect([...app.reached]).toEqual(expect.arrayContaining(patternsOf(tiles)));
  expect(app.failures).toEqual([]);
});
