// OpenLayers (the devDependency ol, ES modules as published) in Debian's Chromium, without a bundler: a page with an
// import map, and the modules served from node_modules by the browser context itself (context.route), under a path
// of the server's own origin that the server does not serve. The page is therefore same-origin with the server, as a
// site's page that shows its own WMTS would be, and nothing but the server under test is reached.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext } from 'playwright-core';

const NODE_MODULES = path.resolve(__dirname, '..', '..', 'node_modules');
/** Where the page and the modules appear on the server's origin. */
export const OL_PREFIX = '/__openlayers/';
/** The packages OpenLayers' map, view, tile layer and WMTS source import (ol's own dependencies that they load). */
const PACKAGES = ['ol', 'rbush', 'quickselect', 'earcut'];
const IMPORTS = {
  'ol/': `${OL_PREFIX}ol/`,
  rbush: `${OL_PREFIX}rbush/index.js`,
  quickselect: `${OL_PREFIX}quickselect/index.js`,
  earcut: `${OL_PREFIX}earcut/src/earcut.js`,
};

/**
 * The page: a map of `width` × `height` CSS px, no controls, one tile layer whose WMTS source OpenLayers builds from
 * the capabilities (optionsFromCapabilities) with the query's layer, matrixSet and requestEncoding, at the query's
 * center (x,y in EPSG:3857) and resolution. window.olDone is set on the map's first rendercomplete (every tile
 * loaded and drawn), window.olError on a failure; window.olSource says what OpenLayers chose.
 */
/** A page of one map of `width` × `height` CSS px running `module` (an ES module importing OpenLayers by the import map). */
function shell(title: string, width: number, height: number, module: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${OL_PREFIX}ol/ol.css">
<style>html, body { margin: 0; padding: 0; } #map { width: ${width}px; height: ${height}px; }</style>
<script type="importmap">${JSON.stringify({ imports: IMPORTS })}</script>
</head><body><div id="map"></div>
<script type="module">
${module}
</script></body></html>`;
}

function pageHtml(width: number, height: number): string {
  return shell('OpenLayers WMTS', width, height, `import Map from 'ol/Map.js';
import View from 'ol/View.js';
import TileLayer from 'ol/layer/Tile.js';
import WMTS, { optionsFromCapabilities } from 'ol/source/WMTS.js';
import WMTSCapabilities from 'ol/format/WMTSCapabilities.js';
try {
  const q = new URLSearchParams(location.search);
  const res = await fetch(q.get('caps'));
  if (!res.ok) throw new Error('capabilities: HTTP ' + res.status);
  const caps = new WMTSCapabilities().read(await res.text());
  const options = optionsFromCapabilities(caps, { layer: q.get('layer'), matrixSet: q.get('matrixSet'), requestEncoding: q.get('requestEncoding') });
  if (!options) throw new Error('optionsFromCapabilities found no such layer');
  // No fade-in: rendercomplete then means the tiles are drawn at full opacity.
  const source = new WMTS({ ...options, transition: 0 });
  window.olSource = { matrixSet: options.matrixSet, requestEncoding: options.requestEncoding, urls: options.urls };
  const map = new Map({
    target: 'map',
    controls: [],
    interactions: [],
    layers: [new TileLayer({ source })],
    view: new View({ center: q.get('center').split(',').map(Number), resolution: Number(q.get('resolution')) }),
  });
  map.once('rendercomplete', () => { window.olDone = true; });
} catch (e) {
  window.olError = String(e && e.stack || e);
}`);
}

/**
 * The WMS page: a map of `width` × `height` CSS px in the query's `projection` (one OpenLayers knows: EPSG:4326,
 * EPSG:3857), one image layer whose ImageWMS source asks the query's `wms` URL for `layer` (VERSION 1.3.0, ratio 1:
 * one GetMap of exactly the view), at the query's center and resolution. window.olDone and olError as above.
 */
function wmsPageHtml(width: number, height: number): string {
  return shell('OpenLayers WMS', width, height, `import Map from 'ol/Map.js';
import View from 'ol/View.js';
import ImageLayer from 'ol/layer/Image.js';
import ImageWMS from 'ol/source/ImageWMS.js';
try {
  const q = new URLSearchParams(location.search);
  const source = new ImageWMS({ url: q.get('wms'), params: { LAYERS: q.get('layer'), FORMAT: 'image/png', VERSION: '1.3.0' }, ratio: 1, projection: q.get('projection') });
  const map = new Map({
    target: 'map',
    controls: [],
    interactions: [],
    layers: [new ImageLayer({ source })],
    view: new View({ projection: q.get('projection'), center: q.get('center').split(',').map(Number), resolution: Number(q.get('resolution')) }),
  });
  map.once('rendercomplete', () => { window.olDone = true; });
} catch (e) {
  window.olError = String(e && e.stack || e);
}`);
}

/**
 * Serves the pages (`${origin}${OL_PREFIX}page.html`: WMTS; `wms.html`: WMS) and OpenLayers' modules in `context`;
 * any other path under the prefix is a 404. Returns the WMTS page's URL without its query.
 */
export async function routeOpenLayersPage(context: BrowserContext, origin: string, size: { width: number; height: number }): Promise<string> {
  const html = pageHtml(size.width, size.height);
  const wmsHtml = wmsPageHtml(size.width, size.height);
  await context.route(`${origin}${OL_PREFIX}**`, async (route) => {
    const rel = decodeURIComponent(new URL(route.request().url()).pathname.slice(OL_PREFIX.length));
    if (rel === 'page.html') return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html });
    if (rel === 'wms.html') return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: wmsHtml });
    const file = path.resolve(NODE_MODULES, rel);
    const inside = PACKAGES.some((p) => file.startsWith(path.join(NODE_MODULES, p) + path.sep));
    if (!inside || !/\.(js|css)$/.test(file)) return route.fulfill({ status: 404, body: `not served: ${rel}` });
    try {
      const body = await readFile(file);
      return route.fulfill({ status: 200, contentType: file.endsWith('.css') ? 'text/css' : 'text/javascript', body });
    } catch {
      return route.fulfill({ status: 404, body: `no such file: ${rel}` });
    }
  });
  return `${origin}${OL_PREFIX}page.html`;
}
