// Fidelity of the map renderer (services/renderer): what it draws for a tile against what the viewer shows of the
// same area and zoom, and metatiles against each other.
//  (a) Oracle: the map viewer page (/maps/sample/) in Debian's Chromium (the e2e suite's browser, not the
//      renderer's bundled one), its map jumped to the tile's centre and MapLibre zoom, in a window the size of the
//      tile and the renderer's margin, and a screenshot of the tile's square. The share of pixels within a small
//      tolerance must be at least 98 % (measured: 99.99 % exactly equal, 100 % within 8).
//  (b) No seams: four tiles rendered each alone (metatile 1, with the margin) and stitched, against the same
//      block drawn in one render (one 2 × 2 metatile). Labels and lines crossing the inner edges must be drawn
//      alike: nearly every pixel equal, in the band along the inner edges as everywhere.
// Skipped with a message when /usr/bin/chromium is missing (`bash test/run.sh` installs Debian's `chromium`).
import sharp from 'sharp';
import type { Browser } from 'playwright-core';
import type { RenderedTile, RenderTile } from '../../src/services/renderer/types';
import { gatedTest } from '../helpers/clients';
import { decodeRGBA, type RGBA } from '../helpers/pixels';
import { KEY, startServer, type TestServer } from '../helpers/server';
import { CHROMIUM_CHECK, launchChromium, waitForMapIdle } from './browser';

jest.setTimeout(240_000);
const clientTest = gatedTest('Chromium (browser tests)', CHROMIUM_CHECK);
const IDLE_TIMEOUT_MS = 90_000;
const MARGIN = 128;

let single: TestServer;
let meta: TestServer;
let oracle: Browser | undefined;
beforeAll(async () => {
  meta = await startServer({ config: { render: { browser: 'bundled', browsers: 1, metatile: 4, margin: MARGIN } } });
  single = await startServer({ config: { render: { browser: 'bundled', browsers: 1, metatile: 1, margin: MARGIN } } });
}, 60_000);
afterAll(async () => {
  await oracle?.close();
  await Promise.all([meta?.close(), single?.close()]);
});

function tile(srv: TestServer, t: Pick<RenderTile, 'z' | 'x' | 'y' | 'tileSize'>): RenderTile {
  return { mapId: 'sample', styleVersion: srv.server.catalog.get('maps', 'sample')?.info.version ?? '', scale: 1, format: 'png', ...t };
}

/** Share of pixels whose channels all differ by at most `tolerance` (images of the same size). */
function sameShare(a: RGBA, b: RGBA, tolerance: number, inside: (x: number, y: number) => boolean = () => true): { share: number; pixels: number } {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`sizes differ: ${a.width}x${a.height} vs ${b.width}x${b.height}`);
  let same = 0;
  let pixels = 0;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < a.width; x++) {
      if (!inside(x, y)) continue;
      pixels++;
      const i = (y * a.width + x) * 4;
      let worst = 0;
      for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(a.data[i + c] - b.data[i + c]));
      if (worst <= tolerance) same++;
    }
  }
  return { share: same / pixels, pixels };
}

/** Tiles of one block placed side by side (x0, y0 its top left tile). */
async function stitch(tiles: RenderedTile[], x0: number, y0: number, edge: number, n: number): Promise<RGBA> {
  const png = await sharp({ create: { width: edge * n, height: edge * n, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite(tiles.map((t) => ({ input: t.data, left: (t.tile.x - x0) * edge, top: (t.tile.y - y0) * edge })))
    .png()
    .toBuffer();
  return decodeRGBA(png);
}

clientTest('(a) a rendered 512 px tile equals the viewer\'s picture of the same area and zoom (>= 98 % of pixels within 8; 99.99 % exactly equal when measured)', async () => {
  const t = tile(meta, { z: 3, x: 4, y: 2, tileSize: 512 });
  const rendered = await decodeRGBA(await meta.server.services.renderer.render(t));

  // The tile's centre in degrees, from the Web Mercator formulas (not from the code under test).
  const n = 2 ** t.z;
  const lon = ((t.x + 0.5) / n) * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * (t.y + 0.5)) / n))) * 180) / Math.PI;
  oracle = await launchChromium();
  const page = await oracle.newPage({ viewport: { width: 512 + 2 * MARGIN, height: 512 + 2 * MARGIN }, deviceScaleFactor: 1 });
  await page.goto(`${meta.url}/maps/sample/?key=${KEY}`);
  await waitForMapIdle(page, IDLE_TIMEOUT_MS);
  // MapLibre draws 512 px tiles: a 512 px tile at z is MapLibre zoom z.
  await page.evaluate(([lng, la, z]) => (globalThis as unknown as { map: { jumpTo(o: object): void } }).map.jumpTo({ center: [lng, la], zoom: z }), [lon, lat, t.z] as const);
  await waitForMapIdle(page, IDLE_TIMEOUT_MS);
  const shot = await decodeRGBA(await page.screenshot({ clip: { x: MARGIN, y: MARGIN, width: 512, height: 512 } }));
  await page.close();

  const { share } = sameShare(rendered, shot, 8);
  expect({ share: Math.round(share * 10000) / 100 }).toEqual({ share: expect.any(Number) });
  expect(share).toBeGreaterThanOrEqual(0.98);
});

test('(b) four tiles rendered alone and stitched equal one render of the 2 × 2 block: no seam, no cut label at the inner edges', async () => {
  const [x0, y0, z] = [8, 5, 4];
  const alone = await Promise.all(
    [0, 1].flatMap((dy) => [0, 1].map((dx) => tile(single, { z, x: x0 + dx, y: y0 + dy, tileSize: 256 }))).map(async (t) => ({ tile: t, data: await single.server.services.renderer.render(t) })),
  );
  const v = tile(meta, { z, x: 0, y: 0, tileSize: 256 });
  const block = await meta.server.services.renderer.renderMetatile({ mapId: v.mapId, styleVersion: v.styleVersion, tileSize: 256, scale: 1, z, x0, y0, n: 2, formats: ['png'] });
  expect(block).toHaveLength(4);
  const [a, b] = await Promise.all([stitch(alone, x0, y0, 256, 2), stitch(block, x0, y0, 256, 2)]);

  const everywhere = sameShare(a, b, 8);
  const nearInnerEdges = sameShare(a, b, 8, (x, y) => Math.abs(x - 256) < 24 || Math.abs(y - 256) < 24);
  expect({ everywhere: everywhere.share >= 0.99, nearInnerEdges: nearInnerEdges.share >= 0.99 }).toEqual({ everywhere: true, nearInnerEdges: true });
});
