// MapLibre (in Debian's Chromium, through playwright-core) drawing what the mirror took from servers nobody here
// wrote: gdal2tiles output with a hand-made TileJSON (512 px tiles, test/interop/gdal2tiles.ts) and
// tileserver-gl-light 5 (256 px, gzipped PNGs; test/interop/tileserver.ts). Each upstream is mirrored with the
// CLI's --source-tilejson, tilemirror serves the result, and a style whose raster source is tilemirror's TileJSON
// (tileSize as that TileJSON says) is drawn: every tile request answered 200 image/png, at the zoom the tile size
// implies (512 px: the map's zoom; 256 px: one more), no page or network error, and pixels of the tiles on screen.
//
// Screenshots are kept (in a temporary directory, named on the console) with TILEMIRROR_KEEP_SCREENSHOTS=1.
// Skipped visibly (test.skip) when Chromium, GDAL or tileserver-gl-light is missing; with CI=true or
// TILEMIRROR_REQUIRE_CLIENTS set the tests run and fail instead.
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { built } from '../helpers/dist';
import { KEY, SAMPLE_DIR, startServer, type TestServer } from '../helpers/server';
import { gatedTest, GDAL_CHECK } from '../helpers/clients';
import { assertOk, run } from '../helpers/run';
import { GDAL2TILES_CHECK, makeGdal2tilesSite } from '../interop/gdal2tiles';
import { startTileserver, TILESERVER_MAIN } from '../interop/tileserver';
import { CHROMIUM_CHECK, launchChromium, PageRecorder, waitForMapIdle } from './browser';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-mirrored-raster-');

const VIEWPORT = { width: 800, height: 600 };
const IDLE_TIMEOUT_MS = 45_000;
/** The style's background: a colour no tile of either source has, so every other pixel is a tile's. */
const BACKGROUND: [number, number, number] = [255, 0, 255];

const both = (a: typeof GDAL_CHECK, b: typeof GDAL_CHECK) => ({
  bins: [...(a.bins ?? []), ...(b.bins ?? [])],
  pythonModules: [...(a.pythonModules ?? []), ...(b.pythonModules ?? [])],
  files: [...(a.files ?? []), ...(b.files ?? [])],
  packages: [...a.packages, ...b.packages],
});
const gdal2tilesTest = gatedTest('Chromium and gdal2tiles (mirrored raster in MapLibre)', both(CHROMIUM_CHECK, GDAL2TILES_CHECK));
const tileserverTest = gatedTest(
  'Chromium and tileserver-gl-light (mirrored raster in MapLibre)',
  both(CHROMIUM_CHECK, { files: [[TILESERVER_MAIN]], packages: ['and tileserver-gl-light@5 from npm into .bench/tileserver'] }),
);

/** Share (0..1) of a screenshot's pixels that are not the background. */
async function tilePixelShare(png: Buffer): Promise<number> {
  const { data } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let drawn = 0;
  for (let i = 0; i < data.length; i += 3) {
    if (Math.abs(data[i] - BACKGROUND[0]) > 12 || Math.abs(data[i + 1] - BACKGROUND[1]) > 12 || Math.abs(data[i + 2] - BACKGROUND[2]) > 12) drawn++;
  }
  return drawn / (data.length / 3);
}

describe('MapLibre draws rasters mirrored from foreign servers, through tilemirror\'s TileJSON', () => {
  let tmp: string;
  let browser: Browser | undefined;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(() => {
    tmp = tempDir();
  });
  afterAll(async () => {
    await browser?.close();
    for (const close of closers.reverse()) await close();
    if (process.env.TILEMIRROR_KEEP_SCREENSHOTS) console.warn(`screenshots kept in ${tmp}`); // eslint-disable-line no-console
    else removeTempDirs();
  });

  /** Mirrors `tilejson` into tiles/ID of a data directory of its own and serves it with tilemirror. */
  async function mirrorAndServe(id: string, tilejson: string): Promise<TestServer> {
    const data = path.join(tmp, `data-${id}`);
    assertOk(await run(process.execPath, [built('cli.js'), 'mirror', '-d', data, '--source-tilejson', tilejson, '--id', id], { timeoutMs: 120_000 }));
    const served = await startServer({ dataDir: data });
    closers.push(() => served.close());
    return served;
  }

  /** Draws tiles/ID at `view` with a style of one raster source (tilemirror's TileJSON) and checks what MapLibre did. */
  async function draw(served: TestServer, id: string, view: { center: [number, number]; zoom: number }, expectTileSize: number, expectTileZoom: number): Promise<void> {
    const base = served.url.replace(/\/+$/, '');
    const tilejsonUrl = `${base}/tiles/${id}/tiles.json?key=${KEY}`;
    const tj = (await (await fetch(tilejsonUrl)).json()) as { tileSize?: number };
    expect(tj.tileSize).toBe(expectTileSize);

    browser ??= await launchChromium();
    const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
    try {
      const page = await context.newPage();
      const recorder = new PageRecorder(context, page);
      // tilemirror's viewer page brings MapLibre (from this server's /assets) as window.map.
      const res = await page.goto(`${base}/tiles/${id}/?key=${KEY}`, { waitUntil: 'load', timeout: IDLE_TIMEOUT_MS });
      expect(res?.status()).toBe(200);
      await waitForMapIdle(page, IDLE_TIMEOUT_MS);
      const before = recorder.responses.length;
      await page.evaluate(
        ({ view, tilejsonUrl, tileSize, background }) => {
          interface M {
            jumpTo(o: { center: [number, number]; zoom: number }): void;
            setStyle(style: object): void;
          }
          const map = (globalThis as unknown as { map: M }).map;
          map.jumpTo(view);
          map.setStyle({
            version: 8,
            sources: { mirrored: { type: 'raster', url: tilejsonUrl, tileSize } },
            layers: [
              { id: 'background', type: 'background', paint: { 'background-color': `rgb(${background.join(',')})` } },
              { id: 'mirrored', type: 'raster', source: 'mirrored', paint: { 'raster-fade-duration': 0 } },
            ],
          });
        },
        { view, tilejsonUrl, tileSize: tj.tileSize, background: BACKGROUND },
      );
      await waitForMapIdle(page, IDLE_TIMEOUT_MS);
      const png = await page.screenshot({ path: path.join(tmp, `${id}.png`) });

      expect(recorder.problems).toEqual([]);
      const tilePath = new RegExp(`/tiles/${id}/(\\d+)/(\\d+)/(\\d+)(\\.png)?\\?`);
      const tiles = recorder.responses.slice(before).filter((r) => tilePath.test(r.url));
      expect(tiles.length).toBeGreaterThan(0);
      expect(tiles.filter((r) => r.status !== 200 || r.contentType !== 'image/png')).toEqual([]);
      expect([...new Set(tiles.map((r) => Number(tilePath.exec(r.url)![1])))]).toEqual([expectTileZoom]);
      expect(await tilePixelShare(png)).toBeGreaterThan(0.05);
    } finally {
      await context.close();
    }
  }

  gdal2tilesTest('gdal2tiles output (512 px, hand-made TileJSON): tiles loaded at the map\'s zoom, drawn', async () => {
    const site = await makeGdal2tilesSite(tmp);
    closers.push(() => site.close());
    const served = await mirrorAndServe('g2t', `${site.url}/tiles.json`);
    await draw(served, 'g2t', { center: [22.5, 20], zoom: 3 }, 512, 3);
  }, 240_000);

  tileserverTest('tileserver-gl-light (256 px, gzipped): tiles loaded one zoom deeper than the map\'s, drawn', async () => {
    const upstream = path.join(tmp, 'img.mbtiles');
    copyFileSync(path.join(SAMPLE_DIR, 'images', 'sample-image.mbtiles'), upstream);
    const ts = await startTileserver(tmp, 'img', upstream);
    closers.push(() => ts.stop());
    const served = await mirrorAndServe('ts-img', `${ts.url}/data/img.json`);
    await draw(served, 'ts-img', { center: [0, 30], zoom: 2 }, 256, 3);
  }, 240_000);
});
