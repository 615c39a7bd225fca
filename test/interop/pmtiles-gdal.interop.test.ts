// PMTiles archives dropped into tiles/ and served by the real server, read through GDAL's WMTS driver (GDAL
// 3.6): one archive written by `export --format pmtiles` (from the sample's terrain tile set) and one made by
// hand from the spec (test/fixtures/pmtiles-hand.ts: no PMTiles writer other than ours is on this machine).
// GDAL must see the archive's bounds and zooms, and a tile's pixels must be the archive's.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exportPmtilesCommand } from '../../src/interchange-cli';
import { PmtilesStore } from '../../src/store/pmtiles/store';
import { handArchive, type HandTile } from '../fixtures/pmtiles-hand';
import { startServer, type TestServer } from '../helpers/server';
import { gdalinfo, gdalinfoFailing, gdalTranslateTile, MIRROR_DIR, systemGdal } from './helpers';
import { gatedTest, GDAL_CHECK } from '../helpers/clients';
import { expectSamePixels, gradientTile } from '../helpers/pixels';
import { MERCATOR_HALF, mercatorX, mercatorY, pickTile, readMetadata, type TileAddress, tileBoundsLonLat } from '../helpers/stored-tiles';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-pmtiles-gdal-');

const TERRAIN = path.join(MIRROR_DIR, 'tiles/sample-terrain.mbtiles');
const HAND_BOUNDS: [number, number, number, number] = [-90, -45, 90, 60];

describe('GDAL WMTS driver reads PMTiles archives served from tiles/', () => {
  const clientTest = gatedTest('GDAL WMTS driver', GDAL_CHECK);
  let tmp: string;
  let server: TestServer;
  let data: string;
  let handFile: string;

  beforeAll(async () => {
    tmp = tempDir();
    data = path.join(tmp, 'data');
    mkdirSync(path.join(data, 'tiles'), { recursive: true });
    exportPmtilesCommand({ data: MIRROR_DIR, resource: 'tiles/sample-terrain', out: path.join(data, 'tiles', 'terrain-pm.pmtiles') });
    const tiles: HandTile[] = [];
    for (let z = 1; z <= 3; z++) {
      for (let x = 0; x < 2 ** z; x++) for (let y = 0; y < 2 ** z; y++) tiles.push({ z, x, y, data: await gradientTile(z, x, y) });
    }
    handFile = path.join(data, 'tiles', 'hand-raster.pmtiles');
    writeFileSync(
      handFile,
      handArchive({ tiles, tileType: 2, tileCompression: 1, minZoom: 1, maxZoom: 3, bounds: HAND_BOUNDS, center: [0, 10, 2], metadata: { name: 'Hand raster' } }),
    );
    server = await startServer({ dataDir: data });
  });
  afterAll(async () => {
    await server?.close();
    removeTempDirs();
  });

  const caps = (id: string) => `WMTS:${server.url.replace(/\/$/, '')}/tiles/${id}/WMTSCapabilities.xml?key=demo,layer=tiles/${id}`;

  /** GDAL's full-resolution pixel size, extent (EPSG:3857) and overview count, checked against zooms and bounds. */
  async function expectGrid(id: string, minzoom: number, maxzoom: number, bounds: [number, number, number, number]): Promise<void> {
    const info = await gdalinfo(caps(id), [], tmp);
    expect(info.coordinateSystem?.wkt).toMatch(/Pseudo-Mercator|3857/);
    const res = (2 * MERCATOR_HALF) / 256 / 2 ** maxzoom;
    expect(info.geoTransform[1]).toBeCloseTo(res, 6);
    // The zooms: GDAL's ZOOM_LEVEL counts the layer's tile matrices from the coarsest (0): the min zoom is
    // level 0 and there are exactly maxzoom - minzoom + 1 of them.
    const coarsest = await gdalinfo(caps(id), ['ZOOM_LEVEL=0'], tmp);
    expect(coarsest.geoTransform[1]).toBeCloseTo((2 * MERCATOR_HALF) / 256 / 2 ** minzoom, 6);
    const finest = await gdalinfo(caps(id), [`ZOOM_LEVEL=${maxzoom - minzoom}`], tmp);
    expect(finest.geoTransform[1]).toBeCloseTo(res, 6);
    const r = await gdalinfoFailing(caps(id), [`ZOOM_LEVEL=${maxzoom - minzoom + 1}`], tmp, systemGdal());
    expect(r.stderr).toMatch(/Cannot find TileMatrix/);
    // The extent is the archive's bounds, to the pixel.
    const [gx, , , gy] = info.geoTransform;
    const west = gx;
    const north = gy;
    const east = gx + info.size[0] * res;
    const south = gy - info.size[1] * res;
    const want = [mercatorX(bounds[0]), mercatorY(bounds[1]), mercatorX(bounds[2]), mercatorY(bounds[3])];
    const got = [west, south, east, north];
    got.forEach((v, i) => expect(Math.abs(v - want[i])).toBeLessThanOrEqual(res));
  }

  async function expectTile(id: string, tile: TileAddress, stored: Buffer, label: string): Promise<void> {
    const out = path.join(tmp, `${label}.png`);
    await gdalTranslateTile(caps(id), tile, 256, out);
    await expectSamePixels(out, stored, `${label} ${tile.z}/${tile.x}/${tile.y}`);
  }

  clientTest('written by export --format pmtiles (terrain): bounds, zooms and a tile at the max zoom', async () => {
    const meta = readMetadata(TERRAIN);
    const bounds = meta.bounds.split(',').map(Number) as [number, number, number, number];
    const max = Number(meta.maxzoom);
    await expectGrid('terrain-pm', Number(meta.minzoom), max, bounds);
    const tile = pickTile(TERRAIN, max, { inside: bounds });
    const store = new PmtilesStore(path.join(data, 'tiles', 'terrain-pm.pmtiles'), 'terrain-pm', 'x');
    try {
      await expectTile('terrain-pm', tile, store.tile('main', tile.z, tile.x, tile.y)!, 'terrain-pm');
    } finally {
      store.close();
    }
  });

  clientTest('made by hand from the spec: bounds, zooms 1-3 and two tiles', async () => {
    await expectGrid('hand-raster', 1, 3, HAND_BOUNDS);
    for (const tile of [{ z: 3, x: 4, y: 3 }, { z: 3, x: 3, y: 4 }]) {
      const [w, s, e, n] = tileBoundsLonLat(tile);
      expect(w >= HAND_BOUNDS[0] && e <= HAND_BOUNDS[2] && s >= HAND_BOUNDS[1] && n <= HAND_BOUNDS[3]).toBe(true);
      await expectTile('hand-raster', tile, await gradientTile(tile.z, tile.x, tile.y), `hand-${tile.z}`);
    }
  });
});
