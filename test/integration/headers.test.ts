import pino from 'pino';
import request from 'supertest';
import { parseConfig } from '../../src/config/load';
import { startServer as start } from '../../src/http/server';
import { startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';

// Every response: the right Content-Type, a Cache-Control, an ETag with 304 on a match, compression of
// documents when accepted, CORS.

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());

const PATHS: [string, RegExp][] = [
  ['/maps/sample/0/0/0.png', /^image\/png$/],
  ['/maps/sample/tiles.json', /^application\/json/],
  ['/maps/sample/style.json', /^application\/json/],
  ['/maps/sample/WMTSCapabilities.xml', /^text\/xml/],
  ['/maps/sample/', /^text\/html/],
  ['/tiles/sample-vector/0/0/0', /^application\/x-protobuf$/],
  ['/images/sample-image/image.json', /^application\/json/],
  ['/ogc/conformance', /^application\/json/],
  ['/', /^text\/html/],
];

test.each(PATHS)('%s: type, cache, etag, 304', async (path, type) => {
  const r = await request(srv.url).get(`${path}?key=demo`);
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toMatch(type);
  expect(r.headers['cache-control']).toMatch(/max-age=\d+/);
  expect(r.headers.etag).toMatch(/^"[^"]+"$/);
  expect(r.headers['access-control-allow-origin']).toBe('*');
  const again = await request(srv.url).get(`${path}?key=demo`).set('If-None-Match', r.headers.etag);
  expect(again.status).toBe(304);
  expect(again.text ?? '').toBe('');
  const other = await request(srv.url).get(`${path}?key=demo`).set('If-None-Match', '"something-else"');
  expect(other.status).toBe(200);
});

test('errors are plain text, not cached, with an ETag', async () => {
  const r = await request(srv.url).get('/maps/nope/0/0/0.png?key=demo');
  expect(r.headers['cache-control']).toBe('no-cache');
  expect(r.headers.etag).toBeDefined();
  expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
});

test('JSON and XML are gzip-compressed when accepted', async () => {
  const gz = await request(srv.url).get('/wmts/1.0.0/WMTSCapabilities.xml?key=demo').set('Accept-Encoding', 'gzip');
  expect(gz.headers['content-encoding']).toBe('gzip');
  expect(gz.headers.vary).toMatch(/Accept-Encoding/);
  expect(gz.text).toContain('<Capabilities');
  const plain = await request(srv.url).get('/wmts/1.0.0/WMTSCapabilities.xml?key=demo').set('Accept-Encoding', 'identity');
  expect(plain.headers['content-encoding']).toBeUndefined();
  const refused = await request(srv.url).get('/wmts/1.0.0/WMTSCapabilities.xml?key=demo').set('Accept-Encoding', 'gzip;q=0');
  expect(refused.headers['content-encoding']).toBeUndefined();
});

test('the key never appears in the request log', async () => {
  const lines: string[] = [];
  const config = parseConfig(
    { server: { host: '127.0.0.1', port: 0, requestLog: true }, data: 'mirror', keys: [{ key: 'very-secret-key' }] },
    't',
    `${__dirname}/../..`,
    {},
  );
  const log = pino({ level: 'info' }, { write: (s: string) => lines.push(s) });
  const s = await start(config, log);
  try {
    await request(s.url).get('/maps/sample/0/0/0.png?key=very-secret-key');
    await request(s.url).get('/maps/sample/0/0/0.png?foo=1&key=very-secret-key&x=2');
    // The server logs a request when its response has finished, which may be after the client has it.
    await waitFor('both requests logged', () => lines.filter((l) => l.includes('"request"')).length >= 2);
  } finally {
    await s.close();
  }
  const requests = lines.filter((l) => l.includes('"request"'));
  expect(requests.length).toBe(2);
  expect(lines.join('')).not.toContain('very-secret-key');
  expect(requests[0]).toContain('key=***');
});

test('tile ETags name the bytes: equal tiles share one, and a still-absent tile revalidates as 304', async () => {
  const a = await request(srv.url).get('/maps/sample/0/0/0.png?key=demo');
  const b = await request(srv.url).get('/maps/sample/0/0/0.png?key=demo&other=1');
  expect(a.headers.etag).toBe(b.headers.etag);
  const other = await request(srv.url).get('/maps/sample/1/0/0.png?key=demo');
  expect(other.headers.etag).not.toBe(a.headers.etag);
  const empty = await request(srv.url).get('/tiles/sample-vector/3/1/5?key=demo');
  expect(empty.status).toBe(204);
  const again = await request(srv.url).get('/tiles/sample-vector/3/1/5?key=demo').set('If-None-Match', empty.headers.etag);
  expect(again.status).toBe(304);
});
