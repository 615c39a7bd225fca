// Tiles of the grids besides Web Mercator are drawn once: the server keeps each one it draws in a GeoPackage per
// resource and grid (`{data}/.grids/{kind}/{id}/{grid}/{version}.gpkg`) and answers the next request from it. Judged
// by readers we did not write: GDAL's GPKG driver reads the kept file (CRS, the matrix's pixel size, a tile's pixels
// equal to the tile the server served) and GDAL's validate_gpkg.py finds nothing wrong. A pre-render run (the built
// CLI, `render --grid`) fills the same file, the server then serves every tile of its plan as kept, and a second run
// draws nothing. A new version of the store starts a new file and deletes the old one; with keeping off, nothing is
// written.

import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startCli } from '../helpers/cli-process';
import { gatedTest, SYSTEM_PYTHON, type ClientCheck } from '../helpers/clients';
import { comparePixels, decodeRGBA, expectSamePixels } from '../helpers/pixels';
import { clientEnv, run } from '../helpers/run';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';
import { waitFor } from '../helpers/wait';
import { gdalinfo, gdalTest, gdalTranslateWindow, MAP_STORE, systemGdal } from './helpers';
import { LV95 } from '../helpers/grids';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-grid-kept-');
const gdal = systemGdal();
const gdalCase = gdalTest(gdal);
const VALIDATE_GPKG = ['/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py', '/usr/share/doc/python3-gdal/examples/validate_gpkg.py'];
const VALIDATE_CHECK: ClientCheck = { bins: [SYSTEM_PYTHON], files: [VALIDATE_GPKG], packages: ['python3-gdal'] };
const validateCase = gatedTest('GDAL validate_gpkg.py', VALIDATE_CHECK);

const GRIDS = ['EuropeanETRS89_LAEAQuad', LV95];

let data = '';
let server: TestServer;
beforeAll(async () => {
  data = tempDir();
  mkdirSync(path.join(data, 'maps'));
  copyFileSync(MAP_STORE, path.join(data, 'maps', 'sample.mbtiles'));
  server = await startServer({ dataDir: data, config: { grids: GRIDS, render: { enabled: false } } });
});
afterAll(async () => {
  await server?.close();
  removeTempDirs();
});

const laeaTile = (z: number, row: number, col: number): string => `${server.url}/wmts/1.0.0/maps/sample/default/EuropeanETRS89_LAEAQuad/${z}/${row}/${col}.png?key=${KEY}`;
const keptFiles = (grid: string): string[] => {
  const dir = path.join(data, '.grids', 'maps', 'sample', grid);
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.gpkg')) : [];
};

describe('a tile of another grid, drawn once and kept', () => {
  let first: Awaited<ReturnType<typeof rawGet>>;
  beforeAll(async () => {
    first = await rawGet(laeaTile(3, 2, 3));
  });

  test('the first answer is drawn from the Web Mercator tiles, the next read from the kept GeoPackage, byte for byte', async () => {
    expect(first.status).toBe(200);
    expect(first.headers['x-tilemirror-source']).toMatch(/^maps\/sample \S+ \d+/);
    const again = await rawGet(laeaTile(3, 2, 3));
    expect(again.status).toBe(200);
    expect(again.headers['x-tilemirror-source']).toBe('kept');
    expect(again.headers['content-type']).toBe('image/png');
    expect(again.body.equals(first.body)).toBe(true);
    expect(keptFiles('EuropeanETRS89_LAEAQuad')).toHaveLength(1);
  });

  gdalCase('GDAL reads the kept file: EPSG:3035, zoom 3\'s pixel size, and the tile the server served', async () => {
    const file = path.join(data, '.grids', 'maps', 'sample', 'EuropeanETRS89_LAEAQuad', keptFiles('EuropeanETRS89_LAEAQuad')[0]);
    // A copy: GDAL reads it as the operator would take it away, without the server's write-ahead log beside it.
    const copy = path.join(tempDir(), 'kept.gpkg');
    const db = new Database(file, { readonly: true });
    await db.backup(copy);
    db.close();
    const info = await gdalinfo(copy, ['TABLE=tiles_map_png'], path.dirname(copy), gdal);
    expect(info.driverShortName).toBe('GPKG');
    expect(info.coordinateSystem?.wkt).toMatch(/ID\["EPSG",3035\]\]$/);
    // Zoom 3 of EuropeanETRS89_LAEAQuad: 2197.265625 m a pixel (the OGC registry's cellSize).
    expect(info.geoTransform[1]).toBeCloseTo(2197.265625, 6);
    const span = 2197.265625 * 256;
    const [minX, maxY] = [2000000 + 3 * span, 5500000 - 2 * span];
    const out = path.join(path.dirname(copy), 'tile.png');
    await gdalTranslateWindow(copy, [minX, maxY - span, minX + span, maxY], { width: 256, height: 256 }, out, { gdal, openOptions: ['TABLE=tiles_map_png', 'ZOOM_LEVEL=3'] });
    await expectSamePixels(out, first.body, 'EuropeanETRS89_LAEAQuad 3/2/3 kept');
  }, 60_000);

  validateCase('validate_gpkg.py finds nothing wrong in the kept file', async () => {
    const file = path.join(data, '.grids', 'maps', 'sample', 'EuropeanETRS89_LAEAQuad', keptFiles('EuropeanETRS89_LAEAQuad')[0]);
    const copy = path.join(tempDir(), 'validate.gpkg');
    const db = new Database(file, { readonly: true });
    await db.backup(copy);
    db.close();
    const script = VALIDATE_GPKG.find((f) => existsSync(f))!;
    const r = await run(SYSTEM_PYTHON, [script, '--extra', '--warning-as-error', copy], { env: clientEnv() });
    expect({ code: r.code, out: r.stdout + r.stderr }).toEqual({ code: 0, out: '' });
  });
});

describe('render --grid: a pre-render run fills the kept tiles', () => {
  let config = '';
  beforeAll(() => {
    config = path.join(tempDir(), 'render.json');
    writeFileSync(config, JSON.stringify({ data, grids: GRIDS, render: { enabled: false }, keys: [{ key: KEY }] }));
  });

  test('every tile of the plan is drawn once; the server then serves each one kept; a second run draws none', async () => {
    const r = await startCli(['render', 'maps/sample', '--grid', 'LV95', '--zoom', '0-3', '--config', config]).done;
    expect({ code: r.code, out: r.out }).toMatchObject({ code: 0 });
    const done = /maps\/sample LV95 png: done, (\d+) tiles drawn, (\d+) in the plan \(zooms 0-3\)/.exec(r.out);
    expect(done).not.toBeNull();
    const [drawn, planned] = [Number(done![1]), Number(done![2])];
    expect(drawn).toBe(planned);
    // LV95's matrices 0-3 (4000 to 3250 m a pixel, 256 px tiles) over Switzerland: one or two tiles each.
    expect(planned).toBeGreaterThanOrEqual(4);
    // What the file holds, as SQLite reads it: one row per tile of the plan.
    const file = path.join(data, '.grids', 'maps', 'sample', 'LV95', keptFiles('LV95')[0]);
    const db = new Database(file, { readonly: true });
    const rows = db.prepare('SELECT zoom_level AS z, tile_row AS r, tile_column AS c FROM tiles_map_png ORDER BY z, r, c').all() as { z: number; r: number; c: number }[];
    db.close();
    expect(rows).toHaveLength(planned);
    for (const t of rows) {
      const got = await rawGet(`${server.url}/wmts/1.0.0/maps/sample/default/LV95/${t.z}/${t.r}/${t.c}.png?key=${KEY}`);
      expect({ tile: `${t.z}/${t.r}/${t.c}`, status: got.status, source: got.headers['x-tilemirror-source'] }).toEqual({ tile: `${t.z}/${t.r}/${t.c}`, status: 200, source: 'kept' });
    }
    const again = await startCli(['render', 'maps/sample', '--grid', 'LV95', '--zoom', '0-3', '--config', config]).done;
    expect(again.out).toMatch(new RegExp(`maps/sample LV95 png: done, 0 tiles drawn, ${planned} in the plan`));
  }, 120_000);

  test('a grid that is not configured is refused, naming those that are', async () => {
    const r = await startCli(['render', 'maps/sample', '--grid', 'WorldCRS84Quad', '--config', config]).done;
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/tilemirror render: no grid WorldCRS84Quad in the configuration \(grids: EuropeanETRS89_LAEAQuad, LV95\)/);
  }, 60_000);
});

test('a new version of the store starts a new file: the old tiles are deleted, never served', async () => {
  const before = keptFiles('EuropeanETRS89_LAEAQuad');
  expect(before).toHaveLength(1);
  // Republished by rename, as a mirror run publishes: a new inode, a new version.
  const staging = path.join(data, 'staging.mbtiles');
  copyFileSync(MAP_STORE, staging);
  renameSync(staging, path.join(data, 'maps', 'sample.mbtiles'));
  const drawn = await waitFor('a tile drawn from the new store', async () => {
    const r = await rawGet(laeaTile(3, 2, 3));
    return r.headers['x-tilemirror-source'] !== 'kept' && r;
  });
  expect(drawn.status).toBe(200);
  const after = keptFiles('EuropeanETRS89_LAEAQuad');
  expect(after).toHaveLength(1);
  expect(after[0]).not.toBe(before[0]);
  expect((await rawGet(laeaTile(3, 2, 3))).headers['x-tilemirror-source']).toBe('kept');
});

test('with wms.keepGridTiles false nothing is written: every answer is drawn (the same pixels; a kept PNG is compressed harder)', async () => {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'maps'));
  copyFileSync(MAP_STORE, path.join(dir, 'maps', 'sample.mbtiles'));
  const plain = await startServer({ dataDir: dir, config: { grids: GRIDS, render: { enabled: false }, wms: { keepGridTiles: false } } });
  try {
    let drawn: Buffer | undefined;
    for (let i = 0; i < 2; i++) {
      const r = await rawGet(`${plain.url}/wmts/1.0.0/maps/sample/default/EuropeanETRS89_LAEAQuad/3/2/3.png?key=${KEY}`);
      expect(r.status).toBe(200);
      expect(r.headers['x-tilemirror-source']).toMatch(/^maps\/sample \S+ \d+/);
      drawn = r.body;
    }
    expect(existsSync(path.join(dir, '.grids'))).toBe(false);
    // The keeping server's tile (written once, sent many times: zlib level 9) against this one (sharp's default 6).
    const kept = await rawGet(laeaTile(3, 2, 3));
    expect(kept.headers['x-tilemirror-source']).toBe('kept');
    expect(comparePixels(await decodeRGBA(kept.body), await decodeRGBA(drawn!)).differing).toBe(0);
    expect(kept.body.length).toBeLessThan(drawn!.length);
  } finally {
    await plain.close();
  }
});
