// src/http/routes/admin-stores.ts in process over the bundled sample: every store with its facts (tiles and bytes
// read from the file, the sample as origin), and a store's coverage at a zoom read from its tiles. Then with grids
// besides Web Mercator configured, over a copy of the sample (the kept tiles are written beside the stores): each
// raster store's grids, and its coverage in a grid: exactly the tiles WMTS drew and kept at a matrix, each a
// polygon in lon/lat whose corners are where PROJ (pyproj, run apart from the server) puts the tile's corners and
// which holds the tile's centre; an edge of a large EPSG:3035 tile drawn curved as PROJ bends it; the default matrix;
// and the refusals (a grid not configured or not offered 404, a matrix the grid has not 400 naming z).

import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as adminStores from '../../../src/http/routes/admin-stores';
import { gatedTest, SYSTEM_PYTHON } from '../../helpers/clients';
import { LV95 } from '../../helpers/grids';
import { failure, inProcess, json, patternsOf, SAMPLE_DIR } from '../../helpers/in-process';
import { assertOk, clientEnv, run } from '../../helpers/run';
import { tempDirs } from '../../helpers/temp-dirs';
import type { GridCoverageDocument } from '../../../src/ogc/coverage';

const ADMIN = 'admin-key-stores-9d2c';
const app = inProcess({ dataDir: SAMPLE_DIR, config: { admin: { keys: [ADMIN] } } });
const hidden = inProcess();

const { tempDir, removeTempDirs } = tempDirs('tilemirror-admin-stores-');
const GRIDS = ['EuropeanETRS89_LAEAQuad', LV95];
/** A copy of the sample's map and vector tiles: the kept grid tiles go beside them, under `.grids/`. */
const data = tempDir();
for (const store of ['maps/sample', 'tiles/sample-vector']) {
  mkdirSync(join(data, store.split('/')[0]), { recursive: true });
  copyFileSync(join(SAMPLE_DIR, `${store}.mbtiles`), join(data, `${store}.mbtiles`));
}
const grids = inProcess({ dataDir: data, config: { admin: { keys: [ADMIN] }, grids: GRIDS, render: { enabled: false } } });
/** The shared sample with the same grids, where tiles of other grids are drawn but not kept. */
const unkept = inProcess({ dataDir: SAMPLE_DIR, config: { admin: { keys: [ADMIN] }, grids: GRIDS } });
afterAll(async () => {
  await app.close();
  await hidden.close();
  await grids.close();
  await unkept.close();
  removeTempDirs();
});

interface Store {
  id: string;
  kind: string;
  format: string;
  storage: string;
  tileSize: number;
  minzoom: number;
  maxzoom: number;
  tiles: number;
  bytes: number;
  origin: { type: string };
  job: string | null;
  coverage: string;
  grids: string[];
}

test('the route table gives admin-stores.ts its two patterns', () => {
  expect(patternsOf(adminStores)).toEqual(['/admin/api/stores', '/admin/api/stores/:id(.+?)/coverage']);
});

test('admin key only: 404 without admin keys, 403 for an API key', async () => {
  expect((await hidden.get('/admin/api/stores', { key: ADMIN })).status).toBe(404);
  expect(failure(await app.get('/admin/api/stores'))).toMatchObject({ status: 403 });
  expect((await app.get('/admin/api/stores', { key: null, headers: { Authorization: `Bearer ${ADMIN}` } })).status).toBe(200);
});

test('every tile store of the sample, its facts from its file', async () => {
  const r = await app.get('/admin/api/stores', { key: ADMIN });
  expect(r).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', cache: 'none', headers: { 'Cache-Control': 'no-store' } });
  const { stores } = json<{ stores: Store[] }>(r);
  const map = stores.find((s) => s.id === 'maps/sample')!;
  // The sample map: two pyramids of 1,365 tiles each (z0-5, 512 and 256 px).
  expect(map).toMatchObject({ kind: 'maps', format: 'png', storage: 'mbtiles', tileSize: 512, minzoom: 0, maxzoom: 5, tiles: 2730, origin: { type: 'sample' }, job: null });
  expect(map.bytes).toBe(statSync(join(SAMPLE_DIR, 'maps', 'sample.mbtiles')).size);
  expect(map.coverage).toBe('/admin/api/stores/maps%2Fsample/coverage');
  expect(stores.map((s) => s.id)).toEqual(expect.arrayContaining(['tiles/sample-vector', 'images/sample-image']));
  // No grid besides Web Mercator configured: none offered.
  expect(stores.filter((s) => s.grids.length > 0)).toEqual([]);
});

test('coverage: the mirrored area and the tiles present at a zoom; z outside the store is a 400, an unknown store a 404', async () => {
  const c = json<{ z: number; tiles: number; expected: number; truncated: boolean; features: { properties: Record<string, unknown>; geometry: { coordinates: number[][][] } }[] }>(
    await app.get('/admin/api/stores/maps%2Fsample/coverage?z=2', { key: ADMIN }),
  );
  expect(c).toMatchObject({ z: 2, tiles: 16, expected: 16, truncated: false });
  expect(c.features[0].properties).toEqual({ type: 'mirrored' });
  expect(c.features.slice(1).map((f) => `${f.properties.x}/${f.properties.y}`).sort()).toHaveLength(16);
  // Tile 2/0/0: the north-west quarter of the north-west quarter.
  const nw = c.features.find((f) => f.properties.x === 0 && f.properties.y === 0)!;
  expect(nw.geometry.coordinates[0][0][0]).toBeCloseTo(-180, 6);
  expect(nw.geometry.coordinates[0][2][1]).toBeCloseTo(85.0511, 3);
  // Without z: the deepest zoom of at most 20,000 expected tiles (z5: 1,024).
  expect(json<{ z: number }>(await app.get('/admin/api/stores/maps/sample/coverage', { key: ADMIN })).z).toBe(5);
  expect(failure(await app.get('/admin/api/stores/maps%2Fsample/coverage?z=6', { key: ADMIN }))).toMatchObject({ status: 400 });
  expect(failure(await app.get('/admin/api/stores/maps%2Fnope/coverage', { key: ADMIN }))).toMatchObject({ status: 404 });
});

interface Feature {
  properties: { type: string; matrix?: string; row?: number; col?: number };
  geometry: { type: string; coordinates: number[][][] };
}
/** The answer as the route's builder types it, its features as these tests read them. */
type GridCoverage = Omit<GridCoverageDocument, 'features'> & { features: Feature[] };

/** Where points of a CRS are in lon/lat, as PROJ (the system's pyproj, not the server's PROJ) puts them. */
async function pyprojLonLat(epsg: number, points: [number, number][]): Promise<[number, number][]> {
  const script = [
    'import json, sys, pyproj',
    'pts = json.loads(sys.argv[2])',
    't = pyproj.Transformer.from_crs(int(sys.argv[1]), 4326, always_xy=True)',
    'print(json.dumps([list(t.transform(x, y)) for x, y in pts]))',
  ].join('\n');
  const r = assertOk(await run(SYSTEM_PYTHON, ['-c', script, String(epsg), JSON.stringify(points)], { env: clientEnv() }));
  return JSON.parse(r.stdout) as [number, number][];
}

/** Whether lon/lat `p` is inside the ring (even-odd rule). */
function inside(p: [number, number], ring: number[][]): boolean {
  let odd = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) odd = !odd;
  }
  return odd;
}

/** A tile's bounds in LV95 (EPSG:2056), from the grid's definition as swisstopo publishes it. */
function lv95Tile(matrix: number, row: number, col: number): [number, number, number, number] {
  const span = LV95.resolutions[matrix] * 256;
  const minX = LV95.origin[0] + col * span;
  const maxY = LV95.origin[1] - row * span;
  return [minX, maxY - span, minX + span, maxY];
}

const pyprojTest = gatedTest('pyproj', { pythonModules: ['pyproj'], packages: ['python3-pyproj'] });

describe('grids besides Web Mercator: the grids of each store, and the tiles kept in a grid', () => {
  /** The LV95 tiles requested through WMTS at matrix 16 (250 m a pixel: 64 km tiles over Switzerland), and one at 14. */
  const AT_16 = [
    [1, 2],
    [2, 2],
    [2, 3],
  ];
  const coverage = async (query: string, app = grids) => json<GridCoverage>(await app.get(`/admin/api/stores/maps%2Fsample/coverage?${query}`, { key: ADMIN }));

  beforeAll(async () => {
    for (const [row, col] of AT_16) expect((await grids.get(`/wmts/1.0.0/maps/sample/default/LV95/16/${row}/${col}.png`)).status).toBe(200);
    expect((await grids.get('/wmts/1.0.0/maps/sample/default/LV95/14/0/1.png')).status).toBe(200);
    // A large tile of EPSG:3035 (1,125 km across) over central Europe.
    expect((await grids.get('/wmts/1.0.0/maps/sample/default/EuropeanETRS89_LAEAQuad/2/1/1.png')).status).toBe(200);
    // The same over the shared sample, where nothing is kept.
    expect((await unkept.get('/wmts/1.0.0/maps/sample/default/LV95/16/1/2.png')).status).toBe(200);
  }, 60_000);

  test('the stores list the configured grids each raster store is offered in; a vector store none', async () => {
    const { stores } = json<{ stores: Store[] }>(await grids.get('/admin/api/stores', { key: ADMIN }));
    expect(stores.map((s) => [s.id, s.grids])).toEqual(
      expect.arrayContaining([
        ['maps/sample', ['EuropeanETRS89_LAEAQuad', 'LV95']],
        ['tiles/sample-vector', []],
      ]),
    );
  });

  test('at a matrix: exactly the tiles kept there, the matrices of the grid, the tiles of the matrix over the store', async () => {
    const c = await coverage('grid=LV95&z=16');
    expect(c).toMatchObject({ type: 'FeatureCollection', grid: 'LV95', z: 16, tiles: 3, truncated: false });
    expect(c.matrices).toEqual(LV95.resolutions.map((_, i) => String(i)));
    // The sample covers the world: matrix 16 over the whole grid's extent, 480 by 320 km in 64 km tiles.
    expect(c.expected).toBe(Math.ceil(480_000 / 64_000) * Math.ceil(320_000 / 64_000));
    expect(c.features[0]).toEqual({ type: 'Feature', properties: { type: 'mirrored' }, geometry: { type: 'Polygon', coordinates: [[[-180, -85.0511287798066], [180, -85.0511287798066], [180, 85.0511287798066], [-180, 85.0511287798066], [-180, -85.0511287798066]]] } });
    const tiles = c.features.slice(1);
    expect(tiles.map((f) => [f.properties.type, f.properties.matrix, f.properties.row, f.properties.col]).sort()).toEqual(AT_16.map(([r, col]) => ['tile', '16', r, col]).sort());
    // Every ring closed, every point in Switzerland (EPSG:2056's area of use) and inside the store's bounds.
    for (const f of tiles) {
      const ring = f.geometry.coordinates[0];
      expect(f.geometry.type).toBe('Polygon');
      expect(ring.length).toBeGreaterThan(5);
      expect(ring[ring.length - 1]).toEqual(ring[0]);
      for (const [lon, lat] of ring) {
        expect(lon).toBeGreaterThan(5.9);
        expect(lon).toBeLessThan(10.6);
        expect(lat).toBeGreaterThan(45.8);
        expect(lat).toBeLessThan(47.9);
      }
    }
    // Another matrix: its own tile.
    const at14 = await coverage('grid=LV95&z=14');
    expect(at14.features.slice(1).map((f) => [f.properties.matrix, f.properties.row, f.properties.col])).toEqual([['14', 0, 1]]);
    expect(at14.tiles).toBe(1);
    // A matrix where nothing is kept: the mirrored area only.
    const at10 = await coverage('grid=LV95&z=10');
    expect(at10).toMatchObject({ z: 10, tiles: 0, truncated: false });
    expect(at10.features).toHaveLength(1);
  });

  pyprojTest('each tile polygon has its corners where PROJ puts the tile\'s corners, and holds its centre', async () => {
    const c = await coverage('grid=LV95&z=16');
    const tiles = c.features.slice(1);
    const points: [number, number][] = [];
    for (const f of tiles) {
      const [x0, y0, x1, y1] = lv95Tile(16, f.properties.row!, f.properties.col!);
      points.push([x0, y0], [x1, y0], [x1, y1], [x0, y1], [(x0 + x1) / 2, (y0 + y1) / 2]);
    }
    const lonLat = await pyprojLonLat(2056, points);
    tiles.forEach((f, k) => {
      const ring = f.geometry.coordinates[0];
      const [sw, se, ne, nw, centre] = lonLat.slice(k * 5, k * 5 + 5);
      // The ring starts at the south-west corner and runs anticlockwise: the other corners a quarter of it apart.
      const quarter = (ring.length - 1) / 4;
      const corners = [0, quarter, 2 * quarter, 3 * quarter].map((i) => ring[i]);
      [sw, se, ne, nw].forEach((want, i) => {
        // 1e-6° is about 10 cm (the answer rounds to 1e-7°; the two PROJ builds agree to 5e-8° here).
        expect(Math.abs(corners[i][0] - want[0])).toBeLessThan(1e-6);
        expect(Math.abs(corners[i][1] - want[1])).toBeLessThan(1e-6);
      });
      expect(inside(centre, ring)).toBe(true);
    });
  });

  pyprojTest('a large EPSG:3035 tile: its edges sampled, each point where PROJ puts it (curved, not the chord)', async () => {
    const c = await coverage('grid=EuropeanETRS89_LAEAQuad&z=2');
    expect(c).toMatchObject({ grid: 'EuropeanETRS89_LAEAQuad', z: 2, tiles: 1 });
    const [tile] = c.features.slice(1);
    expect(tile.properties).toEqual({ type: 'tile', matrix: '2', row: 1, col: 1 });
    const ring = tile.geometry.coordinates[0];
    // The registry's definition: origin (2,000,000, 5,500,000) easting first, 17,578.125 m a pixel at 0, 256 px tiles.
    const span = (17_578.125 / 4) * 256;
    const [x0, y1] = [2_000_000 + span, 5_500_000 - span];
    const [x1, y0] = [x0 + span, y1 - span];
    const segments = (ring.length - 1) / 4;
    expect(segments).toBeGreaterThan(1);
    const expected: [number, number][] = [];
    const edges: [number, number, number, number][] = [
      [x0, y0, x1, y0],
      [x1, y0, x1, y1],
      [x1, y1, x0, y1],
      [x0, y1, x0, y0],
    ];
    for (const [ax, ay, bx, by] of edges) for (let s = 0; s < segments; s++) expected.push([ax + (s / segments) * (bx - ax), ay + (s / segments) * (by - ay)]);
    const lonLat = await pyprojLonLat(3035, expected);
    lonLat.forEach(([lon, lat], i) => {
      expect(Math.abs(ring[i][0] - lon)).toBeLessThan(1e-6);
      expect(Math.abs(ring[i][1] - lat)).toBeLessThan(1e-6);
    });
    // The middle of the south edge is off the straight line between its corners (in lon/lat) by far more than that.
    const mid = ring[segments / 2];
    const chord = [(ring[0][0] + ring[segments][0]) / 2, (ring[0][1] + ring[segments][1]) / 2];
    expect(Math.hypot(mid[0] - chord[0], mid[1] - chord[1])).toBeGreaterThan(0.1);
  });

  test('without z: the deepest matrix with at most 20,000 tiles kept; the grid\'s first when none is kept', async () => {
    expect((await coverage('grid=LV95')).z).toBe(16);
    expect((await coverage('grid=EuropeanETRS89_LAEAQuad')).z).toBe(2);
    // Over the shared sample nothing is kept (wms.keepGridTiles is off there), though a tile was drawn.
    const none = await coverage('grid=LV95', unkept);
    expect(none).toMatchObject({ grid: 'LV95', z: 0, tiles: 0, expected: 1, truncated: false });
    expect(none.features.map((f) => f.properties.type)).toEqual(['mirrored']);
  });

  test('refused: a grid not configured or not offered 404, a matrix the grid has not 400 naming z, the admin key required', async () => {
    const path = (q: string, store = 'maps%2Fsample') => `/admin/api/stores/${store}/coverage?${q}`;
    // An unknown id, a registered grid not configured, Web Mercator (the coverage without grid).
    for (const q of ['grid=Nope', 'grid=WorldCRS84Quad', 'grid=WebMercatorQuad']) {
      expect([q, failure(await grids.get(path(q), { key: ADMIN })).status]).toEqual([q, 404]);
    }
    // A vector store has no raster tiles to draw another grid's tiles from.
    expect(failure(await grids.get(path('grid=LV95', 'tiles%2Fsample-vector'), { key: ADMIN })).status).toBe(404);
    // LV95 has matrices 0-28.
    for (const z of ['29', '99', 'x']) {
      const r = failure(await grids.get(path(`grid=LV95&z=${z}`), { key: ADMIN }));
      expect([z, r.status]).toEqual([z, 400]);
      expect(r.message).toMatch(/\bz\b/);
    }
    // As every admin read: no admin key 403 (an API key is not one), no admin keys configured 404.
    expect(failure(await grids.get(path('grid=LV95'))).status).toBe(403);
    expect(failure(await grids.get(path('grid=LV95'), { key: null })).status).toBe(403);
    expect((await hidden.get(path('grid=LV95'), { key: ADMIN })).status).toBe(404);
    expect((await grids.get(path('grid=LV95'), { key: null, headers: { Authorization: `Bearer ${ADMIN}` } })).status).toBe(200);
    expect(grids.failures).toEqual([]);
  });
});
