// `import --mbtiles FILE --as tiles/ID|maps/ID`: files made elsewhere (GDAL raster, OpenMapTiles-style vector in
// the de-duplicated schema, a plain tiles table) become stores served like mirrored ones, every tile equal;
// a file with bad metadata is refused with a message naming the field, and nothing is published.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { importMbtilesCommand, InterchangeError } from '../../src/interchange-cli';
import { gdalRasterMbtiles, openMapTilesStyle, sampleVector, type VectorSource } from '../fixtures/foreign-mbtiles';
import { mbtilesRows } from '../helpers/pmtiles';
import { rawGet, SAMPLE_DIR, startServer, type TestServer } from '../helpers/server';
import { built } from '../helpers/dist';
import { waitFor, waitForStatus } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-import-');

let dir: string;
let data: string;
let vector: VectorSource;
let gdalFile: string;
let server: TestServer;
let base: string;

beforeAll(async () => {
  dir = tempDir();
  data = join(dir, 'data');
  mkdirSync(join(data, 'tiles'), { recursive: true });
  vector = sampleVector(join(SAMPLE_DIR, 'tiles/sample-vector.mbtiles'));
  gdalFile = await gdalRasterMbtiles(dir);
  server = await startServer({ dataDir: data });
  base = server.url.replace(/\/$/, '');
});
afterAll(async () => {
  await server?.close();
  removeTempDirs();
});

/** A document of a store just published: the running server picks it up (directory watch or rescan). */
const getJson = async (path: string): Promise<Record<string, unknown>> => {
  const r = await waitForStatus(`${base}${path}?key=demo`, 200);
  return JSON.parse(r.body.toString('utf8')) as Record<string, unknown>;
};

/** Every tile of `source` is served at `urlOf(z, x, y)` with the same bytes. */
async function expectServedEqual(source: string, urlOf: (z: number, x: number, y: number) => string): Promise<number> {
  const rows = mbtilesRows(source);
  for (const r of rows) {
    const got = await rawGet(`${base}${urlOf(r.z, r.x, r.y)}?key=demo`, { 'accept-encoding': 'gzip' });
    expect(`${r.z}/${r.x}/${r.y} ${got.status}`).toBe(`${r.z}/${r.x}/${r.y} 200`);
    expect(got.body.equals(r.data)).toBe(true);
  }
  return rows.length;
}

test('a GDAL raster MBTiles as tiles/ and as maps/: TileJSON from its metadata, every tile served', async () => {
  const lines = importMbtilesCommand({ data, file: gdalFile, as: 'tiles/gdal' });
  expect(lines.join('\n')).toMatch(/published/);
  const meta = Object.fromEntries(
    (new Database(gdalFile, { readonly: true }).prepare('SELECT name, value FROM metadata').all() as { name: string; value: string }[]).map((r) => [r.name, r.value]),
  );
  const doc = await getJson('/tiles/gdal/tiles.json');
  expect(doc).toMatchObject({ format: 'png', minzoom: Number(meta.minzoom), maxzoom: Number(meta.maxzoom), name: meta.name, tileSize: 256 });
  (doc.bounds as number[]).forEach((v, i) => expect(v).toBeCloseTo(Number(meta.bounds.split(',')[i]), 9));
  expect(await expectServedEqual(gdalFile, (z, x, y) => `/tiles/gdal/${z}/${x}/${y}.png`)).toBeGreaterThan(10);

  importMbtilesCommand({ data, file: gdalFile, as: 'maps/gdal-map' });
  const map = await getJson('/maps/gdal-map/256/tiles.json');
  expect(map).toMatchObject({ format: 'png', minzoom: Number(meta.minzoom), maxzoom: Number(meta.maxzoom), tileSize: 256 });
  await expectServedEqual(gdalFile, (z, x, y) => `/maps/gdal-map/256/${z}/${x}/${y}.png`);
  const style = await getJson('/maps/gdal-map/style.json');
  expect(JSON.stringify(style)).toContain('/maps/gdal-map/');
});

test('an OpenMapTiles-style vector MBTiles (map/images schema, json metadata): vector_layers, center, every tile', async () => {
  const file = openMapTilesStyle(join(dir, 'omt.mbtiles'), vector);
  importMbtilesCommand({ data, file, as: 'tiles/omt' });
  const doc = await getJson('/tiles/omt/tiles.json');
  expect(doc).toMatchObject({ format: 'pbf', name: 'OpenMapTiles-style', minzoom: 0, center: [0, 20, 2], attribution: expect.stringContaining('OpenMapTiles') });
  expect((doc.vector_layers as { id: string }[]).map((l) => l.id)).toEqual((vector.vectorLayers as { id: string }[]).map((l) => l.id));
  expect(await expectServedEqual(join(SAMPLE_DIR, 'tiles/sample-vector.mbtiles'), (z, x, y) => `/tiles/omt/${z}/${x}/${y}.pbf`)).toBe(vector.rows.length);
});

test('a plain tiles table without zooms, bounds or format in its metadata: zooms from the tiles, format sniffed', async () => {
  const file = openMapTilesStyle(join(dir, 'bare.mbtiles'), vector, { minzoom: undefined, maxzoom: undefined, bounds: undefined, format: undefined, center: undefined }, 'plain');
  importMbtilesCommand({ data, file, as: 'tiles/bare' });
  const doc = await getJson('/tiles/bare/tiles.json');
  expect(doc).toMatchObject({ format: 'pbf', minzoom: 0, maxzoom: Math.max(...vector.rows.map((r) => r.z)) });
  expect(doc.bounds).toEqual([-180, -85.0511287798066, 180, 85.0511287798066]);
});

test('importing onto a served store republishes it: the running server moves to the new version', async () => {
  importMbtilesCommand({ data, file: gdalFile, as: 'tiles/swap' });
  expect((await getJson('/tiles/swap/tiles.json')).format).toBe('png');
  importMbtilesCommand({ data, file: openMapTilesStyle(join(dir, 'swap.mbtiles'), vector), as: 'tiles/swap' });
  await waitFor('tiles/swap served as the vector import', async () => {
    const r = await rawGet(`${base}/tiles/swap/tiles.json?key=demo`);
    return r.status === 200 && (JSON.parse(r.body.toString('utf8')) as { format: string }).format === 'pbf';
  });
  expect(readdirSync(join(data, 'tiles')).filter((f) => f.includes('swap'))).toEqual(['swap.mbtiles']);
});

describe('bad metadata is refused, naming the field; nothing is published', () => {
  const cases: [string, Record<string, string | undefined>, RegExp][] = [
    ['bounds out of range', { bounds: '-200,-10,10,10' }, /^.*refused, nothing imported: bounds: -200,-10,10,10 lies outside/],
    ['bounds not numbers', { bounds: 'a,b,c,d' }, /bounds: "a,b,c,d" is not 4 comma-separated numbers/],
    ['inverted bounds', { bounds: '10,-10,-10,10' }, /bounds: .* inverted/],
    ['unknown format', { format: 'tiff' }, /format: "tiff" is not a tile format served/],
    ['minzoom > maxzoom', { minzoom: '5', maxzoom: '2' }, /minzoom: minzoom 5 is above maxzoom 2/],
    ['zoom not a level', { maxzoom: 'x' }, /maxzoom: "x" is not a zoom level/],
    ['json not parseable', { json: '{"vector_layers": [' }, /json: not parseable JSON/],
    ['vector_layers not layers', { json: '{"vector_layers": 3}' }, /json: vector_layers is not a list/],
    ['center out of range', { center: '500,0,2' }, /center: 500,0,2 is not a longitude, latitude/],
  ];
  test.each(cases)('%s', (_name, meta, message) => {
    const file = openMapTilesStyle(join(dir, `bad-${_name.replace(/\W+/g, '-')}.mbtiles`), vector, meta);
    const before = readdirSync(join(data, 'tiles')).sort();
    expect(() => importMbtilesCommand({ data, file, as: 'tiles/bad' })).toThrow(InterchangeError);
    expect(() => importMbtilesCommand({ data, file, as: 'tiles/bad' })).toThrow(message);
    expect(readdirSync(join(data, 'tiles')).sort()).toEqual(before);
  });

  test('no tiles', () => {
    const file = openMapTilesStyle(join(dir, 'empty.mbtiles'), { rows: [], vectorLayers: vector.vectorLayers });
    expect(() => importMbtilesCommand({ data, file, as: 'tiles/bad' })).toThrow(/tiles: the file holds no tiles/);
    expect(readdirSync(join(data, 'tiles'))).not.toContain('bad.mbtiles');
  });

  test('not MBTiles, and a bad --as', () => {
    const notDb = join(dir, 'not.mbtiles');
    copyFileSync(join(SAMPLE_DIR, '../package.json'), notDb);
    expect(() => importMbtilesCommand({ data, file: notDb, as: 'tiles/bad' })).toThrow(/file: .* is not a readable SQLite file/);
    expect(() => importMbtilesCommand({ data, file: notDb, as: 'images/x' })).toThrow(/expected tiles\/ID or maps\/ID/);
    expect(() => importMbtilesCommand({ data, file: notDb, as: 'tiles/../x' })).toThrow(InterchangeError);
  });

  test('through the command line: exit status 1, the message on stderr, no stack', async () => {
    const file = openMapTilesStyle(join(dir, 'cli-bad.mbtiles'), vector, { minzoom: '9', maxzoom: '3' });
    const r = await promisify(execFile)('node', [built('cli.js'), 'import', '--data', data, '--mbtiles', file, '--as', 'tiles/cli'], { cwd: resolve(__dirname, '../..') }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refused, nothing imported: minzoom: minzoom 9 is above maxzoom 3/);
    expect(r.stderr).not.toMatch(/\s+at /);
  });
});
