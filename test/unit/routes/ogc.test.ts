// src/http/routes/ogc.ts in process: OGC API - Tiles under /ogc (landing page, conformance, collections,
// tilesets, the dataset's tilesets, tile matrix sets) and its tiles, compared with the bytes the sample's stores
// hold; every error a problem details document.

import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Reply } from '../../../src/http/reply';
import * as ogc from '../../../src/http/routes/ogc';
import { StoreWriter } from '../../../src/store/mbtiles/writer';
import { SAMPLE_OGC_COLLECTIONS } from '../../fixtures/sample-listings';
import { BASE_URL, inProcess, json, patternsOf, storeFile } from '../../helpers/in-process';
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
