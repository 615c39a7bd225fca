import { join } from 'node:path';
import sharp from 'sharp';
import request from 'supertest';
import { gunzipSync } from 'node:zlib';
import { rawGet, SAMPLE_DIR, startServer, type TestServer } from '../helpers/server';
import { readStoredTile } from '../helpers/stored-tiles';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());

const MAP = join(SAMPLE_DIR, 'maps/sample.mbtiles');
const binary = (path: string, encoding = 'identity') =>
  request(srv.url)
    .get(path)
    .set('Accept-Encoding', encoding)
    .buffer(true)
    .parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
const size = async (b: Buffer) => {
  const m = await sharp(b).metadata();
  return [m.width, m.height, m.format];
};

describe('map tiles', () => {
  test('512 px by default, 256 px under /256/, bytes as stored', async () => {
    const big = await binary('/maps/sample/2/1/1.png?key=demo');
    expect(big.status).toBe(200);
    expect(big.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(big.body, readStoredTile(MAP, { z: 2, x: 1, y: 1 }))).toBe(0);
    expect(await size(big.body)).toEqual([512, 512, 'png']);
    const small = await binary('/maps/sample/256/2/1/1.png?key=demo');
    expect(Buffer.compare(small.body, readStoredTile(MAP, { z: 2, x: 1, y: 1 }, '256'))).toBe(0);
    expect(await size(small.body)).toEqual([256, 256, 'png']);
  });

  test('@2x doubles the pixels of the same area', async () => {
    const r256 = await binary('/maps/sample/256/3/4/2@2x.png?key=demo');
    expect(await size(r256.body)).toEqual([512, 512, 'png']);
    const r512 = await binary('/maps/sample/3/4/2@2x.png?key=demo');
    expect(await size(r512.body)).toEqual([1024, 1024, 'png']);
    // At the deepest zoom there is no finer level to mosaic: the tile is upscaled.
    const deepest = await binary('/maps/sample/5/10/12@2x.png?key=demo');
    expect(await size(deepest.body)).toEqual([1024, 1024, 'png']);
  });

  test.each([
    ['jpg', 'image/jpeg', 'jpeg'],
    ['webp', 'image/webp', 'webp'],
  ])('%s is converted from the stored png', async (ext, type, format) => {
    const r = await binary(`/maps/sample/1/0/0.${ext}?key=demo`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(type);
    expect(await size(r.body)).toEqual([512, 512, format]);
    const again = await binary(`/maps/sample/1/0/0.${ext}?key=demo`);
    expect(again.headers.etag).toBe(r.headers.etag);
  });

  test('HEAD answers headers without a body', async () => {
    const r = await request(srv.url).head('/maps/sample/0/0/0.png?key=demo');
    expect(r.status).toBe(200);
    expect(Number(r.headers['content-length'])).toBeGreaterThan(0);
    expect(r.body).toEqual({});
  });
});

describe('tile sets', () => {
  test('vector tiles keep gzip for clients that accept it and are decompressed for the others', async () => {
    const stored = readStoredTile(join(SAMPLE_DIR, 'tiles/sample-vector.mbtiles'), { z: 0, x: 0, y: 0 });
    const gz = await rawGet(`${srv.url}/tiles/sample-vector/0/0/0?key=demo`, { 'Accept-Encoding': 'gzip, deflate' });
    expect(gz.headers['content-type']).toBe('application/x-protobuf');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(Buffer.compare(gz.body, stored)).toBe(0);
    const plain = await rawGet(`${srv.url}/tiles/sample-vector/0/0/0?key=demo`, { 'Accept-Encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(Buffer.compare(plain.body, gunzipSync(stored))).toBe(0);
    expect(plain.headers.etag).not.toBe(gz.headers.etag);
    expect(gz.headers.vary).toMatch(/Accept-Encoding/);
  });

  test('the .pbf extension is accepted for vector tiles', async () => {
    expect((await binary('/tiles/sample-vector/0/0/0.pbf?key=demo')).status).toBe(200);
  });

  test('an absent tile inside bounds and zooms is 204 with an empty body', async () => {
    const r = await binary('/tiles/sample-vector/3/1/5?key=demo');
    expect(r.status).toBe(204);
    expect(r.body.length).toBe(0);
    expect(r.headers['cache-control']).toMatch(/max-age/);
    expect(r.headers.etag).toBeDefined();
  });

  test('terrain tiles inside the bounds are served, as stored', async () => {
    const file = join(SAMPLE_DIR, 'tiles/sample-terrain.mbtiles');
    const r = await binary('/tiles/sample-terrain/8/133/90?key=demo');
    expect(r.status).toBe(200);
    expect(Buffer.compare(r.body, readStoredTile(file, { z: 8, x: 133, y: 90 }))).toBe(0);
  });
});

describe('images', () => {
  test('image tiles and image.json', async () => {
    const j = await request(srv.url).get('/images/sample-image/image.json?key=demo');
    expect(j.status).toBe(200);
    expect(j.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(j.body).sort()).toEqual(['attribution', 'description', 'height', 'id', 'maxzoom', 'minzoom', 'tileSize', 'width']);
    const { maxzoom, tileSize, width, height } = j.body as Record<string, number>;
    const lastX = Math.ceil(width / tileSize) - 1;
    const lastY = Math.ceil(height / tileSize) - 1;
    const corner = await binary(`/images/sample-image/${maxzoom}/${lastX}/${lastY}?key=demo`);
    expect(corner.status).toBe(200);
    expect(await size(corner.body)).toEqual([tileSize, tileSize, 'png']);
    expect((await binary(`/images/sample-image/${maxzoom}/${lastX + 1}/${lastY}?key=demo`)).status).toBe(400);
  });
});
