// A PMTiles archive in tiles/ is served with every endpoint a mirrored tile set has: XYZ tiles (gzip as stored,
// plain for clients without gzip, 204 for an absence, ETag and 304), TileJSON, WMTS capabilities, OGC API
// collection and tiles, the viewer. Compared with the MBTiles store the archive was written from.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { exportPmtilesCommand } from '../../src/interchange-cli';
import { mbtilesRows } from '../helpers/pmtiles';
import { rawGet, SAMPLE_DIR, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-pmtiles-serve-');

const VECTOR = join(SAMPLE_DIR, 'tiles/sample-vector.mbtiles');
let dir: string;
let server: TestServer;
let base: string;

beforeAll(async () => {
  dir = tempDir();
  mkdirSync(join(dir, 'tiles'));
  exportPmtilesCommand({ data: SAMPLE_DIR, resource: 'tiles/sample-vector', out: join(dir, 'tiles', 'pmvec1.pmtiles') });
  server = await startServer({ dataDir: dir });
  base = server.url.replace(/\/$/, '');
});
afterAll(async () => {
  await server?.close();
  removeTempDirs();
});

const json = async (path: string): Promise<Record<string, unknown>> => {
  const r = await rawGet(`${base}${path}${path.includes('?') ? '&' : '?'}key=demo`);
  expect(r.status).toBe(200);
  return JSON.parse(r.body.toString('utf8')) as Record<string, unknown>;
};

test('every stored tile is served from the archive: gzip as stored, plain without gzip', async () => {
  const rows = mbtilesRows(VECTOR);
  // Every tile of the two lowest zooms and every 7th beyond: all levels, a few hundred requests.
  const chosen = rows.filter((r, i) => r.z <= 1 || i % 7 === 0);
  expect(chosen.length).toBeGreaterThan(100);
  for (const r of chosen) {
    const got = await rawGet(`${base}/tiles/pmvec1/${r.z}/${r.x}/${r.y}.pbf?key=demo`, { 'accept-encoding': 'gzip' });
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toBe('application/x-protobuf');
    expect(got.headers['content-encoding']).toBe('gzip');
    expect(got.body.equals(r.data)).toBe(true);
  }
  const r = chosen[chosen.length - 1];
  const plain = await rawGet(`${base}/tiles/pmvec1/${r.z}/${r.x}/${r.y}.pbf?key=demo`, { 'accept-encoding': 'identity' });
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect(plain.body.equals(gunzipSync(r.data))).toBe(true);
});

test('an absent tile inside the zooms is 204; a tile ETag revalidates as 304', async () => {
  const rows = mbtilesRows(VECTOR);
  const max = Math.max(...rows.map((r) => r.z));
  const have = new Set(rows.map((r) => `${r.z}/${r.x}/${r.y}`));
  let absent: string | undefined;
  for (let x = 0; x < 2 ** max && !absent; x++) for (let y = 0; y < 2 ** max && !absent; y++) if (!have.has(`${max}/${x}/${y}`)) absent = `${max}/${x}/${y}`;
  if (absent) expect((await rawGet(`${base}/tiles/pmvec1/${absent}.pbf?key=demo`)).status).toBe(204);
  const first = await rawGet(`${base}/tiles/pmvec1/0/0/0.pbf?key=demo`);
  const again = await rawGet(`${base}/tiles/pmvec1/0/0/0.pbf?key=demo`, { 'if-none-match': String(first.headers.etag) });
  expect(again.status).toBe(304);
  expect((await rawGet(`${base}/tiles/pmvec1/${max + 1}/0/0.pbf?key=demo`)).status).toBeGreaterThanOrEqual(400);
});

test('TileJSON from the archive header and metadata', async () => {
  const doc = await json('/tiles/pmvec1/tiles.json');
  const source = await startServer();
  try {
    const original = JSON.parse((await rawGet(`${source.url.replace(/\/$/, '')}/tiles/sample-vector/tiles.json?key=demo`)).body.toString('utf8'));
    for (const k of ['name', 'minzoom', 'maxzoom', 'format', 'vector_layers', 'attribution', 'description']) expect(doc[k]).toEqual(original[k]);
    (doc.bounds as number[]).forEach((v, i) => expect(v).toBeCloseTo(original.bounds[i], 6));
  } finally {
    await source.close();
  }
  expect((doc.tiles as string[])[0]).toMatch(/\/tiles\/pmvec1\/\{z\}\/\{x\}\/\{y\}/);
});

test('every document endpoint answers as it does for the MBTiles store the archive was written from', async () => {
  const source = await startServer();
  const origin = source.url.replace(/\/$/, '');
  try {
    const paths = [
      '/tiles/{id}/WMTSCapabilities.xml',
      '/tiles/{id}/tiles',
      '/tiles/{id}/tileMatrixSet',
      '/tiles/{id}/',
      '/ogc/collections/tiles.{id}',
      '/ogc/collections/tiles.{id}/tiles',
      '/ogc/collections/tiles.{id}/tiles/WebMercatorQuad512',
      '/ogc/collections/tiles.{id}/map/tiles',
    ];
    for (const path of paths) {
      const mine = await rawGet(`${base}${path.replace('{id}', 'pmvec1')}?key=demo`);
      const theirs = await rawGet(`${origin}${path.replace('{id}', 'sample-vector')}?key=demo`);
      expect(`${path} ${mine.status}`).toBe(`${path} ${theirs.status}`);
      expect(mine.headers['content-type']).toBe(theirs.headers['content-type']);
      if (mine.status === 200) {
        // The same document but for the id, the name and the version-derived parts.
        const norm = (b: Buffer, id: string) => b.toString('utf8').split(id).join('ID').replace(/127\.0\.0\.1:\d+/g, 'HOST').replace(/"[A-Za-z0-9_-]{22}"/g, '"V"');
        expect(norm(mine.body, 'pmvec1').length).toBeGreaterThan(0);
        if (path.startsWith('/ogc/collections/tiles.{id}/tiles')) expect(norm(mine.body, 'pmvec1')).toBe(norm(theirs.body, 'sample-vector'));
      }
    }
    const collections = await json('/ogc/collections');
    expect(JSON.stringify(collections)).toContain('tiles.pmvec1');
    const tile = await rawGet(`${base}/ogc/collections/tiles.pmvec1/tiles/WebMercatorQuad512/0/0/0?key=demo`, { 'accept-encoding': 'gzip' });
    expect(tile.status).toBe(200);
    expect(tile.body.equals(mbtilesRows(VECTOR).find((r) => r.z === 0)!.data)).toBe(true);
  } finally {
    await source.close();
  }
});
