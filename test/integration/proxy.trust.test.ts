// Issue 8, item 9: X-Forwarded-* shapes links only when `server.trustProxy` is on and the request comes from one
// of `server.trustedProxies`; documents built from them vary on them, so a shared cache cannot serve one client's
// forwarded host to another. Absolute-form request lines are routed by their path, their authority taking the
// place of Host (RFC 9112 §3.2.2).

import { connect } from 'node:net';
import { getFrom, serverConfig, startServer, type TestServer } from '../helpers/server';

const EVIL = { 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Prefix': '/p' };
/** The documents whose links come from the base URL: the index page, TileJSON, style.json, WMTS capabilities. */
const DOCUMENTS = ['/?key=demo', '/tiles/sample-vector/tiles.json?key=demo', '/maps/sample/style.json?key=demo', '/maps/sample/WMTSCapabilities.xml?key=demo'];

/** A document asked for from 127.0.0.1 with hostile forwarded headers links to this server and does not vary on them. */
async function expectOwnUrls(srv: TestServer, path: string): Promise<void> {
  const r = await getFrom(`${srv.url}${path}`, '127.0.0.1', EVIL);
  expect(r.status).toBe(200);
  expect(r.text).not.toContain('evil.example');
  expect(r.text).toContain(srv.url);
  expect(r.headers.vary ?? '').not.toMatch(/X-Forwarded/i);
}

const server = (extra: Record<string, unknown>) => startServer({ config: serverConfig(extra) });

describe('by default X-Forwarded-* is not believed', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await server({});
  }, 30_000);
  afterAll(() => srv.close());

  test.each(DOCUMENTS)('%s links to this server, not to the forwarded host', (path) => expectOwnUrls(srv, path));
});

describe('trustProxy: only the configured proxies are believed', () => {
  let srv: TestServer;
  beforeAll(async () => {
    // The proxy is 127.0.0.2; the test's other client, 127.0.0.1, is anyone else.
    srv = await server({ trustProxy: true, trustedProxies: ['127.0.0.2', '10.0.0.0/8'] });
  }, 30_000);
  afterAll(() => srv.close());

  test.each(DOCUMENTS)('%s from a non-trusted address gets this server\'s own URLs', (path) => expectOwnUrls(srv, path));

  test.each(DOCUMENTS)('%s from the trusted proxy gets the forwarded URLs, and varies on the headers', async (path) => {
    const r = await getFrom(`${srv.url}${path}`, '127.0.0.2', EVIL);
    expect(r.status).toBe(200);
    expect(r.text).toContain('https://evil.example/p/');
    expect(r.text).not.toContain(srv.url);
    expect(r.headers.vary).toMatch(/X-Forwarded-Host/);
    expect(r.headers.vary).toMatch(/X-Forwarded-Proto/);
    expect(r.headers.vary).toMatch(/X-Forwarded-Prefix/);
  });

  test('a document from the trusted proxy without forwarded headers varies on them too', async () => {
    const r = await getFrom(`${srv.url}/tiles/sample-vector/tiles.json?key=demo`, '127.0.0.2');
    expect(JSON.parse(r.text).tiles[0]).toBe(`${srv.url}/tiles/sample-vector/{z}/{x}/{y}?key=demo`);
    expect(r.headers.vary).toMatch(/X-Forwarded-Host/);
  });

  test('tiles do not depend on the forwarded headers and do not vary on them', async () => {
    const r = await getFrom(`${srv.url}/tiles/sample-vector/0/0/0?key=demo`, '127.0.0.2', EVIL);
    expect(r.status).toBe(200);
    expect(r.headers.vary ?? '').not.toMatch(/X-Forwarded/i);
  });
});

describe('a configured publicUrl beats forwarded headers, even from a trusted proxy', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await server({ trustProxy: true, trustedProxies: ['127.0.0.0/8'], publicUrl: 'https://tiles.example.com/base' });
  }, 30_000);
  afterAll(() => srv.close());

  test('links use publicUrl; no Vary on the forwarded headers', async () => {
    const r = await getFrom(`${srv.url}/tiles/sample-vector/tiles.json?key=demo`, '127.0.0.1', EVIL);
    expect(JSON.parse(r.text).tiles[0]).toBe('https://tiles.example.com/base/tiles/sample-vector/{z}/{x}/{y}?key=demo');
    expect(r.headers.vary ?? '').not.toMatch(/X-Forwarded/i);
  });
});

/** Sends one raw request line and headers; resolves with the whole answer (the server closes: Connection: close). */
function rawRequest(url: string, head: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(`${head}\r\nConnection: close\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
  });
}

describe('absolute-form request lines', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await server({});
  }, 30_000);
  afterAll(() => srv.close());

  test('are routed by their path', async () => {
    const r = await rawRequest(srv.url, 'GET http://anything.example/tiles/sample-vector/0/0/0?key=demo HTTP/1.1\r\nHost: anything.example');
    expect(r).toMatch(/^HTTP\/1\.1 200 /);
    const h = await rawRequest(srv.url, 'HEAD HTTP://anything.example:8080/maps/sample/0/0/0.png?key=demo HTTP/1.1\r\nHost: x');
    expect(h).toMatch(/^HTTP\/1\.1 200 /);
    expect(h).toMatch(/content-type: image\/png/i);
  });

  test('keep the key rules', async () => {
    const r = await rawRequest(srv.url, 'GET http://anything.example/tiles/sample-vector/0/0/0?key=wrong HTTP/1.1\r\nHost: anything.example');
    expect(r).toMatch(/^HTTP\/1\.1 403 /);
  });

  test('their authority replaces Host in the links, as RFC 9112 requires', async () => {
    const r = await rawRequest(srv.url, 'GET http://maps.example.org:8080/tiles/sample-vector/tiles.json?key=demo HTTP/1.1\r\nHost: other.example');
    expect(r).toMatch(/^HTTP\/1\.1 200 /);
    expect(r).toContain('"http://maps.example.org:8080/tiles/sample-vector/{z}/{x}/{y}?key=demo"');
    expect(r).not.toContain('other.example');
  });

  test('a target with no path is the root', async () => {
    const r = await rawRequest(srv.url, 'GET http://maps.example.org?key=demo HTTP/1.1\r\nHost: x');
    expect(r).toMatch(/^HTTP\/1\.1 200 /);
    expect(r).toMatch(/content-type: text\/html/i);
  });

  test('another scheme is a 400 that says why', async () => {
    const r = await rawRequest(srv.url, 'GET ftp://x/tiles/sample-vector/0/0/0?key=demo HTTP/1.1\r\nHost: x');
    expect(r).toMatch(/^HTTP\/1\.1 400 /);
    expect(r).toMatch(/Bad request target/);
    expect(r).not.toContain('key=demo');
  });

  // Node's parser refuses these itself (a bare 400); either way, never a 404 or a 5xx.
  test.each(['tiles/sample-vector/0/0/0?key=demo', 'http:/x/tiles'])('other request targets (%s) are a 400', async (target) => {
    expect(await rawRequest(srv.url, `GET ${target} HTTP/1.1\r\nHost: x`)).toMatch(/^HTTP\/1\.1 400 /);
  });
});
