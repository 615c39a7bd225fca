// An OpenMapTiles-style vector MBTiles (de-duplicated map/images schema, `json` metadata), imported with
// `import --mbtiles FILE --as tiles/ID`, opened in MapLibre (headless Chromium) through the tile set's viewer:
// its style takes the imported TileJSON, and the map must load it and its tiles from this server without any
// error, and draw the layers the file's vector_layers name.
import { cpSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { importMbtilesCommand } from '../../src/interchange-cli';
import { openMapTilesStyle, sampleVector } from '../fixtures/foreign-mbtiles';
import { gatedTest } from '../helpers/clients';
import { KEY, SAMPLE_DIR, startServer, type TestServer } from '../helpers/server';
import { CHROMIUM_CHECK, PageRecorder, imageStats, launchChromium, summarizeMap, waitForMapIdle } from './browser';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-import-maplibre-');

const IDLE_TIMEOUT_MS = 45_000;
const clientTest = gatedTest('Chromium (browser tests)', CHROMIUM_CHECK);

describe('an imported OpenMapTiles-style vector MBTiles in MapLibre', () => {
  let tmp: string;
  let server: TestServer;
  let layerIds: string[];

  beforeAll(async () => {
    tmp = tempDir();
    const data = path.join(tmp, 'data');
    mkdirSync(path.join(data, 'tiles'), { recursive: true });
    // The viewer's automatic style labels with this server's fonts: the sample's fonts come along.
    cpSync(path.join(SAMPLE_DIR, 'fonts'), path.join(data, 'fonts'), { recursive: true });
    const vector = sampleVector(path.join(SAMPLE_DIR, 'tiles/sample-vector.mbtiles'));
    layerIds = (vector.vectorLayers as { id: string }[]).map((l) => l.id);
    importMbtilesCommand({ data, file: openMapTilesStyle(path.join(tmp, 'omt.mbtiles'), vector), as: 'tiles/omt' });
    server = await startServer({ dataDir: data });
  }, 30_000);
  afterAll(async () => {
    await server?.close();
    removeTempDirs();
  });

  clientTest('the viewer loads the TileJSON and tiles, draws the layers, offline, without errors', async () => {
    const browser = await launchChromium();
    const problems: string[] = [];
    try {
      const context = await browser.newContext({ viewport: { width: 800, height: 600 }, deviceScaleFactor: 1 });
      const page = await context.newPage();
      const recorder = new PageRecorder(context, page);
      const base = server.url.replace(/\/$/, '');
      const res = await page.goto(`${base}/tiles/omt/?key=${KEY}`, { waitUntil: 'load', timeout: IDLE_TIMEOUT_MS });
      expect(res?.status()).toBe(200);
      await waitForMapIdle(page, IDLE_TIMEOUT_MS);
      const summary = await summarizeMap(page);
      const loaded = (part: string) => recorder.responses.filter((r) => r.status === 200 && r.url.includes(part));
      if (loaded('/tiles/omt/tiles.json').length === 0) problems.push('the TileJSON of tiles/omt was not loaded');
      if (loaded('/tiles/omt/').filter((r) => r.contentType === 'application/x-protobuf').length === 0) problems.push('no vector tile loaded');
      // Features of the file's layers are on screen (queryRenderedFeatures over every layer of the style).
      const drawn = await page.evaluate(() => {
        const map = (globalThis as unknown as { map: { queryRenderedFeatures(): { sourceLayer?: string }[] } }).map;
        return [...new Set(map.queryRenderedFeatures().map((f) => f.sourceLayer ?? ''))];
      });
      const ofFile = drawn.filter((l) => layerIds.includes(l));
      if (ofFile.length === 0) problems.push(`no feature of the file's layers (${layerIds.join(', ')}) drawn; drawn: ${drawn.join(', ')}`);
      const stats = await imageStats(await page.screenshot());
      if (stats.dominant.share > 0.95) problems.push(`the map looks blank (${(stats.dominant.share * 100).toFixed(1)}% one colour)`);
      if (summary.canvas.width === 0) problems.push('no map canvas');
      problems.push(...recorder.problems);
      await context.close();
    } finally {
      await browser.close();
    }
    expect(problems).toEqual([]);
  }, 150_000);
});
