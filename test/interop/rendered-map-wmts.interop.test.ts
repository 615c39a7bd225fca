// Real WMTS clients reading a map that has only vector data: the sample's map as `tilemirror mirror --raster render`
// stores it (its raster pyramids described, no raster tile in them), whose every tile the server renders (MapLibre
// in headless Chromium) and keeps. GDAL's WMTS driver (the system's 3.6 and Debian trixie's in its chroot) and QGIS
// 3.22's WMS/WMTS provider read a window of whole z2 tiles at their own resolution, so they copy the tiles' pixels
// 1:1; what they show must be the server's renders of those tiles, fetched over HTTP one by one and put side by side.
//
// A render takes seconds on a busy machine (the server's first one ~10 s more: its browser starts). The window's tiles
// are fetched before any client runs (the oracle needs them anyway): the clients then get kept renders.
import Database from 'better-sqlite3';
import path from 'node:path';
import {
  chrootGdal,
  type Gdal,
  gdalinfo,
  gdalTest,
  gdalTranslateWindow,
  layerMatrixSet,
  matrixIdForZoom,
  summarizeCapabilities,
  systemGdal,
} from './helpers';
import { expectKvpGetTiles, layerSource, type LayerResult, openLayer, QGIS_CHECK, qgisPixels, query, runQgis } from './qgis';
import { gatedTest } from '../helpers/clients';
import { fetchText } from '../helpers/fetch';
import { decodeRGBA, isUniform, type RGBA } from '../helpers/pixels';
import { colourCount, expectRenders, PATIENT_RENDER, renderedWindow, sampleCopy, type TileWindow, windowBounds3857, windowSize } from '../helpers/rendered-map';
import { KEY, startServer, type TestServer } from '../helpers/server';
import { readMetadata } from '../helpers/stored-tiles';
import { tempDirs } from '../helpers/temp-dirs';

/** The central 2 × 2 tiles of zoom 2 (512 px): Europe, Africa and the Atlantic, 1024 × 1024 px, one metatile. */
const WINDOW: TileWindow = { z: 2, x: 1, y: 1, cols: 2, rows: 2, tileSize: 512 };
const LAYER = 'maps/sample';
/** 2 × 2 tiles of zoom 3 of the 256 px layer (Europe and western Asia, 512 × 512 px), inside one metatile. */
const WINDOW_256: TileWindow = { z: 3, x: 4, y: 2, cols: 2, rows: 2, tileSize: 256 };
const LAYER_256 = 'maps/sample/256';
const GDALS: Gdal[] = [systemGdal(), chrootGdal()];
const temps = tempDirs('tilemirror-rendered-wmts-');

/** Runs `fn` with a folder this GDAL reads and writes (inside its root filesystem for the chroot's), removed after. */
async function withGdalDir(gdal: Gdal, fn: (dir: string) => Promise<void>): Promise<void> {
  const tmp = tempDirs('tilemirror-rendered-gdal-', gdal.tempBase);
  try {
    await fn(tmp.tempDir());
  } finally {
    tmp.removeTempDirs();
  }
}

describe('WMTS clients read a vector-only map as raster: its tiles are the server\'s renders', () => {
  let server: TestServer;
  let base: string;
  let data: string;
  let expected: RGBA;
  let expected256: RGBA;
  let capsUrl: string;

  beforeAll(async () => {
    data = sampleCopy(temps.tempDir(), true);
    server = await startServer({ dataDir: data, config: PATIENT_RENDER });
    base = server.url.replace(/\/+$/, '');
    capsUrl = `${base}/maps/sample/WMTSCapabilities.xml?key=${KEY}`;
    expected = await renderedWindow(base, 'sample', WINDOW);
    expected256 = await renderedWindow(base, 'sample', WINDOW_256);
  }, 400_000);
  afterAll(async () => {
    await server?.close();
    temps.removeTempDirs();
  });

  test('the map holds no raster tile and the window\'s renders are a drawn map', () => {
    const store = path.join(data, 'maps', 'sample.mbtiles');
    expect(readMetadata(store).tilemirror_raster).toBe('render');
    const db = new Database(store, { readonly: true });
    const rows = db.prepare('SELECT (SELECT count(*) FROM tiles) + (SELECT count(*) FROM tilemirror_tiles)').pluck().get();
    db.close();
    expect(rows).toBe(0);
    expect(isUniform(expected)).toBe(false);
    expect(colourCount(expected)).toBeGreaterThan(50);
  });

  for (const gdal of GDALS) {
    gdalTest(gdal)(
      `${gdal.label}: WMTS:<capabilities>,layer=${LAYER} opens with one overview per lower zoom; gdal_translate of the z${WINDOW.z} window at 1:1 is the renders`,
      () =>
        withGdalDir(gdal, async (dir) => {
          const source = `WMTS:${capsUrl},layer=${LAYER}`;
          const info = await gdalinfo(source, [], dir, gdal);
          const maxzoom = Number(readMetadata(path.join(data, 'maps', 'sample.mbtiles')).maxzoom);
          expect(info.geoTransform[1]).toBeCloseTo((2 * Math.PI * 6378137) / 512 / 2 ** maxzoom, 6);
          expect(info.bands[0].overviews?.length).toBe(maxzoom);
          const out = path.join(dir, 'window.png');
          await gdalTranslateWindow(source, windowBounds3857(WINDOW), windowSize(WINDOW), out, { gdal, cwd: dir });
          expectRenders(await decodeRGBA(out), expected, `${gdal.label} ${LAYER} z${WINDOW.z} window`);
        }),
      180_000,
    );

    gdalTest(gdal)(
      `${gdal.label}: layer=${LAYER_256}, gdal_translate of a z${WINDOW_256.z} window of 256 px tiles at 1:1 is the renders`,
      () =>
        withGdalDir(gdal, async (dir) => {
          const out = path.join(dir, 'window-256.png');
          await gdalTranslateWindow(`WMTS:${capsUrl},layer=${LAYER_256}`, windowBounds3857(WINDOW_256), windowSize(WINDOW_256), out, { gdal, cwd: dir });
          expectRenders(await decodeRGBA(out), expected256, `${gdal.label} ${LAYER_256} z${WINDOW_256.z} window`);
        }),
      180_000,
    );
  }

  gatedTest('QGIS', QGIS_CHECK)(
    `QGIS 3.22: the layer ${LAYER} opens; a block and a map render of the z2 window at 1:1 are the renders, from 200 GetTiles of TileMatrix 2`,
    async () => {
      const caps = summarizeCapabilities(await fetchText(capsUrl));
      const set = layerMatrixSet(caps, LAYER, WINDOW.tileSize);
      const extent = windowBounds3857(WINDOW);
      const size = windowSize(WINDOW);
      const [layer] = await runQgis<[LayerResult]>(
        [{ op: 'layer', uri: layerSource(capsUrl, LAYER, set.identifier), blocks: [{ extent, ...size }], render: { extent, ...size } }],
        temps.tempDir,
        150_000,
      );
      openLayer(layer, LAYER);
      expect(layer.crs).toBe('EPSG:3857');
      const matrix = matrixIdForZoom(set, WINDOW.z);
      const block = layer.blocks[0];
      const tiles = expectKvpGetTiles(block.requests, `${LAYER} window`);
      expect(tiles.map((r) => [query(r).get('LAYER'), query(r).get('TILEMATRIX')])).toEqual(tiles.map(() => [LAYER, matrix]));
      // The map render finds the tiles in QGIS's cache: whatever it still asks for must be answered too.
      if (layer.render?.requests?.length) expectKvpGetTiles(layer.render.requests, `${LAYER} map render`);
      expectRenders(qgisPixels(block, 'block'), expected, `QGIS ${LAYER} block of the z${WINDOW.z} window`);
      if (!layer.render) throw new Error('QGIS made no map render');
      expect(layer.render.errors).toEqual([]);
      expectRenders(qgisPixels(layer.render, 'map render'), expected, `QGIS ${LAYER} map render of the z${WINDOW.z} window`);
    },
    240_000,
  );
});
