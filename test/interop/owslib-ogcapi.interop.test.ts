// OWSLib (Debian python3-owslib) as an OGC API - Common client of /ogc: it reads the landing page, the
// conformance declaration and every collection. The landing-page requirements of OGC API - Common Part 1
// (/req/landing-page/root-success: links to the API definition, the conformance declaration and the data) are
// also checked here directly, and the service-desc and service-doc links are followed.
import path from 'node:path';
import { type InteropServer, startInteropServer } from './helpers';
import { gatedTest, SYSTEM_PYTHON } from '../helpers/clients';
import { fetchJson } from '../helpers/fetch';
import { assertOk, clientEnv, run } from '../helpers/run';

const SCRIPT = path.join(__dirname, 'owslib_ogcapi.py');

interface Link {
  href: string;
  rel: string;
  type?: string;
}
interface Report {
  links: Link[];
  conformsTo: string[];
  collections: string[];
  collectionTitles: Record<string, string>;
}

let srv: InteropServer;
beforeAll(async () => {
  srv = await startInteropServer();
});
afterAll(() => srv.close());

const owslibTest = gatedTest('OWSLib', { pythonModules: ['owslib.ogcapi.features'], packages: ['python3-owslib'] });

// OWSLib 0.27 drops the key from the landing-page request itself; owslib_ogcapi.py works around it (see there).
owslibTest('OWSLib reads the landing page, the conformance declaration and every collection', async () => {
  const r = assertOk(await run(SYSTEM_PYTHON, [SCRIPT, `${srv.url}/ogc/?key=demo`], { env: clientEnv(), timeoutMs: 60_000 }));
  const report = JSON.parse(r.stdout) as Report;
  expect(report.conformsTo).toEqual(
    expect.arrayContaining([
      'http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/core',
      'http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/landing-page',
      'http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/json',
    ]),
  );
  // The bundled sample: one map, three tile sets/images (maps.sample, tiles.sample-vector, tiles.sample-terrain, images.sample-image).
  expect(report.collections).toEqual(expect.arrayContaining(['maps.sample', 'tiles.sample-vector', 'tiles.sample-terrain', 'images.sample-image']));
  for (const id of report.collections) expect(typeof report.collectionTitles[id]).toBe('string');
  expect(new Set(report.links.map((l) => l.rel))).toEqual(
    new Set(['self', 'service-desc', 'service-doc', 'conformance', 'data', 'http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes', 'http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector']),
  );
});

describe('OGC API - Common landing page, checked directly', () => {
  let links: Link[];
  beforeAll(async () => {
    links = (await fetchJson<{ links: Link[] }>(`${srv.url}/ogc?key=demo`)).links;
  });
  const one = (rel: string): Link => {
    const found = links.filter((l) => l.rel === rel);
    expect(found).toHaveLength(1);
    return found[0];
  };

  test('/req/landing-page/root-success: service-desc, service-doc, conformance and data links', () => {
    expect(one('service-desc')).toEqual({ href: `${srv.url}/openapi.json?key=demo`, rel: 'service-desc', type: 'application/vnd.oai.openapi+json;version=3.1', title: expect.stringMatching(/OpenAPI/) });
    expect(one('service-doc')).toMatchObject({ href: `${srv.url}/docs?key=demo`, type: 'text/html' });
    expect(one('conformance')).toMatchObject({ href: `${srv.url}/ogc/conformance?key=demo`, type: 'application/json' });
    expect(one('data')).toMatchObject({ href: `${srv.url}/ogc/collections?key=demo`, type: 'application/json' });
  });

  test('service-desc is an OpenAPI 3.1 document served with the type the link names; service-doc is HTML', async () => {
    const desc = await fetch(one('service-desc').href);
    expect(desc.status).toBe(200);
    expect(desc.headers.get('content-type')).toBe('application/vnd.oai.openapi+json;version=3.1');
    expect(((await desc.json()) as { openapi: string }).openapi).toBe('3.1.0');
    const doc = await fetch(one('service-doc').href);
    expect(doc.status).toBe(200);
    expect(doc.headers.get('content-type')).toMatch(/^text\/html/);
  });
});
