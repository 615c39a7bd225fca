// OpenLayers' ImageWMS in Debian's Chromium (playwright-core) on the server's WMS 1.3.0, in EPSG:4326 (latitude
// first in the BBOX, by OpenLayers' own axis rules) and EPSG:3857. With ratio 1 and a device scale of 1 it sends one
// GetMap of exactly its view and draws the answer 1:1: the screenshot of the map must be the server's answer to that
// very request, pixel for pixel, and that answer must be the sample map (not blank, not an exception).
import { CHROMIUM_CHECK, browserSession, PageRecorder } from './browser';
import { OL_PREFIX, routeOpenLayersPage } from './openlayers-page';
import { gatedTest } from '../helpers/clients';
import { comparePixels, decodeRGBA, isUniform } from '../helpers/pixels';
import { KEY, rawGet } from '../helpers/server';

const chromiumTest = gatedTest('Chromium (OpenLayers in the browser)', CHROMIUM_CHECK);
const session = browserSession('wms-openlayers');
const SIZE = { width: 640, height: 400 };

const VIEWS = [
  { projection: 'EPSG:4326', center: '10,47.5', resolution: 40 / 640, bboxOrder: 'north first' },
  { projection: 'EPSG:3857', center: '1113195,6000000', resolution: 4000, bboxOrder: 'east first' },
] as const;

chromiumTest.each(VIEWS.map((v) => [v.projection, v] as const))('ImageWMS in %s: one GetMap of the view, drawn 1:1', async (_name, view) => {
  const browser = await session.browser();
  const context = await browser.newContext({ viewport: SIZE, deviceScaleFactor: 1 });
  try {
    await routeOpenLayersPage(context, session.base, SIZE);
    const page = await context.newPage();
    const recorder = new PageRecorder(context, page);
    const query = new URLSearchParams({ wms: `${session.base}/wms?key=${KEY}`, layer: 'maps/sample', projection: view.projection, center: view.center, resolution: String(view.resolution) });
    await page.goto(`${session.base}${OL_PREFIX}wms.html?${query}`, { waitUntil: 'load', timeout: 60_000 });
    const outcome = await (await page.waitForFunction(() => {
      const w = globalThis as unknown as { olDone?: boolean; olError?: string };
      return w.olError ?? w.olDone;
    }, undefined, { timeout: 60_000, polling: 100 })).jsonValue();
    if (outcome !== true) throw new Error(`OpenLayers: ${outcome}`);
    const png = await page.locator('#map').screenshot();
    expect(recorder.problems).toEqual([]);
    const getMaps = recorder.responses.filter((r) => /[?&]REQUEST=GetMap/i.test(r.url));
    expect(getMaps.map((r) => [r.status, r.contentType])).toEqual([[200, 'image/png']]);
    const asked = new URL(getMaps[0].url).searchParams;
    expect([asked.get('CRS'), asked.get('WIDTH'), asked.get('HEIGHT')]).toEqual([view.projection, String(SIZE.width), String(SIZE.height)]);
    const [cx, cy] = view.center.split(',').map(Number);
    const [hw, hh] = [(SIZE.width * view.resolution) / 2, (SIZE.height * view.resolution) / 2];
    const xy = [cx - hw, cy - hh, cx + hw, cy + hh];
    const bbox = asked.get('BBOX')!.split(',').map(Number);
    const expectedBbox = view.bboxOrder === 'north first' ? [xy[1], xy[0], xy[3], xy[2]] : xy;
    bbox.forEach((v, i) => expect(v).toBeCloseTo(expectedBbox[i], 6));
    const answer = await rawGet(getMaps[0].url);
    const expected = await decodeRGBA(answer.body);
    expect(isUniform(expected)).toBe(false);
    const shown = await decodeRGBA(png);
    // The screenshot is opaque (the page is white where the image is transparent): compare where the answer is opaque.
    const opaque = { ...expected, data: Buffer.from(expected.data) };
    let covered = 0;
    for (let i = 0; i < opaque.data.length; i += 4) {
      if (opaque.data[i + 3] === 255) covered++;
      else opaque.data.set([shown.data[i], shown.data[i + 1], shown.data[i + 2], 255], i);
    }
    // The views are inside the sample map's coverage: nearly every pixel is compared.
    expect(covered / (SIZE.width * SIZE.height)).toBeGreaterThan(0.95);
    const diff = comparePixels(shown, opaque, 1);
    if (diff.differing > 0) session.failed();
    expect({ differing: diff.differing, first: diff.firstDifference }).toEqual({ differing: 0, first: undefined });
  } finally {
    await context.close();
  }
}, 120_000);
