// Geocoding over a real server and the real gazetteer (built here when the index directory does not hold a current
// one: up to ~2 minutes once, then skipped as current), through direct HTTP and the cloud's own client library.

import { DEFAULT_INDEX_DIR } from '../../src/config/load';
import { buildGazetteerIndex } from '../../src/services/geocoding/gazetteer-index';
import { GEOCODING_BATCH_AND_ID_400S, GEOCODING_FORWARD_400S, GEOCODING_REVERSE_400S } from '../fixtures/bad-requests';
import { km, type Collection } from '../fixtures/geocoding-answers';
import { KEY, startServer, type TestServer } from '../helpers/server';
import type * as MaptilerClient from '@maptiler/client' with { 'resolution-mode': 'import' };
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-noindex-');

// The client ships ESM and CommonJS builds; this CommonJS test loads the latter, typed by the former.
const { config: clientConfig, geocoding } = require('@maptiler/client') as typeof MaptilerClient;

jest.setTimeout(240_000);

let srv: TestServer;
let get: (path: string, headers?: Record<string, string>) => Promise<{ status: number; body: string; json: () => unknown }>;

beforeAll(async () => {
  await buildGazetteerIndex(DEFAULT_INDEX_DIR);
  srv = await startServer();
  get = async (path, headers = {}) => {
    const r = await fetch(`${srv.url}${path}${path.includes('?') ? '&' : '?'}key=${KEY}`, { headers });
    const body = await r.text();
    return { status: r.status, body, json: () => JSON.parse(body) as unknown };
  };
});
afterAll(() => srv?.close());

const forward = async (q: string, params = '', headers: Record<string, string> = {}): Promise<Collection> => {
  const r = await get(`/geocoding/${encodeURIComponent(q)}.json${params ? `?${params}` : ''}`, headers);
  expect([q, r.status, r.status === 200 ? '' : r.body]).toEqual([q, 200, '']);
  return r.json() as Collection;
};

describe('forward', () => {
  test('the response shape of the spec: FeatureCollection, query tokens, attribution, every feature field', async () => {
    const fc = await forward('Paris');
    expect(fc.type).toBe('FeatureCollection');
    expect(fc.query).toEqual(['paris']);
    expect(fc.attribution).toContain('GeoNames');
    expect(fc.attribution).toContain('Natural Earth');
    expect(fc.features.length).toBe(5);
    const f = fc.features[0];
    expect(f.id).toMatch(/^place\.\d+$/);
    expect(f.type).toBe('Feature');
    expect(f.text).toBe('Paris');
    expect(f.place_type).toEqual(['place']);
    expect(f.place_type_name).toEqual(['city']);
    // Natural Earth's admin-1 for France are its départements: Paris is its own (the repeated name is said once).
    expect(f.place_name).toBe('Paris, France');
    expect(f.properties).toMatchObject({ country_code: 'fr', kind: 'place', ref: 'geonames:2988507' });
    expect(f.geometry.type).toBe('Point');
    expect(km(f.center, [2.3522, 48.8566])).toBeLessThan(5);
    expect(f.bbox).toHaveLength(4);
    expect(f.relevance).toBe(1);
    expect(f.context?.map((c) => [c.id.split('.')[0], c.text, c.country_code])).toEqual([['region', 'Paris', 'fr'], ['country', 'France', 'fr']]);
  });

  test.each([
    ['München', 'de', [11.575, 48.137]],
    ['Москва', 'ru', [37.617, 55.756]],
    ['Amsterdm', 'nl', [4.9, 52.37]],
    ['Frankfrut', 'de', [8.68, 50.11]],
    ['new york', 'us', [-74.0, 40.71]],
    ['Springfield, Missouri', 'us', [-93.29, 37.21]],
    ['北京', 'cn', [116.4, 39.9]],
  ] as const)('%s: native names, typos and context find the place (%s)', async (q, cc, at) => {
    const f = (await forward(q)).features[0];
    expect([f.properties.country_code, km(f.center, [at[0], at[1]]) < 30]).toEqual([cc, true]);
  });

  test('an alternative name that matched is given as matching_text', async () => {
    const f = (await forward('Москва')).features[0];
    expect([f.text, f.matching_text]).toEqual(['Moscow', 'Москва']);
  });

  test('autocomplete completes the last word unless autocomplete=false; fuzzyMatch=false turns typos off', async () => {
    expect((await forward('Amsterd')).features[0].text).toBe('Amsterdam');
    expect((await forward('Amsterd', 'autocomplete=false&fuzzyMatch=false')).features.map((f) => f.text)).not.toContain('Amsterdam');
    expect((await forward('Amsterdm', 'fuzzyMatch=false')).features.map((f) => f.text)).not.toContain('Amsterdam');
  });

  test('language: the first code names the feature, each gets text_xx; Accept-Language when absent; none when empty', async () => {
    const f = (await forward('France', 'types=country&language=de,fr')).features[0];
    expect([f.text, f.language, f.text_de, f.text_fr, f.language_fr]).toEqual(['Frankreich', 'de', 'Frankreich', 'France', 'fr']);
    expect(f.place_name_fr).toBe('France');
    const h = (await forward('France', 'types=country', { 'Accept-Language': 'it-IT,it;q=0.9,en;q=0.5' })).features[0];
    expect(h.text).toBe('Francia');
    const none = (await forward('France', 'types=country&language=', { 'Accept-Language': 'it' })).features[0];
    expect([none.text, none.language]).toEqual(['France', undefined]);
  });

  test('country, bbox and types filter; excludeTypes inverts types; limit caps', async () => {
    const us = await forward('Paris', 'country=us');
    expect(us.features.length).toBeGreaterThan(0);
    expect(us.features.every((f) => f.properties.country_code === 'us')).toBe(true);
    const texas = (await forward('Paris', 'bbox=-100,30,-95,35')).features;
    expect(texas.map((f) => f.place_name)).toEqual(['Paris, Texas, United States']);
    const countries = (await forward('Georgia', 'types=country')).features;
    expect(countries.map((f) => f.place_type[0])).toEqual(countries.map(() => 'country'));
    expect(countries[0].properties.country_code).toBe('ge');
    const notPlaces = (await forward('Georgia', 'types=place,country&excludeTypes=true')).features;
    expect(notPlaces[0].place_name).toBe('Georgia, United States');
    expect(notPlaces.some((f) => f.place_type[0] === 'place' || f.place_type[0] === 'country')).toBe(false);
    expect((await forward('Springfield', 'limit=1')).features).toHaveLength(1);
    expect((await forward('Springfield', 'limit=10')).features).toHaveLength(10);
  });

  test('ranking: importance first ("Paris" is the French capital), proximity moves the nearer namesake up', async () => {
    expect((await forward('Paris')).features[0].properties.country_code).toBe('fr');
    const nearMa = (await forward('Springfield', 'proximity=-72.6,42.1')).features[0];
    expect(nearMa.place_name).toBe('Springfield, Massachusetts, United States');
    const nearMo = (await forward('Springfield', 'proximity=-93.3,37.2')).features[0];
    expect(nearMo.place_name).toBe('Springfield, Missouri, United States');
    // Without a locate service wired, proximity=ip is accepted and changes nothing.
    expect((await forward('Paris', 'proximity=ip')).features[0].properties.country_code).toBe('fr');
  });

  test('worldview is accepted; an unknown value is a 400', async () => {
    expect((await forward('Paris', 'worldview=us')).features[0].properties.country_code).toBe('fr');
    expect((await get('/geocoding/Paris.json?worldview=zz')).status).toBe(400);
  });
});

describe('current place names', () => {
  // Known facts: Kazakhstan's capital is named Astana (from September 2022; Nur-Sultan from March 2019), at about
  // 51.17° N, 71.45° E. Odesa is Ukraine's port of a million inhabitants, Odessa its English name; Odessa, Texas
  // is a city of about 120,000 whose own name that is.
  const ASTANA: [number, number] = [71.449, 51.169];

  test('"Astana" finds the capital of Kazakhstan by its own name, before the region of the same name', async () => {
    const f = (await forward('Astana')).features[0];
    expect([f.place_type[0], f.text, f.matching_text, f.properties.country_code, f.place_type_name[0], f.relevance]).toEqual(['place', 'Astana', undefined, 'kz', 'city', 1]);
    expect(f.place_name).toBe('Astana, Kazakhstan');
    expect(km(f.center, ASTANA)).toBeLessThan(10);
  });

  test('"Nur-Sultan" still finds it, as an alternate name: shown as Astana, matched as Nur-Sultan', async () => {
    const astana = (await forward('Astana')).features[0];
    const f = (await forward('Nur-Sultan')).features[0];
    expect([f.id, f.text, f.matching_text, f.matching_place_name]).toEqual([astana.id, 'Astana', 'Nur-Sultan', 'Nur-Sultan, Astana, Kazakhstan']);
  });

  test('reverse in Astana answers Astana: the place, its region and Kazakhstan', async () => {
    const fc = (await get(`/geocoding/${ASTANA[0]},${ASTANA[1]}.json?types=place,region,country`)).json() as Collection;
    expect(fc.features.map((f) => [f.place_type[0], f.text])).toEqual([
      ['place', 'Astana'],
      ['region', 'Astana'],
      ['country', 'Kazakhstan'],
    ]);
    expect(fc.features[0].id).toBe((await forward('Astana')).features[0].id);
  });

  test('an exonym still finds the city it names before a smaller place whose own name it is: "Odessa" is Odesa, Ukraine', async () => {
    const [first, second] = (await forward('Odessa', 'types=place')).features;
    expect([first.text, first.matching_text, first.properties.country_code]).toEqual(['Odesa', 'Odessa', 'ua']);
    expect(km(first.center, [30.73, 46.48])).toBeLessThan(10);
    expect([second.text, second.place_name]).toEqual(['Odessa', 'Odessa, Texas, United States']);
  });

  test("an alternate name does not put a bigger place before the one whose own name it is (Amman's ancient name, Tunisia's in other languages)", async () => {
    const philadelphia = (await forward('Philadelphia')).features[0];
    expect([philadelphia.text, philadelphia.properties.country_code, philadelphia.matching_text]).toEqual(['Philadelphia', 'us', undefined]);
    const tunis = (await forward('Tunis')).features[0];
    expect([tunis.place_type[0], tunis.text, tunis.properties.country_code]).toEqual(['place', 'Tunis', 'tn']);
  });
});

describe('reverse', () => {
  test('one best feature per type at the point, most specific first', async () => {
    const r = await get('/geocoding/2.3488,48.85341.json');
    expect(r.status).toBe(200);
    const fc = r.json() as Collection;
    expect(fc.query).toEqual(['2.3488', '48.85341']);
    expect(fc.features.map((f) => [f.place_type[0], f.text])).toEqual([
      ['place', 'Paris'],
      ['region', 'Paris'],
      ['country', 'France'],
    ]);
  });

  test.each([
    [[13.405, 52.52], 'de'],
    [[-58.38, -34.6], 'ar'],
    [[151.21, -33.87], 'au'],
    [[139.69, 35.69], 'jp'],
    [[-99.13, 19.43], 'mx'],
    [[36.82, -1.29], 'ke'],
  ] as const)('%j is in %s', async ([lon, lat], cc) => {
    const fc = (await get(`/geocoding/${lon},${lat}.json?types=country`)).json() as Collection;
    expect(fc.features.map((f) => f.properties.country_code)).toEqual([cc]);
  });

  test('limit > 1 with one type: the nearest places within 1 km, nearest first', async () => {
    const at: [number, number] = [2.3488, 48.85341];
    const fc = (await get(`/geocoding/${at[0]},${at[1]}.json?types=place&limit=5`)).json() as Collection;
    expect(fc.features[0].text).toBe('Paris');
    const d = fc.features.map((f) => km(at, f.center));
    expect(d.every((x) => x <= 1.001)).toBe(true);
    expect([...d].sort((a, b) => a - b)).toEqual(d);
  });

  test('the open sea has no country and no place', async () => {
    const fc = (await get('/geocoding/-30,-40.json')).json() as Collection;
    expect(fc.features).toEqual([]);
  });

  test.each(GEOCODING_REVERSE_400S)('%s is a 400 naming the problem', async (path, message) => {
    const r = await get(path);
    expect([r.status, message.test(r.body)]).toEqual([400, true]);
  });
});

describe('by id and batch', () => {
  test('a country by id carries its polygons; a place its point; an unknown id answers no feature', async () => {
    const france = (await forward('France', 'types=country')).features[0];
    const r = (await get(`/geocoding/${france.id}.json`)).json() as Collection;
    expect(r.features).toHaveLength(1);
    expect(r.features[0].id).toBe(france.id);
    expect(r.features[0].geometry.type).toBe('MultiPolygon');
    expect((r.features[0].geometry.coordinates as unknown[]).length).toBeGreaterThan(1);
    const paris = (await forward('Paris')).features[0];
    const p = (await get(`/geocoding/${paris.id}.json`)).json() as Collection;
    expect(p.features[0].geometry).toEqual({ type: 'Point', coordinates: paris.center });
    expect(((await get('/geocoding/place.999999999.json')).json() as Collection).features).toEqual([]);
    // The id's type must be the feature's
    expect(((await get(`/geocoding/${paris.id.replace('place', 'country')}.json`)).json() as Collection).features).toEqual([]);
  });

  test('batch: forward, reverse and id items answered as an array in query order', async () => {
    const france = (await forward('France', 'types=country')).features[0];
    const r = await get(`/geocoding/Berlin;2.3488,48.85341;${france.id};M%C3%BCnchen.json?limit=1`);
    expect(r.status).toBe(200);
    const list = r.json() as Collection[];
    expect(list.map((c) => c.features[0]?.text)).toEqual(['Berlin', 'Paris', 'France', 'Munich']);
  });

  test.each(GEOCODING_BATCH_AND_ID_400S)('%s is a 400', async (path, message) => {
    const r = await get(path);
    expect([r.status, message.test(r.body)]).toEqual([400, true]);
  });
});

describe('bad input', () => {
  test.each(GEOCODING_FORWARD_400S)('%s is a 400 naming the parameter', async (path, message) => {
    const r = await get(path);
    expect([r.status, r.body]).toEqual([400, expect.stringMatching(message)]);
  });

  test('no key is a 403', async () => {
    const r = await fetch(`${srv.url}/geocoding/Paris.json`);
    expect(r.status).toBe(403);
  });
});

describe('without the index', () => {
  let empty: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    empty = await startServer({ config: { indexDir: dir } });
  });
  afterAll(async () => {
    await empty.close();
    removeTempDirs();
  });

  test.each(['/geocoding/Paris.json', '/geocoding/2.35,48.86.json', '/geocoding/country.1.json', '/geocoding/Paris;Rome.json'])('%s answers 503 saying how to build it', async (path) => {
    const r = await fetch(`${empty.url}${path}?key=${KEY}`);
    expect([r.status, await r.text()]).toEqual([503, expect.stringContaining('npm run indexes')]);
  });
});

describe('the cloud client (@maptiler/client) against this server', () => {
  beforeAll(() => {
    clientConfig.apiKey = KEY;
    clientConfig.fetch = (url: string | URL | Request, init?: RequestInit) => fetch(String(url).replace('https://api.maptiler.com', srv.url), init);
  });

  test('forward with options', async () => {
    const r = await geocoding.forward('Zürich', { language: ['de'], limit: 2, types: ['place'], country: ['ch'], proximity: [8.5, 47.4], fuzzyMatch: true, autocomplete: false });
    expect(r.features).toHaveLength(2);
    expect(r.features[0].text).toBe('Zürich');
    expect(r.features[0].properties.country_code).toBe('ch');
  });

  test('reverse', async () => {
    const r = await geocoding.reverse([13.405, 52.52], { types: ['country'] });
    expect(r.features.map((f) => f.text)).toEqual(['Germany']);
  });

  test('byId', async () => {
    const id = (await geocoding.forward('Italy', { types: ['country'], limit: 1 })).features[0].id;
    const r = await geocoding.byId(id);
    expect(r.features[0].text).toBe('Italy');
    expect(['Polygon', 'MultiPolygon']).toContain(r.features[0].geometry.type);
  });

  test('batch', async () => {
    const r = await geocoding.batch(['Tokyo', '151.21,-33.87', 'Lisboa']);
    expect(r.map((c) => c.features[0]?.properties.country_code)).toEqual(['jp', 'au', 'pt']);
  });
});
