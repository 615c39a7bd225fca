// src/http/routes/wmts.ts in process: the service-wide capabilities (RESTful and KVP, with the configured service
// metadata, Sections and AcceptVersions), KVP GetTile and RESTful tiles answering the stored tiles under the media
// types the capabilities advertise, and every exception case answered as the OWS ExceptionReport the standards give.

import Database from 'better-sqlite3';
import { XMLParser } from 'fast-xml-parser';
import * as wmts from '../../../src/http/routes/wmts';
import {
  CAPABILITIES_EXCEPTIONS,
  kvpTile,
  KVP_EXCEPTIONS,
  MAP_SET,
  REST_EXCEPTIONS,
  restTile,
  WEATHER_LAYER,
  WEATHER_SET,
  WEATHER_TIMES,
  weatherKvpTile,
  weatherRestTile,
  type ExceptionCase,
} from '../../fixtures/wmts-exceptions';
import { SAMPLE_WMTS_LAYERS } from '../../fixtures/sample-listings';
import { BASE_URL, inProcess, patternsOf, plainBody, storeFile, text } from '../../helpers/in-process';
import { parseExceptionReport } from '../../helpers/ows-exception';
import { readStoredTile } from '../../helpers/stored-tiles';
import type { Reply } from '../../../src/http/reply';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-wmts-no-weather-');

const app = inProcess();
// An empty data directory: no weather catalog.
const tempDirFor = tempDir();
afterAll(async () => {
  await app.close();
  removeTempDirs();
});

const CAPS_TYPE = 'text/xml; charset=utf-8';
const REPORT_TYPE = 'application/xml; charset=utf-8';
const VECTOR_TYPE = 'application/vnd.mapbox-vector-tile';
const xml = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true });
const OGC_SCHEMA_HOSTS = /^http:\/\/(www\.opengis\.net|schemas\.opengis\.net|www\.w3\.org)\//;

interface Layer {
  Identifier: string;
  TileMatrixSetLink: { TileMatrixSet: string };
  ResourceURL: { '@_template': string; '@_format': string };
}
const capsOf = (r: Reply) => xml.parse(text(r)).Capabilities;
const layersOf = (r: Reply): Layer[] => [capsOf(r).Contents.Layer ?? []].flat();
let layers: Record<string, Layer>;

beforeAll(async () => {
  layers = Object.fromEntries(layersOf(await app.get('/wmts/1.0.0/WMTSCapabilities.xml')).map((l) => [l.Identifier, l]));
});

/** The RESTful URL of a tile of a layer, from its ResourceURL template (base URL and key taken off). */
const fromTemplate = (layer: string, z: number, row: number, col: number): string =>
  layers[layer].ResourceURL['@_template']
    .replace(BASE_URL, '')
    .replace(/\?key=.*$/, '')
    .replace('{Style}', 'default')
    .replace('{TileMatrixSet}', layers[layer].TileMatrixSetLink.TileMatrixSet)
    .replace('{TileMatrix}', String(z))
    .replace('{TileRow}', String(row))
    .replace('{TileCol}', String(col));

/** Status, type and the one exception of an error answer. */
function report(r: Reply): { status: number; type: string | undefined; code: string; locator?: string } {
  const parsed = parseExceptionReport(text(r));
  expect(parsed).toMatchObject({ namespace: 'http://www.opengis.net/ows/1.1', version: '1.0.0', lang: 'en' });
  expect(parsed.exceptions).toHaveLength(1);
  const [{ code, locator }] = parsed.exceptions;
  return locator === undefined ? { status: r.status, type: r.type, code } : { status: r.status, type: r.type, code, locator };
}
const expected = (c: ExceptionCase) => ({ status: c.status, type: REPORT_TYPE, code: c.code, ...(c.locator !== undefined && { locator: c.locator }) });

test('the route table gives wmts.ts its five patterns, the weather tiles before the greedy layer', () => {
  expect(patternsOf(wmts)).toEqual([
    '/weather/WMTSCapabilities.xml',
    '/wmts',
    '/wmts/1.0.0/WMTSCapabilities.xml',
    '/wmts/1.0.0/weather/:name([^/]*)/:style([^/]*)/:time([^/]*)/:tileMatrixSet([^/]*)/:tileMatrix([^/]*)/:tileRow([^/]*)/:tileCol([^/.]*).:format',
    '/wmts/1.0.0/:layer(.+?)/:style([^/]*)/:tileMatrixSet([^/]*)/:tileMatrix([^/]*)/:tileRow([^/]*)/:tileCol([^/.]*).:format',
  ]);
});

describe('capabilities', () => {
  test.each([
    '/wmts/1.0.0/WMTSCapabilities.xml',
    '/wmts/1.0.0/WMTSCapabilities.xml?service=WMTS&request=GetCapabilities&version=1.0.0',
    '/wmts?SERVICE=WMTS&REQUEST=GetCapabilities',
    '/wmts?service=WMTS&request=GetCapabilities&AcceptVersions=1.0.0&f=json',
  ])('%s: every layer, every URL on this server with the key', async (path) => {
    const r = await app.get(path);
    expect(r).toMatchObject({ status: 200, type: CAPS_TYPE, cache: 'document' });
    expect(layersOf(r).map((l) => l.Identifier).sort()).toEqual(SAMPLE_WMTS_LAYERS);
    const urls = [...text(r).matchAll(/https?:\/\/[^"'<>\s]+/g)].map((m) => m[0].replace(/&amp;/g, '&')).filter((u) => !OGC_SCHEMA_HOSTS.test(u));
    expect(urls.length).toBeGreaterThan(0);
    for (const u of urls) expect(u.startsWith(BASE_URL) && u.includes('key=demo')).toBe(true);
  });

  test('service metadata by default: tilemirror, its provider site this server', async () => {
    const caps = capsOf(await app.get('/wmts/1.0.0/WMTSCapabilities.xml'));
    expect(caps.ServiceIdentification).toEqual({
      Title: 'tilemirror',
      Abstract: 'Maps, tile sets and images mirrored from a cloud map API, served from local stores.',
      Keywords: { Keyword: ['WMTS', 'map tiles', 'offline', 'tilemirror'] },
      ServiceType: 'OGC WMTS',
      ServiceTypeVersion: '1.0.0',
      Fees: 'none',
      AccessConstraints: 'none',
    });
    expect(caps.ServiceProvider).toEqual({ ProviderName: 'tilemirror', ProviderSite: { '@_href': `${BASE_URL}/?key=demo` }, ServiceContact: '' });
    expect(caps.ServiceMetadataURL['@_href']).toBe(`${BASE_URL}/wmts/1.0.0/WMTSCapabilities.xml?key=demo`);
  });

  test('service metadata from the configuration', async () => {
    const configured = inProcess({
      config: {
        service: {
          title: 'Alpine tiles',
          keywords: ['Alps', 'tiles'],
          fees: '10 CHF a month',
          accessConstraints: 'Customers only',
          provider: { name: 'Example AG', site: 'https://example.ch/', contact: { name: 'Ada', email: 'ada@example.ch', address: { city: 'Bern' } } },
        },
      },
    });
    try {
      const caps = capsOf(await configured.get('/wmts?SERVICE=WMTS&REQUEST=GetCapabilities'));
      expect(caps.ServiceIdentification).toMatchObject({ Title: 'Alpine tiles', Keywords: { Keyword: ['Alps', 'tiles'] }, Fees: '10 CHF a month', AccessConstraints: 'Customers only' });
      expect(caps.ServiceProvider).toEqual({
        ProviderName: 'Example AG',
        ProviderSite: { '@_href': 'https://example.ch/' },
        ServiceContact: { IndividualName: 'Ada', ContactInfo: { Address: { City: 'Bern', ElectronicMailAddress: 'ada@example.ch' } } },
      });
    } finally {
      await configured.close();
    }
  });

  test('Sections: only those sections', async () => {
    const caps = capsOf(await app.get('/wmts?SERVICE=WMTS&REQUEST=GetCapabilities&Sections=ServiceProvider,Contents'));
    expect(Object.keys(caps).filter((k) => !k.startsWith('@_'))).toEqual(['ServiceProvider', 'Contents']);
    const rest = capsOf(await app.get('/wmts/1.0.0/WMTSCapabilities.xml?Sections=ServiceIdentification'));
    expect(Object.keys(rest).filter((k) => !k.startsWith('@_'))).toEqual(['ServiceIdentification']);
  });

  test('the RESTful resource is XML: an Accept that takes no XML is 406, one that takes any is answered', async () => {
    const refused = await app.get('/wmts/1.0.0/WMTSCapabilities.xml', { headers: { Accept: 'example/unknown' } });
    expect(report(refused)).toEqual({ status: 406, type: REPORT_TYPE, code: 'NoApplicableCode' });
    expect(refused.headers?.Vary).toBe('Accept');
    expect((await app.get('/wmts/1.0.0/WMTSCapabilities.xml')).headers?.Vary).toBe('Accept');
    for (const accept of ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/xml', 'text/*', '*/*']) {
      expect((await app.get('/wmts/1.0.0/WMTSCapabilities.xml', { headers: { Accept: accept } })).status).toBe(200);
    }
    expect((await app.get('/wmts/1.0.0/WMTSCapabilities.xml', { headers: { Accept: 'application/xml;q=0, text/xml;q=0' } })).status).toBe(406);
    // A KVP request to that URL is no request for the resource: Accept does not apply.
    expect((await app.get('/wmts/1.0.0/WMTSCapabilities.xml?SERVICE=WMTS&REQUEST=GetCapabilities', { headers: { Accept: 'example/unknown' } })).status).toBe(200);
  });
});

describe('tiles: KVP GetTile and the RESTful template answer the stored tile', () => {
  test('of a map, each size', async () => {
    const stored = readStoredTile(storeFile('maps', 'sample'), { z: 2, x: 3, y: 1 });
    for (const path of [kvpTile({ TILEMATRIX: '2', TILEROW: '1', TILECOL: '3' }), fromTemplate('maps/sample', 2, 1, 3)]) {
      const r = await app.get(path);
      expect(r).toMatchObject({ status: 200, type: 'image/png', cache: 'tile' });
      expect(r.body?.equals(stored)).toBe(true);
    }
    const small = readStoredTile(storeFile('maps', 'sample'), { z: 2, x: 3, y: 1 }, '256');
    const set256 = layers['maps/sample/256'].TileMatrixSetLink.TileMatrixSet;
    expect((await app.get(kvpTile({ LAYER: 'maps/sample/256', TILEMATRIXSET: set256, TILEMATRIX: '2', TILEROW: '1', TILECOL: '3' }))).body?.equals(small)).toBe(true);
    expect((await app.get(fromTemplate('maps/sample/256', 2, 1, 3))).body?.equals(small)).toBe(true);
  });

  test('a vector tile under the advertised media type, gzip as stored', async () => {
    expect(layers['tiles/sample-vector'].ResourceURL['@_format']).toBe(VECTOR_TYPE);
    const stored = readStoredTile(storeFile('tiles', 'sample-vector'), { z: 0, x: 0, y: 0 });
    const set = layers['tiles/sample-vector'].TileMatrixSetLink.TileMatrixSet;
    for (const path of [kvpTile({ LAYER: 'tiles/sample-vector', TILEMATRIXSET: set, FORMAT: VECTOR_TYPE, TILEMATRIX: '0', TILEROW: '0', TILECOL: '0' }), fromTemplate('tiles/sample-vector', 0, 0, 0)]) {
      const r = await app.get(path, { headers: { 'Accept-Encoding': 'gzip' } });
      expect(r).toMatchObject({ status: 200, type: VECTOR_TYPE, gzipped: true, cache: 'tile' });
      expect(r.body?.equals(stored)).toBe(true);
      expect(plainBody(await app.get(path))?.length).toBeGreaterThan(0);
    }
    // The cloud API's own route keeps the cloud's media type.
    expect((await app.get('/tiles/sample-vector/0/0/0')).type).toBe('application/x-protobuf');
  });

  test('an image, and a terrain tile in another raster format when asked', async () => {
    const image = readStoredTile(storeFile('images', 'sample-image'), { z: 3, x: 0, y: 3 });
    expect((await app.get(fromTemplate('images/sample-image', 3, 3, 0))).body?.equals(image)).toBe(true);
    const set = layers['tiles/sample-terrain'].TileMatrixSetLink.TileMatrixSet;
    const kvp = await app.get(kvpTile({ LAYER: 'tiles/sample-terrain', TILEMATRIXSET: set, FORMAT: 'image/jpeg', TILEMATRIX: '8', TILEROW: '90', TILECOL: '133' }));
    expect(kvp).toMatchObject({ status: 200, type: 'image/jpeg', cache: 'tile' });
    const rest = await app.get(fromTemplate('tiles/sample-terrain', 8, 90, 133).replace(/\.png$/, '.jpg'));
    expect(rest).toMatchObject({ status: 200, type: 'image/jpeg' });
    expect(rest.body?.equals(kvp.body!)).toBe(true);
  });

  test('a tile absent inside the limits: an empty tile of the requested format (WMTS has no empty answer), where the cloud route answers 204', async () => {
    const absent = absentTile(storeFile('tiles', 'sample-vector'), 3);
    for (const path of [kvpTile({ LAYER: 'tiles/sample-vector', FORMAT: VECTOR_TYPE, TILEMATRIX: '3', TILEROW: String(absent.y), TILECOL: String(absent.x) }), fromTemplate('tiles/sample-vector', 3, absent.y, absent.x)]) {
      const r = await app.get(path);
      // A vector tile without layers is zero bytes.
      expect(r).toMatchObject({ status: 200, type: VECTOR_TYPE, cache: 'tile' });
      expect(r.body?.length).toBe(0);
    }
    expect(await app.get(`/tiles/sample-vector/3/${absent.x}/${absent.y}`)).toMatchObject({ status: 204 });
  });

  test('GetTile sent to the RESTful capabilities URL', async () => {
    const r = await app.get(kvpTile({ TILEMATRIX: '2', TILEROW: '1', TILECOL: '3' }, '/wmts/1.0.0/WMTSCapabilities.xml').replace('SERVICE=WMTS&', ''));
    expect(r.body?.equals(readStoredTile(storeFile('maps', 'sample'), { z: 2, x: 3, y: 1 }))).toBe(true);
  });
});

describe('the weather variable: a layer with a Time dimension, one keyframe tile set per time', () => {
  interface Dimension {
    Title: string;
    Identifier: string;
    UOM: string;
    Default: string;
    Value: string[];
  }
  const dimensionOf = (r: Reply, layer = WEATHER_LAYER): Dimension => (layersOf(r).find((l) => l.Identifier === layer) as unknown as { Dimension: Dimension }).Dimension;
  const keyframeTile = (i: 0 | 1, t = { z: 1, x: 1, y: 0 }): Buffer => readStoredTile(storeFile('tiles', ['sample-temperature-0000', 'sample-temperature-0600'][i]), t);

  test('the capabilities: Time in ISO 8601 (UTC, Z), every keyframe a Value, the latest the Default, a {Time} segment after {Style}', async () => {
    const r = await app.get('/wmts/1.0.0/WMTSCapabilities.xml');
    expect(dimensionOf(r)).toEqual({ Title: 'Time', Identifier: 'Time', UOM: 'ISO8601', Default: WEATHER_TIMES[1], Value: [...WEATHER_TIMES] });
    expect(layers[WEATHER_LAYER].TileMatrixSetLink.TileMatrixSet).toBe(WEATHER_SET);
    expect(layers[WEATHER_LAYER].ResourceURL).toEqual({
      '@_format': 'image/png',
      '@_resourceType': 'tile',
      '@_template': `${BASE_URL}/wmts/1.0.0/weather/temperature-2m.sample/{Style}/{Time}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.png?key=demo`,
    });
    // The keyframe tile sets stay layers of their own, without dimensions.
    for (const id of ['tiles/sample-temperature-0000', 'tiles/sample-temperature-0600']) expect(layersOf(r).find((l) => l.Identifier === id)).not.toHaveProperty('Dimension');
  });

  test('/weather/WMTSCapabilities.xml: the weather layer alone, and its tile matrix set', async () => {
    const r = await app.get('/weather/WMTSCapabilities.xml');
    expect(r).toMatchObject({ status: 200, type: CAPS_TYPE });
    expect(layersOf(r).map((l) => l.Identifier)).toEqual([WEATHER_LAYER]);
    expect([capsOf(r).Contents.TileMatrixSet].flat().map((t: { Identifier: string }) => t.Identifier)).toEqual([WEATHER_SET]);
    expect(capsOf(r).ServiceMetadataURL['@_href']).toBe(`${BASE_URL}/weather/WMTSCapabilities.xml?key=demo`);
    expect(dimensionOf(await app.get('/weather/WMTSCapabilities.xml?service=WMTS&request=GetCapabilities&version=1.0.0')).Default).toBe(WEATHER_TIMES[1]);
  });

  test('a GetCapabilities naming a Time makes it the Default (for clients that only request the Default); default or none leaves it', async () => {
    for (const path of ['/wmts/1.0.0/WMTSCapabilities.xml?TIME=', '/weather/WMTSCapabilities.xml?time=', '/wmts?SERVICE=WMTS&REQUEST=GetCapabilities&Time=']) {
      expect(dimensionOf(await app.get(`${path}${encodeURIComponent(WEATHER_TIMES[0])}`))).toMatchObject({ Default: WEATHER_TIMES[0], Value: [...WEATHER_TIMES] });
      expect(dimensionOf(await app.get(`${path}default`)).Default).toBe(WEATHER_TIMES[1]);
    }
    // Per-resource capabilities have no layer with a Time: the parameter names nothing there.
    expect((await app.get('/maps/sample/WMTSCapabilities.xml?TIME=BogusForTest')).status).toBe(200);
  });

  test('KVP GetTile: each Time answers its keyframe tile set\'s stored tile, same bytes, cached as a tile', async () => {
    for (const i of [0, 1] as const) {
      for (const name of ['TIME', 'time', 'Time']) {
        const r = await app.get(weatherKvpTile({ [name]: WEATHER_TIMES[i] }));
        expect(r).toMatchObject({ status: 200, type: 'image/png', cache: 'tile' });
        expect(r.body?.equals(keyframeTile(i))).toBe(true);
      }
    }
    expect(keyframeTile(0).equals(keyframeTile(1))).toBe(false);
  });

  test('no Time, or default: the latest keyframe, revalidated (a newer catalog changes it)', async () => {
    for (const path of [weatherKvpTile(), weatherKvpTile({ TIME: 'default' }), weatherKvpTile({ TIME: '' })]) {
      const r = await app.get(path);
      expect(r).toMatchObject({ status: 200, type: 'image/png', cache: 'document' });
      expect(r.body?.equals(keyframeTile(1))).toBe(true);
    }
  });

  test('the RESTful template: the Time segment (percent-encoded or not), default', async () => {
    for (const i of [0, 1] as const) {
      for (const path of [weatherRestTile({ time: WEATHER_TIMES[i] }), weatherRestTile({ time: WEATHER_TIMES[i] }).replace(/%3A/g, ':')]) {
        const r = await app.get(path);
        expect(r).toMatchObject({ status: 200, type: 'image/png', cache: 'tile' });
        expect(r.body?.equals(keyframeTile(i))).toBe(true);
      }
    }
    const latest = await app.get(weatherRestTile({ time: 'default' }));
    expect(latest).toMatchObject({ status: 200, cache: 'document' });
    expect(latest.body?.equals(keyframeTile(1))).toBe(true);
    // Without the Time segment (the generic route): the Default.
    expect((await app.get(`/wmts/1.0.0/${WEATHER_LAYER}/default/${WEATHER_SET}/1/0/1.png`)).body?.equals(keyframeTile(1))).toBe(true);
  });

  test('another raster format of a keyframe when asked', async () => {
    const kvp = await app.get(weatherKvpTile({ TIME: WEATHER_TIMES[0], FORMAT: 'image/webp' }));
    expect(kvp).toMatchObject({ status: 200, type: 'image/webp' });
    const rest = await app.get(weatherRestTile({ time: WEATHER_TIMES[0], ext: 'webp' }));
    expect(rest.body?.equals(kvp.body!)).toBe(true);
  });

  test('a data directory without a weather catalog: no weather layer, /weather/WMTSCapabilities.xml 404', async () => {
    const bare = inProcess({ dataDir: tempDirFor });
    try {
      expect(layersOf(await bare.get('/wmts/1.0.0/WMTSCapabilities.xml')).some((l) => l.Identifier.startsWith('weather/'))).toBe(false);
      expect(report(await bare.get('/weather/WMTSCapabilities.xml'))).toEqual({ status: 404, type: REPORT_TYPE, code: 'NoApplicableCode' });
      expect(report(await bare.get(weatherKvpTile()))).toEqual({ status: 400, type: REPORT_TYPE, code: 'InvalidParameterValue', locator: 'Layer' });
    } finally {
      await bare.close();
    }
  });
});

describe('every exception is the ExceptionReport the standards give', () => {
  test.each(KVP_EXCEPTIONS.map((c) => [c.target, c] as const))('KVP %s', async (_target, c) => {
    expect(report(await app.get(c.target))).toEqual(expected(c));
  });

  test.each(REST_EXCEPTIONS.map((c) => [c.target, c] as const))('RESTful %s', async (_target, c) => {
    expect(report(await app.get(c.target))).toEqual(expected(c));
  });

  test.each(CAPABILITIES_EXCEPTIONS.filter((c) => c.target.startsWith('/wmts')).map((c) => [c.target, c] as const))('capabilities %s', async (_target, c) => {
    expect(report(await app.get(c.target))).toEqual(expected(c));
  });

  test('a refused key is an ExceptionReport too', async () => {
    expect(report(await app.get('/wmts?SERVICE=WMTS&REQUEST=GetCapabilities', { key: null }))).toEqual({ status: 403, type: REPORT_TYPE, code: 'NoApplicableCode' });
    expect(report(await app.get(restTile(), { key: 'nope' }))).toEqual({ status: 403, type: REPORT_TYPE, code: 'NoApplicableCode' });
  });

  test('the text says what was wrong', async () => {
    expect(parseExceptionReport(text(await app.get(kvpTile({ TILEROW: '8' })))).exceptions[0].text).toBe('TileRow 8 is outside 0 to 7 in tile matrix 3 of layer maps/sample');
    expect(parseExceptionReport(text(await app.get(kvpTile({ LAYER: 'maps/nope' })))).exceptions[0].text).toBe('Unknown layer "maps/nope"');
    expect(parseExceptionReport(text(await app.get(restTile({ set: 'x' })))).exceptions[0].text).toBe(`Unknown tile matrix set "x" of layer maps/sample: expected ${MAP_SET}`);
  });
});

test('every route of wmts.ts was reached, and nothing failed unexpectedly', () => {
  expect(patternsOf(wmts).filter((p) => !app.reached.has(p))).toEqual([]);
  expect(app.failures).toEqual([]);
});

/** A tile of zoom `z` inside the world that the store does not hold (read with SQL). */
function absentTile(file: string, z: number): { x: number; y: number } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const held = new Set((db.prepare('SELECT tile_column AS x, tile_row AS r FROM tiles WHERE zoom_level = ?').all(z) as { x: number; r: number }[]).map((t) => `${t.x}/${2 ** z - 1 - t.r}`));
    for (let y = 0; y < 2 ** z; y++) for (let x = 0; x < 2 ** z; x++) if (!held.has(`${x}/${y}`)) return { x, y };
    throw new Error(`${file} holds every tile of zoom ${z}`);
  } finally {
    db.close();
  }
}
