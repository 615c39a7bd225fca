// src/http/routes/ogc.ts in process: OGC API - Tiles under /ogc (landing page, conformance, collections,
// tilesets, the dataset's tilesets, tile matrix sets) and its tiles, compared with the bytes the sample's stores
// hold; every error a problem details document.

import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import sharp from 'sharp';
import type { Reply } from '../../../src/http/reply';
import * as ogc from '../../../src/http/routes/ogc';
import { StoreWriter } from '../../../src/store/mbtiles/writer';
import { SAMPLE_OGC_COLLECTIONS } from '../../fixtures/sample-listings';
import { LV95 } from '../../helpers/grids';
import { BASE_URL, inProcess, json, patternsOf, storeFile } from '../../helpers/in-process';
import { decodeRGBA, gradientTile, isUniform } from '../../helpers/pixels';
import { readStoredTile } from '../../helpers/stored-tiles';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-ogc-dataset-');

// vt-pbf brings CommonJS versions of the MVT decoder and pbf (the top-level ones are ESM-only).
const vtpbfDir = dirname(require.resolve('vt-pbf'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { VectorTile } = require(require.resolve('@mapbox/vector-tile', { paths: [vtpbfDir] }));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Pbf = require(require.resolve('pbf', { paths: [vtpbfDir] }));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const vtpbf: { fromGeojsonVt(layers: unknown, o: { version: number; extent: number }): Uint8Array } = require('vt-pbf');

const app = inProcess();
afterAll(() => app.close());

const PROBLEM = 'application/problem+json';
const JSON_TYPE = 'application/json; charset=utf-8';
const MVT = 'application/vnd.mapbox-vector-tile';
const REL = 'http://www.opengis.net/def/rel/ogc/1.0/';
/** An error answer as the OGC API routes give it: its status, media type and problem details document. */
const problem = (r: Reply) => ({ status: r.status, type: r.type, cache: r.cache, body: json(r) });
const expectedProblem = (status: number, title: string, detail: string | jest.AsymmetricMatcher) => ({
  status,
  type: PROBLEM,
  cache: 'none',
  body: { type: 'about:blank', title, status, detail },
});
const MAP = storeFile('maps', 'sample');
type Links = { links: { rel: string; href: string; type?: string }[] };
const rel = (doc: Links, name: string) => doc.links.find((l) => l.rel === name);
/** A path of this server from an absolute link (the base URL cut off, the key left to `get`). */
const pathOf = (href: string) => {
  const u = new URL(href);
  u.searchParams.delete('key');
  return `${u.pathname}${u.search}`;
};

test('the route table gives ogc.ts these patterns', () => {
  expect(patternsOf(ogc)).toEqual([
    '/ogc[/]',
    '/ogc/conformance',
    '/ogc/collections',
    '/ogc/collections/:collectionId',
    '/ogc/collections/:collectionId/map/tiles',
    '/ogc/collections/:collectionId/map/tiles/:tmsId',
    '/ogc/collections/:collectionId/map/tiles/:tmsId/:tileMatrix/:tileRow/:tileCol',
    '/ogc/collections/:collectionId/tiles',
    '/ogc/collections/:collectionId/tiles/:tmsId',
    '/ogc/collections/:collectionId/tiles/:tmsId/:tileMatrix/:tileRow/:tileCol',
    '/ogc/tiles',
    '/ogc/tiles/:tmsId',
    '/ogc/tiles/:tmsId/:tileMatrix/:tileRow/:tileCol',
    '/ogc/tileMatrixSets',
    '/ogc/tileMatrixSets/:tmsId',
  ]);
});

test('the landing page, with or without the slash, links the collections, the API definition and its documentation, and the dataset tilesets, with the key', async () => {
  for (const path of ['/ogc', '/ogc/']) {
    const r = await app.get(path);
    expect(r).toMatchObject({ status: 200, type: JSON_TYPE, cache: 'document' });
    const doc = json<Links>(r);
    expect(rel(doc, 'data')).toMatchObject({ type: 'application/json', href: `${BASE_URL}/ogc/collections?key=demo` });
    expect(rel(doc, 'service-desc')).toMatchObject({ href: `${BASE_URL}/openapi.json?key=demo`, type: 'application/vnd.oai.openapi+json;version=3.1' });
    expect(rel(doc, 'service-doc')).toMatchObject({ href: `${BASE_URL}/docs?key=demo`, type: 'text/html' });
    expect(rel(doc, `${REL}tilesets-vector`)).toMatchObject({ href: `${BASE_URL}/ogc/tiles?key=demo`, type: 'application/json' });
  }
});

test('conformance declares OGC API - Tiles core and, the sample having vector tile sets, dataset tilesets', async () => {
  expect(json<{ conformsTo: string[] }>(await app.get('/ogc/conformance')).conformsTo).toEqual(
    expect.arrayContaining(['http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core', 'http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/dataset-tilesets']),
  );
});

test('collections: every map, tile set and image, each with one kind of tileset; one collection by id', async () => {
  const cols = json<{ collections: ({ id: string; extent: { spatial: { bbox: number[][] } } } & Links)[] }>(await app.get('/ogc/collections'));
  expect(cols.collections.map((c) => c.id).sort()).toEqual(SAMPLE_OGC_COLLECTIONS);
  for (const c of cols.collections) {
    expect(c.extent.spatial.bbox).toHaveLength(1);
    expect(c.links.filter((l) => /tilesets-(map|vector)$/.test(l.rel))).toHaveLength(1);
  }
  const one = await app.get('/ogc/collections/maps.sample');
  expect(one).toMatchObject({ status: 200, type: JSON_TYPE });
  expect(json<{ id: string }>(one).id).toBe('maps.sample');
});

test('a map collection: its tilesets, a tileset, its tiling scheme, and tiles through the item template equal to the stored ones', async () => {
  const list = json<{ tilesets: Links[] }>(await app.get('/ogc/collections/maps.sample/map/tiles'));
  expect(list.tilesets).toHaveLength(2);
  const tileset = json<Links>(await app.get('/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512'));
  const item = rel(tileset, 'item')!.href;
  expect(item).toContain('{tileMatrix}/{tileRow}/{tileCol}');
  const scheme = tileset.links.find((l) => l.rel.endsWith('tiling-scheme'))!;
  expect(json(await app.get(pathOf(scheme.href)))).toMatchObject({ identifier: expect.any(String), tileMatrices: expect.any(Array) });
  const tile = await app.get(pathOf(item.replace('{tileMatrix}', '2').replace('{tileRow}', '1').replace('{tileCol}', '3')));
  expect(tile).toMatchObject({ status: 200, type: 'image/png', cache: 'tile' });
  expect(tile.body?.equals(readStoredTile(MAP, { z: 2, x: 3, y: 1 }))).toBe(true);
  const small = await app.get('/ogc/collections/maps.sample/map/tiles/WebMercatorQuad/2/1/3');
  expect(small.body?.equals(readStoredTile(MAP, { z: 2, x: 3, y: 1 }, '256'))).toBe(true);
  const terrain = await app.get('/ogc/collections/tiles.sample-terrain/map/tiles/WebMercatorQuad/8/90/133');
  expect(terrain.body?.equals(readStoredTile(storeFile('tiles', 'sample-terrain'), { z: 8, x: 133, y: 90 }))).toBe(true);
});

test('a vector collection: its tilesets, a tileset, tiles as stored (gzip kept), absent ones 204', async () => {
  expect(json<{ tilesets: unknown[] }>(await app.get('/ogc/collections/tiles.sample-vector/tiles')).tilesets).toHaveLength(1);
  expect(rel(json<Links>(await app.get('/ogc/collections/tiles.sample-vector/tiles/WebMercatorQuad512')), 'item')?.href).toContain('{tileMatrix}/{tileRow}/{tileCol}');
  const tile = await app.get('/ogc/collections/tiles.sample-vector/tiles/WebMercatorQuad512/0/0/0', { headers: { 'Accept-Encoding': 'gzip' } });
  expect(tile).toMatchObject({ status: 200, type: MVT, gzipped: true, cache: 'tile' });
  expect(tile.body?.equals(readStoredTile(storeFile('tiles', 'sample-vector'), { z: 0, x: 0, y: 0 }))).toBe(true);
  expect(await app.get('/ogc/collections/tiles.sample-vector/tiles/WebMercatorQuad512/3/5/1')).toEqual({ status: 204, cache: 'tile', etag: 'empty' });
});

describe('the weather variable: a map collection whose tiles change with time, one keyframe per time', () => {
  const CID = 'weather.temperature-2m.sample';
  const TIMES = ['2024-01-01T00:00:00Z', '2024-01-01T06:00:00Z'];
  const TILE = `/ogc/collections/${CID}/map/tiles/WebMercatorQuad/1/0/1`;
  const keyframeTile = (i: number): Buffer => readStoredTile(storeFile('tiles', ['sample-temperature-0000', 'sample-temperature-0600'][i]), { z: 1, x: 1, y: 0 });
  const at = (query: string) => app.get(TILE, { query });

  test('the collection: its temporal extent the keyframes (interval first to last, every time), its tilesets map tilesets', async () => {
    const c = json<{ id: string; dataType: string; extent: unknown } & Links>(await app.get(`/ogc/collections/${CID}`));
    expect(c).toMatchObject({ id: CID, dataType: 'map', title: 'Temperature' });
    expect(c.extent).toEqual({
      spatial: { bbox: [[-180, -85.0511287798066, 180, 85.0511287798066]], crs: 'http://www.opengis.net/def/crs/OGC/1.3/CRS84' },
      temporal: { interval: [TIMES], trs: 'http://www.opengis.net/def/uom/ISO-8601/0/Gregorian', values: TIMES },
    });
    expect(rel(c, `${REL}tilesets-map`)?.href).toBe(`${BASE_URL}/ogc/collections/${CID}/map/tiles?key=demo`);
    const list = json<{ tilesets: ({ tileMatrixSetId: string } & Links)[] }>(await app.get(`/ogc/collections/${CID}/map/tiles`));
    expect(list.tilesets.map((t) => t.tileMatrixSetId)).toEqual(['WebMercatorQuad']);
    const tileset = json<{ tileMatrixSetLimits: unknown[] } & Links>(await app.get(`/ogc/collections/${CID}/map/tiles/WebMercatorQuad`));
    expect(rel(tileset, 'item')).toMatchObject({ href: `${BASE_URL}/ogc/collections/${CID}/map/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}?key=demo`, type: 'image/png' });
    expect(tileset.tileMatrixSetLimits).toHaveLength(3);
  });

  test('datetime = a keyframe time: that keyframe tile set\'s stored tile, the instant in OGCAPI-datetime', async () => {
    for (const [i, value] of [[0, TIMES[0]], [1, TIMES[1]], [0, '2024-01-01T01:00:00+01:00'], [1, '2024-01-01t06:00:00.000z']] as const) {
      const r = await at(`datetime=${encodeURIComponent(value)}`);
      expect(r).toMatchObject({ status: 200, type: 'image/png', cache: 'tile', headers: { 'OGCAPI-datetime': TIMES[i], 'Access-Control-Expose-Headers': 'OGCAPI-datetime' } });
      expect(r.body?.equals(keyframeTile(i))).toBe(true);
    }
  });

  test('no datetime: the latest keyframe, revalidated (a newer catalog changes it)', async () => {
    const r = await app.get(TILE);
    expect(r).toMatchObject({ status: 200, cache: 'document', headers: { 'OGCAPI-datetime': TIMES[1] } });
    expect(r.body?.equals(keyframeTile(1))).toBe(true);
  });

  test('an interval: the latest keyframe it holds; subset=datetime(...) the same', async () => {
    const cases: [string, number][] = [
      [`datetime=${TIMES[0]}/${TIMES[1]}`, 1],
      [`datetime=../${TIMES[0]}`, 0],
      [`datetime=/2024-01-01T05:59:59Z`, 0],
      [`datetime=2024-01-01T00:00:01Z/..`, 1],
      [`subset=datetime("${TIMES[0]}")`, 0],
      [`subset=datetime(*:"2024-01-01T03:00:00Z")`, 0],
      [`subset=datetime("${TIMES[0]}":*)`, 1],
      [`subset=datetime("${TIMES[0]}":"${TIMES[1]}")&datetime=../2024-01-01T03:00:00Z`, 0],
    ];
    for (const [query, i] of cases) {
      const r = await at(query);
      expect([query, r.status, r.headers?.['OGCAPI-datetime']]).toEqual([query, 200, TIMES[i]]);
      expect(r.body?.equals(keyframeTile(i))).toBe(true);
    }
  });

  test('times no keyframe has: 204 (between keyframes, outside the extent, datetime and subset excluding each other)', async () => {
    for (const query of ['datetime=2024-01-01T03:00:00Z', 'datetime=2023-12-31T23:00:00Z/2023-12-31T23:59:59Z', `subset=datetime(*:"2023-01-01T00:00:00Z")`, `datetime=${TIMES[0]}&subset=datetime("${TIMES[1]}")`]) {
      expect([query, (await at(query)).status]).toEqual([query, 204]);
    }
  });

  test('a malformed datetime or subset, another axis, or an address outside the tileset: 400 problem details', async () => {
    for (const query of ['datetime=yesterday', 'datetime=2024-01-01', 'datetime=../..', `datetime=${TIMES[1]}/${TIMES[0]}`, 'subset=datetime(2024)', 'subset=Lat(10:20)', 'subset=datetime("a"', `subset=datetime("${TIMES[0]}"),datetime("${TIMES[1]}")`]) {
      expect([query, problem(await at(query))]).toEqual([query, expectedProblem(400, 'Bad Request', expect.stringMatching(/^Invalid (datetime|subset)\b/))]);
    }
    expect(problem(await app.get(`/ogc/collections/${CID}/map/tiles/WebMercatorQuad/3/0/0`))).toEqual(expectedProblem(400, 'Bad Request', expect.stringMatching(/^Out of bounds: zoom 3\b/)));
    // Collections without time: the parameter is checked, then has nothing to select.
    expect(problem(await app.get('/ogc/collections/maps.sample/map/tiles/WebMercatorQuad/0/0/0', { query: 'datetime=yesterday' })).status).toBe(400);
    expect((await app.get('/ogc/collections/maps.sample/map/tiles/WebMercatorQuad/0/0/0', { query: `datetime=${TIMES[0]}` })).status).toBe(200);
  });

  test('unknown variables, vector paths and other tile matrix sets: 404', async () => {
    expect(problem(await app.get('/ogc/collections/weather.nope')).status).toBe(404);
    expect(problem(await app.get(`/ogc/collections/${CID}/tiles`))).toEqual(expectedProblem(404, 'Not Found', `Collection ${CID} has no vector tilesets`));
    expect(problem(await app.get(`/ogc/collections/${CID}/map/tiles/WebMercatorQuad512`)).status).toBe(404);
    expect(problem(await app.get(`/ogc/collections/${CID}/map/tiles/WebMercatorQuad512/0/0/0`)).status).toBe(404);
  });

  test('/ogc/collections?datetime=: the weather collection when its extent meets the value; the others always', async () => {
    const ids = async (query: string) => json<{ collections: { id: string }[] }>(await app.get('/ogc/collections', { query })).collections.map((c) => c.id).sort();
    for (const query of [`datetime=${TIMES[0]}`, 'datetime=2024-01-01T03:00:00Z', 'datetime=../2024-01-01T00:00:00Z', `subset=datetime("${TIMES[1]}":*)`]) expect(await ids(query)).toEqual(SAMPLE_OGC_COLLECTIONS);
    const others = SAMPLE_OGC_COLLECTIONS.filter((c) => c !== CID);
    for (const query of ['datetime=2024-01-01T06:00:01Z/..', 'datetime=2023-06-01T00:00:00Z', `datetime=${TIMES[0]}&subset=datetime("${TIMES[1]}")`]) expect(await ids(query)).toEqual(others);
    expect(problem(await app.get('/ogc/collections', { query: 'datetime=soon' })).status).toBe(400);
  });

  test('conformance declares DateTime while a weather variable is served', async () => {
    expect(json<{ conformsTo: string[] }>(await app.get('/ogc/conformance')).conformsTo).toContain('http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/datetime');
  });
});

test('tile matrix sets: the list, and each by id', async () => {
  const list = json<{ tileMatrixSets: { id: string }[] }>(await app.get('/ogc/tileMatrixSets'));
  expect(list.tileMatrixSets.map((t) => t.id)).toEqual(['WebMercatorQuad', 'WebMercatorQuad512']);
  for (const id of ['WebMercatorQuad', 'WebMercatorQuad512']) {
    const r = await app.get(`/ogc/tileMatrixSets/${id}`);
    expect(r).toMatchObject({ status: 200, type: JSON_TYPE });
    expect(json<{ tileMatrices: unknown[] }>(r).tileMatrices.length).toBeGreaterThan(0);
  }
});

describe("the dataset's vector tiles: the sample's vector tile sets, combined", () => {
  const VECTOR = storeFile('tiles', 'sample-vector');
  const CITY = storeFile('tiles', 'sample-city');

  test('/ogc/tiles lists one tileset, of 512 px tiles, with its limits and the template of its tiles', async () => {
    const r = await app.get('/ogc/tiles');
    expect(r).toMatchObject({ status: 200, type: JSON_TYPE, cache: 'document' });
    const list = json<{ tilesets: ({ tileMatrixSetId: string; dataType: string; tileMatrixSetLimits: { tileMatrix: string }[] } & Links)[] }>(r);
    expect(list.tilesets.map((t) => [t.tileMatrixSetId, t.dataType])).toEqual([['WebMercatorQuad512', 'vector']]);
    // sample-vector's zooms 0 to 5, sample-city's 12.
    expect(list.tilesets[0].tileMatrixSetLimits.map((l) => l.tileMatrix)).toEqual(['0', '1', '2', '3', '4', '5', '12']);
    expect(rel(list.tilesets[0], 'item')).toMatchObject({ href: `${BASE_URL}/ogc/tiles/WebMercatorQuad512/{tileMatrix}/{tileRow}/{tileCol}?key=demo`, type: MVT, templated: true });
  });

  test("the tileset: each collection's layers, linked to their collection", async () => {
    const doc = json<{ layers: ({ id: string } & Links)[] }>(await app.get('/ogc/tiles/WebMercatorQuad512'));
    const from = (id: string) => doc.layers.find((l) => l.id === id)?.links[0];
    expect(from('countries')).toMatchObject({ rel: `${REL}geodata`, href: `${BASE_URL}/ogc/collections/tiles.sample-vector?key=demo` });
    expect(from('place')).toMatchObject({ rel: `${REL}geodata`, href: `${BASE_URL}/ogc/collections/tiles.sample-city?key=demo` });
  });

  test('a tile one collection holds is its stored tile (gzip kept), under the vector tile media type', async () => {
    const world = await app.get('/ogc/tiles/WebMercatorQuad512/0/0/0', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(world).toMatchObject({ status: 200, type: MVT, gzipped: true, cache: 'tile' });
    expect(world.body?.equals(readStoredTile(VECTOR, { z: 0, x: 0, y: 0 }))).toBe(true);
    const city = await app.get('/ogc/tiles/WebMercatorQuad512/12/1367/2860');
    expect(city).toMatchObject({ status: 200, type: MVT });
    expect(city.body?.equals(readStoredTile(CITY, { z: 12, x: 2860, y: 1367 }))).toBe(true);
  });

  test('a tile inside the limits that no collection holds is empty: 204', async () => {
    expect(await app.get('/ogc/tiles/WebMercatorQuad512/5/0/0')).toEqual({ status: 204, cache: 'tile', etag: 'empty' });
  });

  test('a tile held by several collections: their tiles joined, every layer of each in one tile', async () => {
    // A data directory with sample-vector and two more vector tile sets of 512 px tiles: one whose layer is new,
    // one whose layer sample-vector already has (left out of the dataset).
    const tmp = tempDir();
    try {
      mkdirSync(join(tmp, 'tiles'));
      copyFileSync(VECTOR, join(tmp, 'tiles', 'sample-vector.mbtiles'));
      // A vector tile of one layer "marks" holding one point.
      const marks = Buffer.from(vtpbf.fromGeojsonVt({ marks: { features: [{ type: 1, geometry: [[10, 10]], tags: { name: 'a mark' } }] } }, { version: 2, extent: 4096 }));
      const world: [number, number, number, number] = [-180, -85.0511287798066, 180, 85.0511287798066];
      for (const [id, layer] of [['marks', 'marks'], ['shadow', 'countries']]) {
        const w = new StoreWriter(join(tmp, 'tiles', `${id}.mbtiles`), {
          kind: 'tiles',
          name: id,
          pyramids: [{ name: 'main', tileSize: 512, scale: 1, format: 'pbf', minzoom: 0, maxzoom: 1, bounds: world }],
          vectorLayers: [{ id: layer, fields: {} }],
        });
        w.putTile('main', 0, 0, 0, gzipSync(marks));
        w.close();
      }
      const other = inProcess({ dataDir: tmp });
      try {
        const doc = json<{ layers: { id: string }[] }>(await other.get('/ogc/tiles/WebMercatorQuad512'));
        expect(doc.layers.filter((l) => l.id === 'countries')).toHaveLength(1);
        expect(doc.layers.map((l) => l.id)).toContain('marks');
        const both = await other.get('/ogc/tiles/WebMercatorQuad512/0/0/0', { headers: { 'Accept-Encoding': 'gzip' } });
        expect(both).toMatchObject({ status: 200, type: MVT, compressible: true, cache: 'tile', etag: expect.any(String) });
        expect(both.gzipped).toBeFalsy();
        // In collection order: marks, then sample-vector.
        expect(both.body?.equals(Buffer.concat([marks, gunzipSync(readStoredTile(VECTOR, { z: 0, x: 0, y: 0 }))]))).toBe(true);
        expect(Object.keys(new VectorTile(new Pbf(both.body)).layers).sort()).toEqual(['boundaries', 'coastline', 'countries', 'country_label', 'marks']);
        // The same tiles, the same ETag.
        expect((await other.get('/ogc/tiles/WebMercatorQuad512/0/0/0')).etag).toBe(both.etag);
        // Where only sample-vector has a tile, its stored tile.
        const one = await other.get('/ogc/tiles/WebMercatorQuad512/1/0/0', { headers: { 'Accept-Encoding': 'gzip' } });
        expect(one.body?.equals(readStoredTile(VECTOR, { z: 1, x: 0, y: 0 }))).toBe(true);
        expect(other.failures).toEqual([]);
      } finally {
        await other.close();
      }
    } finally {
      removeTempDirs();
    }
  });

  test('a data directory without vector tile sets has no dataset tiles: no landing link, no class, 404', async () => {
    const tmp = tempDir('tilemirror-ogc-no-dataset-');
    try {
      mkdirSync(join(tmp, 'maps'));
      copyFileSync(storeFile('maps', 'sample'), join(tmp, 'maps', 'sample.mbtiles'));
      const other = inProcess({ dataDir: tmp });
      try {
        expect(json<Links>(await other.get('/ogc')).links.some((l) => l.rel.startsWith(`${REL}tilesets-`))).toBe(false);
        expect(json<{ conformsTo: string[] }>(await other.get('/ogc/conformance')).conformsTo.some((c) => c.endsWith('/dataset-tilesets'))).toBe(false);
        // No weather catalog either: no temporal collection, no DateTime class.
        expect(json<{ conformsTo: string[] }>(await other.get('/ogc/conformance')).conformsTo.some((c) => c.endsWith('/datetime'))).toBe(false);
        expect(json<{ collections: { id: string }[] }>(await other.get('/ogc/collections')).collections.map((c) => c.id)).toEqual(['maps.sample']);
        expect(problem(await other.get('/ogc/tiles'))).toEqual(expectedProblem(404, 'Not Found', 'The dataset has no vector tilesets'));
        expect(problem(await other.get('/ogc/tiles/WebMercatorQuad512/0/0/0'))).toEqual(expectedProblem(404, 'Not Found', 'Unknown tileset: WebMercatorQuad512'));
      } finally {
        await other.close();
      }
    } finally {
      removeTempDirs();
    }
  });
});

describe('the configured grids besides Web Mercator: tile matrix sets, tilesets of the raster collections, tiles', () => {
  // UTM60WGS84Quad (174°E to 180°) meets the world map but neither the terrain (the Alps) nor the image (to 171.6°E).
  const grids = inProcess({ config: { grids: ['EuropeanETRS89_LAEAQuad', 'WorldCRS84Quad', LV95, 'UTM60WGS84Quad'] } });
  afterAll(() => grids.close());
  const GRID_IDS = ['EuropeanETRS89_LAEAQuad', 'WorldCRS84Quad', 'LV95', 'UTM60WGS84Quad'];
  const CRS84_URI = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';
  const TMS_URI = 'http://www.opengis.net/def/tilematrixset/OGC/1.0/';
  interface Matrix {
    id: string;
    scaleDenominator: number;
    cellSize: number;
    cornerOfOrigin: string;
    pointOfOrigin: number[];
    tileWidth: number;
    tileHeight: number;
    matrixWidth: number;
    matrixHeight: number;
  }
  interface SetDoc extends Links {
    id: string;
    uri?: string;
    crs: string;
    orderedAxes: string[];
    wellKnownScaleSet?: string;
    tileMatrices: Matrix[];
    type: string;
    identifier: string;
    supportedCRS: string;
    boundingBox: { lowerCorner: number[]; upperCorner: number[] };
    tileMatrix: (Matrix & { identifier: string; topLeftCorner: number[] })[];
  }
  const setDoc = async (id: string) => json<SetDoc>(await grids.get(`/ogc/tileMatrixSets/${id}`));
  interface Entry extends Links {
    tileMatrixSetId: string;
    tileMatrixSetURI?: string;
    crs: string;
    dataType: string;
    tileMatrixSetLimits: { tileMatrix: string; minTileRow: number; maxTileRow: number; minTileCol: number; maxTileCol: number }[];
  }
  const tilesetIds = async (cid: string, path = 'map/tiles') => json<{ tilesets: Entry[] }>(await grids.get(`/ogc/collections/${cid}/${path}`)).tilesets.map((t) => t.tileMatrixSetId);

  test('/ogc/tileMatrixSets: the Web Mercator sets, then every configured grid (its registry URI when registered, its CRS, a self link)', async () => {
    const list = json<{ tileMatrixSets: ({ id: string; title: string; uri?: string; crs: string } & Links)[] }>(await grids.get('/ogc/tileMatrixSets'));
    expect(list.tileMatrixSets.map((t) => t.id)).toEqual(['WebMercatorQuad', 'WebMercatorQuad512', ...GRID_IDS]);
    const [laea, crs84, lv95, utm] = list.tileMatrixSets.slice(2);
    expect(laea).toEqual({
      id: 'EuropeanETRS89_LAEAQuad',
      title: 'Lambert Azimuthal Equal Area ETRS89 for Europe',
      uri: `${TMS_URI}EuropeanETRS89_LAEAQuad`,
      crs: 'http://www.opengis.net/def/crs/EPSG/0/3035',
      links: [{ href: `${BASE_URL}/ogc/tileMatrixSets/EuropeanETRS89_LAEAQuad?key=demo`, rel: 'self', type: 'application/json', title: 'Lambert Azimuthal Equal Area ETRS89 for Europe' }],
    });
    expect(crs84).toMatchObject({ uri: `${TMS_URI}WorldCRS84Quad`, crs: CRS84_URI });
    expect(utm).toMatchObject({ uri: `${TMS_URI}UTM60WGS84Quad`, crs: 'http://www.opengis.net/def/crs/EPSG/0/32660' });
    // An operator's grid is on no register: no uri.
    expect(lv95).toEqual({ id: 'LV95', title: 'CH1903+ / LV95 (swisstopo)', crs: 'http://www.opengis.net/def/crs/EPSG/0/2056', links: [expect.objectContaining({ rel: 'self', href: `${BASE_URL}/ogc/tileMatrixSets/LV95?key=demo` })] });
    for (const t of list.tileMatrixSets) expect((await grids.get(pathOf(rel(t, 'self')!.href))).status).toBe(200);
  });

  // The values below are the OGC 2D-TMS registry's (registry/json/WorldCRS84Quad.json, EuropeanETRS89_LAEAQuad.json
  // of opengeospatial/2D-Tile-Matrix-Set), written as the registry writes them.
  test('/ogc/tileMatrixSets/WorldCRS84Quad: the registry\'s definition, longitude first; and the 17-083r2 keys GDAL 3.6 reads', async () => {
    const doc = await setDoc('WorldCRS84Quad');
    expect(doc).toMatchObject({
      id: 'WorldCRS84Quad',
      title: 'CRS84 for the World',
      uri: `${TMS_URI}WorldCRS84Quad`,
      crs: CRS84_URI,
      orderedAxes: ['Lon', 'Lat'],
      wellKnownScaleSet: 'http://www.opengis.net/def/wkss/OGC/1.0/GoogleCRS84Quad',
    });
    expect(doc.tileMatrices.map((m) => m.id)).toEqual(Array.from({ length: 24 }, (_, z) => String(z)));
    const m0 = doc.tileMatrices[0];
    expect(m0).toMatchObject({ id: '0', cellSize: 0.703125, cornerOfOrigin: 'topLeft', pointOfOrigin: [-180, 90], tileWidth: 256, tileHeight: 256, matrixWidth: 2, matrixHeight: 1 });
    expect(m0.scaleDenominator).toBeCloseTo(279541132.014358, 5);
    const m14 = doc.tileMatrices[14];
    expect(m14).toMatchObject({ id: '14', pointOfOrigin: [-180, 90], matrixWidth: 32768, matrixHeight: 16384 });
    expect(m14.scaleDenominator).toBeCloseTo(17061.8366707982, 9);
    expect(m14.cellSize).toBeCloseTo(0.0000429153442382812, 18);
    expect(doc.tileMatrices[23].scaleDenominator).toBeCloseTo(33.3238997476528, 12);
    expect(doc).toMatchObject({ type: 'TileMatrixSetType', identifier: 'WorldCRS84Quad', supportedCRS: CRS84_URI, boundingBox: { lowerCorner: [-180, -90], upperCorner: [180, 90] } });
    expect(doc.tileMatrix[1]).toMatchObject({ type: 'TileMatrixType', identifier: '1', topLeftCorner: [-180, 90], matrixWidth: 4, matrixHeight: 2 });
    expect(doc.tileMatrix[1].scaleDenominator).toBeCloseTo(139770566.007179, 5);
    expect(rel(doc, 'self')?.href).toBe(`${BASE_URL}/ogc/tileMatrixSets/WorldCRS84Quad?key=demo`);
  });

  test('/ogc/tileMatrixSets/EuropeanETRS89_LAEAQuad: the registry\'s definition, every point northing first as EPSG:3035 orders its axes', async () => {
    const doc = await setDoc('EuropeanETRS89_LAEAQuad');
    expect(doc).toMatchObject({ id: 'EuropeanETRS89_LAEAQuad', uri: `${TMS_URI}EuropeanETRS89_LAEAQuad`, crs: 'http://www.opengis.net/def/crs/EPSG/0/3035', orderedAxes: ['Y', 'X'] });
    expect(doc.wellKnownScaleSet).toBeUndefined();
    expect(doc.tileMatrices).toHaveLength(16);
    const m0 = doc.tileMatrices[0];
    expect(m0).toMatchObject({ id: '0', cellSize: 17578.125, cornerOfOrigin: 'topLeft', pointOfOrigin: [5500000.0, 2000000.0], tileWidth: 256, tileHeight: 256, matrixWidth: 1, matrixHeight: 1 });
    expect(m0.scaleDenominator).toBeCloseTo(62779017.8571428, 6);
    const m8 = doc.tileMatrices[8];
    expect(m8).toMatchObject({ id: '8', pointOfOrigin: [5500000.0, 2000000.0], matrixWidth: 256, matrixHeight: 256 });
    expect(m8.scaleDenominator).toBeCloseTo(245230.538504464, 8);
    expect(m8.cellSize).toBeCloseTo(68.6645507812, 9);
    const m15 = doc.tileMatrices[15];
    expect(m15.scaleDenominator).toBeCloseTo(1915.86358206612, 10);
    expect(m15.cellSize).toBeCloseTo(0.536441803, 9);
    // 17-083r2: the corners too in the CRS's order; the box is the one tile of matrix 0 from the origin.
    expect(doc).toMatchObject({ supportedCRS: 'http://www.opengis.net/def/crs/EPSG/0/3035', boundingBox: { lowerCorner: [1000000, 2000000], upperCorner: [5500000, 6500000] } });
    expect(doc.tileMatrix[0].topLeftCorner).toEqual([5500000, 2000000]);
  });

  test("/ogc/tileMatrixSets/LV95: the operator's grid, easting first; a registered grid not configured, or another id: 404", async () => {
    const doc = await setDoc('LV95');
    expect(doc).toMatchObject({ id: 'LV95', identifier: 'LV95', crs: 'http://www.opengis.net/def/crs/EPSG/0/2056', supportedCRS: 'http://www.opengis.net/def/crs/EPSG/0/2056', orderedAxes: ['E', 'N'] });
    expect(doc.uri).toBeUndefined();
    expect(doc.tileMatrices).toHaveLength(29);
    expect(doc.tileMatrices[0]).toMatchObject({ id: '0', cellSize: 4000, pointOfOrigin: [2420000, 1350000], matrixWidth: 1, matrixHeight: 1 });
    expect(doc.tileMatrices[0].scaleDenominator).toBeCloseTo(4000 / 0.00028, 6);
    expect(doc.tileMatrices[28]).toMatchObject({ id: '28', cellSize: 0.1, matrixWidth: 18750, matrixHeight: 12500 });
    expect(doc.boundingBox).toEqual(expect.objectContaining({ lowerCorner: [2420000, 1350000 - 256 * 4000], upperCorner: [2420000 + 256 * 4000, 1350000] }));
    for (const id of ['UTM31WGS84Quad', 'Nope']) expect(problem(await grids.get(`/ogc/tileMatrixSets/${id}`))).toEqual(expectedProblem(404, 'Not Found', `Unknown tile matrix set: ${id}`));
  });

  test("a raster collection's tilesets: the Web Mercator ones, then each grid its bounds meet; vector and weather collections keep Web Mercator only", async () => {
    const list = json<{ tilesets: Entry[] }>(await grids.get('/ogc/collections/maps.sample/map/tiles'));
    expect(list.tilesets.map((t) => t.tileMatrixSetId)).toEqual(['WebMercatorQuad512', 'WebMercatorQuad', ...GRID_IDS]);
    const entry = (id: string) => list.tilesets.find((t) => t.tileMatrixSetId === id)!;
    expect(entry('WorldCRS84Quad')).toMatchObject({ dataType: 'map', crs: CRS84_URI, tileMatrixSetURI: `${TMS_URI}WorldCRS84Quad` });
    expect(rel(entry('WorldCRS84Quad'), `${REL}tiling-scheme`)?.href).toBe(`${BASE_URL}/ogc/tileMatrixSets/WorldCRS84Quad?key=demo`);
    expect(rel(entry('WorldCRS84Quad'), 'self')?.href).toBe(`${BASE_URL}/ogc/collections/maps.sample/map/tiles/WorldCRS84Quad?key=demo`);
    expect(entry('LV95')).toMatchObject({ crs: 'http://www.opengis.net/def/crs/EPSG/0/2056' });
    expect(entry('LV95').tileMatrixSetURI).toBeUndefined();
    // Limits: every tile of every matrix (grid-tilesets.ts says why), as GDAL 3.6 needs some.
    expect(entry('WorldCRS84Quad').tileMatrixSetLimits).toHaveLength(24);
    expect(entry('WorldCRS84Quad').tileMatrixSetLimits[0]).toEqual({ tileMatrix: '0', minTileRow: 0, maxTileRow: 0, minTileCol: 0, maxTileCol: 1 });
    expect(entry('WorldCRS84Quad').tileMatrixSetLimits[23]).toEqual({ tileMatrix: '23', minTileRow: 0, maxTileRow: 8388607, minTileCol: 0, maxTileCol: 16777215 });
    expect(entry('UTM60WGS84Quad').tileMatrixSetLimits[0]).toEqual({ tileMatrix: '1', minTileRow: 0, maxTileRow: 1, minTileCol: 0, maxTileCol: 0 });
    expect(entry('LV95').tileMatrixSetLimits[28]).toEqual({ tileMatrix: '28', minTileRow: 0, maxTileRow: 12499, minTileCol: 0, maxTileCol: 18749 });
    // The Alps' terrain and the image (to 171.6°E) stop short of UTM zone 60.
    expect(await tilesetIds('tiles.sample-terrain')).toEqual(['WebMercatorQuad', 'EuropeanETRS89_LAEAQuad', 'WorldCRS84Quad', 'LV95']);
    expect(await tilesetIds('images.sample-image')).toEqual(['WebMercatorQuad', 'EuropeanETRS89_LAEAQuad', 'WorldCRS84Quad', 'LV95']);
    expect(await tilesetIds('tiles.sample-vector', 'tiles')).toEqual(['WebMercatorQuad512']);
    expect(await tilesetIds('weather.temperature-2m.sample')).toEqual(['WebMercatorQuad']);
  });

  test('a tileset in a grid: its CRS, the registry URI, its tiling scheme, the template of its tiles, the bounding box in CRS84, every tile its limits', async () => {
    const doc = json<{ title: string; dataType: string; crs: string; tileMatrixSetURI?: string; boundingBox: unknown; tileMatrixSetLimits: unknown[] } & Links>(
      await grids.get('/ogc/collections/maps.sample/map/tiles/WorldCRS84Quad'),
    );
    expect(doc).toMatchObject({ dataType: 'map', crs: CRS84_URI, tileMatrixSetURI: `${TMS_URI}WorldCRS84Quad`, boundingBox: { lowerLeft: [-180, -85.0511287798066], upperRight: [180, 85.0511287798066], crs: CRS84_URI } });
    expect(doc.tileMatrixSetLimits).toHaveLength(24);
    expect(doc.links).toEqual([
      { href: `${BASE_URL}/ogc/collections/maps.sample/map/tiles/WorldCRS84Quad?key=demo`, rel: 'self', type: 'application/json', title: 'This tileset' },
      { href: `${BASE_URL}/ogc/tileMatrixSets/WorldCRS84Quad?key=demo`, rel: `${REL}tiling-scheme`, type: 'application/json', title: 'Tile matrix set WorldCRS84Quad' },
      { href: `${BASE_URL}/ogc/collections/maps.sample/map/tiles/WorldCRS84Quad/{tileMatrix}/{tileRow}/{tileCol}?key=demo`, rel: 'item', type: 'image/png', title: 'Tiles', templated: true },
    ]);
    const terrain = json<{ crs: string; tileMatrixSetURI?: string; boundingBox: unknown }>(await grids.get('/ogc/collections/tiles.sample-terrain/map/tiles/LV95'));
    expect(terrain).toMatchObject({ crs: 'http://www.opengis.net/def/crs/EPSG/0/2056', boundingBox: { lowerLeft: [5.9, 45.8], upperRight: [10.5, 47.8], crs: CRS84_URI } });
    expect(terrain.tileMatrixSetURI).toBeUndefined();
    for (const [path, detail] of [
      ['/ogc/collections/images.sample-image/map/tiles/UTM60WGS84Quad', 'Unknown tileset: UTM60WGS84Quad'],
      ['/ogc/collections/maps.sample/map/tiles/UTM31WGS84Quad', 'Unknown tileset: UTM31WGS84Quad'],
      ['/ogc/collections/tiles.sample-vector/tiles/WorldCRS84Quad', 'Unknown tileset: WorldCRS84Quad'],
      ['/ogc/collections/weather.temperature-2m.sample/map/tiles/WorldCRS84Quad', 'Unknown tileset: WorldCRS84Quad'],
    ]) {
      expect([path, problem(await grids.get(path))]).toEqual([path, expectedProblem(404, 'Not Found', detail)]);
    }
  });

  test("a tile in a grid: a PNG of the grid's tile size drawn from the collection, the same as WMTS's, its source named", async () => {
    for (const [grid, m, row, col] of [
      ['WorldCRS84Quad', 1, 0, 1],
      ['EuropeanETRS89_LAEAQuad', 2, 1, 1],
      ['LV95', 0, 0, 0],
    ] as const) {
      const what = `${grid} ${m}/${row}/${col}`;
      const r = await grids.get(`/ogc/collections/maps.sample/map/tiles/${grid}/${m}/${row}/${col}`);
      expect([what, r.status, r.type, r.cache]).toEqual([what, 200, 'image/png', 'tile']);
      expect(r.headers?.['X-Tilemirror-Source']).toMatch(/^maps\/sample \S+ \d+/);
      const img = await decodeRGBA(r.body!);
      expect([what, img.width, img.height, isUniform(img)]).toEqual([what, 256, 256, false]);
      // The WMTS tile of the same grid, matrix, row and column: the same bytes, drawn from the same levels.
      const wmtsTile = await grids.get('/wmts', {
        query: { SERVICE: 'WMTS', REQUEST: 'GetTile', VERSION: '1.0.0', LAYER: 'maps/sample', STYLE: 'default', TILEMATRIXSET: grid, TILEMATRIX: String(m), TILEROW: String(row), TILECOL: String(col), FORMAT: 'image/png' },
      });
      expect([what, wmtsTile.status, wmtsTile.headers?.['X-Tilemirror-Source']]).toEqual([what, 200, r.headers?.['X-Tilemirror-Source']]);
      expect([what, wmtsTile.body?.equals(r.body!)]).toEqual([what, true]);
    }
    // A raster tile set's: the terrain (the Alps) in LV95's coarsest matrix.
    const terrain = await grids.get('/ogc/collections/tiles.sample-terrain/map/tiles/LV95/0/0/0');
    expect(terrain).toMatchObject({ status: 200, type: 'image/png' });
    expect(isUniform(await decodeRGBA(terrain.body!))).toBe(false);
    expect(terrain.headers?.['X-Tilemirror-Source']).toMatch(/^tiles\/sample-terrain /);
  });

  test.each([
    // the matrix: one of the grid's, as its definition names them
    ['/ogc/collections/maps.sample/map/tiles/WorldCRS84Quad/24/0/0', 'Invalid tileMatrix: expected the identifier of a tile matrix of WorldCRS84Quad, 0 to 23'],
    ['/ogc/collections/maps.sample/map/tiles/WorldCRS84Quad/x/0/0', 'Invalid tileMatrix: expected the identifier of a tile matrix of WorldCRS84Quad, 0 to 23'],
    ['/ogc/collections/maps.sample/map/tiles/WorldCRS84Quad/05/0/0', 'Invalid tileMatrix: expected the identifier of a tile matrix of WorldCRS84Quad, 0 to 23'],
    ['/ogc/collections/maps.sample/map/tiles/UTM60WGS84Quad/0/0/0', 'Invalid tileMatrix: expected the identifier of a tile matrix of UTM60WGS84Quad, 1 to 24'],
    ['/ogc/collections/maps.sample/map/tiles/LV95/29/0/0', 'Invalid tileMatrix: expected the identifier of a tile matrix of LV95, 0 to 28'],
    // row and column: inside the matrix (WorldCRS84Quad 0: two tiles across, one down)
    ['/ogc/collections/maps.sample/map/tiles/WorldCRS84Quad/0/1/0', 'Invalid tileRow: expected 0 to 0 in tile matrix 0 of WorldCRS84Quad'],
    ['/ogc/collections/maps.sample/map/tiles/WorldCRS84Quad/0/0/2', 'Invalid tileCol: expected 0 to 1 in tile matrix 0 of WorldCRS84Quad'],
    ['/ogc/collections/maps.sample/map/tiles/LV95/28/12500/0', 'Invalid tileRow: expected 0 to 12499 in tile matrix 28 of LV95'],
    ['/ogc/collections/maps.sample/map/tiles/UTM60WGS84Quad/1/0/4294967295', 'Invalid tileCol: expected 0 to 0 in tile matrix 1 of UTM60WGS84Quad'],
    // as for every tile: integers from 0, a well-formed datetime
    ['/ogc/collections/maps.sample/map/tiles/WorldCRS84Quad/0/a/0', 'Invalid tileRow: expected a non-negative integer'],
    ['/ogc/collections/maps.sample/map/tiles/WorldCRS84Quad/0/0/-1', 'Invalid tileCol: expected a non-negative integer'],
    ['/ogc/collections/maps.sample/map/tiles/WorldCRS84Quad/0/0/0?datetime=soon', expect.stringMatching(/^Invalid datetime\b/)],
    // Web Mercator sets as without grids: the same checks and messages, tileMatrix's first
    ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/25/a/0', 'Invalid tileMatrix: expected the identifier of a tile matrix of the set, 0 to 24'],
    ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad/x/0/x', 'Invalid tileMatrix: expected the identifier of a tile matrix of the set, 0 to 24'],
    ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad/1/a/5', 'Invalid tileRow: expected a non-negative integer'],
    ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad/1/0/2', expect.stringMatching(/^Out of bounds: tile 1\/2\/0\b/)],
  ])('%s → 400 problem details: %s', async (path, detail) => {
    expect(problem(await grids.get(path))).toEqual(expectedProblem(400, 'Bad Request', detail));
  });

  test.each([
    ['/ogc/collections/maps.sample/map/tiles/UTM31WGS84Quad/1/0/0', 'Unknown tileset: UTM31WGS84Quad'],
    ['/ogc/collections/maps.sample/map/tiles/Nope/x/0/0', 'Unknown tileset: Nope'],
    ['/ogc/collections/images.sample-image/map/tiles/UTM60WGS84Quad/1/0/0', 'Unknown tileset: UTM60WGS84Quad'],
    ['/ogc/collections/maps.nope/map/tiles/WorldCRS84Quad/0/0/0', 'Unknown collection: maps.nope'],
    ['/ogc/collections/tiles.sample-vector/map/tiles/WorldCRS84Quad/0/0/0', 'Collection tiles.sample-vector has no map tilesets'],
    ['/ogc/collections/tiles.sample-vector/tiles/WorldCRS84Quad/0/0/0', 'Unknown tileset: WorldCRS84Quad'],
    ['/ogc/collections/weather.temperature-2m.sample/map/tiles/WorldCRS84Quad/0/0/0', 'Unknown tileset: WorldCRS84Quad'],
  ])('%s → 404 problem details: %s', async (path, detail) => {
    expect(problem(await grids.get(path))).toEqual(expectedProblem(404, 'Not Found', detail));
  });

  test("a collection of JPEG tiles: its grid tiles are JPEG, as its tileset's item link says", async () => {
    // An image of one JPEG tile at zoom 0 (a gradient: no two pixels of a row alike).
    const tmp = tempDir('tilemirror-ogc-grid-jpeg-');
    try {
      mkdirSync(join(tmp, 'images'));
      const w = new StoreWriter(join(tmp, 'images', 'photo.mbtiles'), {
        kind: 'images',
        name: 'photo',
        pyramids: [{ name: 'main', tileSize: 256, scale: 1, format: 'jpg', minzoom: 0, maxzoom: 0, bounds: [-180, -85.0511287798066, 180, 85.0511287798066] }],
      });
      w.putTile('main', 0, 0, 0, await sharp(await gradientTile(0, 0, 0)).jpeg().toBuffer());
      w.close();
      const other = inProcess({ dataDir: tmp, config: { grids: ['WorldCRS84Quad'] } });
      try {
        const doc = json<Links>(await other.get('/ogc/collections/images.photo/map/tiles/WorldCRS84Quad'));
        expect(rel(doc, 'item')).toMatchObject({ type: 'image/jpeg', href: `${BASE_URL}/ogc/collections/images.photo/map/tiles/WorldCRS84Quad/{tileMatrix}/{tileRow}/{tileCol}?key=demo` });
        const tile = await other.get('/ogc/collections/images.photo/map/tiles/WorldCRS84Quad/0/0/1');
        expect(tile).toMatchObject({ status: 200, type: 'image/jpeg', cache: 'tile', headers: { 'X-Tilemirror-Source': expect.stringMatching(/^images\/photo /) } });
        const meta = await sharp(tile.body).metadata();
        expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 256, 256]);
        expect(other.failures).toEqual([]);
      } finally {
        await other.close();
      }
    } finally {
      removeTempDirs();
    }
  });

  test('nothing failed unexpectedly', () => {
    expect(grids.failures).toEqual([]);
  });
});

test.each([
  ['/ogc/collections/maps.nope', 'Unknown collection: maps.nope'],
  ['/ogc/collections/bogus', 'Unknown collection: bogus'],
  ['/ogc/collections/maps.nope/map/tiles', 'Unknown collection: maps.nope'],
  ['/ogc/collections/maps.nope/map/tiles/WebMercatorQuad/0/0/0', 'Unknown collection: maps.nope'],
  ['/ogc/collections/tiles.sample-vector/map/tiles', 'Collection tiles.sample-vector has no map tilesets'],
  ['/ogc/collections/maps.sample/tiles', 'Collection maps.sample has no vector tilesets'],
  ['/ogc/collections/maps.sample/tiles/WebMercatorQuad512', 'Collection maps.sample has no vector tilesets'],
  ['/ogc/collections/maps.sample/map/tiles/Nope', 'Unknown tileset: Nope'],
  ['/ogc/collections/maps.sample/map/tiles/Nope/0/0/0', 'Unknown tileset: Nope'],
  ['/ogc/collections/maps.sample/map/tiles/Nope/x/0/0', 'Unknown tileset: Nope'],
  ['/ogc/collections/maps.sample/map/tiles/WorldCRS84Quad/0/0/0', 'Unknown tileset: WorldCRS84Quad'],
  ['/ogc/collections/maps.sample/map/tiles/WorldCRS84Quad', 'Unknown tileset: WorldCRS84Quad'],
  ['/ogc/tileMatrixSets/WorldCRS84Quad', 'Unknown tile matrix set: WorldCRS84Quad'],
  ['/ogc/collections/tiles.sample-vector/tiles/WebMercatorQuad/0/0/0', 'Unknown tileset: WebMercatorQuad'],
  ['/ogc/tiles/WebMercatorQuad', 'Unknown tileset: WebMercatorQuad'],
  ['/ogc/tiles/Nope/0/0/0', 'Unknown tileset: Nope'],
  ['/ogc/tileMatrixSets/Nope', 'Unknown tile matrix set: Nope'],
])('%s → 404 problem details: %s', async (path, detail) => {
  expect(problem(await app.get(path))).toEqual(expectedProblem(404, 'Not Found', detail));
});

test.each([
  // tileMatrix: a string naming one of the set's matrices, "0" to "24"
  ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/x/0/0', /^Invalid tileMatrix: expected the identifier of a tile matrix of the set, 0 to 24$/],
  ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/05/0/0', /^Invalid tileMatrix\b/],
  ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/25/0/0', /^Invalid tileMatrix\b/],
  ['/ogc/collections/tiles.sample-vector/tiles/WebMercatorQuad512/-1/0/0', /^Invalid tileMatrix\b/],
  // tileRow, tileCol: integers from 0, inside the matrix
  ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/1/a/0', /^Invalid tileRow: expected a non-negative integer$/],
  ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/1/0/1.5', /^Invalid tileCol: expected a non-negative integer$/],
  ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/1/0/2', /^Out of bounds: tile 1\/2\/0\b/],
  ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/3/2147483647/2147483647', /^Out of bounds: tile 3\//],
  // outside the tileset's limits (its zooms, its bounds)
  ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/6/0/0', /^Out of bounds: zoom 6\b/],
  ['/ogc/collections/tiles.sample-terrain/map/tiles/WebMercatorQuad/8/0/0', /^Out of bounds: tile 8\/0\/0\b/],
  ['/ogc/collections/tiles.sample-vector/tiles/WebMercatorQuad512/6/0/0', /^Out of bounds: zoom 6\b/],
  ['/ogc/tiles/WebMercatorQuad512/6/0/0', /^Out of bounds: the dataset has no tile matrix 6$/],
  ['/ogc/tiles/WebMercatorQuad512/12/0/0', /^Out of bounds: tile 12\/0\/0$/],
  ['/ogc/tiles/WebMercatorQuad512/x/0/0', /^Invalid tileMatrix\b/],
])('%s → 400 problem details: %s', async (path, detail) => {
  expect(problem(await app.get(path))).toEqual(expectedProblem(400, 'Bad Request', expect.stringMatching(detail)));
});

test.each(['/ogc', '/ogc/conformance', '/ogc/tiles/WebMercatorQuad512/0/0/0', '/ogc/collections/maps.sample/map/tiles/WebMercatorQuad/0/0/0'])(
  '%s without a key → 403 problem details',
  async (path) => {
    expect(problem(await app.get(path, { key: null }))).toEqual(expectedProblem(403, 'Forbidden', 'Missing key'));
  },
);

test('every route of ogc.ts was reached, and nothing failed unexpectedly', () => {
  expect(patternsOf(ogc).filter((p) => !app.reached.has(p))).toEqual([]);
  expect(app.failures).toEqual([]);
});
