// The viewer pages of the bundled sample, opened in a real browser (issue 3, item 5): headless Debian Chromium
// driven by playwright-core against the real server. Each page, once its map is idle, must:
//  - show a map, not a blank page (screenshot decoded with sharp: colours, spread, no colour covering > 90%);
//  - for vector styles, draw labels: symbol features placed (queryRenderedFeatures), the picture changes when the
//    symbol layers are hidden, the text's glyph PBFs came from this server with 200, the sprite's .json and .png
//    too, and icons show (zooming in to the icon layers' minzoom when the viewer opens below it);
//  - stay on this machine: no request to a non-loopback address, no 4xx/5xx, no failed request, no page error
//    and no console error; the page's icon (/favicon.ico unless the page declares one, which Chromium fetches
//    outside the page's network events) is fetched by the test itself and must not fail.
//
// Skipped with a message when /usr/bin/chromium is missing (`bash test/run.sh` installs Debian's `chromium`);
// a failure instead with CI=true or TILEMIRROR_REQUIRE_CLIENTS set.
// Screenshots go to a temporary directory, named in every failure message; it is removed when every test
// passed, unless TILEMIRROR_KEEP_SCREENSHOTS=1.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { gatedTest } from '../helpers/clients';
import { KEY } from '../helpers/server';
import {
  CHROMIUM_CHECK,
  PageRecorder,
  differingPixels,
  faviconUrl,
  imageStats,
  isLocalUrl,
  browserSession,
  countRendered,
  layersMinZoom,
  setLayersVisibility,
  summarizeMap,
  zoomTo,
  waitForMapIdle,
  type ImageStats,
  type MapSummary,
} from './browser';

const VIEWPORT = { width: 800, height: 600 };
/**
 * Time a page gets to load and reach an idle map, and again after each change (about a second on an idle
 * 2-core machine with software WebGL; generous because CI shares the machine with the other test files).
 */
const IDLE_TIMEOUT_MS = 45_000;

interface ViewerCase {
  name: string;
  path: string;
  /** Raster tilesets have no symbol layers: only "not blank" is asserted for them. */
  labels: boolean;
}

const VIEWERS: ViewerCase[] = [
  { name: 'map sample (style with labels)', path: '/maps/sample/', labels: true },
  { name: 'vector tileset sample-vector (automatic style with name labels)', path: '/tiles/sample-vector/', labels: true },
  // A raster (terrain-RGB) tileset: the automatic style is a single raster layer, no labels to check.
  { name: 'raster tileset sample-terrain (no labels)', path: '/tiles/sample-terrain/', labels: false },
  // /images/{id}/ has no viewer page.
];

const clientTest = gatedTest('Chromium (browser tests)', CHROMIUM_CHECK);

const session = browserSession('e2e');

function describeStats(s: ImageStats): string {
  return (
    `${s.width}x${s.height}, ${s.colours} colours, dominant rgb(${s.dominant.rgb.join(',')}) on ` +
    `${(s.dominant.share * 100).toFixed(1)}%, stdev ${s.stdev.map((v) => v.toFixed(1)).join('/')}`
  );
}

describe.each(VIEWERS)('viewer in Chromium: $name', (viewer) => {
  clientTest(`${viewer.path}?key=${KEY} renders${viewer.labels ? ' with labels' : ''}, offline, without errors`, async () => {
    const b = await session.browser();
    const started = Date.now();
    const base = `${viewer.path.replace(/\W+/g, '_').replace(/^_|_$/g, '')}`;
    const shot = path.join(session.shotsDir, `${base}.png`);
    const problems: string[] = [];
    const context = await b.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
    let summary: MapSummary | undefined;
    let recorder: PageRecorder | undefined;
    let idleAfter = -1;
    try {
      const page = await context.newPage();
      recorder = new PageRecorder(context, page);
      const url = `${session.base}${viewer.path}?key=${KEY}`;
      const res = await page.goto(url, { waitUntil: 'load', timeout: IDLE_TIMEOUT_MS });
      if (!res || res.status() !== 200) throw new Error(`GET ${url} -> ${res?.status()}`);
      await waitForMapIdle(page, IDLE_TIMEOUT_MS);
      idleAfter = Date.now() - started;

      // The page's icon (a browser-level request that the network events above do not see).
      const icon = await faviconUrl(page);
      if (!icon.startsWith('data:')) {
        if (!isLocalUrl(icon)) problems.push(`the page's icon is not on this machine: ${icon}`);
        else {
          const r = await fetch(icon);
          await r.arrayBuffer();
          if (r.status >= 400) problems.push(`HTTP ${r.status} for the page's icon ${icon} (the browser asks for it: serve it, or declare <link rel="icon">)`);
        }
      }
      const png = await page.screenshot({ path: shot });
      summary = await summarizeMap(page);

      // Not blank: a map of real variety, not one background colour.
      const stats = await imageStats(png);
      if (summary.canvas.width === 0 || summary.canvas.height === 0) problems.push(`the map canvas is empty (${summary.canvas.width}x${summary.canvas.height})`);
      if (stats.colours < 32 || stats.dominant.share > 0.9 || Math.max(...stats.stdev) < 10) {
        problems.push(`the screenshot looks blank: ${describeStats(stats)}`);
      }

      // Labels: symbol features placed on screen, and hiding the symbol layers changes the picture.
      if (viewer.labels) {
        const placed = Object.values(summary.renderedSymbols).reduce((n, k) => n + k, 0);
        if (!summary.symbolLayers.length) {
          problems.push(`the style has no symbol layer (layers: ${summary.layers.map((l) => `${l.id}:${l.type}`).join(', ')})`);
        } else {
          if (placed === 0) problems.push(`no label drawn: queryRenderedFeatures over ${summary.symbolLayers.join(', ')} found nothing`);
          const before = await setLayersVisibility(page, summary.symbolLayers, 'none');
          await waitForMapIdle(page, IDLE_TIMEOUT_MS);
          const bare = await page.screenshot({ path: path.join(session.shotsDir, `${base}-no-labels.png`) });
          const diff = await differingPixels(png, bare);
          if (diff < 100) problems.push(`hiding the symbol layers changes only ${diff} pixel(s): labels are not drawn`);
          await setLayersVisibility(page, summary.symbolLayers, before);
        }
        // The text comes from this server's glyphs (MapLibre can draw text with local fonts when glyph PBFs fail,
        // so drawn labels alone do not prove it), and the icons from its sprite.
        const ok = (prefix: string, suffix = ''): boolean =>
          recorder!.responses.some((r) => r.status === 200 && r.url.startsWith(prefix) && r.url.split('?')[0].endsWith(suffix));
        if (summary.textLayers.length) {
          const prefix = summary.glyphs?.split('{')[0];
          if (!summary.glyphs || !prefix) problems.push(`text layers ${summary.textLayers.join(', ')} but the style has no glyphs URL`);
          else if (!ok(prefix, '.pbf')) problems.push(`no glyph range loaded with 200 from ${summary.glyphs}`);
        }
        if (summary.iconLayers.length) {
          if (!summary.sprites.length) problems.push(`icon layers ${summary.iconLayers.join(', ')} but the style has no sprite`);
          for (const sprite of summary.sprites) {
            const spritePath = sprite.split('?')[0];
            if (!ok(spritePath, '.json') || !ok(spritePath, '.png')) problems.push(`sprite ${sprite}: its .json and .png were not both loaded with 200`);
          }
          // Icons may start at a higher zoom than the viewer opens at: zoom in to where they show, and find them.
          let icons = await countRendered(page, summary.iconLayers);
          if (icons === 0) {
            const z = await layersMinZoom(page, summary.iconLayers);
            await zoomTo(page, z + 0.5, IDLE_TIMEOUT_MS);
            await page.screenshot({ path: path.join(session.shotsDir, `${base}-icons-z${z + 0.5}.png`) });
            icons = await countRendered(page, summary.iconLayers);
            if (icons === 0) problems.push(`no icon drawn by ${summary.iconLayers.join(', ')}, at the viewer's zoom nor at zoom ${z + 0.5}`);
          }
        }
      }
    } catch (e) {
      problems.push(`${(e as Error).message}`);
      // Whatever the page showed when it failed.
      try {
        const pages = context.pages();
        if (pages[0]) await pages[0].screenshot({ path: shot, timeout: 5_000 });
      } catch {
        /* no screenshot */
      }
    } finally {
      // Network and error problems recorded up to here (closing the context may abort what is still in flight).
      if (recorder) problems.push(...recorder.problems);
      await context.close();
    }
    if (problems.length) {
      session.failed();
      writeFileSync(path.join(session.shotsDir, `${base}-requests.txt`), `${(recorder?.requests ?? []).join('\n')}\n`);
      throw new Error(
        `${viewer.path}?key=${KEY}:\n  - ${problems.join('\n  - ')}\n` +
          `map idle ${idleAfter >= 0 ? `${idleAfter} ms after navigation` : 'never'}, test ${Date.now() - started} ms\n` +
          `screenshot: ${shot}\nrequests: ${path.join(session.shotsDir, `${base}-requests.txt`)}` +
          (summary ? `\nsymbol layers: ${summary.symbolLayers.join(', ') || 'none'}; placed: ${JSON.stringify(summary.renderedSymbols)}` : ''),
      );
    }
  }, 150_000);
});
