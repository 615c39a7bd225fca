// GDAL's MBTiles driver reads the store files straight from disk: a store is an MBTiles 1.3 file that GDAL,
// QGIS and tileserver-gl open as any other. gdal_translate a tile's footprint and compare with the stored tile.
//
// GDAL derives the raster extent from the `bounds` metadata (USE_BOUNDS=YES by default) and reports a
// geotransform whose origin is exactly those bounds, which need not fall on a pixel edge of the tile grid
// (e.g. 85.0511 instead of 85.0511287798 puts it 0.008 px off at z5); it reads the tiles shifted by the
// nearest whole number of pixels. A -projwin on the tile's bounds can then land one pixel off, so the
// window is given in pixels (-srcwin, rounded the way GDAL rounds its shift: floor(0.5 + offset)).
import path from 'node:path';
import { gdalinfo, gdalTranslateTile, MAP_STORE, TERRAIN_STORE } from './helpers';
import { gatedTest, GDAL_CHECK } from '../helpers/clients';
import { expectSamePixels } from '../helpers/pixels';
import { pickTile, readMetadata, readStoredTile } from '../helpers/stored-tiles';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-gdal-mbtiles-');


describe('GDAL MBTiles driver reads the store files', () => {
  const clientTest = gatedTest('GDAL MBTiles driver', GDAL_CHECK);
  let tmp: string;

  beforeAll(() => {
    tmp = tempDir();
  });
  afterAll(() => removeTempDirs());

  let n = 0;
  const out = (label: string) => path.join(tmp, `${++n}-${label}.png`);

  clientTest('maps/sample.mbtiles: MBTiles driver, EPSG:3857, 512 px blocks, full resolution at maxzoom', async () => {
    const meta = readMetadata(MAP_STORE);
    const info = await gdalinfo(MAP_STORE, [], tmp);
    expect(info.driverShortName).toBe('MBTiles');
    expect(info.coordinateSystem?.wkt).toMatch(/Pseudo-Mercator|3857/);
    expect(info.geoTransform[1]).toBeCloseTo((2 * Math.PI * 6378137) / 512 / 2 ** Number(meta.maxzoom), 6);
    expect(info.metadata?.['']?.ZOOM_LEVEL).toBe(meta.maxzoom);
  });

  clientTest('maps/sample.mbtiles: the pixels of a tile at the max zoom and of one from an overview', async () => {
    const max = Number(readMetadata(MAP_STORE).maxzoom);
    const info = await gdalinfo(MAP_STORE, [], tmp);
    for (const z of [max, Math.max(0, max - 2)]) {
      const tile = pickTile(MAP_STORE, z);
      const file = out(`map-z${z}`);
      await gdalTranslateTile(MAP_STORE, tile, 512, file, { srcwinFrom: info });
      await expectSamePixels(file, readStoredTile(MAP_STORE, tile), `MBTiles driver, map tile ${tile.z}/${tile.x}/${tile.y}`);
    }
  });

  clientTest('tiles/sample-terrain.mbtiles: terrain-RGB values of a tile at the max zoom, exactly', async () => {
    const meta = readMetadata(TERRAIN_STORE);
    const max = Number(meta.maxzoom);
    const bounds = meta.bounds.split(',').map(Number) as [number, number, number, number];
    const info = await gdalinfo(TERRAIN_STORE, [], tmp);
    expect(info.geoTransform[1]).toBeCloseTo((2 * Math.PI * 6378137) / 256 / 2 ** max, 6);
    const tile = pickTile(TERRAIN_STORE, max, { inside: bounds });
    const file = out('terrain');
    await gdalTranslateTile(TERRAIN_STORE, tile, 256, file, { srcwinFrom: info });
    await expectSamePixels(file, readStoredTile(TERRAIN_STORE, tile), `MBTiles driver, terrain tile ${tile.z}/${tile.x}/${tile.y}`);
  });
});
