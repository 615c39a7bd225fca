import request from 'supertest';
import { startServer, type TestServer } from '../helpers/server';

// A request no route answers (a path nothing matches, a method or URI refused before routing) is answered in the
// error form of the API family its path belongs to: problem details under /ogc, an OWS ExceptionReport on WMTS
// paths, plain text elsewhere.

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());

const LONG = 'x'.repeat(9000);
/** A path as a test title shows it: the long ones cut. */
const shown = (path: string): string => (path.length > 70 ? `${path.slice(0, 70)}…` : path);

test.each([
  ['GET', '/ogc/nowhere?key=demo', 404],
  ['GET', '/ogc/collections/maps.sample/nowhere?key=demo', 404],
  ['POST', '/ogc/collections?key=demo', 405],
  ['GET', `/ogc/collections?key=demo&q=${LONG}`, 414],
].map(([m, p, s]) => [m, shown(p as string), s, p] as [string, string, number, string]))('%s %s: problem details, %i', async (method, _shown, status, path) => {
  const r = await request(srv.url)[method === 'GET' ? 'get' : 'post'](path);
  expect([r.status, r.headers['content-type']]).toEqual([status, 'application/problem+json']);
  expect(JSON.parse(r.text)).toMatchObject({ type: 'about:blank', status });
  if (status === 405) expect(r.headers.allow).toBe('GET, HEAD');
});

test.each([
  ['GET', '/wmts/1.0.0/nowhere?key=demo', 404],
  ['POST', '/wmts?SERVICE=WMTS&REQUEST=GetCapabilities&key=demo', 405],
  ['POST', '/maps/sample/WMTSCapabilities.xml?key=demo', 405],
  ['GET', `/wmts?SERVICE=WMTS&REQUEST=GetCapabilities&key=demo&q=${LONG}`, 414],
].map(([m, p, s]) => [m, shown(p as string), s, p] as [string, string, number, string]))('%s %s: an OWS ExceptionReport, %i', async (method, _shown, status, path) => {
  const r = await request(srv.url)[method === 'GET' ? 'get' : 'post'](path).buffer(true).parse((res, done) => {
    let text = '';
    res.on('data', (c: Buffer) => (text += c.toString()));
    res.on('end', () => done(null, text));
  });
  expect([r.status, r.headers['content-type']]).toEqual([status, 'application/xml; charset=utf-8']);
  expect(String(r.body)).toContain('<ows:Exception exceptionCode="NoApplicableCode">');
});

test('elsewhere the cloud API answers plain text', async () => {
  const r = await request(srv.url).get('/nowhere?key=demo');
  expect([r.status, r.headers['content-type'], r.text]).toEqual([404, 'text/plain; charset=utf-8', 'Not found\n']);
  const post = await request(srv.url).post('/maps/sample/0/0/0.png?key=demo');
  expect([post.status, post.headers['content-type']]).toEqual([405, 'text/plain; charset=utf-8']);
});
