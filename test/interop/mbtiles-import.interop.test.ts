// A raster MBTiles made by GDAL (gdal_translate -of MBTiles, gdaladdo overviews), imported with
// `import --mbtiles FILE --as tiles/ID`, served by the real server and read back through GDAL's WMTS driver:
// GDAL's own file comes back with its bounds, its zooms and its tiles' pixels.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { importMbtilesCommand } from '../../src/interchange-cli';
import { gdalRasterMbtiles } from '../fixtures/foreign-mbtiles';
import { startServer, type TestServer } from '../helpers/server';
import { gdalinfo, gdalinfoFailing, gdalTranslateTile, systemGdal } from './helpers';
import { gatedTest, GDAL_CHECK } from '../helpers/clients';
import { expectSamePixels } from '../helpers/pixels';
import { MERCATOR_HALF, pickTile, readMetadata, readStoredTile } from '../helpers/stored-tiles';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-import-gdal-');

const mercatorX = (lon: number): number => (lon / 180) * MERCATOR_HALF;
const mercatorY = (lat: number): number => (Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360)) / Math.PI) * MERCATOR_HALF;

describe('a GDAL-made raster MBTiles, imported, through GDAL WMTS', () => {
  const clientTest = gatedTest('GDAL (gdal_translate, gdaladdo, WMTS driver)', { ...GDAL_CHECK, bins: [...(GDAL_CHECK.bins ?? []), 'gdaladdo'] });
  let tmp: string;
  let server: TestServer;
  let source: string;

  beforeAll(async () => {
    tmp = tempDir();
    const data = path.join(tmp, 'data');
    mkdirSync(path.join(data, 'tiles'), { recursive: true });
    source = await gdalRasterMbtiles(tmp);
    importMbtilesCommand({ data, file: source, as: 'tiles/gdal' });
    server = await startServer({ dataDir: data });
  });
  afterAll(async () => {
    await server?.close();
    removeTempDirs();
  });

  clientTest('bounds, zooms and a tile at the max zoom as GDAL wrote them', async () => {
    const meta = readMetadata(source);
    const [minzoom, maxzoom] = [Number(meta.minzoom), Number(meta.maxzoom)];
    const bounds = meta.bounds.split(',').map(Number) as [number, number, number, number];
    const caps = `WMTS:${server.url.replace(/\/$/, '')}/tiles/gdal/WMTSCapabilities.xml?key=demo,layer=tiles/gdal`;
    const info = await gdalinfo(caps, [], tmp);
    const res = (2 * MERCATOR_HALF) / 256 / 2 ** maxzoom;
    expect(info.geoTransform[1]).toBeCloseTo(res, 6);
    const [gx, , , gy] = info.geoTransform;
    const got = [gx, gy - info.size[1] * res, gx + info.size[0] * res, gy];
    const want = [mercatorX(bounds[0]), mercatorY(bounds[1]), mercatorX(bounds[2]), mercatorY(bounds[3])];
    got.forEach((v, i) => expect(Math.abs(v - want[i])).toBeLessThanOrEqual(res));
    // ZOOM_LEVEL counts the layer's tile matrices from the coarsest: minzoom .. maxzoom, no more.
    expect((await gdalinfo(caps, ['ZOOM_LEVEL=0'], tmp)).geoTransform[1]).toBeCloseTo((2 * MERCATOR_HALF) / 256 / 2 ** minzoom, 6);
    const beyond = await gdalinfoFailing(caps, [`ZOOM_LEVEL=${maxzoom - minzoom + 1}`], tmp, systemGdal());
    expect(beyond.stderr).toMatch(/Cannot find TileMatrix/);

    const tile = pickTile(source, maxzoom, { inside: bounds });
    const out = path.join(tmp, 'gdal-tile.png');
    await gdalTranslateTile(caps, tile, 256, out);
    await expectSamePixels(out, readStoredTile(source, tile), `imported GDAL tile ${tile.z}/${tile.x}/${tile.y}`);
  });
});
