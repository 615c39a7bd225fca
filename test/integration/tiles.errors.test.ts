import request from 'supertest';
import { startServer, type TestServer } from '../helpers/server';

// Every error status the spec names, for every tile route, with a short plain-text body (an OWS ExceptionReport on
// the WMTS routes, problem details on the OGC API routes: ogcapi.conformance.test.ts); never a 500.

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());

const get = (path: string) => request(srv.url).get(path);

describe('keys', () => {
  test.each([
    ['/maps/sample/0/0/0.png', 'Missing key'],
    ['/maps/sample/0/0/0.png?key=', 'Missing key'],
    ['/maps/sample/0/0/0.png?key=dem', 'Invalid key'],
    ['/tiles/sample-vector/0/0/0?key=DEMO', 'Invalid key'],
    ['/images/sample-image/image.json?KEY=demo', 'Missing key'],
  ])('%s → 403 %s', async (path, message) => {
    const r = await get(path);
    expect(r.status).toBe(403);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.text.trim()).toBe(message);
  });

  test('WMTS routes say it in an OWS ExceptionReport', async () => {
    const r = await get('/maps/sample/WMTSCapabilities.xml');
    expect([r.status, r.headers['content-type']]).toEqual([403, 'application/xml; charset=utf-8']);
    expect(r.text).toContain('<ows:Exception exceptionCode="NoApplicableCode">\n    <ows:ExceptionText>Missing key</ows:ExceptionText>');
  });

  test('a key restricted to an origin', async () => {
    const s = await startServer({ config: { keys: [{ key: 'site-key', allowedOrigins: ['*.example.org'] }] } });
    try {
      expect((await request(s.url).get('/tiles/sample-vector/0/0/0?key=site-key')).status).toBe(403);
      const ok = await request(s.url).get('/tiles/sample-vector/0/0/0?key=site-key').set('Origin', 'https://maps.example.org');
      expect(ok.status).toBe(200);
      expect(ok.headers['access-control-allow-origin']).toBe('https://maps.example.org');
      expect(ok.headers.vary).toMatch(/Origin/);
      expect((await request(s.url).get('/tiles/sample-vector/0/0/0?key=site-key').set('Referer', 'https://evil.test/')).status).toBe(403);
    } finally {
      await s.close();
    }
  });
});

describe('unknown ids → 404', () => {
  test.each([
    '/maps/nope/0/0/0.png',
    '/maps/nope/style.json',
    '/maps/nope/tiles.json',
    '/maps/nope/256/tiles.json',
    '/maps/nope/tiles',
    '/maps/nope/tileMatrixSet',
    '/maps/nope/',
    '/tiles/nope/0/0/0',
    '/tiles/nope/tiles.json',
    '/images/nope/0/0/0',
    '/images/nope/image.json',
    '/no/such/path',
  ])('%s', async (path) => {
    const r = await get(`${path}?key=demo`);
    expect(r.status).toBe(404);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
  });

  test('/maps/nope/WMTSCapabilities.xml: 404 in an OWS ExceptionReport', async () => {
    const r = await get('/maps/nope/WMTSCapabilities.xml?key=demo');
    expect([r.status, r.headers['content-type']]).toEqual([404, 'application/xml; charset=utf-8']);
    expect(r.text).toContain('<ows:ExceptionText>Unknown map: nope</ows:ExceptionText>');
  });
});

describe('bad tile addresses → 400', () => {
  test.each([
    '/maps/sample/a/0/0.png',
    '/maps/sample/1/0/1.5.png',
    '/maps/sample/-1/0/0.png',
    '/maps/sample/1/2/0.png',
    '/maps/sample/1/0/2.png',
    '/maps/sample/6/0/0.png',
    '/maps/sample/99/0/0.png',
    '/maps/sample/1e1/0/0.png',
    '/maps/sample/0/0/0.gif',
    '/maps/sample/0/0/0.PNGX',
    '/maps/sample/0/0/0@3x.png',
    '/maps/sample/0/0/0.basis',
    '/tiles/sample-vector/6/0/0',
    '/tiles/sample-vector/0/0/0.png',
    '/tiles/sample-vector/0/0/x',
    '/tiles/sample-terrain/10/0/0',
    '/tiles/sample-terrain/11/530/360',
    '/images/sample-image/0/1/0',
    '/images/sample-image/9/0/0',
    '/tiles/sample-vector/99999999999/0/0',
  ])('%s', async (path) => {
    const r = await get(`${path}?key=demo`);
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.text.length).toBeLessThan(200);
  });

  test('a bad percent-encoding is a 400, not a crash', async () => {
    expect((await get('/maps/%E0%A4%A/0/0/0.png?key=demo')).status).toBe(400);
  });
});

describe('transport limits', () => {
  test('URI above 8192 bytes → 414', async () => {
    const long = `/maps/sample/0/0/0.png?key=demo&pad=${'x'.repeat(8200)}`;
    expect((await get(long)).status).toBe(414);
    const justUnder = `/maps/sample/0/0/0.png?key=demo&pad=${'x'.repeat(8100)}`;
    expect((await get(justUnder)).status).toBe(200);
  });

  test.each(['post', 'put', 'delete', 'patch', 'options'] as const)('%s → 405 with Allow', async (method) => {
    const r = await request(srv.url)[method]('/maps/sample/0/0/0.png?key=demo');
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, HEAD');
  });

  test('unknown query parameters are ignored', async () => {
    const r = await get('/maps/sample/WMTSCapabilities.xml?key=demo&service=WMTS&request=GetCapabilities&version=1.0.0&f=json');
    expect(r.status).toBe(200);
    expect((await get('/maps/sample/0/0/0.png?key=demo&foo=bar&f=json')).status).toBe(200);
  });
});
