// The index page `/` over HTTP against the bundled sample (issue 7, item 6): it lists every kind of resource the
// server holds, links the API docs and the OpenAPI document, shows an example for every endpoint family, and
// every example link answers 200 (followed, with the key the page put in it). Values are escaped.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeDataStore } from '../fixtures/document-stores';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';

/** The API's own description: the page must link both (they are followed with the other links). */
const API_DOCS = ['/docs', '/openapi.json'];

let srv: TestServer;
let page = '';

/** The hrefs of a page, entities undone (the page escapes `&` in URLs). */
function hrefs(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>'));
}

beforeAll(async () => {
  srv = await startServer();
  const r = await rawGet(`${srv.url}/?key=${KEY}`);
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
  page = r.body.toString('utf8');
}, 30_000);
afterAll(() => srv.close());

describe('the index page on the bundled sample', () => {
  test('lists a resource of every kind, with its id', () => {
    const kinds = [...page.matchAll(/<tr><td>([a-z]+)<\/td><td>([^<]+)<\/td>/g)].map((m) => `${m[1]}/${m[2]}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'maps/sample',
        'tiles/sample-vector',
        'tiles/sample-terrain',
        'tiles/sample-temperature-0000',
        'tiles/sample-temperature-0600',
        'images/sample-image',
        'data/sample-countries',
        'weather/latest',
        'sprites/sample',
        'fonts/Noto Sans Regular',
      ]),
    );
  });

  test('links the API docs and the OpenAPI document', () => {
    const paths = hrefs(page).map((h) => new URL(h, srv.url).pathname);
    for (const p of API_DOCS) expect(paths).toContain(p);
  });

  test('shows an example URL for every endpoint family', () => {
    const paths = hrefs(page).map((h) => decodeURIComponent(new URL(h, srv.url).pathname));
    const families: [string, RegExp][] = [
      ['map tile z/x/y', /^\/maps\/sample\/\d+\/\d+\/\d+\.png$/],
      ['map tile 256 px', /^\/maps\/sample\/256\/\d+\/\d+\/\d+\.png$/],
      ['style', /^\/maps\/sample\/style\.json$/],
      ['static map', /^\/maps\/sample\/static\/[-\d.]+,[-\d.]+,\d+\/\d+x\d+\.png$/],
      ['vector tile z/x/y', /^\/tiles\/sample-vector\/\d+\/\d+\/\d+\.pbf$/],
      ['TileJSON', /^\/tiles\/sample-vector\/tiles\.json$/],
      ['WMTS', /^\/wmts\/1\.0\.0\/WMTSCapabilities\.xml$/],
      ['WMTS of a map', /^\/maps\/sample\/WMTSCapabilities\.xml$/],
      ['OGC API landing page', /^\/ogc$/],
      ['OGC API tile', /^\/ogc\/collections\/[^/]+\/(map\/)?tiles\/WebMercatorQuad\d*\/\d+\/\d+\/\d+$/],
      ['image', /^\/images\/sample-image\/image\.json$/],
      ['fonts range', /^\/fonts\/Noto Sans Regular\/0-255\.pbf$/],
      ['sprite', /^\/sprites\/sample\/sprite\.(json|png)$/],
      ['data features', /^\/data\/sample-countries\/features\.json$/],
      ['weather', /^\/weather\/latest\.json$/],
    ];
    const missing = families.filter(([, re]) => !paths.some((p) => re.test(p))).map(([name]) => name);
    expect(missing).toEqual([]);
  });

  test('every example link carries the key and answers 200', async () => {
    const links = [...new Set(hrefs(page))].filter((h) => !h.startsWith('data:'));
    expect(links.length).toBeGreaterThan(40);
    const failures: string[] = [];
    for (const href of links) {
      const u = new URL(href, srv.url);
      expect(u.origin).toBe(new URL(srv.url).origin);
      expect(u.searchParams.get('key')).toBe(KEY);
      const r = await rawGet(u.href);
      if (r.status !== 200) failures.push(`${r.status} ${u.pathname}${u.search}`);
    }
    expect(failures).toEqual([]);
  }, 60_000);
});

describe('the index page escapes what it shows', () => {
  let dir: string;
  let other: TestServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tm-home-'));
    writeDataStore(dir, `a"b<i>&c`);
    other = await startServer({ dataDir: dir });
  });
  afterAll(async () => {
    await other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('ids and names with markup are shown as text, and the link still works', async () => {
    const html = (await rawGet(`${other.url}/?key=${KEY}`)).body.toString('utf8');
    expect(html).not.toContain('<i>&c');
    expect(html).toContain('a&quot;b&lt;i&gt;&amp;c');
    const link = hrefs(html).find((h) => h.includes('/data/'));
    expect(link).toBeDefined();
    const r = await rawGet(link!);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body.toString('utf8')).type).toBe('FeatureCollection');
  });
});
