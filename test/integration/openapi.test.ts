import { DEFAULT_INDEX_DIR } from '../../src/config/load';
import { matchRoute } from '../../src/http/route-table';
import { routes } from '../../src/http/routes';
import { buildGazetteerIndex } from '../../src/services/geocoding/gazetteer-index';
import { startServer, type TestServer } from '../helpers/server';

// /openapi.json covers the route table exactly: the documented paths are the list below (written by hand from the
// spec's endpoint tables, not computed), every route of the table is reached by one of them, and each one,
// with the sample's ids put in, is answered by the real server (never 404 where the sample has the resource).

const EXPECTED_PATHS = [
  '/maps/{mapId}/',
  '/maps/{mapId}/style.json',
  '/maps/{mapId}/sprite.{format}',
  '/maps/{mapId}/sprite@2x.{format}',
  '/maps/{mapId}/static/{area}/{size}.{format}',
  '/maps/{mapId}/static/{area}/{size}@2x.{format}',
  '/maps/{mapId}/{z}/{x}/{y}.{format}',
  '/maps/{mapId}/{z}/{x}/{y}@2x.{format}',
  '/maps/{mapId}/256/{z}/{x}/{y}.{format}',
  '/maps/{mapId}/256/{z}/{x}/{y}@2x.{format}',
  '/maps/{mapId}/tiles.json',
    '/maps/{mapId}/wms',
  '/maps/{mapId}/256/tiles.json',
  '/maps/{mapId}/tiles',
  '/maps/{mapId}/tileMatrixSet',
  '/maps/{mapId}/WMTSCapabilities.xml',
  '/tiles/{tilesId}/',
  '/tiles/{tilesId}/{z}/{x}/{y}',
  '/tiles/{tilesId}/{z}/{x}/{y}.{ext}',
  '/tiles/{tilesId}/tiles.json',
  '/tiles/{tilesId}/tiles',
  '/tiles/{tilesId}/tileMatrixSet',
  '/tiles/{tilesId}/WMTSCapabilities.xml',
  '/data/{dataId}/features.json',
  '/images/{imageId}/image.json',
  '/images/{imageId}/{z}/{x}/{y}',
  '/images/{imageId}/{z}/{x}/{y}.{ext}',
  '/images/{imageId}/WMTSCapabilities.xml',
  '/elevation/{locations}.json',
  '/geocoding/{longitude},{latitude}.json',
  '/geocoding/{queries}.json',
  '/geocoding/{id}.json',
  '/geocoding/{query}.json',
  '/weather/latest.json',
    '/wms',
  '/weather/WMTSCapabilities.xml',
  '/coordinates/search/{query}.json',
  '/coordinates/transform/{coordinates}.json',
  '/geolocation/ip.json',
  '/sprites/{spriteId}/sprite.{format}',
  '/sprites/{spriteId}/sprite@2x.{format}',
  '/fonts/{fontstack}/{range}.pbf',
  '/ogc',
  '/ogc/',
  '/ogc/conformance',
  '/ogc/collections',
  '/ogc/collections/{collectionId}',
  '/ogc/collections/{collectionId}/map/tiles',
  '/ogc/collections/{collectionId}/map/tiles/{tmsId}',
  '/ogc/collections/{collectionId}/map/tiles/{tmsId}/{tileMatrix}/{tileRow}/{tileCol}',
  '/ogc/collections/{collectionId}/tiles',
  '/ogc/collections/{collectionId}/tiles/{tmsId}',
  '/ogc/collections/{collectionId}/tiles/{tmsId}/{tileMatrix}/{tileRow}/{tileCol}',
  '/ogc/tiles',
  '/ogc/tiles/{tmsId}',
  '/ogc/tiles/{tmsId}/{tileMatrix}/{tileRow}/{tileCol}',
  '/ogc/tileMatrixSets',
  '/ogc/tileMatrixSets/{tmsId}',
  '/wmts',
  '/wmts/1.0.0/WMTSCapabilities.xml',
  '/wmts/1.0.0/weather/{name}/{style}/{time}/{tileMatrixSet}/{tileMatrix}/{tileRow}/{tileCol}.{format}',
  '/wmts/1.0.0/{layer}/{style}/{tileMatrixSet}/{tileMatrix}/{tileRow}/{tileCol}.{format}',
  '/admin',
  '/admin/',
  '/admin/console.js',
  '/admin/console.css',
  '/admin/status.json',
  '/admin/api/stores',
  '/admin/api/stores/{id}/coverage',
  '/admin/api/jobs',
  '/admin/api/jobs/{name}',
  '/admin/api/jobs/{name}/plan',
  '/admin/api/jobs/{name}/run',
  '/admin/api/jobs/{name}/cancel',
  '/',
  '/health',
  '/health/live',
  '/health/ready',
  '/metrics',
  '/openapi.json',
  '/docs',
];

/** Sample values of path parameters; the OGC collection and format depend on the path. */
function samplePath(template: string): string {
  const vector = template.startsWith('/ogc/collections/{collectionId}/tiles') || template.startsWith('/ogc/tiles');
  const values: Record<string, string> = {
    mapId: 'sample',
    tilesId: 'sample-vector',
    imageId: 'sample-image',
    dataId: 'sample-countries',
    spriteId: 'sample',
    fontstack: 'Noto%20Sans%20Regular',
    range: '0-255',
    z: '0',
    x: '0',
    y: '0',
    ext: template.startsWith('/images') ? 'png' : 'pbf',
    area: '0,0,1',
    locations: '8.2,46.8;7.5,46.5',
    size: '64x64',
    format: template.includes('sprite') ? 'json' : 'png',
    collectionId: vector ? 'tiles.sample-vector' : 'maps.sample',
    tmsId: vector ? 'WebMercatorQuad512' : 'WebMercatorQuad',
    tileMatrix: '0',
    tileRow: '0',
    tileCol: '0',
    longitude: '2.35',
    latitude: '48.86',
    queries: 'Paris;2.35,48.86',
    id: template.startsWith('/admin/api/stores') ? 'maps%2Fsample' : 'country.1',
    query: 'Paris', // a place name and a registry search ("NTF (Paris)") alike
    coordinates: '17,50',
    // the WMTS RESTful tile: maps/sample, its 512 px set; the weather layer's: its variable, a time, its 256 px set
    layer: 'maps/sample',
    style: 'default',
    tileMatrixSet: template.includes('/weather/') ? 'GoogleMapsCompatible256-z0-2' : 'GoogleMapsCompatible512-z0-5',
    name: 'temperature-2m.sample',
    time: '2024-01-01T00:00:00Z',
  };
  // The KVP endpoints need their mandatory parameters (a KVP query is no path parameter).
  if (template === '/wmts') return '/wmts?SERVICE=WMTS&REQUEST=GetCapabilities';
  if (template === '/wms' || template === '/maps/{mapId}/wms') return `${template.replace('{mapId}', 'sample')}?SERVICE=WMS&REQUEST=GetCapabilities`;
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`no sample value for {${name}} in ${template}`);
    return values[name];
  });
}

let srv: TestServer;
let doc: { paths: Record<string, unknown>; servers: { url: string }[] };
beforeAll(async () => {
  // The geocoding paths answer from the gazetteer built at install (built here when absent: up to ~2 min).
  await buildGazetteerIndex(DEFAULT_INDEX_DIR);
  srv = await startServer({ config: { admin: { keys: ['admin-key'] } } });
  const r = await fetch(`${srv.url}/openapi.json`);
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe('application/vnd.oai.openapi+json;version=3.1');
  doc = (await r.json()) as typeof doc;
}, 240_000);
afterAll(() => srv.close());

test('/openapi.json is public, its server is this one', () => {
  expect(doc.servers).toEqual([{ url: srv.url }]);
});

test('the documented paths are exactly the expected list', () => {
  expect(Object.keys(doc.paths).sort()).toEqual([...EXPECTED_PATHS].sort());
});

test('every route of the table is reached by a documented path, and every documented path by its route', () => {
  const reached = new Set<string>();
  for (const template of Object.keys(doc.paths)) {
    const found = matchRoute(routes, samplePath(template).replace(/\?.*$/, ''));
    expect([template, found?.route.pattern]).toEqual([template, expect.any(String)]);
    if (found) reached.add(found.route.pattern);
  }
  expect(routes.map((r) => r.pattern).filter((p) => !reached.has(p))).toEqual([]);
});

// One job's paths need a configured job (and run and cancel are POST): test/integration/admin.api.test.ts drives them.
test.each(EXPECTED_PATHS.filter((p) => !p.startsWith('/admin/api/jobs/')))('%s is served with the sample ids', async (template) => {
  const key = template.startsWith('/admin') ? 'admin-key' : 'demo';
  const path = samplePath(template);
  const r = await fetch(`${srv.url}${path}${path.includes('?') ? '&' : '?'}key=${key}`);
  expect([template, [200, 204].includes(r.status) ? 'answered' : r.status]).toEqual([template, 'answered']);
});

test('/docs renders the definition with Swagger UI from this server, passing the key', async () => {
  const r = await fetch(`${srv.url}/docs?key=demo`);
  expect(r.status).toBe(200);
  const html = await r.text();
  expect(html).toContain(`${srv.url}/assets/swagger-ui/swagger-ui-bundle.js`);
  expect(html).toContain(JSON.stringify(`${srv.url}/openapi.json?key=demo`));
  expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[^"']*\.(js|css)/);
  for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
    const a = await fetch(`${srv.url}/assets/swagger-ui/${asset}`);
    expect([asset, a.status]).toEqual([asset, 200]);
    expect((await a.arrayBuffer()).byteLength).toBeGreaterThan(1000);
  }
});

test('a bad parameter is a 400 naming it, before the handler runs', async () => {
  const r = await fetch(`${srv.url}/maps/sample/0/0/x.png?key=demo`);
  expect(r.status).toBe(400);
  expect((await r.text()).trim()).toBe('Invalid y: expected a non-negative integer');
  const s = await fetch(`${srv.url}/maps/sample/static/0,0,1/64x64.png?key=demo&latlng=maybe`);
  expect(s.status).toBe(400);
  expect((await s.text()).trim()).toBe('Invalid latlng: expected true or false');
});
