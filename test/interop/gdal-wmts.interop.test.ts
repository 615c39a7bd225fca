// GDAL's WMTS driver (GDAL 3.6, Debian gdal-bin) against the real server: gdal_translate a tile's footprint
// from the capabilities and compare the pixels with the tile stored in the .mbtiles file (the weather layer's at
// two times with the keyframe tile sets' tiles).
//
// GDAL takes the layer's RESTful ResourceURL when the capabilities offer one and falls back to the KVP
// GetTile of OperationsMetadata only when there is none (wmtsdataset.cpp: GetOperationKVPURL is used when
// osURLTileTemplate is empty); it has no option to prefer KVP. The KVP route is therefore driven from a
// copy of the served capabilities with the ResourceURLs removed: the KVP URL inside is still the server's.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  gdalinfo,
  gdalTranslateTile,
  type InteropServer,
  KEYFRAMES,
  layerMatrixSet,
  MAP_STORE,
  startInteropServer,
  summarizeCapabilities,
  TERRAIN_STORE,
  WEATHER_LAYER,
} from './helpers';
import { gatedTest, GDAL_CHECK } from '../helpers/clients';
import { fetchText } from '../helpers/fetch';
import { expectSamePixels } from '../helpers/pixels';
import { pickTile, readMetadata, readStoredTile, type TileAddress } from '../helpers/stored-tiles';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-gdal-wmts-');


describe('GDAL WMTS driver reads the served WMTS', () => {
  const clientTest = gatedTest('GDAL WMTS driver', GDAL_CHECK);
  let server: InteropServer;
  let tmp: string;
  let mapMax: number;

  beforeAll(async () => {
    server = await startInteropServer();
    tmp = tempDir();
    mapMax = Number(readMetadata(MAP_STORE).maxzoom);
  });
  afterAll(async () => {
    await server?.close();
    removeTempDirs();
  });

  const mapCaps = () => `${server.url}/maps/sample/WMTSCapabilities.xml?key=demo`;
  let n = 0;
  const out = (label: string) => path.join(tmp, `${++n}-${label.replace(/[^\w.-]+/g, '_')}.png`);

  async function expectTileViaWmts(
    source: string,
    tile: TileAddress,
    tileSize: number,
    store: string,
    pyramid: string | undefined,
    label: string,
  ): Promise<void> {
    const file = out(label);
    await gdalTranslateTile(source, tile, tileSize, file);
    await expectSamePixels(file, readStoredTile(store, tile, pyramid), `${label} (tile ${tile.z}/${tile.x}/${tile.y})`);
  }

  clientTest('gdalinfo opens maps/sample: EPSG:3857, RGBA, one overview per lower zoom', async () => {
    const info = await gdalinfo(`WMTS:${mapCaps()},layer=maps/sample`, [], tmp);
    expect(info.coordinateSystem?.wkt).toMatch(/Pseudo-Mercator|3857/);
    expect(info.bands.length).toBeGreaterThanOrEqual(3);
    // Full resolution is the max zoom of the 512 px pyramid: pixel size = 2*pi*R / 512 / 2^maxzoom.
    expect(info.geoTransform[1]).toBeCloseTo((2 * Math.PI * 6378137) / 512 / 2 ** mapMax, 6);
    expect(info.bands[0].overviews?.length).toBe(mapMax);
  });

  clientTest('REST (ResourceURL), layer maps/sample, 512 px: a tile at the max zoom and one from an overview', async () => {
    const src = `WMTS:${mapCaps()},layer=maps/sample`;
    await expectTileViaWmts(src, pickTile(MAP_STORE, mapMax), 512, MAP_STORE, undefined, 'rest-512-max');
    const low = Math.max(0, mapMax - 2);
    await expectTileViaWmts(src, pickTile(MAP_STORE, low), 512, MAP_STORE, undefined, 'rest-512-overview');
  });

  clientTest('REST (ResourceURL), layer maps/sample/256, 256 px', async () => {
    const src = `WMTS:${mapCaps()},layer=maps/sample/256`;
    await expectTileViaWmts(src, pickTile(MAP_STORE, mapMax, { pyramid: '256' }), 256, MAP_STORE, '256', 'rest-256');
  });

  clientTest('KVP only: capabilities without ResourceURL make GDAL use the KVP GetTile of OperationsMetadata', async () => {
    const xml = await fetchText(mapCaps());
    const caps = summarizeCapabilities(xml);
    expect(caps.layers.find((l) => l.identifier === 'maps/sample')).toBeDefined();
    expect(xml).toMatch(/<(?:ows:)?Operation[^>]+name="GetTile"/);
    const kvpOnly = xml.replace(/<(?:\w+:)?ResourceURL\b[^>]*?(?:\/>|>[\s\S]*?<\/(?:\w+:)?ResourceURL>)/g, '');
    expect(kvpOnly).not.toMatch(/ResourceURL/);
    const file = path.join(tmp, 'kvp-only-capabilities.xml');
    writeFileSync(file, kvpOnly);

    const tile = pickTile(MAP_STORE, mapMax);
    await expectTileViaWmts(`WMTS:${file},layer=maps/sample`, tile, 512, MAP_STORE, undefined, 'kvp-512');
    const t256 = pickTile(MAP_STORE, Math.max(0, mapMax - 1), { pyramid: '256' });
    await expectTileViaWmts(`WMTS:${file},layer=maps/sample/256`, t256, 256, MAP_STORE, '256', 'kvp-256');
  });

  clientTest('service-wide capabilities by KVP GetCapabilities (/wmts?SERVICE=WMTS&REQUEST=GetCapabilities)', async () => {
    const src = `WMTS:${server.url}/wmts?SERVICE=WMTS&REQUEST=GetCapabilities&key=demo,layer=maps/sample`;
    await expectTileViaWmts(src, pickTile(MAP_STORE, mapMax), 512, MAP_STORE, undefined, 'service-kvp-caps');
  });

  clientTest('service-wide RESTful capabilities (/wmts/1.0.0/WMTSCapabilities.xml), terrain layer', async () => {
    const xml = await fetchText(`${server.url}/wmts/1.0.0/WMTSCapabilities.xml?key=demo`);
    const caps = summarizeCapabilities(xml);
    for (const id of ['maps/sample', 'maps/sample/256', 'tiles/sample-terrain']) {
      expect(caps.layers.map((l) => l.identifier)).toContain(id);
    }
    const set = layerMatrixSet(caps, 'maps/sample', 512);
    const src = `WMTS:${server.url}/wmts/1.0.0/WMTSCapabilities.xml?key=demo,layer=maps/sample,tilematrixset=${set.identifier}`;
    await expectTileViaWmts(src, pickTile(MAP_STORE, mapMax), 512, MAP_STORE, undefined, 'service-rest-caps');
  });

  // GDAL's WMTS driver requests every tile of a layer at the Default of each of its dimensions: it puts the Default
  // in place of {Time} (or adds Time=Default to a KVP GetTile) and has no option to choose another value. A
  // GetCapabilities naming a Time makes that Time the Default, so the time goes into the capabilities URL: in the
  // WMTS: connection string, or as <ExtraQueryParameters> of a GDAL_WMTS description (GDAL appends them to the
  // GetCapabilities URL and to every tile URL).
  clientTest('the weather layer at two times (TIME in the capabilities URL): each raster is its keyframe\'s stored tile, and they differ', async () => {
    const tile = pickTile(KEYFRAMES[0].store, 2);
    const files: string[] = [];
    for (const k of KEYFRAMES) {
      const src = `WMTS:${server.url}/wmts/1.0.0/WMTSCapabilities.xml?key=demo&TIME=${k.time},layer=${WEATHER_LAYER}`;
      const file = out(`weather-${k.time}`);
      await gdalTranslateTile(src, tile, 256, file);
      await expectSamePixels(file, readStoredTile(k.store, tile), `GDAL ${WEATHER_LAYER} at ${k.time} (tile ${tile.z}/${tile.x}/${tile.y})`);
      files.push(file);
    }
    expect(readStoredTile(KEYFRAMES[0].store, tile).equals(readStoredTile(KEYFRAMES[1].store, tile))).toBe(false);
    expect(readFileSync(files[0]).equals(readFileSync(files[1]))).toBe(false);
  });

  clientTest('the weather layer through a GDAL_WMTS description with <ExtraQueryParameters>TIME=...; without a time, the latest', async () => {
    const tile = pickTile(KEYFRAMES[0].store, 2);
    const describe = (extra: string) =>
      `<GDAL_WMTS><GetCapabilitiesUrl>${server.url}/weather/WMTSCapabilities.xml?key=demo</GetCapabilitiesUrl>${extra}<Layer>${WEATHER_LAYER}</Layer></GDAL_WMTS>`;
    for (const k of KEYFRAMES) {
      const xml = path.join(tmp, `weather-${k.time.replace(/\W/g, '')}.xml`);
      writeFileSync(xml, describe(`<ExtraQueryParameters>TIME=${k.time}</ExtraQueryParameters>`));
      const file = out(`weather-xml-${k.time}`);
      await gdalTranslateTile(xml, tile, 256, file);
      await expectSamePixels(file, readStoredTile(k.store, tile), `GDAL_WMTS ${WEATHER_LAYER} at ${k.time}`);
    }
    const latest = path.join(tmp, 'weather-latest.xml');
    writeFileSync(latest, describe(''));
    const file = out('weather-latest');
    await gdalTranslateTile(latest, tile, 256, file);
    await expectSamePixels(file, readStoredTile(KEYFRAMES[1].store, tile), `GDAL_WMTS ${WEATHER_LAYER} without a time`);
  });

  clientTest('terrain-RGB tile set (tiles/sample-terrain, 256 px, limited bounds): exact RGB at the max zoom', async () => {
    const meta = readMetadata(TERRAIN_STORE);
    const max = Number(meta.maxzoom);
    const bounds = meta.bounds.split(',').map(Number) as [number, number, number, number];
    const src = `WMTS:${server.url}/tiles/sample-terrain/WMTSCapabilities.xml?key=demo,layer=tiles/sample-terrain`;
    const tile = pickTile(TERRAIN_STORE, max, { inside: bounds });
    await expectTileViaWmts(src, tile, 256, TERRAIN_STORE, undefined, 'terrain');
  });
});
