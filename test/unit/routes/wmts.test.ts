// src/http/routes/wmts.ts in process: the service-wide capabilities (RESTful and KVP) and KVP GetTile answering
// the stored tiles, and the answers to bad KVP requests (400 naming the parameter, 404 an unknown layer).

import { XMLParser } from 'fast-xml-parser';
import * as wmts from '../../../src/http/routes/wmts';
import { SAMPLE_WMTS_LAYERS } from '../../fixtures/sample-listings';
import { BASE_URL, failure, inProcess, patternsOf, storeFile, text } from '../../helpers/in-process';
import { readStoredTile } from '../../interop/helpers';

const app = inProcess();
afterAll(() => app.close());

const TEXT = 'text/plain; charset=utf-8';
const xml = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true });
const OGC_SCHEMA_HOSTS = /^http:\/\/(www\.opengis\.net|schemas\.opengis\.net|www\.w3\.org)\//;

interface Layer {
  Identifier: string;
  TileMatrixSetLink: { TileMatrixSet: string };
}
const layersOf = (s: string): Layer[] => [xml.parse(s).Capabilities.Contents.Layer].flat();
let sets: Record<string, string>;
const getTile = (layer: string, z: number, row: number, col: number, format?: string) =>
  app.get(`/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=${layer}&STYLE=default&TILEMATRIXSET=${sets[layer]}&TILEMATRIX=${z}&TILEROW=${row}&TILECOL=${col}${format ? `&FORMAT=${format}` : ''}`);

beforeAll(async () => {
  sets = Object.fromEntries(layersOf(text(await app.get('/wmts/1.0.0/WMTSCapabilities.xml'))).map((l) => [l.Identifier, String(l.TileMatrixSetLink.TileMatrixSet)]));
});

test('the route table gives wmts.ts its two patterns', () => {
  expect(patternsOf(wmts)).toEqual(['/wmts', '/wmts/1.0.0/WMTSCapabilities.xml']);
});

test.each(['/wmts/1.0.0/WMTSCapabilities.xml', '/wmts?SERVICE=WMTS&REQUEST=GetCapabilities', '/wmts'])('%s: every layer, every URL on this server with the key', async (path) => {
  const r = await app.get(path);
  expect(r).toMatchObject({ status: 200, type: 'text/xml; charset=utf-8', cache: 'document' });
  expect(layersOf(text(r)).map((l) => l.Identifier).sort()).toEqual(SAMPLE_WMTS_LAYERS);
  const urls = [...text(r).matchAll(/https?:\/\/[^"'<>\s]+/g)].map((m) => m[0].replace(/&amp;/g, '&')).filter((u) => !OGC_SCHEMA_HOSTS.test(u));
  expect(urls.length).toBeGreaterThan(0);
  for (const u of urls) expect(u.startsWith(BASE_URL) && u.includes('key=demo')).toBe(true);
});

describe('KVP GetTile answers the stored tile', () => {
  test('of a map, each size', async () => {
    const big = await getTile('maps/sample', 2, 1, 3, 'image/png');
    expect(big).toMatchObject({ status: 200, type: 'image/png', cache: 'tile' });
    expect(big.body?.equals(readStoredTile(storeFile('maps', 'sample'), { z: 2, x: 3, y: 1 }))).toBe(true);
    const small = await getTile('maps/sample/256', 2, 1, 3);
    expect(small.body?.equals(readStoredTile(storeFile('maps', 'sample'), { z: 2, x: 3, y: 1 }, '256'))).toBe(true);
  });

  test('of a vector tile set, an image and a terrain tile set (in another raster format when asked)', async () => {
    const vector = await getTile('tiles/sample-vector', 0, 0, 0, 'application/vnd.mapbox-vector-tile');
    expect(vector).toMatchObject({ status: 200, type: 'application/x-protobuf', gzipped: true });
    expect(vector.body?.equals(readStoredTile(storeFile('tiles', 'sample-vector'), { z: 0, x: 0, y: 0 }))).toBe(true);
    const image = await getTile('images/sample-image', 3, 3, 0);
    expect(image.body?.equals(readStoredTile(storeFile('images', 'sample-image'), { z: 3, x: 0, y: 3 }))).toBe(true);
    expect(await getTile('tiles/sample-terrain', 8, 90, 133, 'image/jpeg')).toMatchObject({ status: 200, type: 'image/jpeg', cache: 'tile' });
  });

  test('sent to the RESTful capabilities path too', async () => {
    const r = await app.get(`/wmts/1.0.0/WMTSCapabilities.xml?service=wmts&request=gettile&layer=maps/sample&tilematrixset=${sets['maps/sample']}&tilematrix=2&tilerow=1&tilecol=3`);
    expect(r.body?.equals(readStoredTile(storeFile('maps', 'sample'), { z: 2, x: 3, y: 1 }))).toBe(true);
  });
});

test.each([
  ['REQUEST=GetTile&LAYER=maps/sample&TILEMATRIXSET=x&TILEMATRIX=0&TILEROW=0&TILECOL=0', 400, /^Invalid TILEMATRIXSET for layer maps\/sample: x$/],
  ['REQUEST=GetTile&LAYER=maps/nope&TILEMATRIXSET=x&TILEMATRIX=0&TILEROW=0&TILECOL=0', 404, /^Unknown LAYER: maps\/nope$/],
  ['REQUEST=GetTile&LAYER=maps/sample&TILEMATRIX=0&TILEROW=0&TILECOL=0', 400, /\bTILEMATRIXSET\b/],
  ['REQUEST=GetTile&LAYER=maps/sample&TILEMATRIXSET=x&TILEMATRIX=1.5&TILEROW=0&TILECOL=0', 400, /\bTILEMATRIX\b/],
  ['REQUEST=GetFeatureInfo', 400, /\bREQUEST\b/],
  ['SERVICE=WMS&REQUEST=GetCapabilities', 400, /\bSERVICE\b/],
])('KVP %s → %d', async (query, status, message) => {
  expect(failure(await app.get(`/wmts?${query}`))).toEqual({ status, type: TEXT, message: expect.stringMatching(message) });
});

test('a FORMAT the layer cannot be answered in is a 400 naming it', async () => {
  expect(failure(await getTile('maps/sample', 0, 0, 0, 'image/gif'))).toEqual({ status: 400, type: TEXT, message: 'Invalid FORMAT: image/gif' });
  expect(failure(await getTile('maps/sample', 0, 0, 0, 'application/x-protobuf'))).toEqual({ status: 400, type: TEXT, message: 'Invalid FORMAT: application/x-protobuf' });
});

test('every route of wmts.ts was reached, and nothing failed unexpectedly', () => {
  expect(patternsOf(wmts).filter((p) => !app.reached.has(p))).toEqual([]);
  expect(app.failures).toEqual([]);
});
