// src/http/routes/ogc.ts in process: OGC API - Tiles under /ogc (landing page, conformance, collections,
// tilesets, tile matrix sets) and its tiles, compared with the bytes the sample's stores hold.

import * as ogc from '../../../src/http/routes/ogc';
import { SAMPLE_OGC_COLLECTIONS } from '../../fixtures/sample-listings';
import { BASE_URL, failure, inProcess, json, patternsOf, storeFile } from '../../helpers/in-process';
import { readStoredTile } from '../../interop/helpers';

const app = inProcess();
afterAll(() => app.close());

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
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
    '/ogc/tileMatrixSets',
    '/ogc/tileMatrixSets/:tmsId',
  ]);
});

test('the landing page, with or without the slash, links the collections, the API definition and its documentation with the key', async () => {
  for (const path of ['/ogc', '/ogc/']) {
    const r = await app.get(path);
    expect(r).toMatchObject({ status: 200, type: JSON_TYPE, cache: 'document' });
    const doc = json<Links>(r);
    expect(rel(doc, 'data')).toMatchObject({ type: 'application/json', href: `${BASE_URL}/ogc/collections?key=demo` });
    expect(rel(doc, 'service-desc')).toMatchObject({ href: `${BASE_URL}/openapi.json?key=demo`, type: 'application/vnd.oai.openapi+json;version=3.1' });
    expect(rel(doc, 'service-doc')).toMatchObject({ href: `${BASE_URL}/docs?key=demo`, type: 'text/html' });
  }
});

test('conformance declares OGC API - Tiles core', async () => {
  expect(json<{ conformsTo: string[] }>(await app.get('/ogc/conformance')).conformsTo).toContain('http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core');
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
  expect(tile).toMatchObject({ status: 200, type: 'application/x-protobuf', gzipped: true, cache: 'tile' });
  expect(tile.body?.equals(readStoredTile(storeFile('tiles', 'sample-vector'), { z: 0, x: 0, y: 0 }))).toBe(true);
  expect(await app.get('/ogc/collections/tiles.sample-vector/tiles/WebMercatorQuad512/3/5/1')).toEqual({ status: 204, cache: 'tile', etag: 'empty' });
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

test.each([
  ['/ogc/collections/maps.nope', 'Unknown collection: maps.nope'],
  ['/ogc/collections/bogus', 'Unknown collection: bogus'],
  ['/ogc/collections/maps.nope/map/tiles', 'Unknown collection: maps.nope'],
  ['/ogc/collections/tiles.sample-vector/map/tiles', 'Collection tiles.sample-vector has no map tilesets'],
  ['/ogc/collections/maps.sample/tiles', 'Collection maps.sample has no vector tilesets'],
  ['/ogc/collections/maps.sample/tiles/WebMercatorQuad512', 'Collection maps.sample has no vector tilesets'],
  ['/ogc/collections/maps.sample/map/tiles/Nope', 'Unknown tileset: Nope'],
  ['/ogc/collections/maps.sample/map/tiles/Nope/0/0/0', 'Unknown tileset: Nope'],
  ['/ogc/collections/tiles.sample-vector/tiles/WebMercatorQuad/0/0/0', 'Unknown tileset: WebMercatorQuad'],
  ['/ogc/tileMatrixSets/Nope', 'Unknown tile matrix set: Nope'],
])('%s → 404 %s', async (path, message) => {
  expect(failure(await app.get(path))).toEqual({ status: 404, type: TEXT, message });
});

test.each([
  ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/x/0/0', /^Invalid tileMatrix\b/],
  ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/6/0/0', /^Out of bounds: zoom 6\b/],
  ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad512/1/0/2', /^Out of bounds: tile 1\/2\/0\b/],
])('%s → 400 %s', async (path, message) => {
  expect(failure(await app.get(path))).toEqual({ status: 400, type: TEXT, message: expect.stringMatching(message) });
});

test('every route of ogc.ts was reached, and nothing failed unexpectedly', () => {
  expect(patternsOf(ogc).filter((p) => !app.reached.has(p))).toEqual([]);
  expect(app.failures).toEqual([]);
});
