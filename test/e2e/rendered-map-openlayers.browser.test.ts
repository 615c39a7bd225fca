// OpenLayers in Debian's Chromium (playwright-core) showing the WMTS layer of a map that has only vector data: the
// sample's map as `tilemirror mirror --raster render` stores it, whose every tile the server renders and keeps. The
// page (test/e2e/openlayers-page.ts) builds its WMTS source from the served capabilities and shows the central 2 × 2
// tiles of zoom 2 at their own resolution, so each tile is drawn 1:1 where it belongs: the screenshot of the map must
// be the server's renders of those tiles, fetched over HTTP one by one and put side by side. Every tile request
// OpenLayers makes must be answered 200 image/png, with nothing else failing on the page.
//
// The window's tiles are fetched before the page loads (the oracle needs them anyway), so OpenLayers gets kept
// renders; the server's first render takes ~10 s more (its browser starts).
import type { Browser } from 'playwright-core';
import { CHROMIUM_CHECK, launchChromium, PageRecorder } from './browser';
import { routeOpenLayersPage } from './openlayers-page';
import { gatedTest } from '../helpers/clients';
import { fetchText } from '../helpers/fetch';
import { layerMatrixSet, summarizeCapabilities } from '../interop/helpers';
import { decodeRGBA, type RGBA } from '../helpers/pixels';
import { expectRenders, PATIENT_RENDER, renderedWindow, sampleCopy, type TileWindow, windowBounds3857, windowSize } from '../helpers/rendered-map';
import { KEY, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

/** The central 2 × 2 tiles of zoom 2 (512 px): 1024 × 1024 px around (0, 0). */
const WINDOW: TileWindow = { z: 2, x: 1, y: 1, cols: 2, rows: 2, tileSize: 512 };
const LAYER = 'maps/sample';
/** Metres per pixel of the window's zoom in the 512 px matrix set. */
const RESOLUTION = (2 * Math.PI * 6378137) / WINDOW.tileSize / 2 ** WINDOW.z;
const LOAD_TIMEOUT_MS = 120_000;

const temps = tempDirs('tilemirror-rendered-ol-');
const chromiumTest = gatedTest('Chromium (OpenLayers in the browser)', CHROMIUM_CHECK);

describe('OpenLayers shows a vector-only map\'s WMTS layer: the renders, at their tile positions', () => {
  let server: TestServer;
  let base: string;
  let expected: RGBA;
  let browser: Browser | undefined;

  beforeAll(async () => {
    server = await startServer({ dataDir: sampleCopy(temps.tempDir(), true), config: PATIENT_RENDER });
    base = server.url.replace(/\/+$/, '');
    expected = await renderedWindow(base, 'sample', WINDOW);
  }, 400_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    temps.removeTempDirs();
  });

  chromiumTest.each(['KVP', 'REST'] as const)(
    'requestEncoding %s: every tile request answered 200 image/png at TileMatrix 2; the map is the renders pixel for pixel',
    async (encoding) => {
      const capsUrl = `${base}/maps/sample/WMTSCapabilities.xml?key=${KEY}`;
      const set = layerMatrixSet(summarizeCapabilities(await fetchText(capsUrl)), LAYER, WINDOW.tileSize);
      const size = windowSize(WINDOW);
      const [minX, minY, maxX, maxY] = windowBounds3857(WINDOW);

      browser ??= await launchChromium();
      const context = await browser.newContext({ viewport: size, deviceScaleFactor: 1 });
      try {
        const pageUrl = await routeOpenLayersPage(context, base, size);
        const page = await context.newPage();
        const recorder = new PageRecorder(context, page);
        const query = new URLSearchParams({
          caps: capsUrl,
          layer: LAYER,
          matrixSet: set.identifier,
          requestEncoding: encoding,
          center: `${(minX + maxX) / 2},${(minY + maxY) / 2}`,
          resolution: String(RESOLUTION),
        });
        await page.goto(`${pageUrl}?${query}`, { waitUntil: 'load', timeout: LOAD_TIMEOUT_MS });
        const done = await page.waitForFunction(
          () => {
            const w = globalThis as unknown as { olDone?: boolean; olError?: string };
            return w.olError ?? w.olDone;
          },
          undefined,
          { timeout: LOAD_TIMEOUT_MS, polling: 100 },
        );
        const outcome = await done.jsonValue();
        if (outcome !== true) throw new Error(`OpenLayers: ${outcome}`);
        const chosen = await page.evaluate(() => (globalThis as unknown as { olSource: { matrixSet: string; requestEncoding: string } }).olSource);
        expect(chosen).toMatchObject({ matrixSet: set.identifier, requestEncoding: encoding });
        const png = await page.locator('#map').screenshot();

        expect(recorder.problems).toEqual([]);
        // The tile requests: KVP GetTile, or the RESTful /maps/sample/... template with the matrix set in the path.
        const tiles = recorder.responses.filter((r) => (encoding === 'KVP' ? /[?&]REQUEST=GetTile/i.test(r.url) : r.url.includes(`/${set.identifier}/`)));
        expect(tiles.length).toBeGreaterThanOrEqual(WINDOW.cols * WINDOW.rows);
        expect(tiles.filter((r) => r.status !== 200 || !r.contentType.startsWith('image/png'))).toEqual([]);
        const kvp = (url: string, name: string) => [...new URL(url).searchParams].find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
        const matrices = tiles.map((r) => (encoding === 'KVP' ? kvp(r.url, 'TileMatrix') : r.url.split(`/${set.identifier}/`)[1].split('/')[0]));
        expect([...new Set(matrices)]).toEqual([String(WINDOW.z)]);

        expectRenders(await decodeRGBA(png), expected, `OpenLayers ${encoding} (${tiles.length} tile requests)`);
      } finally {
        await context.close();
      }
    },
    240_000,
  );
});
