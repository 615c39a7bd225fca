// src/http/routes/geocoding.ts in process: forward, reverse, by id and batch over the real gazetteer (built by
// `npm run indexes`) and the labels of the sample city, the answers of test/integration/geocoding.test.ts, every
// 400 naming its parameter, and 503 without the index or the service.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as geocoding from '../../../src/http/routes/geocoding';
import { StoreWriter } from '../../../src/store/mbtiles/writer';
import { GEOCODING_BATCH_AND_ID_400S, GEOCODING_FORWARD_400S, GEOCODING_REVERSE_400S } from '../../fixtures/bad-requests';
import { km, type Collection } from '../../fixtures/geocoding-answers';
import { failure, inProcess, json, patternsOf } from '../../helpers/in-process';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-no-gazetteer-');

// eslint-disable-next-line @typescript-eslint/no-require-imports
const vtpbf: { fromGeojsonVt(l: unknown, o: { version: number; extent: number }): Uint8Array } = require('vt-pbf');

const app = inProcess();
const noIndex = tempDir();
const bare = inProcess({ config: { indexDir: noIndex } });
const without = inProcess({ without: ['geocoding'] });
// A vector tile set of one named road in Astana (the sample city's labels take seconds to index; this, none).
const town = tempDir('tilemirror-labels-');
mkdirSync(join(town, 'tiles'));
const writer = new StoreWriter(join(town, 'tiles', 'town.mbtiles'), {
  kind: 'tiles',
  name: 'Town',
  attribution: '© OpenStreetMap contributors (ODbL)',
  pyramids: [{ name: 'main', tileSize: 512, scale: 1, format: 'pbf', minzoom: 12, maxzoom: 12, bounds: [71.3, 51.0, 71.6, 51.3] }],
});
const road = vtpbf.fromGeojsonVt({ transportation_name: { features: [{ type: 2, geometry: [[[100, 100], [2000, 2000]]], tags: { name: 'Testova Street', class: 'minor' } }] } }, { version: 2, extent: 4096 });
writer.putTile('main', 12, 2860, 1367, gzipSync(Buffer.from(road)));
writer.close();
const labelled = inProcess({ dataDir: town, labels: true });
afterAll(async () => {
  for (const a of [app, bare, without, labelled]) await a.close();
  removeTempDirs();
});

const TEXT = 'text/plain; charset=utf-8';

async function collection(path: string, opts?: Parameters<typeof app.get>[1]): Promise<Collection> {
  const r = await app.get(path, opts);
  expect([path, r.status, r.type]).toEqual([path, 200, 'application/json; charset=utf-8']);
  return json<Collection>(r);
}

test('the route table gives geocoding.ts its four patterns, in the order they are told apart', () => {
  expect(patternsOf(geocoding)).toEqual([
    '/geocoding/:longitude(-?[0-9.]+),:latitude(-?[0-9.]+).json',
    '/geocoding/:queries([^/]*;[^/]*).json',
    '/geocoding/:id([a-z_]+\\.[0-9]+).json',
    '/geocoding/:query.json',
  ]);
});

describe('forward', () => {
  test("the spec's response shape: a FeatureCollection, query tokens, attribution; Paris is the French capital", async () => {
    const r = await app.get('/geocoding/Paris.json');
    expect(r).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', cache: 'document' });
    const fc = json<Collection>(r);
    expect(fc).toMatchObject({ type: 'FeatureCollection', query: ['paris'] });
    expect(fc.attribution).toContain('GeoNames');
    expect(fc.attribution).toContain('Natural Earth');
    expect(fc.features).toHaveLength(5);
    const f = fc.features[0];
    expect(f).toMatchObject({ text: 'Paris', place_type: ['place'], place_name: 'Paris, France', properties: { country_code: 'fr', kind: 'place', ref: 'geonames:2988507' } });
    expect(f.id).toMatch(/^place\.\d+$/);
    expect(km(f.center, [2.3522, 48.8566])).toBeLessThan(5);
  });

  test('language: the first code names the feature; Accept-Language when absent; none when empty', async () => {
    const f = (await collection('/geocoding/France.json?types=country&language=de,fr')).features[0];
    expect([f.text, f.language, f.text_de, f.text_fr]).toEqual(['Frankreich', 'de', 'Frankreich', 'France']);
    const h = (await collection('/geocoding/France.json?types=country', { headers: { 'Accept-Language': 'it-IT,it;q=0.9,en;q=0.5' } })).features[0];
    expect(h.text).toBe('Francia');
    const none = (await collection('/geocoding/France.json?types=country&language=', { headers: { 'Accept-Language': 'it' } })).features[0];
    expect([none.text, none.language]).toEqual(['France', undefined]);
  });

  test('bbox and proximity narrow and rank; an answer near the requester (proximity=ip) is private to it', async () => {
    expect((await collection('/geocoding/Paris.json?bbox=-100,30,-95,35')).features.map((f) => f.place_name)).toEqual(['Paris, Texas, United States']);
    expect((await collection('/geocoding/Springfield.json?proximity=-72.6,42.1')).features[0].place_name).toBe('Springfield, Massachusetts, United States');
    expect((await app.get('/geocoding/Paris.json?proximity=-72.6,42.1')).headers).toBeUndefined();
    const ip = await app.get('/geocoding/Paris.json?proximity=ip');
    expect(ip.headers).toEqual({ 'Cache-Control': 'private, no-cache' });
    expect(json<Collection>(ip).features[0].properties.country_code).toBe('fr');
  });

  test('a label id of the mirrored tiles is answered by id', async () => {
    const found = json<Collection>(await labelled.get('/geocoding/Testova%20Street.json?types=road'));
    expect(found.features.map((f) => f.text)).toEqual(['Testova Street']);
    const { id } = found.features[0];
    expect(id).toMatch(/^town\.\d+$/);
    const byId = await labelled.get(`/geocoding/${id}.json`);
    expect(byId.status).toBe(200);
    expect(json<Collection>(byId).features.map((f) => [f.id, f.text])).toEqual([[id, 'Testova Street']]);
  });
});

describe('reverse', () => {
  test('one best feature per type at the point, most specific first', async () => {
    const fc = await collection('/geocoding/2.3488,48.85341.json');
    expect(fc.query).toEqual(['2.3488', '48.85341']);
    expect(fc.features.map((f) => [f.place_type[0], f.text])).toEqual([
      ['place', 'Paris'],
      ['region', 'Paris'],
      ['country', 'France'],
    ]);
  });

  test('types=country; the open sea has nothing', async () => {
    expect((await collection('/geocoding/13.405,52.52.json?types=country')).features.map((f) => f.properties.country_code)).toEqual(['de']);
    expect((await collection('/geocoding/-30,-40.json')).features).toEqual([]);
  });
});

describe('by id and batch', () => {
  test('a country by id carries its polygons; an unknown id answers no feature', async () => {
    const france = (await collection('/geocoding/France.json?types=country')).features[0];
    const r = await collection(`/geocoding/${france.id}.json`);
    expect(r.features.map((f) => [f.id, f.geometry.type])).toEqual([[france.id, 'MultiPolygon']]);
    expect((await collection('/geocoding/place.999999999.json')).features).toEqual([]);
  });

  test('batch: forward, reverse and id items answered as an array in query order', async () => {
    const france = (await collection('/geocoding/France.json?types=country')).features[0];
    const r = await app.get(`/geocoding/Berlin;2.3488,48.85341;${france.id};M%C3%BCnchen.json?limit=1`);
    expect(r).toMatchObject({ status: 200, type: 'application/json; charset=utf-8' });
    expect(json<Collection[]>(r).map((c) => c.features[0]?.text)).toEqual(['Berlin', 'Paris', 'France', 'Munich']);
  });
});

test.each([
  ...GEOCODING_REVERSE_400S,
  ...GEOCODING_BATCH_AND_ID_400S,
  ...GEOCODING_FORWARD_400S,
  ['/geocoding/Paris.json?worldview=zz', /worldview/],
])('%s → 400 %s', async (path, message) => {
  expect(failure(await app.get(path))).toEqual({ status: 400, type: TEXT, message: expect.stringMatching(message) });
});

test.each(['/geocoding/Paris.json', '/geocoding/2.35,48.86.json', '/geocoding/country.1.json', '/geocoding/Paris;Rome.json'])(
  'without the index %s answers 503 saying how to build it',
  async (path) => {
    expect(failure(await bare.get(path))).toEqual({ status: 503, type: TEXT, message: expect.stringContaining('npm run indexes') });
  },
);

test('without the service every geocoding path answers 503', async () => {
  for (const path of ['/geocoding/Paris.json', '/geocoding/2.35,48.86.json', '/geocoding/country.1.json', '/geocoding/Paris;Rome.json']) {
    expect([path, failure(await without.get(path))]).toEqual([path, { status: 503, type: TEXT, message: 'Geocoding is not available on this server' }]);
  }
});

test('every route of geocoding.ts was reached, and nothing failed unexpectedly', () => {
  expect([...app.reached]).toEqual(expect.arrayContaining(patternsOf(geocoding)));
  expect([app, bare, without, labelled].flatMap((a) => a.failures)).toEqual([]);
});
