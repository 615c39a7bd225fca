// The location services as `serve` wires them together, over one real server: geolocation asks the elevation
// service for `elevation=true` and the gazetteer for the region; the geocoder asks geolocation where
// `proximity=ip` is, and searches the labels of the mirrored vector tile sets (the sample city, indexed in the
// background once the server listens). Each service is tested alone in its own file; this one proves the seams.

import { km } from '../fixtures/geocoding-answers';
import { getFrom, serverConfig, startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';

/** GET a JSON answer from a chosen loopback address. */
async function getJsonFrom(url: string, localAddress = '127.0.0.1'): Promise<{ status: number; cacheControl?: string; body: Record<string, unknown> }> {
  const r = await getFrom(url, localAddress);
  return { status: r.status, cacheControl: r.headers['cache-control'], body: JSON.parse(r.text) as Record<string, unknown> };
}

// Two sites of the configured networks: one in the Alps (inside the sample terrain), two offices named after
// the two largest Springfields of the United States.
const ALPS = { cidr: ['127.0.0.6/32'], name: 'Alps', latitude: 46.8, longitude: 8.2, country_code: 'CH' };
const ILLINOIS = { cidr: ['127.0.0.7/32'], name: 'Illinois office', latitude: 39.8, longitude: -89.65, country_code: 'US' };
const MASSACHUSETTS = { cidr: ['127.0.0.8/32'], name: 'Massachusetts office', latitude: 42.1, longitude: -72.59, country_code: 'US' };

interface Feature {
  center: [number, number];
  place_type: string[];
  text: string;
  properties: { country_code?: string };
}

describe('location services wired together by serve', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ config: { ...serverConfig({}), geolocation: { networks: [ALPS, ILLINOIS, MASSACHUSETTS] } } });
  }, 30_000);
  afterAll(() => srv?.close());

  test('geolocation elevation=true is the elevation service answer at the located position', async () => {
    const geo = await getJsonFrom(`${srv.url}/geolocation/ip.json?elevation=true&key=demo`, '127.0.0.6');
    expect(geo.status).toBe(200);
    const elev = await getJsonFrom(`${srv.url}/elevation/8.2,46.8.json?key=demo`);
    expect(elev.status).toBe(200);
    const height = (elev.body as unknown as [number, number, number][])[0][2];
    expect(typeof height).toBe('number');
    expect(geo.body).toMatchObject({ city: 'Alps', elevation: height });
  });

  test('geolocation region comes from the gazetteer: the Alps site is in an ISO 3166-2 canton of Switzerland', async () => {
    const geo = await getJsonFrom(`${srv.url}/geolocation/ip.json?key=demo`, '127.0.0.6');
    // 8.2 E, 46.8 N is in the canton of Obwalden (CH-OW), on its border with Nidwalden and Lucerne: any of them.
    expect(['OW', 'NW', 'LU']).toContain(geo.body.region_code);
    expect(geo.body.region).not.toBe('');
  });

  test.each([
    ['127.0.0.7', ILLINOIS],
    ['127.0.0.8', MASSACHUSETTS],
  ])('geocoding proximity=ip from %s ranks the Springfield near the located site first', async (address, site) => {
    const r = await getJsonFrom(`${srv.url}/geocoding/Springfield.json?proximity=ip&types=place,locality,municipality&key=demo`, address);
    expect(r.status).toBe(200);
    expect(r.cacheControl).toBe('private, no-cache');
    const top = (r.body.features as Feature[])[0];
    expect(top.text).toBe('Springfield');
    expect(km(top.center, [site.longitude, site.latitude])).toBeLessThan(30);
  });

  test('the geocoder answers streets and addresses of the mirrored sample city, attributed to OpenStreetMap', async () => {
    // The label index is built in the background after the server listens: wait for the address, not for a time.
    const body = await waitFor('the sample city indexed', async () => {
      const r = await getJsonFrom(`${srv.url}/geocoding/${encodeURIComponent('Камкалы 12')}.json?key=demo`);
      const f = (r.body.features as Feature[] | undefined)?.[0];
      return f?.place_type.includes('address') ? r.body : undefined;
    });
    expect(String(body.attribution)).toMatch(/OpenStreetMap/);
    const address = (body.features as Feature[])[0];
    // The sample city is Astana, Kazakhstan.
    expect(km(address.center, [71.43, 51.13])).toBeLessThan(30);
  });
});
