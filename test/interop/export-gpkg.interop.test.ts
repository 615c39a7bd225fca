// `tilemirror export --format gpkg` (the built CLI) judged by real readers of GeoPackage: GDAL's GPKG driver
// (driver, CRS, grid, overviews, and a tile's pixels through gdal_translate), GDAL's own validate_gpkg.py, and
// QGIS 3.22's raster layer. The stored tiles the pixels are compared with are read by plain SQL from the store
// (test/helpers/stored-tiles.ts), the grid figures are worked out here from the zoom and the bounds.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { SRS_4326, type GpkgGrid } from '../../src/store/gpkg/grid';
import { writeGeopackage } from '../../src/store/gpkg/write';
import { startCli, type CliExit } from '../helpers/cli-process';
import { gatedTest, SYSTEM_PYTHON, type ClientCheck } from '../helpers/clients';
import { expectSamePixels, gradientTile } from '../helpers/pixels';
import { assertOk, clientEnv, run } from '../helpers/run';
import { MERCATOR_HALF, mercatorX, mercatorY, pickTile, readMetadata, readStoredTile, tileBounds3857, tmsRow, type TileAddress } from '../helpers/stored-tiles';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';
import { gdalinfo, gdalTest, gdalTranslateTile, gdalTranslateWindow, MAP_STORE, MIRROR_DIR, storePath, systemGdal, TERRAIN_STORE } from './helpers';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-export-gpkg-');

const VALIDATE_GPKG = ['/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py', '/usr/share/doc/python3-gdal/examples/validate_gpkg.py'];
const VALIDATE_CHECK: ClientCheck = { bins: [SYSTEM_PYTHON], files: [VALIDATE_GPKG], packages: ['python3-gdal'] };
const QGIS_GDAL_CHECK: ClientCheck = { bins: [SYSTEM_PYTHON], pythonModules: ['qgis.core'], packages: ['python3-qgis'] };

const gdal = systemGdal();
const gdalCase = gdalTest(gdal);
const validateCase = gatedTest('GDAL validate_gpkg.py', VALIDATE_CHECK);
const qgisCase = gatedTest('QGIS (gdal provider)', QGIS_GDAL_CHECK);

/** `node dist/cli.js export --format gpkg ...`, run to its end. */
async function exportGpkg(args: string[]): Promise<CliExit> {
  return startCli(['export', '--format', 'gpkg', ...args]).done;
}

async function exportOk(args: string[]): Promise<string> {
  const r = await exportGpkg(args);
  if (r.code !== 0) throw new Error(`export ${args.join(' ')} failed (${r.code}): ${r.out}`);
  return r.out;
}

/** Metres per pixel of the Web Mercator zoom z with tiles of `tileSize` px. */
const resolution = (z: number, tileSize: number): number => (2 * MERCATOR_HALF) / tileSize / 2 ** z;
const boundsOf = (store: string): [number, number, number, number] => readMetadata(store).bounds.split(',').map(Number) as [number, number, number, number];

describe('export --format gpkg: a GeoPackage 1.3 tile pyramid', () => {
  let tmp: string;
  let mapGpkg: string;
  let map256Gpkg: string;
  let terrainGpkg: string;
  let mapOut: string;

  beforeAll(async () => {
    tmp = tempDir();
    mapGpkg = path.join(tmp, 'sample.gpkg');
    map256Gpkg = path.join(tmp, 'sample-256.gpkg');
    terrainGpkg = path.join(tmp, 'terrain.gpkg');
    mapOut = await exportOk(['maps/sample', '--data', MIRROR_DIR, '--out', mapGpkg]);
    await exportOk(['maps/sample/256', '--data', MIRROR_DIR, '--zoom', '2-4', '--out', map256Gpkg]);
    await exportOk(['tiles/sample-terrain', '--data', MIRROR_DIR, '--out', terrainGpkg]);
  }, 120_000);
  afterAll(() => removeTempDirs());

  test('the file is a GeoPackage 1.3 (application_id GPKG, user_version 10300) whose tile rows count from the top', () => {
    expect(mapOut).toMatch(/maps\/sample .*-> .*sample\.gpkg: 1365 tiles in zooms 0-5 on WebMercatorQuad \(EPSG:3857\)/);
    const header = readFileSync(mapGpkg).subarray(0, 100);
    expect(header.toString('latin1', 68, 72)).toBe('GPKG');
    expect(header.readUInt32BE(60)).toBe(10300);
    const db = new Database(mapGpkg, { readonly: true });
    try {
      const t = pickTile(MAP_STORE, 5);
      const row = db.prepare('SELECT tile_data FROM sample WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?').get(t.z, t.x, t.y) as { tile_data: Buffer };
      expect(row.tile_data.equals(readStoredTile(MAP_STORE, t))).toBe(true);
      // The same address in MBTiles rows (from the bottom) is another tile.
      expect(tmsRow(t.z, t.y)).not.toBe(t.y);
      const srs = db.prepare('SELECT srs_id FROM gpkg_spatial_ref_sys ORDER BY srs_id').all() as { srs_id: number }[];
      expect(srs.map((s) => s.srs_id)).toEqual([-1, 0, 3857, 4326]);
      expect(db.prepare('SELECT data_type, srs_id FROM gpkg_contents').all()).toEqual([{ data_type: 'tiles', srs_id: 3857 }]);
      expect(db.prepare('SELECT COUNT(*) AS n FROM gpkg_extensions').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  gdalCase('GDAL: driver GPKG, EPSG:3857, the max zoom\'s pixel size over the bounds, the other zooms as overviews', async () => {
    for (const [file, store, tileSize, minzoom, maxzoom] of [
      [mapGpkg, MAP_STORE, 512, 0, 5],
      [terrainGpkg, TERRAIN_STORE, 256, Number(readMetadata(TERRAIN_STORE).minzoom), Number(readMetadata(TERRAIN_STORE).maxzoom)],
    ] as const) {
      const info = await gdalinfo(file, [], tmp, gdal);
      expect(info.driverShortName).toBe('GPKG');
      expect(info.coordinateSystem?.wkt).toMatch(/ID\["EPSG",3857\]\]$/);
      const res = resolution(maxzoom, tileSize);
      expect(info.geoTransform[1]).toBeCloseTo(res, 6);
      expect(info.geoTransform[5]).toBeCloseTo(-res, 6);
      const [w, s, e, n] = boundsOf(store);
      const want = [mercatorX(w), mercatorY(s), mercatorX(e), mercatorY(n)];
      const got = [info.geoTransform[0], info.geoTransform[3] - info.size[1] * res, info.geoTransform[0] + info.size[0] * res, info.geoTransform[3]];
      got.forEach((v, i) => expect(Math.abs(v - want[i])).toBeLessThanOrEqual(res));
      // Each coarser zoom is an overview of half the size (GDAL lists those of at least a few pixels).
      const overviews = info.bands[0].overviews ?? [];
      expect(overviews.length).toBeGreaterThan(0);
      expect(overviews.length).toBeLessThanOrEqual(maxzoom - minzoom);
      overviews.forEach((o, i) => expect(Math.abs(o.size[0] - info.size[0] / 2 ** (i + 1))).toBeLessThanOrEqual(1));
      if (store === MAP_STORE) expect(overviews.map((o) => o.size[0])).toEqual([8192, 4096, 2048, 1024, 512]);
      for (let level = minzoom; level <= maxzoom; level++) {
        const at = await gdalinfo(file, [`ZOOM_LEVEL=${level}`], tmp, gdal);
        expect(at.geoTransform[1]).toBeCloseTo(resolution(level, tileSize), 6);
      }
    }
  });

  /**
   * The tile's pixels through gdal_translate at the tile's zoom: -projwin on its EPSG:3857 bounds where the dataset's
   * origin is on the tile grid (world bounds); elsewhere GDAL's origin is the contents' bounds, a fraction of a
   * pixel off the tiles' pixels, so the window is the pixels those bounds cover in GDAL's grid (-srcwin).
   */
  async function expectTile(file: string, tile: TileAddress, tileSize: number, stored: Buffer, label: string, aligned = true): Promise<void> {
    const out = path.join(tmp, `${label}.png`);
    const openOptions = [`ZOOM_LEVEL=${tile.z}`];
    if (aligned) await gdalTranslateWindow(file, tileBounds3857(tile), { width: tileSize, height: tileSize }, out, { openOptions, gdal });
    else await gdalTranslateTile(file, tile, tileSize, out, { openOptions, srcwinFrom: await gdalinfo(file, openOptions, tmp, gdal), gdal });
    await expectSamePixels(out, stored, `${label} ${tile.z}/${tile.x}/${tile.y}`);
  }

  gdalCase('gdal_translate of one tile\'s EPSG:3857 bounds at its zoom gives the stored tile\'s pixels', async () => {
    const max = pickTile(MAP_STORE, 5);
    await expectTile(mapGpkg, max, 512, readStoredTile(MAP_STORE, max), 'map-z5');
    const mid = pickTile(MAP_STORE, 3);
    await expectTile(mapGpkg, mid, 512, readStoredTile(MAP_STORE, mid), 'map-z3');
    const small = pickTile(MAP_STORE, 4, { pyramid: '256' });
    await expectTile(map256Gpkg, small, 256, readStoredTile(MAP_STORE, small, '256'), 'map256-z4');
    const terrainMax = Number(readMetadata(TERRAIN_STORE).maxzoom);
    const t = pickTile(TERRAIN_STORE, terrainMax, { inside: boundsOf(TERRAIN_STORE) });
    await expectTile(terrainGpkg, t, 256, readStoredTile(TERRAIN_STORE, t), 'terrain', false);
  });

  gdalCase('only the zooms asked for: --zoom 2-4 writes matrices 2 to 4', async () => {
    const db = new Database(map256Gpkg, { readonly: true });
    try {
      expect(db.prepare('SELECT zoom_level, matrix_width, tile_width FROM gpkg_tile_matrix ORDER BY zoom_level').all()).toEqual([
        { zoom_level: 2, matrix_width: 4, tile_width: 256 },
        { zoom_level: 3, matrix_width: 8, tile_width: 256 },
        { zoom_level: 4, matrix_width: 16, tile_width: 256 },
      ]);
    } finally {
      db.close();
    }
    const info = await gdalinfo(map256Gpkg, [], tmp, gdal);
    expect(info.geoTransform[1]).toBeCloseTo(resolution(4, 256), 6);
    expect(info.bands[0].overviews?.map((o) => o.size[0])).toEqual([2048, 1024]);
  });

  gdalCase('an image: GDAL\'s raster is the image, its pixel size as image.json says, from the world\'s top-left corner', async () => {
    const store = storePath('images/sample-image.mbtiles');
    const file = path.join(tmp, 'image.gpkg');
    await exportOk(['images/sample-image', '--data', MIRROR_DIR, '--out', file]);
    const db = new Database(store, { readonly: true });
    let image: { width: number; height: number };
    try {
      image = JSON.parse((db.prepare("SELECT data FROM tilemirror_documents WHERE path = 'image.json'").get() as { data: Buffer }).data.toString()) as typeof image;
    } finally {
      db.close();
    }
    const info = await gdalinfo(file, [], tmp, gdal);
    expect(info.size).toEqual([image.width, image.height]);
    expect(info.geoTransform[0]).toBeCloseTo(-MERCATOR_HALF, 3);
    expect(info.geoTransform[3]).toBeCloseTo(MERCATOR_HALF, 3);
    expect(info.geoTransform[1]).toBeCloseTo(resolution(Number(readMetadata(store).maxzoom), 256), 6);
  });

  validateCase('GDAL\'s validate_gpkg.py finds nothing wrong (warnings count as errors)', async () => {
    const script = VALIDATE_GPKG.find((f) => existsSync(f))!;
    for (const file of [mapGpkg, map256Gpkg, terrainGpkg]) {
      const r = await run(SYSTEM_PYTHON, [script, '--extra', '--warning-as-error', file], { env: clientEnv() });
      expect({ file, code: r.code, out: r.stdout + r.stderr }).toEqual({ file, code: 0, out: '' });
    }
  });

  qgisCase('QGIS 3.22: a valid raster layer in EPSG:3857 whose extent is the bounds', async () => {
    const home = tempDir('tilemirror-qgis-home-');
    const r = assertOk(
      await run(SYSTEM_PYTHON, [path.join(__dirname, 'qgis_gpkg.py'), terrainGpkg], {
        env: clientEnv({ HOME: home, XDG_RUNTIME_DIR: home, QT_QPA_PLATFORM: 'offscreen' }),
        timeoutMs: 60_000,
      }),
    );
    const report = JSON.parse(r.stdout) as { qgisVersion: string; valid: boolean; error: string | null; crs: string; extent: number[]; bandCount: number };
    expect(report.qgisVersion).toMatch(/^3\.22\./);
    expect({ valid: report.valid, error: report.error, crs: report.crs, bands: report.bandCount }).toEqual({ valid: true, error: null, crs: 'EPSG:3857', bands: 4 });
    const [w, s, e, n] = boundsOf(TERRAIN_STORE);
    const want = [mercatorX(w), mercatorY(s), mercatorX(e), mercatorY(n)];
    const res = resolution(Number(readMetadata(TERRAIN_STORE).maxzoom), 256);
    report.extent.forEach((v, i) => expect(Math.abs(v - want[i])).toBeLessThanOrEqual(res));
  }, 90_000);
});

describe('export --format gpkg: WebP tiles and failures', () => {
  let data: string;
  let out: string;

  beforeAll(async () => {
    data = tempDir();
    out = tempDir('tilemirror-export-gpkg-out-');
    mkdirSync(path.join(data, 'tiles'));
    // A raster tile set of WebP tiles (lossless, so GDAL's decoding can be compared with the PNG originals).
    const webp = path.join(data, 'tiles', 'temperature-webp.mbtiles');
    copyFileSync(storePath('tiles/sample-temperature-0000.mbtiles'), webp);
    const db = new Database(webp);
    try {
      const rows = db.prepare('SELECT zoom_level AS z, tile_column AS x, tile_row AS r, tile_data AS d FROM tiles').all() as { z: number; x: number; r: number; d: Buffer }[];
      const update = db.prepare('UPDATE tiles SET tile_data = ? WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?');
      for (const row of rows) update.run(await sharp(row.d).webp({ lossless: true }).toBuffer(), row.z, row.x, row.r);
      db.prepare("UPDATE metadata SET value = 'webp' WHERE name = 'format'").run();
    } finally {
      db.close();
    }
    // A tile set one of whose tiles at its last zoom is not an image: the export fails after writing the others.
    const broken = path.join(data, 'tiles', 'broken.mbtiles');
    copyFileSync(storePath('tiles/sample-temperature-0000.mbtiles'), broken);
    const b = new Database(broken);
    try {
      b.prepare("UPDATE tiles SET tile_data = x'00112233445566778899aabbccddeeff' WHERE rowid = (SELECT MAX(rowid) FROM tiles WHERE zoom_level = 2)").run();
    } finally {
      b.close();
    }
    copyFileSync(storePath('tiles/sample-vector.mbtiles'), path.join(data, 'tiles', 'vector.mbtiles'));
  });
  afterAll(() => removeTempDirs());

  validateCase('WebP tiles: the gpkg_webp extension is declared and validate_gpkg.py is content', async () => {
    const file = path.join(out, 'webp.gpkg');
    await exportOk(['tiles/temperature-webp', '--data', data, '--out', file]);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT table_name, column_name, extension_name, scope FROM gpkg_extensions').all()).toEqual([
        { table_name: 'temperature_webp', column_name: 'tile_data', extension_name: 'gpkg_webp', scope: 'read-write' },
      ]);
    } finally {
      db.close();
    }
    const script = VALIDATE_GPKG.find((f) => existsSync(f))!;
    const r = await run(SYSTEM_PYTHON, [script, '--extra', '--warning-as-error', file], { env: clientEnv() });
    expect({ code: r.code, out: r.stdout + r.stderr }).toEqual({ code: 0, out: '' });
  });

  gdalCase('WebP tiles: GDAL decodes a tile to the stored pixels', async () => {
    const file = path.join(out, 'webp-gdal.gpkg');
    await exportOk(['tiles/temperature-webp', '--data', data, '--out', file]);
    const store = storePath('tiles/sample-temperature-0000.mbtiles');
    const t = pickTile(store, 2);
    const png = path.join(out, 'webp-tile.png');
    await gdalTranslateWindow(file, tileBounds3857(t), { width: 256, height: 256 }, png, { openOptions: ['ZOOM_LEVEL=2'], gdal });
    await expectSamePixels(png, readStoredTile(store, t), `webp ${t.z}/${t.x}/${t.y}`);
  });

  /** A refused export: exit 1, one `error:` line matching `message`, and nothing at --out or beside it. */
  async function expectRefused(args: string[], file: string, message: RegExp, dataDir = data): Promise<void> {
    const r = await exportGpkg([...args, '--data', dataDir, '--out', file]);
    expect({ code: r.code, out: r.out.trim() }).toEqual({ code: 1, out: expect.stringMatching(message) });
    expect(r.out).not.toMatch(/\n\s+at /);
  }

  test('a vector tile set is refused: GeoPackage vector tiles are an extension not written', async () => {
    await expectRefused(['tiles/vector'], path.join(out, 'vector.gpkg'), /^error: tiles\/vector holds vector tiles: .*raster tiles .* only/);
    expect(readdirSync(out).filter((f) => f.startsWith('vector'))).toEqual([]);
  });

  test('an unknown grid is refused, naming the known ones', async () => {
    await expectRefused(['tiles/temperature-webp', '--grid', 'UTM61WGS84Quad'], path.join(out, 'grid.gpkg'), /^error: --grid UTM61WGS84Quad is not known: the grids are WebMercatorQuad, WorldCRS84Quad, EuropeanETRS89_LAEAQuad, UTM01WGS84Quad .. UTM60WGS84Quad$/);
  });

  test('zooms outside the resource, an unknown resource, a folder that is not there: refused', async () => {
    await expectRefused(['tiles/temperature-webp', '--zoom', '1-3'], path.join(out, 'z.gpkg'), /^error: --zoom 1-3 is outside tiles\/temperature-webp: its zooms are 0-2$/);
    await expectRefused(['tiles/temperature-webp', '--zoom', 'x'], path.join(out, 'z.gpkg'), /^error: --zoom: invalid zoom range "x"/);
    await expectRefused(['tiles/nope'], path.join(out, 'nope.gpkg'), /^error: tiles\/nope is not in /);
    await expectRefused(['maps/sample/999'], path.join(out, 'p.gpkg'), /^error: maps\/sample has no pyramid 999: it has 512, 256$/, MIRROR_DIR);
    await expectRefused(['tiles/temperature-webp'], path.join(out, 'missing', 'x.gpkg'), /^error: --out .*x\.gpkg: cannot write in .*missing/);
    await expectRefused(['tiles/temperature-webp'], path.join(out, 'x.mbtiles'), /^error: --out .*x\.mbtiles: a GeoPackage file name ends in \.gpkg/);
    expect(readdirSync(out).filter((f) => /^(z|nope|p|x|grid)\b/.test(f))).toEqual([]);
  });

  test('a failure while writing leaves no partial file, and the file already at --out as it was', async () => {
    const file = path.join(out, 'kept.gpkg');
    writeFileSync(file, 'an earlier export');
    await expectRefused(['tiles/broken'], file, /^error: cannot export tiles\/broken: tile 2\/\d+\/\d+ is not a PNG, JPEG or WebP image$/);
    expect(readFileSync(file, 'utf8')).toBe('an earlier export');
    expect(readdirSync(out).filter((f) => f.startsWith('kept'))).toEqual(['kept.gpkg']);
  });
});

describe('the GeoPackage writer on a grid other than Web Mercator', () => {
  // WorldCRS84Quad's first two matrices (OGC 17-083r4 Annex D): EPSG:4326, 2 x 1 tiles at 0, 4 x 2 at 1, rows from
  // the north. What a grid the lead adds hands the writer: nothing of Web Mercator is involved.
  const grid: GpkgGrid = {
    name: 'WorldCRS84Quad',
    srs: SRS_4326,
    extent: [-180, -90, 180, 90],
    matrices: [0, 1].map((z) => ({ zoom: z, matrixWidth: 2 * 2 ** z, matrixHeight: 2 ** z, tileWidth: 256, tileHeight: 256, pixelXSize: 180 / 256 / 2 ** z, pixelYSize: 180 / 256 / 2 ** z })),
  };
  let file: string;
  const asked: string[] = [];

  beforeAll(async () => {
    file = path.join(tempDir(), 'crs84.gpkg');
    // Bounds of the eastern half: the western columns are never asked for.
    const stats = await writeGeopackage(file, grid, { table: 'crs84', identifier: 'CRS84 quad', description: 'gradients', bounds: [0, -90, 180, 90] }, async (z, col, row) => {
      asked.push(`${z}/${col}/${row}`);
      return gradientTile(z, col, row);
    });
    expect(stats.perZoom).toEqual([
      { zoom: 0, tiles: 1 },
      { zoom: 1, tiles: 4 },
    ]);
  });
  afterAll(() => removeTempDirs());

  test('the source is asked for the tiles the bounds cover, rows from the top', () => {
    expect(asked.sort()).toEqual(['0/1/0', '1/2/0', '1/2/1', '1/3/0', '1/3/1']);
  });

  gdalCase('GDAL reads it in EPSG:4326 with the matrix\'s pixel size, and a tile as written', async () => {
    const info = await gdalinfo(file, [], tmp(), gdal);
    expect(info.driverShortName).toBe('GPKG');
    expect(info.coordinateSystem?.wkt).toMatch(/ID\["EPSG",4326\]\]$/);
    expect(info.geoTransform).toEqual([0, 180 / 512, 0, 90, 0, -180 / 512]);
    expect(info.size).toEqual([512, 512]);
    const out = path.join(tmp(), 'crs84-tile.png');
    // Tile 1/3/1 of this grid: lon 90..180, lat -90..0.
    await gdalTranslateWindow(file, [90, -90, 180, 0], { width: 256, height: 256 }, out, { gdal });
    await expectSamePixels(out, await gradientTile(1, 3, 1), 'crs84 1/3/1');
  });

  validateCase('validate_gpkg.py finds nothing wrong', async () => {
    const script = VALIDATE_GPKG.find((f) => existsSync(f))!;
    const r = await run(SYSTEM_PYTHON, [script, '--extra', '--warning-as-error', file], { env: clientEnv() });
    expect({ code: r.code, out: r.stdout + r.stderr }).toEqual({ code: 0, out: '' });
  });

  /** The folder of the file (made in beforeAll). */
  function tmp(): string {
    return path.dirname(file);
  }
});

// A registered grid besides Web Mercator through the CLI: the sample map in EuropeanETRS89_LAEAQuad, each tile drawn
// from the stored ones as the server's WMTS draws it in that grid. GDAL reads EPSG:3035 with the matrix's pixel size,
// the validator is content, and a tile through gdal_translate is the server's WMTS tile of that grid.
describe('export --format gpkg --grid EuropeanETRS89_LAEAQuad', () => {
  let file = '';
  let server: TestServer | undefined;
  beforeAll(async () => {
    file = path.join(tempDir(), 'laea.gpkg');
    await exportOk(['maps/sample', '--grid', 'EuropeanETRS89_LAEAQuad', '--zoom', '0-3', '--data', MIRROR_DIR, '--out', file]);
    server = await startServer({ config: { grids: ['EuropeanETRS89_LAEAQuad'] } });
  }, 180_000);
  afterAll(() => server?.close());

  gdalCase('GDAL: EPSG:3035, zoom 3\'s pixel size from the grid\'s origin; a tile is the server\'s WMTS tile', async () => {
    const info = await gdalinfo(file, [], path.dirname(file), gdal);
    expect(info.driverShortName).toBe('GPKG');
    expect(info.coordinateSystem?.wkt).toMatch(/ID\["EPSG",3035\]\]$/);
    // Zoom 3: 2197.265625 m a pixel (the registry's cellSize).
    expect(info.geoTransform[1]).toBeCloseTo(2197.265625, 6);
    // Tile 3/2/3: x 2000000 + 3 x 562500, y 5500000 - 2 x 562500 (256 px of 2197.265625 m).
    const span = 2197.265625 * 256;
    const [minX, maxY] = [2000000 + 3 * span, 5500000 - 2 * span];
    const out = path.join(path.dirname(file), 'laea-tile.png');
    await gdalTranslateWindow(file, [minX, maxY - span, minX + span, maxY], { width: 256, height: 256 }, out, { gdal, openOptions: ['ZOOM_LEVEL=3'] });
    const tile = await rawGet(`${server!.url}/wmts/1.0.0/maps/sample/default/EuropeanETRS89_LAEAQuad/3/2/3.png?key=${KEY}`);
    expect(tile.status).toBe(200);
    await expectSamePixels(out, tile.body, 'EuropeanETRS89_LAEAQuad 3/2/3');
  }, 120_000);

  validateCase('validate_gpkg.py finds nothing wrong', async () => {
    const script = VALIDATE_GPKG.find((f) => existsSync(f))!;
    const r = await run(SYSTEM_PYTHON, [script, '--extra', '--warning-as-error', file], { env: clientEnv() });
    expect({ code: r.code, out: r.stdout + r.stderr }).toEqual({ code: 0, out: '' });
  });
});
