import pino from 'pino';
import { parseConfig } from '../../src/config/load';
import { HttpError, type Reply } from '../../src/http/reply';
import { matchRoute, type RequestContext } from '../../src/http/route-table';
import { routes } from '../../src/http/routes';
import { createServices } from '../../src/http/service-root';
import { mapTile } from '../../src/http/routes/maps';
import { ogcLanding } from '../../src/http/routes/ogc';
import { sprite } from '../../src/http/routes/sprites';
import { Catalog } from '../../src/store/catalog/catalog';
import { readStoredTile } from '../helpers/stored-tiles';
import { SAMPLE_DIR } from '../helpers/server';

// Handlers called in-process over the sample catalog, no socket: a RequestContext in, a Reply (data) out.

const catalog = new Catalog(SAMPLE_DIR);
const config = parseConfig({ data: SAMPLE_DIR, render: { keep: false }, keys: [{ key: 'demo', plan: 'paid' }], logLevel: 'silent' }, 'test', process.cwd(), {});
const root = createServices(config, catalog, pino({ level: 'silent' }));
afterAll(async () => {
  root.stop();
  catalog.close();
  await root.close();
});

function context(path: string, query = 'key=demo'): RequestContext {
  return { catalog, config, key: 'demo', tier: 'paid', baseUrl: 'https://maps.example.org', query: new URLSearchParams(query), headers: {}, path, signal: new AbortController().signal, clientAddress: '203.0.113.9', trustedProxy: false, services: root.services, routes, reserveAnswer: () => Promise.resolve(), onAnswered: () => undefined };
}

/** What the dispatcher does after the key check: match the route, validate its parameters, run its handler. */
async function get(path: string, query?: string): Promise<Reply> {
  const found = matchRoute(routes, path);
  if (!found || 'badEncoding' in found) throw new Error(`no route for ${path}`);
  return found.route.invoke(context(path, query), found.params);
}

test('a map tile: the stored bytes, typed parameters straight into the handler', async () => {
  const reply = await mapTile(context('/maps/sample/1/1/0.png'), { mapId: 'sample', z: 1, x: 1, y: 0, format: 'png' });
  expect(reply).toMatchObject({ status: 200, type: 'image/png', cache: 'tile' });
  expect(reply.body?.equals(readStoredTile(`${SAMPLE_DIR}/maps/sample.mbtiles`, { z: 1, x: 1, y: 0 }))).toBe(true);
});

test('through the route: the same tile, and a 400 naming the bad parameter before the handler runs', async () => {
  const reply = await get('/maps/sample/1/1/0.png');
  expect(reply.body?.equals(readStoredTile(`${SAMPLE_DIR}/maps/sample.mbtiles`, { z: 1, x: 1, y: 0 }))).toBe(true);
  await expect(get('/maps/sample/1/2/0.png')).rejects.toEqual(new HttpError(400, 'Out of bounds: tile 1/2/0 does not exist'));
  await expect(get('/maps/sample/1/1/0.gif')).rejects.toEqual(new HttpError(400, 'Invalid format: gif (use png, jpg, webp or basis)'));
  await expect(get('/maps/sample/1/1/0@3x.png')).rejects.toEqual(new HttpError(400, 'Invalid scale: @3x (only @2x)'));
  await expect(get('/maps/nope/1/1/0.png')).rejects.toEqual(new HttpError(404, 'Unknown map: nope'));
});

test('an absent vector tile inside the bounds is 204', async () => {
  // The sample's vector tiles leave ocean tiles out; the mid-Pacific tile of zoom 5 is one of them.
  expect(await get('/tiles/sample-vector/5/0/14')).toEqual({ status: 204, cache: 'tile', etag: 'empty' });
});

test('a sprite index', () => {
  const reply = sprite(context('/sprites/sample/sprite.json'), { spriteId: 'sample', format: 'json' });
  expect(reply.type).toBe('application/json; charset=utf-8');
  expect(Object.keys(JSON.parse(String(reply.body))).length).toBe(37);
});

test('the OGC landing page links the API definition and its documentation, with the key', () => {
  const body = JSON.parse(String(ogcLanding(context('/ogc')).body)) as { links: { rel: string; href: string; type: string }[] };
  const byRel = Object.fromEntries(body.links.map((l) => [l.rel, l]));
  expect(byRel['service-desc']).toMatchObject({ href: 'https://maps.example.org/openapi.json?key=demo', type: 'application/vnd.oai.openapi+json;version=3.1' });
  expect(byRel['service-doc']).toMatchObject({ href: 'https://maps.example.org/docs?key=demo', type: 'text/html' });
});

test('/openapi.json names the base URL it was asked through', async () => {
  const reply = await get('/openapi.json');
  expect(reply.type).toBe('application/vnd.oai.openapi+json;version=3.1');
  expect(JSON.parse(String(reply.body)).servers).toEqual([{ url: 'https://maps.example.org' }]);
});
