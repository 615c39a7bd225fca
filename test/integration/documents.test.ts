import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import { SAMPLE_OGC_COLLECTIONS, SAMPLE_WMTS_LAYERS } from '../fixtures/sample-listings';
import { CAPABILITIES_EXCEPTIONS, KVP_EXCEPTIONS, REST_EXCEPTIONS, type ExceptionCase } from '../fixtures/wmts-exceptions';
import { gatedTest } from '../helpers/clients';
import { EXCEPTION_SCHEMA_CHECK, EXCEPTION_XSD, parseExceptionReport, validateXml } from '../helpers/ows-exception';
import { serverConfig, startServer, type TestServer } from '../helpers/server';

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());

const get = (path: string) => request(srv.url).get(path);
const xml = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true });

/** Every URL in a document (JSON strings or XML attribute/text values). */
const urlsIn = (text: string): string[] => [...text.matchAll(/https?:\/\/[^"'<>\s]+/g)].map((m) => m[0].replace(/&amp;/g, '&'));
const OGC_SCHEMA_HOSTS = /^http:\/\/(www\.opengis\.net|schemas\.opengis\.net|www\.w3\.org)\//;

describe('TileJSON', () => {
  test('of a map (512 px) and its 256 px pyramid, with the requester key in the template', async () => {
    const r = await get('/maps/sample/tiles.json?key=demo');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.body).toMatchObject({ tilejson: '3.0.0', format: 'png', minzoom: 0, maxzoom: 5, tileSize: 512 });
    expect(r.body.tiles).toEqual([`${srv.url}/maps/sample/{z}/{x}/{y}.png?key=demo`]);
    expect(r.body.bounds).toHaveLength(4);
    expect(r.body.center).toHaveLength(3);
    expect(r.body.attribution).toMatch(/Natural Earth/);
    const small = await get('/maps/sample/256/tiles.json?key=demo');
    expect(small.body.tiles).toEqual([`${srv.url}/maps/sample/256/{z}/{x}/{y}.png?key=demo`]);
    expect(small.body.tileSize).toBe(256);
  });

  test('of a vector tile set lists its layers', async () => {
    const r = await get('/tiles/sample-vector/tiles.json?key=demo');
    expect(r.body.format).toBe('pbf');
    expect(r.body.vector_layers.length).toBeGreaterThan(0);
    expect(r.body.vector_layers[0]).toHaveProperty('fields');
    expect(r.body.tiles[0]).toBe(`${srv.url}/tiles/sample-vector/{z}/{x}/{y}?key=demo`);
  });

  test('of a terrain tileset names its encoding (MapLibre raster-dem), and its viewer shades the relief', async () => {
    const r = await get('/tiles/sample-terrain/tiles.json?key=demo');
    expect(r.body).toMatchObject({ format: 'png', encoding: 'mapbox' });
    const page = await get('/tiles/sample-terrain/?key=demo');
    expect(page.text).toContain('"type":"raster-dem"');
    expect(page.text).toContain('"type":"hillshade"');
  });

  test('URLs come from X-Forwarded-* behind a trusted proxy, or from the configured public URL', async () => {
    // Trust is off by default (test/integration/proxy.trust.test.ts); here the test client, on loopback, is the proxy.
    const proxied = await startServer({ config: serverConfig({ trustProxy: true }) });
    try {
      const r = await request(proxied.url)
        .get('/tiles/sample-terrain/tiles.json?key=demo')
        .set('X-Forwarded-Proto', 'https')
        .set('X-Forwarded-Host', 'maps.example.org')
        .set('X-Forwarded-Prefix', '/mirror');
      expect(r.body.tiles[0]).toBe('https://maps.example.org/mirror/tiles/sample-terrain/{z}/{x}/{y}?key=demo');
      const hostile = await request(proxied.url).get('/tiles/sample-terrain/tiles.json?key=demo').set('X-Forwarded-Host', 'evil"><x');
      expect(hostile.body.tiles[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    } finally {
      await proxied.close();
    }
    const s = await startServer({ config: { server: { host: '127.0.0.1', port: 0, requestLog: false, publicUrl: 'https://tiles.example.com/base/' } } });
    try {
      const p = await request(s.url).get('/tiles/sample-terrain/tiles.json?key=demo');
      expect(p.body.tiles[0]).toBe('https://tiles.example.com/base/tiles/sample-terrain/{z}/{x}/{y}?key=demo');
    } finally {
      await s.close();
    }
  });
});

describe('style, viewer and image.json', () => {
  test('style.json as stored, its local URLs pointing at this server with the key', async () => {
    const r = await get('/maps/sample/style.json?key=demo');
    expect(r.status).toBe(200);
    expect(r.body.version).toBe(8);
    const urls = urlsIn(JSON.stringify(r.body));
    expect(urls.length).toBeGreaterThan(0);
    for (const u of urls) expect(u.startsWith(`${srv.url}/`) && u.includes('key=demo')).toBe(true);
    expect(JSON.stringify(r.body)).not.toContain('tilemirror://');
  });

  test.each(['/maps/sample/', '/tiles/sample-vector/', '/tiles/sample-terrain/'])('viewer %s loads MapLibre from this server only', async (path) => {
    const r = await get(`${path}?key=demo`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.text).toContain('/assets/maplibre-gl/maplibre-gl.mjs');
    for (const u of urlsIn(r.text)) expect(u.startsWith(srv.url)).toBe(true);
  });

  test('MapLibre files are served (the worker with its ?v= query)', async () => {
    const js = await get('/assets/maplibre-gl/maplibre-gl.mjs');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect((await get('/assets/maplibre-gl/maplibre-gl-worker.mjs?v=6.0.0')).status).toBe(200);
    expect((await get('/assets/maplibre-gl/maplibre-gl.css')).headers['content-type']).toMatch(/^text\/css/);
  });
});

describe('OGC API - Tiles', () => {
  test('landing page, conformance and collections link to each other with absolute URLs', async () => {
    const landing = await get('/ogc?key=demo');
    expect(landing.status).toBe(200);
    const data = landing.body.links.find((l: { rel: string }) => l.rel === 'data');
    expect(data).toMatchObject({ type: 'application/json', href: `${srv.url}/ogc/collections?key=demo` });
    const conf = await get('/ogc/conformance?key=demo');
    expect(conf.body.conformsTo).toContain('http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core');
    const cols = await get('/ogc/collections?key=demo');
    const ids = cols.body.collections.map((c: { id: string }) => c.id).sort();
    expect(ids).toEqual(SAMPLE_OGC_COLLECTIONS);
    for (const c of cols.body.collections) {
      expect(c.extent.spatial.bbox).toHaveLength(1);
      expect(c.extent.spatial.bbox[0]).toHaveLength(4);
      const rels = c.links.map((l: { rel: string }) => l.rel);
      // A raster and a vector collection never share a collection (GDAL 3.6.2 fails on both).
      expect(rels.filter((r: string) => /tilesets-(map|vector)$/.test(r))).toHaveLength(1);
    }
  });

  test('tileset list, tileset, tile matrix set and a tile through the item template', async () => {
    const list = await get('/ogc/collections/maps.sample/map/tiles?key=demo');
    expect(list.body.tilesets.length).toBe(2);
    const selfHref: string = list.body.tilesets[0].links.find((l: { rel: string }) => l.rel === 'self').href;
    const ts = await get(selfHref.slice(srv.url.length));
    const item = ts.body.links.find((l: { rel: string }) => l.rel === 'item');
    expect(item.href).toContain('{tileMatrix}/{tileRow}/{tileCol}');
    const scheme = ts.body.links.find((l: { rel: string }) => l.rel.endsWith('tiling-scheme'));
    const tms = await get(scheme.href.slice(srv.url.length));
    expect(tms.status).toBe(200);
    expect(tms.body).toHaveProperty('identifier');
    expect(tms.body).toHaveProperty('tileMatrices');
    const tileUrl: string = item.href.replace('{tileMatrix}', '2').replace('{tileRow}', '1').replace('{tileCol}', '3');
    const tile = await get(tileUrl.slice(srv.url.length));
    const direct = await get(`/maps/sample/${ts.body.tileMatrixSetURI?.endsWith('WebMercatorQuad') ? '256/' : ''}2/3/1.png?key=demo`);
    expect(tile.status).toBe(200);
    expect(Buffer.compare(tile.body, direct.body)).toBe(0);
  });

  test('the per-resource /tiles and /tileMatrixSet documents', async () => {
    for (const kind of ['maps/sample', 'tiles/sample-vector', 'tiles/sample-terrain']) {
      const t = await get(`/${kind}/tiles?key=demo`);
      expect(t.status).toBe(200);
      expect(t.body.links.some((l: { rel: string }) => l.rel === 'item')).toBe(true);
      const m = await get(`/${kind}/tileMatrixSet?key=demo`);
      expect(m.status).toBe(200);
      expect(m.body.tileMatrices.length).toBeGreaterThan(0);
    }
  });
});

describe('WMTS', () => {
  test.each([
    ['/maps/sample/WMTSCapabilities.xml', ['maps/sample', 'maps/sample/256']],
    ['/tiles/sample-terrain/WMTSCapabilities.xml', ['tiles/sample-terrain']],
    ['/images/sample-image/WMTSCapabilities.xml', ['images/sample-image']],
    ['/wmts/1.0.0/WMTSCapabilities.xml', SAMPLE_WMTS_LAYERS],
    ['/wmts?SERVICE=WMTS&REQUEST=GetCapabilities', SAMPLE_WMTS_LAYERS],
  ])('%s lists its layers with absolute URLs carrying the key', async (path, layers) => {
    const r = await get(`${path}${path.includes('?') ? '&' : '?'}key=demo`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/xml; charset=utf-8');
    const doc = xml.parse(r.text);
    const found = [doc.Capabilities.Contents.Layer].flat().map((l: { Identifier: string }) => l.Identifier);
    expect(found.sort()).toEqual([...layers].sort());
    const urls = urlsIn(r.text).filter((u) => !OGC_SCHEMA_HOSTS.test(u) && !u.startsWith('urn:'));
    expect(urls.length).toBeGreaterThan(0);
    for (const u of urls) expect(u.startsWith(srv.url) && u.includes('key=demo')).toBe(true);
  });

  test('KVP GetTile and the RESTful ResourceURL answer the same bytes as the cloud route', async () => {
    const caps = xml.parse((await get('/maps/sample/WMTSCapabilities.xml?key=demo')).text);
    const layer = [caps.Capabilities.Contents.Layer].flat().find((l: { Identifier: string }) => l.Identifier === 'maps/sample');
    const set = layer.TileMatrixSetLink.TileMatrixSet;
    const kvp = await get(`/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=maps/sample&STYLE=default&TILEMATRIXSET=${set}&TILEMATRIX=2&TILEROW=1&TILECOL=3&FORMAT=image/png&key=demo`);
    const cloud = await get('/maps/sample/2/3/1.png?key=demo');
    expect(kvp.status).toBe(200);
    expect(Buffer.compare(kvp.body, cloud.body)).toBe(0);
    // lower-case parameter names, sent to the per-resource capabilities URL, as GDAL sends them
    const lower = await get(`/maps/sample/WMTSCapabilities.xml?service=WMTS&request=GetTile&version=1.0.0&layer=maps/sample&style=default&tilematrixset=${set}&tilematrix=2&tilerow=1&tilecol=3&format=image/png&key=demo`);
    expect(Buffer.compare(lower.body, cloud.body)).toBe(0);
    const template: string = layer.ResourceURL['@_template'];
    const rest = await get(template.slice(srv.url.length).replace('{Style}', 'default').replace('{TileMatrixSet}', set).replace('{TileMatrix}', '2').replace('{TileRow}', '1').replace('{TileCol}', '3'));
    expect([rest.status, rest.headers['content-type']]).toEqual([200, 'image/png']);
    expect(Buffer.compare(rest.body, cloud.body)).toBe(0);
  });

  test('vector tiles: the WMTS answers carry the advertised type, the cloud route its own', async () => {
    const caps = xml.parse((await get('/tiles/sample-vector/WMTSCapabilities.xml?key=demo')).text);
    const layer = caps.Capabilities.Contents.Layer;
    expect(layer.Format).toBe('application/vnd.mapbox-vector-tile');
    const set = layer.TileMatrixSetLink.TileMatrixSet;
    const kvp = await get(`/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=tiles/sample-vector&STYLE=default&TILEMATRIXSET=${set}&TILEMATRIX=0&TILEROW=0&TILECOL=0&FORMAT=application/vnd.mapbox-vector-tile&key=demo`);
    const rest = await get(`/wmts/1.0.0/tiles/sample-vector/default/${set}/0/0/0.pbf?key=demo`);
    const cloud = await get('/tiles/sample-vector/0/0/0?key=demo');
    expect([kvp.status, kvp.headers['content-type']]).toEqual([200, 'application/vnd.mapbox-vector-tile']);
    expect([rest.status, rest.headers['content-type']]).toEqual([200, 'application/vnd.mapbox-vector-tile']);
    expect([cloud.status, cloud.headers['content-type']]).toEqual([200, 'application/x-protobuf']);
  });

  test('titles are escaped', async () => {
    const r = await get('/maps/sample/WMTSCapabilities.xml?key=demo');
    expect(() => xml.parse(r.text)).not.toThrow();
    expect(r.text).not.toMatch(/<ows:Title>[^<]*"[^<]*<\/ows:Title>/);
  });
});

// Every exception case over HTTP, KVP and RESTful (the table in test/fixtures/wmts-exceptions.ts): the status,
// application/xml, the one exception's code and locator, and the report valid against owsExceptionReport.xsd.
describe('WMTS exceptions', () => {
  const schemaTest = gatedTest('xmllint with the OWS 1.1 exception report XSD', EXCEPTION_SCHEMA_CHECK);
  const withKey = (target: string, key = 'demo') => `${target}${target.includes('?') ? '&' : '?'}key=${key}`;
  const cases: [string, ExceptionCase][] = [...KVP_EXCEPTIONS, ...REST_EXCEPTIONS, ...CAPABILITIES_EXCEPTIONS].map((c) => [c.target, c]);

  schemaTest.each(cases)('%s', async (_target, c) => {
    const r = await get(withKey(c.target));
    expect([r.status, r.headers['content-type']]).toEqual([c.status, 'application/xml; charset=utf-8']);
    const { exceptions } = parseExceptionReport(r.text);
    expect(exceptions.map(({ code, locator }) => ({ code, locator }))).toEqual([{ code: c.code, locator: c.locator }]);
    const valid = validateXml(r.text, EXCEPTION_XSD);
    expect(valid.out).toContain('validates');
    expect(valid.ok).toBe(true);
  });

  schemaTest('a refused key and a 406 are reports too', async () => {
    for (const [r, status] of [
      [await get('/wmts?SERVICE=WMTS&REQUEST=GetCapabilities'), 403],
      [await get(withKey('/wmts/1.0.0/maps/sample/default/GoogleMapsCompatible512-z0-5/0/0/0.png', 'nope')), 403],
      [await get('/wmts/1.0.0/WMTSCapabilities.xml?key=demo').set('Accept', 'example/unknown'), 406],
    ] as const) {
      expect([r.status, r.headers['content-type']]).toEqual([status, 'application/xml; charset=utf-8']);
      expect(parseExceptionReport(r.text).exceptions[0].code).toBe('NoApplicableCode');
      expect(validateXml(r.text, EXCEPTION_XSD).ok).toBe(true);
    }
  });
});
