import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import sharp from 'sharp';
import request from 'supertest';
import { StoreWriter } from '../../src/store/mbtiles/writer';
import { startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-oracle-');

// @mapbox/mbtiles (named by the product brief) is the independent oracle: what we write it reads back
// identically, and what it writes (its de-duplicated map/images schema) we serve.

// eslint-disable-next-line @typescript-eslint/no-require-imports
const MBTiles = require('@mapbox/mbtiles') as new (uri: string, cb: (err: Error | null, m: MbtilesHandle) => void) => MbtilesHandle;
interface MbtilesHandle {
  getTile(z: number, x: number, y: number, cb: (err: Error | null, data: Buffer) => void): void;
  getInfo(cb: (err: Error | null, info: Record<string, unknown>) => void): void;
  startWriting(cb: (err: Error | null) => void): void;
  stopWriting(cb: (err: Error | null) => void): void;
  putTile(z: number, x: number, y: number, data: Buffer, cb: (err: Error | null) => void): void;
  putInfo(info: object, cb: (err: Error | null) => void): void;
  close(cb: (err: Error | null) => void): void;
}
const open = (uri: string): Promise<MbtilesHandle> =>
  new Promise((resolve, reject) => new MBTiles(uri, (err, m) => (err ? reject(err) : resolve(m))));
const call = <T>(m: MbtilesHandle, name: keyof MbtilesHandle, ...args: unknown[]): Promise<T> =>
  (promisify((m[name] as (...a: unknown[]) => void).bind(m)) as (...a: unknown[]) => Promise<T>)(...args);

const WORLD: [number, number, number, number] = [-180, -85.0511287798066, 180, 85.0511287798066];
const colour = (z: number, x: number, y: number) => ({ r: (z * 40) % 256, g: (x * 50) % 256, b: (y * 60) % 256 });
const tilePng = (size: number, z: number, x: number, y: number) =>
  sharp({ create: { width: size, height: size, channels: 3, background: colour(z, x, y) } }).png().toBuffer();

let dir: string;
let srv: TestServer;
const written = new Map<string, Buffer>();

beforeAll(async () => {
  dir = tempDir();
  for (const k of ['maps', 'tiles']) mkdirSync(join(dir, k));
  // Ours: a map with a 512 main pyramid and a 256 one, z0-3.
  const w = new StoreWriter(join(dir, 'maps/ours.mbtiles'), {
    kind: 'maps',
    name: 'Ours',
    attribution: '<a href="https://example.org">"quoted" & co</a>',
    pyramids: [
      { name: '512', tileSize: 512, scale: 1, format: 'png', minzoom: 0, maxzoom: 3, bounds: WORLD },
      { name: '256', tileSize: 256, scale: 1, format: 'png', minzoom: 0, maxzoom: 3, bounds: WORLD },
    ],
  });
  for (let z = 0; z <= 3; z++)
    for (let x = 0; x < 2 ** z; x++)
      for (let y = 0; y < 2 ** z; y++) {
        const big = await tilePng(512, z, x, y);
        written.set(`${z}/${x}/${y}`, big);
        w.putTile('512', z, x, y, big);
        w.putTile('256', z, x, y, await tilePng(256, z, x, y));
      }
  w.close();

  // Theirs: a vector tile set written by @mapbox/mbtiles, one tile missing inside the bounds.
  const m = await open(`${join(dir, 'tiles/theirs.mbtiles')}?mode=rwc`);
  await call(m, 'startWriting');
  await call(m, 'putInfo', {
    name: 'Theirs',
    format: 'pbf',
    minzoom: 0,
    maxzoom: 2,
    bounds: WORLD,
    center: [0, 0, 1],
    vector_layers: [{ id: 'water', fields: { name: 'String' } }],
  });
  for (const [z, x, y] of [[0, 0, 0], [1, 0, 0], [1, 1, 1], [2, 1, 1]]) await call(m, 'putTile', z, x, y, gzipSync(Buffer.from(`tile ${z}/${x}/${y}`)));
  await call(m, 'stopWriting');
  await call(m, 'close');
  srv = await startServer({ dataDir: dir });
});
afterAll(async () => {
  await srv?.close();
  removeTempDirs();
});

test('@mapbox/mbtiles reads our store back identically', async () => {
  const m = await open(`${join(dir, 'maps/ours.mbtiles')}?mode=ro`);
  for (const [addr, bytes] of written) {
    const [z, x, y] = addr.split('/').map(Number);
    const got = await call<Buffer>(m, 'getTile', z, x, y);
    expect(Buffer.compare(got, bytes)).toBe(0);
  }
  const info = await call<Record<string, unknown>>(m, 'getInfo');
  expect(info).toMatchObject({ name: 'Ours', format: 'png', minzoom: 0, maxzoom: 3 });
  expect(info.bounds).toEqual(WORLD);
  await call(m, 'close');
});

test('a store written by @mapbox/mbtiles serves through us', async () => {
  const t = await request(srv.url).get('/tiles/theirs/1/1/1?key=demo').set('Accept-Encoding', 'gzip');
  expect(t.status).toBe(200);
  expect(t.headers['content-type']).toBe('application/x-protobuf');
  expect(t.headers['content-encoding']).toBe('gzip');
  const plain = await request(srv.url).get('/tiles/theirs/2/1/1?key=demo').set('Accept-Encoding', 'identity').buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => cb(null, Buffer.concat(chunks)));
  });
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect((plain.body as Buffer).toString()).toBe('tile 2/1/1');
  expect((await request(srv.url).get('/tiles/theirs/2/3/3?key=demo')).status).toBe(204);
  const tj = await request(srv.url).get('/tiles/theirs/tiles.json?key=demo');
  expect(tj.body).toMatchObject({ tilejson: '3.0.0', format: 'pbf', minzoom: 0, maxzoom: 2, vector_layers: [{ id: 'water' }] });
});

test('every tile we serve is the stored one', async () => {
  for (const [addr, bytes] of written) {
    const r = await request(srv.url).get(`/maps/ours/${addr}.png?key=demo`);
    expect(r.status).toBe(200);
    expect(Buffer.compare(r.body as Buffer, bytes)).toBe(0);
  }
});

test('a replaced store file is served without a restart', async () => {
  const replacement = join(dir, 'maps/.ours.staging');
  const w = new StoreWriter(replacement, {
    kind: 'maps',
    name: 'Ours v2',
    pyramids: [{ name: '512', tileSize: 512, scale: 1, format: 'png', minzoom: 0, maxzoom: 0, bounds: WORLD }],
  });
  const fresh = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#00ff00' } }).png().toBuffer();
  w.putTile('512', 0, 0, 0, fresh);
  w.close();
  const before = await request(srv.url).get('/maps/ours/0/0/0.png?key=demo');
  renameSync(replacement, join(dir, 'maps/ours.mbtiles'));
  // The catalog notices the new file in the background: wait for the new bytes, however long that takes.
  const r = await waitFor('the replaced store to be served', async () => {
    const got = await request(srv.url).get('/maps/ours/0/0/0.png?key=demo');
    return Buffer.compare(got.body as Buffer, fresh) === 0 ? got : undefined;
  });
  expect(r.headers.etag).not.toBe(before.headers.etag);
  expect((await request(srv.url).get('/maps/ours/tiles.json?key=demo')).body.name).toBe('Ours v2');
});
