// QGIS 3.22 (Debian bookworm's python3-qgis, driven by qgis_wmts.py with /usr/bin/python3 on Qt's offscreen
// platform) as a WMTS client of the real server: what its Browser panel and its Add WMS/WMTS Layer dialog read
// from the capabilities, what its WMS/WMTS provider (QgsRasterLayer(uri, name, 'wms')) makes of a layer (CRS,
// extent, temporal properties), and the pixels of dataProvider().block() over a tile's footprint compared with
// the tile stored in the .mbtiles file. Every request QGIS makes is recorded by the script
// (QgsNetworkAccessManager), so the tests also say which GetTile QGIS sent.
//
// What QGIS 3.22 does with a WMTS layer:
// - It takes the KVP GetTile of OperationsMetadata whenever the capabilities offer one (createTileRequestsWMTS:
//   the RESTful ResourceURL only without it); tilemirror offers both, so QGIS sends KVP GetTile.
// - A <Dimension> (the weather layer's Time) is read from the capabilities: the Browser lists one layer item per
//   value, the Add Layer dialog asks for the values (its Default preselected); either puts the choice in the
//   layer's source as tileDimensions=Time=<value>, sent as &Time=<value> with every GetTile. A layer source
//   without it sends no Time: the server answers with the Default (the latest).
// - It makes no temporal layer of WMTS (that came with QGIS 3.28): the provider has no temporal capabilities.
//   Forcing the WMS-T source parameters (type=wmst&timeDimensionExtent=...) makes the layer temporal, but the
//   tile requests still carry no Time: rendering it at 00:00 shows the Default (06:00). Pinned below.
import sharp from 'sharp';
import { XMLParser } from 'fast-xml-parser';
import {
  type InteropServer,
  KEYFRAMES,
  layerMatrixSet,
  MAP_STORE,
  matrixIdForZoom,
  startInteropServer,
  summarizeCapabilities,
  TERRAIN_STORE,
  WEATHER_LAYER,
} from './helpers';
import {
  type BrowserResult,
  type DialogResult,
  expectKvpGetTiles,
  type Job,
  layerSource,
  type LayerResult,
  openLayer,
  QGIS_CHECK,
  qgisPixels,
  query,
  requestOf,
  runQgis,
  sourceParams,
} from './qgis';
import { gatedTest } from '../helpers/clients';
import { fetchText } from '../helpers/fetch';
import { comparePixels, isUniform, type RGBA } from '../helpers/pixels';
import {
  MERCATOR_HALF,
  pickTile,
  readMetadata,
  readStoredTile,
  type TileAddress,
  tileBounds3857,
} from '../helpers/stored-tiles';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-qgis-home-');

const DEFAULT_TIME = KEYFRAMES[1].time;
/** The tile the blocks cover: at zoom 2, away from the world's edges, in both the map and the weather pyramids. */
const TILE: TileAddress = { z: 2, x: 1, y: 1 };

/** A layer's WGS84BoundingBox in the capabilities, projected to Web Mercator (as QGIS gives the layer's extent). */
function layerExtent3857(capsXml: string, layerId: string): [number, number, number, number] {
  const doc = new XMLParser({ removeNSPrefix: true, ignoreAttributes: true, parseTagValue: false, isArray: (name) => name === 'Layer' }).parse(capsXml);
  const layer = (doc.Capabilities.Contents.Layer as { Identifier: string; WGS84BoundingBox: { LowerCorner: string; UpperCorner: string } }[]).find(
    (l) => l.Identifier === layerId,
  );
  if (!layer) throw new Error(`no layer ${layerId} in the capabilities`);
  const [w, s] = layer.WGS84BoundingBox.LowerCorner.split(/\s+/).map(Number);
  const [e, n] = layer.WGS84BoundingBox.UpperCorner.split(/\s+/).map(Number);
  const x = (lon: number) => (lon / 180) * MERCATOR_HALF;
  const y = (lat: number) => 6378137 * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360));
  return [x(w), y(s), x(e), y(n)];
}

function expectExtent(actual: number[], expected: number[]): void {
  // millimetres: the same projection of the same corners
  actual.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 3));
}

/** A stored tile decoded with sharp (optionally a region of it), as raw RGBA. */
async function storedPixels(tile: Buffer, region?: { left: number; top: number; width: number; height: number }): Promise<RGBA> {
  let img = sharp(tile).ensureAlpha();
  if (region) img = img.extract(region);
  const { data, info } = await img.raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

/** QGIS's pixels equal the stored ones exactly: the block lies on the tile's own pixel grid, so nothing is resampled. */
function expectSamePixels(actual: RGBA, expected: RGBA, label: string): void {
  if (isUniform(expected)) throw new Error(`${label}: the stored tile is a single colour, a useless reference`);
  const d = comparePixels(actual, expected);
  if (!d.sameSize || d.differing !== 0) {
    throw new Error(`${label}: QGIS's pixels differ from the stored tile: ${d.size}, ${d.differing} pixel(s) off by up to ${d.maxDelta}; ${d.firstDifference ?? ''}`);
  }
}

// ---------------------------------------------------------------------------------------------

describe('QGIS 3.22 (python3-qgis) reads the served WMTS', () => {
  const clientTest = gatedTest('QGIS', QGIS_CHECK);
  let server: InteropServer;
  let serviceCaps: string;
  let serviceXml: string;

  beforeAll(async () => {
    server = await startInteropServer();
    serviceCaps = `${server.url}/wmts/1.0.0/WMTSCapabilities.xml?key=demo`;
    serviceXml = await fetchText(serviceCaps);
  });
  afterAll(async () => {
    await server?.close();
    removeTempDirs();
  });

  /** One QGIS session running the jobs (settings and network cache of its own). */
  const qgis = <T extends unknown[]>(jobs: Job[]): Promise<T> => runQgis<T>(jobs, tempDir);

  /** The tile matrix set QGIS should be given for a layer (from the capabilities, as its dialog takes it). */
  function matrixSetOf(xml: string, layer: string, tileSize: number) {
    return layerMatrixSet(summarizeCapabilities(xml), layer, tileSize);
  }

  clientTest(
    'service-wide capabilities: the Browser lists maps/sample with the source the test builds; QGIS opens it in EPSG:3857 with the extent of its WGS84BoundingBox; a 512 px block over tile 2/1/1 is the stored tile and a 256 px one a quarter of tile 1/0/0, pixel for pixel (KVP GetTile)',
    async () => {
      const set = matrixSetOf(serviceXml, 'maps/sample', 512);
      const source = layerSource(serviceCaps, 'maps/sample', set.identifier);
      const bbox = tileBounds3857(TILE);
      const [browser, opened] = await qgis<[BrowserResult, LayerResult]>([
        { op: 'browser', url: serviceCaps },
        {
          op: 'layer',
          uri: source,
          blocks: [
            { extent: bbox, width: 512, height: 512 },
            { extent: bbox, width: 256, height: 256 },
          ],
        },
      ]);

      // The Browser panel: a layer item of the wms provider, with the capabilities URL encoded as the test does.
      const item = browser.items.find((i) => i.uri && sourceParams(i.uri).layers === 'maps/sample');
      if (!item?.uri) throw new Error(`the Browser lists no maps/sample: ${JSON.stringify(browser.items.map((i) => i.name))}`);
      expect(item).toMatchObject({ name: 'Sample map', provider: 'wms' });
      expect(sourceParams(item.uri)).toMatchObject({ crs: 'EPSG:3857', format: 'image/png', styles: 'default', tileMatrixSet: set.identifier, url: serviceCaps });
      expect(item.uri).toContain(`url=${serviceCaps.replace('key=demo', 'key%3Ddemo')}`);

      const layer = openLayer(opened, 'maps/sample');
      expect(layer.openRequests).toEqual([{ url: serviceCaps, status: 200 }]);
      expect(layer.crs).toBe('EPSG:3857');
      expectExtent(layer.extent, layerExtent3857(serviceXml, 'maps/sample'));
      expectExtent(layer.extent, [-MERCATOR_HALF, -MERCATOR_HALF, MERCATOR_HALF, MERCATOR_HALF]);
      expect({ bands: layer.bandCount, argb32: layer.argb32 }).toEqual({ bands: 1, argb32: true });
      expect(layer.temporal.providerHasTemporalCapabilities).toBe(false);

      // 512 px over the tile: QGIS takes TileMatrix 2 (that tile and the neighbours its edges touch).
      const [full, quarter] = layer.blocks;
      const fullRequests = expectKvpGetTiles(full.requests, 'block 512');
      const z2 = matrixIdForZoom(set, 2);
      const req = requestOf(fullRequests, z2, TILE.y, TILE.x);
      expect(Object.fromEntries(query(req))).toMatchObject({ key: 'demo', SERVICE: 'WMTS', VERSION: '1.0.0', LAYER: 'maps/sample', STYLE: 'default', FORMAT: 'image/png', TILEMATRIXSET: set.identifier });
      expectSamePixels(qgisPixels(full, 'block 512'), await storedPixels(readStoredTile(MAP_STORE, TILE)), 'maps/sample block 2/1/1 at 512 px');

      // 256 px over the same ground: the resolution of TileMatrix 1, whose tile 0/0 has it in its lower right quarter.
      const quarterRequests = expectKvpGetTiles(quarter.requests, 'block 256');
      requestOf(quarterRequests, matrixIdForZoom(set, 1), 0, 0);
      expect(quarterRequests.every((q) => query(q).get('TILEMATRIX') === matrixIdForZoom(set, 1))).toBe(true);
      expectSamePixels(
        qgisPixels(quarter, 'block 256'),
        await storedPixels(readStoredTile(MAP_STORE, { z: 1, x: 0, y: 0 }), { left: 256, top: 256, width: 256, height: 256 }),
        'maps/sample block 2/1/1 at 256 px (a quarter of 1/0/0)',
      );
    },
  );

  clientTest(
    "the weather layer's Time dimension: the Browser lists its two values and the Add Layer dialog asks for one (the Default preselected); a layer at each time sends Time=<value> with every GetTile and shows that keyframe's stored tile; without a time it shows the Default; QGIS 3.22 makes no temporal WMTS layer",
    async () => {
      const set = matrixSetOf(serviceXml, WEATHER_LAYER, 256);
      const weatherCaps = `${server.url}/weather/WMTSCapabilities.xml?key=demo`;
      const [browser, weatherBrowser, dialog] = await qgis<[BrowserResult, BrowserResult, DialogResult]>([
        { op: 'browser', url: serviceCaps },
        { op: 'browser', url: weatherCaps },
        { op: 'dialog', url: serviceCaps, layer: WEATHER_LAYER, dimensions: { Time: KEYFRAMES[0].time } },
      ]);

      // The Browser: the layer, its dimension, a layer item per value with tileDimensions=Time=<value>.
      for (const [caps, b] of [
        [serviceCaps, browser],
        [weatherCaps, weatherBrowser],
      ] as const) {
        const items = b.items.filter((i) => i.path.includes(`/${WEATHER_LAYER}`));
        expect(items.map((i) => [i.depth, i.name])).toEqual([
          [1, 'Temperature (C)'],
          [2, 'Time'],
          ...KEYFRAMES.map((k) => [3, k.time]),
        ]);
        for (const [i, k] of KEYFRAMES.entries()) {
          const params = sourceParams(items[2 + i].uri ?? '');
          expect(params).toMatchObject({ layers: WEATHER_LAYER, tileMatrixSet: set.identifier, tileDimensions: `Time=${k.time}`, url: caps });
        }
      }

      // The Add Layer dialog: Connect lists the layer among the tile sets; Add asks for the dimension values.
      expect(dialog.widget).toBe('QgsWMSSourceSelect');
      expect(dialog.requests).toEqual([{ url: serviceCaps, status: 200 }]);
      expect(dialog.tilesets.find((t) => t.Layer === WEATHER_LAYER)).toMatchObject({ Format: 'image/png', Tileset: set.identifier, CRS: 'EPSG:3857', Title: 'Temperature (C)' });
      expect(dialog.dimensionsDialog).toEqual({
        class: 'QgsWmtsDimensions',
        title: 'Select Dimensions',
        rows: [{ identifier: 'Time', title: 'Time', abstract: '', default: DEFAULT_TIME, values: KEYFRAMES.map((k) => k.time), preselected: DEFAULT_TIME }],
      });
      expect(dialog.added).toHaveLength(1);
      const added = dialog.added[0];
      expect(added.provider).toBe('wms');
      expect(sourceParams(added.uri)).toMatchObject({ layers: WEATHER_LAYER, tileMatrixSet: set.identifier, tileDimensions: `Time=${KEYFRAMES[0].time}`, url: serviceCaps });
      expect(added.uri).toContain(`tileDimensions=Time%3D${KEYFRAMES[0].time}`);

      // Open the layers: one per Browser item, the dialog's, one without a time, one with the WMS-T parameters forced.
      const bbox = tileBounds3857(TILE);
      const block = [{ extent: bbox, width: 256, height: 256 }];
      const timeItems = browser.items.filter((i) => i.path.includes(`/${WEATHER_LAYER}/Time/`));
      const timeless = layerSource(serviceCaps, WEATHER_LAYER, set.identifier);
      const forced = layerSource(serviceCaps, WEATHER_LAYER, set.identifier, { type: 'wmst', timeDimensionExtent: KEYFRAMES.map((k) => k.time).join(',') });
      // Two sessions: within one, QGIS answers a tile URL it has fetched from its caches, sending nothing.
      const [first, second] = await Promise.all([
        qgis<LayerResult[]>([...timeItems.map((i) => ({ op: 'layer' as const, uri: i.uri!, blocks: block })), { op: 'layer', uri: timeless, blocks: block }]),
        qgis<LayerResult[]>([
          { op: 'layer', uri: added.uri, blocks: block },
          { op: 'layer', uri: forced, render: { extent: bbox, width: 256, height: 256, time: KEYFRAMES[0].time } },
        ]),
      ]);
      const [at0000, at0600, withoutTime, fromDialog, wmst] = [...first, ...second].map((r, i) => openLayer(r, `weather layer #${i}`));
      const keyframe = async (k: (typeof KEYFRAMES)[number]) => storedPixels(readStoredTile(k.store, TILE));
      const [tile0000, tile0600] = await Promise.all(KEYFRAMES.map(keyframe));
      expect(comparePixels(tile0000, tile0600).differing).toBeGreaterThan(0); // two pictures

      for (const [res, k, label] of [
        [at0000, KEYFRAMES[0], 'Browser item 00:00'],
        [at0600, KEYFRAMES[1], 'Browser item 06:00'],
        [fromDialog, KEYFRAMES[0], 'Add Layer dialog, 00:00 chosen'],
      ] as const) {
        expect(res.crs).toBe('EPSG:3857');
        expectExtent(res.extent, layerExtent3857(serviceXml, WEATHER_LAYER));
        // A layer at one time, not a temporal layer.
        expect(res.temporal).toEqual({ providerHasTemporalCapabilities: false, availableTemporalRange: null, layerTemporalPropertiesActive: false });
        const requests = expectKvpGetTiles(res.blocks[0].requests, label);
        for (const r of requests) expect([label, query(r).get('Time')]).toEqual([label, k.time]);
        requestOf(requests, matrixIdForZoom(set, 2), TILE.y, TILE.x);
        expectSamePixels(qgisPixels(res.blocks[0], label), k.time === KEYFRAMES[0].time ? tile0000 : tile0600, `${WEATHER_LAYER} ${label}`);
      }

      // No tileDimensions: no Time sent; the server's Default, the latest.
      const timelessRequests = expectKvpGetTiles(withoutTime.blocks[0].requests, 'no time');
      for (const r of timelessRequests) expect(query(r).has('Time')).toBe(false);
      expectSamePixels(qgisPixels(withoutTime.blocks[0], 'no time'), tile0600, `${WEATHER_LAYER} without a time (the Default)`);

      // What QGIS 3.22 cannot do: drive a WMTS Time from its temporal framework. With the WMS-T parameters forced
      // on the WMTS source the layer is temporal (active, the range of timeDimensionExtent), but rendering it at
      // 00:00, as the Temporal Controller does, sends GetTile without Time (createTileRequestsWMTS adds only
      // tileDimensions) and shows the Default, 06:00. QGIS 3.28 added WMTS time to the temporal framework.
      expect(wmst.temporal).toEqual({
        providerHasTemporalCapabilities: true,
        availableTemporalRange: [KEYFRAMES[0].time, KEYFRAMES[1].time],
        layerTemporalPropertiesActive: true,
      });
      const render = wmst.render!;
      expect(render.errors).toEqual([]);
      const renderRequests = expectKvpGetTiles(render.requests, 'render at 00:00');
      for (const r of renderRequests) expect(query(r).has('Time')).toBe(false);
      expectSamePixels(qgisPixels(render, 'render at 00:00'), tile0600, `${WEATHER_LAYER} rendered at 00:00 with type=wmst (the Default, 06:00)`);
    },
  );

  clientTest(
    'per-map capabilities (/maps/sample/WMTSCapabilities.xml) and the KVP GetCapabilities endpoint: the Browser lists their layers; maps/sample/256 and tiles/sample-terrain open with their extents and their blocks are the stored tiles',
    async () => {
      const mapCaps = `${server.url}/maps/sample/WMTSCapabilities.xml?key=demo`;
      const kvpCaps = `${server.url}/wmts?SERVICE=WMTS&REQUEST=GetCapabilities&key=demo`;
      const [mapXml, kvpXml] = await Promise.all([fetchText(mapCaps), fetchText(kvpCaps)]);
      const set256 = matrixSetOf(mapXml, 'maps/sample/256', 256);
      const terrainSet = matrixSetOf(kvpXml, 'tiles/sample-terrain', 256);
      const terrainMeta = readMetadata(TERRAIN_STORE);
      const terrainBounds = terrainMeta.bounds.split(',').map(Number) as [number, number, number, number];
      const terrainTile = pickTile(TERRAIN_STORE, Number(terrainMeta.maxzoom), { inside: terrainBounds });

      const [mapBrowser, kvpBrowser] = await qgis<[BrowserResult, BrowserResult]>([
        { op: 'browser', url: mapCaps },
        { op: 'browser', url: kvpCaps },
      ]);
      const layersOf = (b: BrowserResult) => b.items.filter((i) => i.uri).map((i) => sourceParams(i.uri!).layers);
      expect(layersOf(mapBrowser)).toEqual(['maps/sample', 'maps/sample/256']);
      expect(layersOf(kvpBrowser)).toEqual(expect.arrayContaining(['maps/sample', 'maps/sample/256', 'tiles/sample-terrain', WEATHER_LAYER]));
      const item256 = mapBrowser.items.find((i) => i.uri && sourceParams(i.uri).layers === 'maps/sample/256')!;
      const terrainItem = kvpBrowser.items.find((i) => i.uri && sourceParams(i.uri).layers === 'tiles/sample-terrain')!;
      // The KVP URL's own query stays whole inside the source's url (its '&' and '=' encoded).
      expect(terrainItem.uri).toContain(`url=${kvpCaps.replace(/=/g, '%3D').replace(/&/g, '%26')}`);
      expect(sourceParams(terrainItem.uri!)).toMatchObject({ tileMatrixSet: terrainSet.identifier, url: kvpCaps });
      expect(sourceParams(item256.uri!)).toMatchObject({ tileMatrixSet: set256.identifier, url: mapCaps });

      const [map256, terrain] = await qgis<[LayerResult, LayerResult]>([
        { op: 'layer', uri: item256.uri!, blocks: [{ extent: tileBounds3857(TILE), width: 256, height: 256 }] },
        { op: 'layer', uri: layerSource(kvpCaps, 'tiles/sample-terrain', terrainSet.identifier), blocks: [{ extent: tileBounds3857(terrainTile), width: 256, height: 256 }] },
      ]);

      openLayer(map256, 'maps/sample/256 (per-map capabilities)');
      expect(map256.openRequests).toEqual([{ url: mapCaps, status: 200 }]);
      expect(map256.crs).toBe('EPSG:3857');
      expectExtent(map256.extent, layerExtent3857(mapXml, 'maps/sample/256'));
      const r256 = expectKvpGetTiles(map256.blocks[0].requests, 'maps/sample/256');
      expect(query(requestOf(r256, matrixIdForZoom(set256, 2), TILE.y, TILE.x)).get('LAYER')).toBe('maps/sample/256');
      expectSamePixels(qgisPixels(map256.blocks[0], 'maps/sample/256'), await storedPixels(readStoredTile(MAP_STORE, TILE, '256')), 'maps/sample/256 block 2/1/1');

      openLayer(terrain, 'tiles/sample-terrain (KVP GetCapabilities)');
      expect(terrain.openRequests).toEqual([{ url: kvpCaps, status: 200 }]);
      expect(terrain.crs).toBe('EPSG:3857');
      // Not the world: the layer's own WGS84BoundingBox, projected.
      expectExtent(terrain.extent, layerExtent3857(kvpXml, 'tiles/sample-terrain'));
      expect(terrain.extent[2] - terrain.extent[0]).toBeLessThan(MERCATOR_HALF / 10);
      const rt = expectKvpGetTiles(terrain.blocks[0].requests, 'tiles/sample-terrain');
      requestOf(rt, matrixIdForZoom(terrainSet, terrainTile.z), terrainTile.y, terrainTile.x);
      expectSamePixels(
        qgisPixels(terrain.blocks[0], 'tiles/sample-terrain'),
        await storedPixels(readStoredTile(TERRAIN_STORE, terrainTile)),
        `tiles/sample-terrain block ${terrainTile.z}/${terrainTile.x}/${terrainTile.y}`,
      );
    },
  );
});
