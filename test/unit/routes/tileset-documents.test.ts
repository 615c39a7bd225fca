// src/http/routes/tileset-documents.ts in process: the documents about one map, tile set or image (TileJSON,
// style, viewer, image.json, OGC tileset and tile matrix set, WMTS capabilities and KVP), against what the
// sample's stores hold, plus a data directory written here for resources the sample has none of.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import * as documents from '../../../src/http/routes/tileset-documents';
import { StoreWriter } from '../../../src/store/mbtiles/writer';
import { BASE_URL, failure, inProcess, json, patternsOf, readStoredDocument, storeFile, text } from '../../helpers/in-process';
import { readMetadata, readStoredTile } from '../../helpers/stored-tiles';
import { parseExceptionReport } from '../../helpers/ows-exception';
import type { Reply } from '../../../src/http/reply';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-documents-');

const app = inProcess();
afterAll(() => app.close());

const TEXT = 'text/plain; charset=utf-8';
const OWS_TYPE = 'application/xml; charset=utf-8';
/** Status, type and exceptions of an OWS ExceptionReport answer. */
const owsFailure = (r: Reply) => ({ status: r.status, type: r.type, exceptions: parseExceptionReport(text(r)).exceptions });
const JSON_TYPE = 'application/json; charset=utf-8';
const xml = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true });
/** Every absolute URL of a document (entities of XML undone). */
const urlsIn = (s: string): string[] => [...s.matchAll(/https?:\/\/[^"'<>\s]+/g)].map((m) => m[0].replace(/&amp;/g, '&'));
const OGC_SCHEMA_HOSTS = /^http:\/\/(www\.opengis\.net|schemas\.opengis\.net|www\.w3\.org)\//;

// A data directory holding what the sample lacks: a map with one 512 px pyramid and no style, an image without
// image.json, a tile set of 1024 px tiles (no OGC tile matrix set describes it).
const extra = tempDir();
const WORLD: [number, number, number, number] = [-180, -85.0511287798066, 180, 85.0511287798066];
const write = (kind: 'maps' | 'tiles' | 'images', id: string, tileSize: number, image?: { width: number; height: number }) => {
  mkdirSync(join(extra, kind), { recursive: true });
  new StoreWriter(join(extra, kind, `${id}.mbtiles`), {
    kind,
    name: id,
    image,
    pyramids: [{ name: 'main', tileSize, scale: 1, format: 'png', minzoom: 0, maxzoom: 1, bounds: WORLD }],
  }).close();
};
write('maps', 'plain', 512);
write('images', 'logo', 256, { width: 300, height: 200 });
write('tiles', 'huge', 1024);
const other = inProcess({ dataDir: extra });
afterAll(async () => {
  await other.close();
  removeTempDirs();
});

test('the route table gives tileset-documents.ts these patterns', () => {
  expect(patternsOf(documents).sort()).toEqual(
    [
      '/maps/:mapId/',
      '/maps/:mapId/style.json',
      '/maps/:mapId/[:size(256)/]tiles.json',
      '/maps/:mapId/tiles',
      '/maps/:mapId/tileMatrixSet',
      '/maps/:mapId/WMTSCapabilities.xml',
      '/tiles/:tilesId/',
      '/tiles/:tilesId/tiles.json',
      '/tiles/:tilesId/tiles',
      '/tiles/:tilesId/tileMatrixSet',
      '/tiles/:tilesId/WMTSCapabilities.xml',
      '/images/:imageId/image.json',
      '/images/:imageId/WMTSCapabilities.xml',
    ].sort(),
  );
});

describe('TileJSON', () => {
  test('of a map (512 px) and of its 256 px pyramid, the requester key in the template', async () => {
    const r = await app.get('/maps/sample/tiles.json');
    expect(r).toMatchObject({ status: 200, type: JSON_TYPE, cache: 'document' });
    const doc = json<Record<string, unknown>>(r);
    expect(doc).toMatchObject({ tilejson: '3.0.0', format: 'png', minzoom: 0, maxzoom: 5, tileSize: 512, tiles: [`${BASE_URL}/maps/sample/{z}/{x}/{y}.png?key=demo`] });
    expect(doc.attribution).toMatch(/Natural Earth/);
    const small = json<Record<string, unknown>>(await app.get('/maps/sample/256/tiles.json'));
    expect(small).toMatchObject({ tileSize: 256, tiles: [`${BASE_URL}/maps/sample/256/{z}/{x}/{y}.png?key=demo`] });
  });

  test('of a vector tile set: its vector layers as the store metadata lists them', async () => {
    const doc = json<{ format: string; tiles: string[]; vector_layers: unknown[] }>(await app.get('/tiles/sample-vector/tiles.json'));
    expect(doc.format).toBe('pbf');
    expect(doc.tiles).toEqual([`${BASE_URL}/tiles/sample-vector/{z}/{x}/{y}?key=demo`]);
    const meta = JSON.parse(readMetadata(storeFile('tiles', 'sample-vector')).json) as { vector_layers: unknown[] };
    expect(doc.vector_layers).toEqual(meta.vector_layers);
  });

  test('of a terrain tile set names its encoding', async () => {
    expect(json(await app.get('/tiles/sample-terrain/tiles.json'))).toMatchObject({ format: 'png', encoding: 'mapbox' });
  });

  test('a map without a 256 px pyramid has no 256 px TileJSON; unknown ids are 404', async () => {
    expect(failure(await other.get('/maps/plain/256/tiles.json'))).toEqual({ status: 404, type: TEXT, message: 'This map has no 256 px pyramid' });
    expect(failure(await app.get('/maps/nope/tiles.json'))).toEqual({ status: 404, type: TEXT, message: 'Unknown map: nope' });
    expect(failure(await app.get('/maps/nope/256/tiles.json'))).toEqual({ status: 404, type: TEXT, message: 'Unknown map: nope' });
    expect(failure(await app.get('/tiles/nope/tiles.json'))).toEqual({ status: 404, type: TEXT, message: 'Unknown tileset: nope' });
  });
});

describe('style.json', () => {
  test('the stored style, its local URLs on this server with the key, its layers unchanged', async () => {
    const r = await app.get('/maps/sample/style.json');
    expect(r).toMatchObject({ status: 200, type: JSON_TYPE, cache: 'document' });
    const style = json<{ version: number; glyphs: string; sprite: string; sources: Record<string, { url?: string }>; layers: unknown[] }>(r);
    const stored = JSON.parse(readStoredDocument(storeFile('maps', 'sample'), 'style.json').toString('utf8')) as { layers: unknown[] };
    expect(style.version).toBe(8);
    expect(style.glyphs).toBe(`${BASE_URL}/fonts/{fontstack}/{range}.pbf?key=demo`);
    expect(style.sprite).toBe(`${BASE_URL}/sprites/sample/sprite?key=demo`);
    expect(style.sources['sample-vector'].url).toBe(`${BASE_URL}/tiles/sample-vector/tiles.json?key=demo`);
    expect(style.layers).toEqual(stored.layers);
    expect(text(r)).not.toContain('tilemirror://');
  });

  test('a map without a stored style gets a raster style of its own tiles', async () => {
    const style = json<{ version: number; sources: Record<string, { type: string; url?: string }> }>(await other.get('/maps/plain/style.json'));
    expect(style.version).toBe(8);
    expect(Object.values(style.sources)).toEqual([expect.objectContaining({ type: 'raster', url: `${BASE_URL}/maps/plain/tiles.json?key=demo` })]);
  });

  test('an unknown map is 404', async () => {
    expect(failure(await app.get('/maps/nope/style.json'))).toEqual({ status: 404, type: TEXT, message: 'Unknown map: nope' });
  });
});

describe('viewers', () => {
  test.each(['/maps/sample/', '/tiles/sample-vector/', '/tiles/sample-terrain/'])('%s: HTML loading MapLibre from this server only', async (path) => {
    const r = await app.get(path);
    expect(r).toMatchObject({ status: 200, type: 'text/html; charset=utf-8', cache: 'document' });
    expect(text(r)).toContain('/assets/maplibre-gl/maplibre-gl.mjs');
    for (const u of urlsIn(text(r))) expect(u.startsWith(BASE_URL)).toBe(true);
  });

  test('a map viewer loads its style; a vector tile set viewer labels in the fallback font; a terrain viewer shades the relief', async () => {
    expect(text(await app.get('/maps/sample/'))).toContain(`${BASE_URL}/maps/sample/style.json?key=demo`);
    const vector = /const options = (\{.*\});\n/.exec(text(await app.get('/tiles/sample-vector/')));
    const style = (JSON.parse(vector![1]) as { style: { glyphs: string; layers: { type: string; layout?: Record<string, unknown> }[] } }).style;
    expect(style.glyphs).toBe(`${BASE_URL}/fonts/{fontstack}/{range}.pbf?key=demo`);
    expect(style.layers.filter((l) => l.type === 'symbol').map((l) => l.layout?.['text-font'])).toEqual(expect.arrayContaining([['Noto Sans Regular']]));
    const terrain = text(await app.get('/tiles/sample-terrain/'));
    expect(terrain).toContain('"type":"raster-dem"');
    expect(terrain).toContain('"type":"hillshade"');
  });

  test.each([
    ['/maps/nope/', 'Unknown map: nope'],
    ['/tiles/nope/', 'Unknown tileset: nope'],
  ])('%s → 404', async (path, message) => {
    expect(failure(await app.get(path))).toEqual({ status: 404, type: TEXT, message });
  });
});

describe('image.json', () => {
  test('as stored', async () => {
    const r = await app.get('/images/sample-image/image.json');
    expect(r).toMatchObject({ status: 200, type: JSON_TYPE, cache: 'document' });
    expect(r.body?.equals(readStoredDocument(storeFile('images', 'sample-image'), 'image.json'))).toBe(true);
  });

  test('built from the store when none is stored', async () => {
    const doc = json<Record<string, unknown>>(await other.get('/images/logo/image.json'));
    expect(Object.keys(doc).sort()).toEqual(['attribution', 'description', 'height', 'id', 'maxzoom', 'minzoom', 'tileSize', 'width']);
    expect(doc).toMatchObject({ id: 'logo', width: 300, height: 200, minzoom: 0, maxzoom: 1, tileSize: 256 });
  });

  test('an unknown image is 404', async () => {
    expect(failure(await app.get('/images/nope/image.json'))).toEqual({ status: 404, type: TEXT, message: 'Unknown image: nope' });
  });
});

describe('OGC API Tiles documents of one resource', () => {
  test.each([
    ['maps/sample', 6],
    ['tiles/sample-vector', 6],
    ['tiles/sample-terrain', 11],
  ])('/%s/tiles links its tiles; /tileMatrixSet has one matrix per zoom', async (resource, zooms) => {
    const t = await app.get(`/${resource}/tiles`);
    expect(t).toMatchObject({ status: 200, type: JSON_TYPE, cache: 'document' });
    const item = json<{ links: { rel: string; href: string }[] }>(t).links.find((l) => l.rel === 'item');
    expect(item?.href).toMatch(new RegExp(`^${BASE_URL}/.*\\{tileMatrix\\}/\\{tileRow\\}/\\{tileCol\\}.*key=demo`));
    const m = await app.get(`/${resource}/tileMatrixSet`);
    expect(m).toMatchObject({ status: 200, type: JSON_TYPE });
    expect(json<{ tileMatrices: unknown[] }>(m).tileMatrices).toHaveLength(zooms);
  });

  test('a tile set of a size no tile matrix set describes has neither; unknown ids are 404', async () => {
    expect(failure(await other.get('/tiles/huge/tiles'))).toEqual({ status: 404, type: TEXT, message: 'No OGC tileset for this resource' });
    expect(failure(await other.get('/tiles/huge/tileMatrixSet'))).toEqual({ status: 404, type: TEXT, message: 'No tile matrix set for this resource' });
    for (const path of ['/maps/nope/tiles', '/maps/nope/tileMatrixSet']) expect(failure(await app.get(path))).toEqual({ status: 404, type: TEXT, message: 'Unknown map: nope' });
    for (const path of ['/tiles/nope/tiles', '/tiles/nope/tileMatrixSet']) expect(failure(await app.get(path))).toEqual({ status: 404, type: TEXT, message: 'Unknown tileset: nope' });
  });
});

describe('WMTS capabilities of one resource', () => {
  const layersOf = (s: string): string[] => [xml.parse(s).Capabilities.Contents.Layer].flat().map((l: { Identifier: string }) => l.Identifier);

  test.each([
    ['/maps/sample/WMTSCapabilities.xml', ['maps/sample', 'maps/sample/256']],
    ['/tiles/sample-terrain/WMTSCapabilities.xml', ['tiles/sample-terrain']],
    ['/images/sample-image/WMTSCapabilities.xml', ['images/sample-image']],
    ['/images/sample-image/WMTSCapabilities.xml?request=GetCapabilities', ['images/sample-image']],
  ])('%s lists its layers, every URL on this server with the key', async (path, layers) => {
    const r = await app.get(path);
    expect(r).toMatchObject({ status: 200, type: 'text/xml; charset=utf-8', cache: 'document' });
    expect(layersOf(text(r)).sort()).toEqual([...layers].sort());
    const urls = urlsIn(text(r)).filter((u) => !OGC_SCHEMA_HOSTS.test(u));
    expect(urls.length).toBeGreaterThan(0);
    for (const u of urls) expect(u.startsWith(BASE_URL) && u.includes('key=demo')).toBe(true);
  });

  /** The tile matrix set a layer of a capabilities document is linked to. */
  const matrixSetOf = async (path: string, layerId: string): Promise<string> => {
    const caps = xml.parse(text(await app.get(path)));
    const layer = [caps.Capabilities.Contents.Layer].flat().find((l: { Identifier: string }) => l.Identifier === layerId);
    return String(layer.TileMatrixSetLink.TileMatrixSet);
  };

  test('KVP GetTile sent to the capabilities URL (lower-case names too, as GDAL sends them) answers the stored tile', async () => {
    const set = await matrixSetOf('/maps/sample/WMTSCapabilities.xml', 'maps/sample');
    const r = await app.get(`/maps/sample/WMTSCapabilities.xml?service=WMTS&request=GetTile&version=1.0.0&layer=maps/sample&style=default&tilematrixset=${set}&tilematrix=2&tilerow=1&tilecol=3&format=image/png`);
    expect(r).toMatchObject({ status: 200, type: 'image/png', cache: 'tile' });
    expect(r.body?.equals(readStoredTile(storeFile('maps', 'sample'), { z: 2, x: 3, y: 1 }))).toBe(true);
    const terrainSet = await matrixSetOf('/tiles/sample-terrain/WMTSCapabilities.xml', 'tiles/sample-terrain');
    const terrain = await app.get(`/tiles/sample-terrain/WMTSCapabilities.xml?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=tiles/sample-terrain&STYLE=default&TILEMATRIXSET=${terrainSet}&TILEMATRIX=8&TILEROW=90&TILECOL=133&FORMAT=image/png`);
    expect(terrain).toMatchObject({ status: 200, type: 'image/png', cache: 'tile' });
    expect(terrain.body?.equals(readStoredTile(storeFile('tiles', 'sample-terrain'), { z: 8, x: 133, y: 90 }))).toBe(true);
  });

  test('errors are OWS ExceptionReports: a tile matrix set the layer does not have (400, locator TileMatrixSet), unknown ids (404)', async () => {
    const r = await app.get('/maps/sample/WMTSCapabilities.xml?REQUEST=GetTile&VERSION=1.0.0&LAYER=maps/sample&STYLE=default&FORMAT=image/png&TILEMATRIXSET=x&TILEMATRIX=0&TILEROW=0&TILECOL=0');
    expect(owsFailure(r)).toEqual({ status: 400, type: OWS_TYPE, exceptions: [{ code: 'InvalidParameterValue', locator: 'TileMatrixSet', text: 'Unknown tile matrix set "x" of layer maps/sample: expected GoogleMapsCompatible512-z0-5' }] });
    expect(owsFailure(await app.get('/maps/nope/WMTSCapabilities.xml'))).toEqual({ status: 404, type: OWS_TYPE, exceptions: [{ code: 'NoApplicableCode', text: 'Unknown map: nope' }] });
    expect(owsFailure(await app.get('/tiles/nope/WMTSCapabilities.xml'))).toEqual({ status: 404, type: OWS_TYPE, exceptions: [{ code: 'NoApplicableCode', text: 'Unknown tileset: nope' }] });
    expect(owsFailure(await app.get('/images/nope/WMTSCapabilities.xml'))).toEqual({ status: 404, type: OWS_TYPE, exceptions: [{ code: 'NoApplicableCode', text: 'Unknown image: nope' }] });
    expect(owsFailure(await app.get('/maps/sample/WMTSCapabilities.xml', { key: null }))).toEqual({ status: 403, type: OWS_TYPE, exceptions: [{ code: 'NoApplicableCode', text: 'Missing key' }] });
  });

  test('a resource\'s capabilities: the resource\'s name as title, the configured service metadata, Sections', async () => {
    const caps = xml.parse(text(await app.get('/tiles/sample-terrain/WMTSCapabilities.xml?service=WMTS&request=GetCapabilities&Sections=ServiceIdentification,ServiceProvider'))).Capabilities;
    expect(caps.ServiceIdentification).toMatchObject({ Title: 'Sample terrain', ServiceType: 'OGC WMTS', Fees: 'none' });
    expect(caps.ServiceProvider.ProviderName).toBe('tilemirror');
    expect(caps.Contents).toBeUndefined();
    const refused = await app.get('/maps/sample/WMTSCapabilities.xml', { headers: { Accept: 'image/png' } });
    expect(owsFailure(refused)).toMatchObject({ status: 406, exceptions: [{ code: 'NoApplicableCode' }] });
  });
});

test('every route of tileset-documents.ts was reached, and nothing failed unexpectedly', () => {
  const reached = new Set([...app.reached, ...other.reached]);
  expect(patternsOf(documents).filter((p) => !reached.has(p))).toEqual([]);
  expect([...app.failures, ...other.failures]).toEqual([]);
});
