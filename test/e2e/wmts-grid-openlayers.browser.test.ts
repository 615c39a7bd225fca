// OpenLayers (the devDependency ol) in Debian's Chromium on the server's WMTS in grids besides Web Mercator (`grids`,
// decision 0055): EPSG:3035 (the registry's EuropeanETRS89_LAEAQuad) and EPSG:2056 (an operator's LV95 grid, as
// test/integration/wmts-grids.test.ts defines it). The page registers the CRS in OpenLayers through proj4 (the
// devDependency proj4, its definition string, and ol/proj/proj4's register), reads the served capabilities with
// ol/format/WMTSCapabilities and optionsFromCapabilities, and shows the layer in a view in that CRS, at the
// resolution of one tile matrix, centred on the corner four tiles share: 2 × 2 tiles, each drawn 1:1 (pixelRatio 1).
//
// Checked: OpenLayers asked for exactly those four tiles of that TileMatrixSet (KVP and REST), each answered 200
// image/png; its tile grid puts them where the capabilities' TopLeftCorner and ScaleDenominator say (read here, in
// the CRS's axis order); and the pixels of its canvas are the server's tiles, fetched again from Node, decoded by sharp
// and put side by side at those positions (mean absolute difference ≤ 1 of 255 and ≥ 99 % identical pixels; the
// figures are printed).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import type { Browser } from 'playwright-core';
import { CHROMIUM_CHECK, launchChromium, PageRecorder } from './browser';
import { OL_PREFIX, routeOpenLayersPage } from './openlayers-page';
import { gatedTest } from '../helpers/clients';
import { decodeRGBA, isUniform, type RGBA } from '../helpers/pixels';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { LV95 } from '../helpers/grids';

const chromiumTest = gatedTest('Chromium (OpenLayers in the browser)', CHROMIUM_CHECK);
const NODE_MODULES = path.resolve(__dirname, '..', '..', 'node_modules');
const LAYER = 'maps/sample';
const TILE = 256;
/** Two tiles across and down. */
const SIZE = { width: 2 * TILE, height: 2 * TILE };
const LOAD_TIMEOUT_MS = 60_000;


interface GridCase {
  matrixSet: string;
  code: string;
  /**
   * The CRS for proj4: PROJ's own definition string (`projinfo -o PROJ EPSG:…`). A PROJ string carries no axis order
   * and proj4 then takes east, north; EPSG:3035's coordinate system is northing first (EPSG, proj.db), which is the
   * order the WMTS TopLeftCorner is written in and the one OpenLayers reads from the projection
   * (getAxisOrientation), hence `+axis=neu`. EPSG:2056 is easting first, as proj4 assumes.
   */
  proj4: string;
  axis: 'neu' | 'enu';
  /**
   * The grid's top-left corner, west and north, as its definition gives it (the OGC registry's pointOfOrigin
   * [5500000, 2000000] on axes [Y, X]; the operator's LV95 origin): known here, not read from the capabilities.
   */
  origin: [number, number];
  /** The tile matrix shown and the column and row of the top-left of the 2 × 2 tiles. */
  matrix: string;
  col: number;
  row: number;
}

const CASES: GridCase[] = [
  {
    // Zoom 2 (4394.53 m a pixel): the four central tiles of the grid's 4 × 4, Western and Central Europe.
    matrixSet: 'EuropeanETRS89_LAEAQuad',
    code: 'EPSG:3035',
    proj4: '+proj=laea +lat_0=52 +lon_0=10 +x_0=4321000 +y_0=3210000 +ellps=GRS80 +units=m +no_defs +type=crs +axis=neu',
    axis: 'neu',
    origin: [2000000, 5500000],
    matrix: '2',
    col: 1,
    row: 1,
  },
  {
    // 1000 m a pixel (matrix 12): the whole grid is 2 × 2 tiles, Switzerland and its neighbours.
    matrixSet: 'LV95',
    code: 'EPSG:2056',
    proj4: '+proj=somerc +lat_0=46.9524055555556 +lon_0=7.43958333333333 +k_0=1 +x_0=2600000 +y_0=1200000 +ellps=bessel +towgs84=674.374,15.056,405.346,0,0,0,0 +units=m +no_defs +type=crs',
    axis: 'enu',
    origin: [LV95.origin[0], LV95.origin[1]],
    matrix: '12',
    col: 0,
    row: 0,
  },
];

/** The page: proj4 as a classic script (it sets window.proj4), then OpenLayers as ES modules by the import map. */
function gridPage(): string {
  const imports = {
    'ol/': `${OL_PREFIX}ol/`,
    rbush: `${OL_PREFIX}rbush/index.js`,
    quickselect: `${OL_PREFIX}quickselect/index.js`,
    earcut: `${OL_PREFIX}earcut/src/earcut.js`,
  };
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>OpenLayers WMTS in a registered projection</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${OL_PREFIX}ol/ol.css">
<style>html, body { margin: 0; padding: 0; } #map { width: ${SIZE.width}px; height: ${SIZE.height}px; }</style>
<script src="${OL_PREFIX}proj4/dist/proj4.js"></script>
<script type="importmap">${JSON.stringify({ imports })}</script>
</head><body><div id="map"></div>
<script type="module">
import Map from 'ol/Map.js';
import View from 'ol/View.js';
import TileLayer from 'ol/layer/Tile.js';
import WMTS, { optionsFromCapabilities } from 'ol/source/WMTS.js';
import WMTSCapabilities from 'ol/format/WMTSCapabilities.js';
import { register } from 'ol/proj/proj4.js';
import { get as getProjection } from 'ol/proj.js';
try {
  const q = new URLSearchParams(location.search);
  const code = q.get('code');
  proj4.defs(code, q.get('proj4'));
  register(proj4);
  const projection = getProjection(code);
  if (!projection) throw new Error('OpenLayers does not know ' + code + ' after register(proj4)');
  const res = await fetch(q.get('caps'));
  if (!res.ok) throw new Error('capabilities: HTTP ' + res.status);
  const caps = new WMTSCapabilities().read(await res.text());
  const options = optionsFromCapabilities(caps, { layer: q.get('layer'), matrixSet: q.get('matrixSet'), requestEncoding: q.get('requestEncoding') });
  if (!options) throw new Error('optionsFromCapabilities found no such layer or projection');
  // No fade-in: rendercomplete then means the tiles are drawn at full opacity.
  const source = new WMTS({ ...options, transition: 0 });
  const grid = source.getTileGrid();
  const z = grid.getMatrixIds().indexOf(q.get('matrix'));
  if (z < 0) throw new Error('no tile matrix ' + q.get('matrix') + ' in ' + grid.getMatrixIds().join(' '));
  const loaded = [];
  const failed = [];
  source.on('tileloadend', (e) => loaded.push(e.tile.getTileCoord().join('/')));
  source.on('tileloaderror', (e) => failed.push(e.tile.getTileCoord().join('/')));
  const view = new View({ projection: code, center: q.get('center').split(',').map(Number), resolution: grid.getResolution(z) });
  const map = new Map({ target: 'map', controls: [], interactions: [], pixelRatio: 1, layers: [new TileLayer({ source })], view });
  map.once('rendercomplete', () => {
    const canvases = [...document.querySelectorAll('#map canvas')];
    const canvas = canvases[0];
    window.olResult = {
      axis: projection.getAxisOrientation(),
      sourceProjection: source.getProjection().getCode(),
      matrixSet: options.matrixSet,
      requestEncoding: options.requestEncoding,
      resolution: grid.getResolution(z),
      viewResolution: view.getResolution(),
      z,
      loaded,
      failed,
      extents: Object.fromEntries(loaded.map((c) => [c, grid.getTileCoordExtent(c.split('/').map(Number))])),
      canvases: canvases.length,
      canvas: { width: canvas.width, height: canvas.height, transform: canvas.style.transform, png: canvas.toDataURL('image/png') },
    };
  });
} catch (e) {
  window.olError = String(e && e.stack || e);
}
</script></body></html>`;
}

interface OlResult {
  axis: string;
  sourceProjection: string;
  matrixSet: string;
  requestEncoding: string;
  resolution: number;
  viewResolution: number;
  z: number;
  loaded: string[];
  failed: string[];
  /** OpenLayers' extent of each loaded tile ("z/col/row"), [minx, miny, maxx, maxy] east and north. */
  extents: Record<string, [number, number, number, number]>;
  canvases: number;
  canvas: { width: number; height: number; transform: string; png: string };
}

interface Matrix {
  'ows:Identifier': string | number;
  ScaleDenominator: number;
  TopLeftCorner: string;
  TileWidth: number;
  TileHeight: number;
}
interface Caps {
  Capabilities: { Contents: { TileMatrixSet: { 'ows:Identifier': string; 'ows:SupportedCRS': string; TileMatrix: Matrix[] }[] } };
}

/**
 * A tile matrix as the capabilities give it: its top-left corner (which must be the grid's definition, in the CRS's
 * axis order) and its metres per pixel.
 */
function readMatrix(capsXml: string, c: GridCase): { west: number; north: number; resolution: number; crs: string } {
  const caps = new XMLParser({ ignoreAttributes: true }).parse(capsXml) as Caps;
  const set = caps.Capabilities.Contents.TileMatrixSet.find((s) => s['ows:Identifier'] === c.matrixSet);
  if (!set) throw new Error(`no TileMatrixSet ${c.matrixSet} in the capabilities`);
  const m = set.TileMatrix.find((x) => String(x['ows:Identifier']) === c.matrix);
  if (!m) throw new Error(`no TileMatrix ${c.matrix} in ${c.matrixSet}`);
  expect([m.TileWidth, m.TileHeight]).toEqual([TILE, TILE]);
  // TopLeftCorner is in the CRS's axis order (07-057r7 §6.1): northing first for EPSG:3035.
  const [west, north] = c.origin;
  expect(m.TopLeftCorner.split(' ').map(Number)).toEqual(c.axis === 'neu' ? [north, west] : [west, north]);
  // The standardized rendering pixel of 0.28 mm (07-057r7 §6.1.1); both CRSs are in metres.
  return { west, north, resolution: m.ScaleDenominator * 0.28e-3, crs: set['ows:SupportedCRS'] };
}

/** The tile coordinates of a tile request, KVP or REST: [matrixSet, matrix, row, col]. */
function tileOfUrl(url: string, encoding: 'KVP' | 'REST'): [string, string, number, number] | undefined {
  const u = new URL(url);
  if (encoding === 'KVP') {
    const p = new Map([...u.searchParams].map(([k, v]) => [k.toLowerCase(), v]));
    if (p.get('request')?.toLowerCase() !== 'gettile') return undefined;
    return [p.get('tilematrixset') ?? '', p.get('tilematrix') ?? '', Number(p.get('tilerow')), Number(p.get('tilecol'))];
  }
  const m = /^\/wmts\/1\.0\.0\/(.+)\/([^/]+)\/([^/]+)\/([^/]+)\/(\d+)\/(\d+)\.png$/.exec(u.pathname);
  if (!m || m[1] !== LAYER) return undefined;
  return [m[3], m[4], Number(m[5]), Number(m[6])];
}

/** Mean absolute difference over RGBA channels (of 255) and the share of pixels with all channels equal. */
function difference(a: RGBA, b: RGBA): { mad: number; identical: number } {
  let sum = 0;
  let same = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    let d = 0;
    for (let k = 0; k < 4; k++) d += Math.abs(a.data[i + k] - b.data[i + k]);
    sum += d;
    if (d === 0) same++;
  }
  const pixels = a.data.length / 4;
  return { mad: sum / (pixels * 4), identical: same / pixels };
}

describe('OpenLayers shows a WMTS layer in EPSG:3035 and EPSG:2056, the CRS registered through proj4', () => {
  let server: TestServer;
  let base: string;
  let browser: Browser | undefined;

  beforeAll(async () => {
    server = await startServer({ config: { grids: ['EuropeanETRS89_LAEAQuad', LV95] } });
    base = server.url.replace(/\/+$/, '');
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const table = CASES.flatMap((c) => (['KVP', 'REST'] as const).map((encoding) => [`${c.matrixSet} (${c.code})`, encoding, c] as const));

  chromiumTest.each(table)('%s, %s: the four tiles of the matrix asked for, drawn 1:1 where the grid puts them, as the server serves them', async (_name, encoding, c) => {
    const capsUrl = `${base}/wmts/1.0.0/WMTSCapabilities.xml?key=${KEY}`;
    const caps = await rawGet(capsUrl);
    expect(caps.status).toBe(200);
    const matrix = readMatrix(caps.body.toString(), c);
    expect(matrix.crs).toBe(`urn:ogc:def:crs:EPSG::${c.code.split(':')[1]}`);
    const span = TILE * matrix.resolution;
    // The corner the four tiles share: the centre of the view.
    const center = [matrix.west + (c.col + 1) * span, matrix.north - (c.row + 1) * span];

    browser ??= await launchChromium();
    const context = await browser.newContext({ viewport: SIZE, deviceScaleFactor: 1 });
    try {
      await routeOpenLayersPage(context, base, SIZE);
      const html = gridPage();
      // Registered after routeOpenLayersPage's route, so tried first (Playwright runs the last registered route first).
      await context.route(
        (url) => url.pathname === `${OL_PREFIX}grid.html` || url.pathname.startsWith(`${OL_PREFIX}proj4/`),
        async (route) => {
          const rel = new URL(route.request().url()).pathname.slice(OL_PREFIX.length);
          if (rel === 'grid.html') return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html });
          if (rel === 'proj4/dist/proj4.js') return route.fulfill({ status: 200, contentType: 'text/javascript', body: await readFile(path.join(NODE_MODULES, rel)) });
          return route.fulfill({ status: 404, body: `not served: ${rel}` });
        },
      );
      const page = await context.newPage();
      const recorder = new PageRecorder(context, page);
      const query = new URLSearchParams({
        caps: capsUrl,
        code: c.code,
        proj4: c.proj4,
        layer: LAYER,
        matrixSet: c.matrixSet,
        requestEncoding: encoding,
        matrix: c.matrix,
        center: center.join(','),
      });
      await page.goto(`${base}${OL_PREFIX}grid.html?${query}`, { waitUntil: 'load', timeout: LOAD_TIMEOUT_MS });
      const outcome = await (
        await page.waitForFunction(() => {
          const w = globalThis as unknown as { olResult?: unknown; olError?: string };
          return w.olError ?? (w.olResult ? true : undefined);
        }, undefined, { timeout: LOAD_TIMEOUT_MS, polling: 100 })
      ).jsonValue();
      if (outcome !== true) throw new Error(`OpenLayers: ${outcome}`);
      const ol = await page.evaluate(() => (globalThis as unknown as { olResult: OlResult }).olResult);
      expect(recorder.problems).toEqual([]);

      // The projection as proj4 registered it, the set and the encoding asked for, the matrix's own resolution.
      expect({ axis: ol.axis, source: ol.sourceProjection, matrixSet: ol.matrixSet, encoding: ol.requestEncoding, failed: ol.failed }).toEqual({
        axis: c.axis,
        source: c.code,
        matrixSet: c.matrixSet,
        encoding,
        failed: [],
      });
      expect(ol.viewResolution).toBe(ol.resolution);
      expect(ol.resolution / matrix.resolution).toBeCloseTo(1, 12);

      // (1) The tile requests: exactly the four tiles, of that set and matrix, each 200 image/png.
      const tileResponses = recorder.responses.filter((r) => tileOfUrl(r.url, encoding) !== undefined);
      expect(tileResponses.filter((r) => r.status !== 200 || r.contentType !== 'image/png')).toEqual([]);
      const asked = tileResponses.map((r) => tileOfUrl(r.url, encoding)!);
      const expectedTiles: [string, string, number, number][] = [];
      for (const dr of [0, 1]) for (const dc of [0, 1]) expectedTiles.push([c.matrixSet, c.matrix, c.row + dr, c.col + dc]);
      const key = (t: [string, string, number, number]) => t.join('/');
      expect(asked.map(key).sort()).toEqual(expectedTiles.map(key).sort());

      // OpenLayers' tile grid places each tile where the capabilities say (its extent, east and north).
      for (const [, , row, col] of expectedTiles) {
        const extent = ol.extents[`${ol.z}/${col}/${row}`];
        expect(extent).toBeDefined();
        const want = [matrix.west + col * span, matrix.north - (row + 1) * span, matrix.west + (col + 1) * span, matrix.north - row * span];
        extent.forEach((v, i) => expect(Math.abs(v - want[i])).toBeLessThan(1e-6 * span));
      }

      // (2) The canvas against the server's tiles fetched again from Node, put side by side at those positions.
      expect({ canvases: ol.canvases, width: ol.canvas.width, height: ol.canvas.height }).toEqual({ canvases: 1, width: SIZE.width, height: SIZE.height });
      const drawn = await decodeRGBA(Buffer.from(ol.canvas.png.replace(/^data:image\/png;base64,/, ''), 'base64'));
      const expected: RGBA = { width: SIZE.width, height: SIZE.height, data: Buffer.alloc(SIZE.width * SIZE.height * 4) };
      const viewWest = center[0] - (SIZE.width / 2) * matrix.resolution;
      const viewNorth = center[1] + (SIZE.height / 2) * matrix.resolution;
      for (const r of tileResponses) {
        const [, , row, col] = tileOfUrl(r.url, encoding)!;
        const again = await rawGet(r.url);
        expect({ url: r.url, status: again.status, type: again.headers['content-type'] }).toEqual({ url: r.url, status: 200, type: 'image/png' });
        const tile = await decodeRGBA(again.body);
        expect([tile.width, tile.height]).toEqual([TILE, TILE]);
        expect(isUniform(tile)).toBe(false);
        const left = (matrix.west + col * span - viewWest) / matrix.resolution;
        const top = (viewNorth - (matrix.north - row * span)) / matrix.resolution;
        expect(Math.abs(left - Math.round(left))).toBeLessThan(1e-6);
        expect(Math.abs(top - Math.round(top))).toBeLessThan(1e-6);
        const [x0, y0] = [Math.round(left), Math.round(top)];
        for (let y = 0; y < TILE; y++) tile.data.copy(expected.data, ((y0 + y) * SIZE.width + x0) * 4, y * TILE * 4, (y + 1) * TILE * 4);
      }
      const d = difference(drawn, expected);
      console.log(`OpenLayers ${c.code} ${c.matrixSet} matrix ${c.matrix} ${encoding}: mean absolute difference ${d.mad.toFixed(4)} of 255, ${(d.identical * 100).toFixed(3)} % of ${SIZE.width * SIZE.height} px identical`);
      expect(d.mad).toBeLessThanOrEqual(1);
      expect(d.identical).toBeGreaterThanOrEqual(0.99);
    } finally {
      await context.close();
    }
  }, 120_000);
});
