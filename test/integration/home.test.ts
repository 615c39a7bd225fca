// The index page `/` over HTTP against the bundled sample (issue 7, item 6): it lists every kind of resource the
// server holds, links the API docs and the OpenAPI document, shows an example for every endpoint family, and
// every example link answers 200 (followed, with the key the page put in it). Values are escaped.

import { writeDataStore } from '../fixtures/document-stores';
import { HOME_EXAMPLE_FAMILIES, SAMPLE_RESOURCES } from '../fixtures/sample-listings';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-home-');

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
    expect(kinds).toEqual(expect.arrayContaining(SAMPLE_RESOURCES));
  });

  test('links the API docs and the OpenAPI document', () => {
    const paths = hrefs(page).map((h) => new URL(h, srv.url).pathname);
    for (const p of API_DOCS) expect(paths).toContain(p);
  });

  test('shows an example URL for every endpoint family', () => {
    const paths = hrefs(page).map((h) => decodeURIComponent(new URL(h, srv.url).pathname));
    const missing = HOME_EXAMPLE_FAMILIES.filter(([, re]) => !paths.some((p) => re.test(p))).map(([name]) => name);
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
    dir = tempDir();
    writeDataStore(dir, `a"b<i>&c`);
    other = await startServer({ dataDir: dir });
  });
  afterAll(async () => {
    await other.close();
    removeTempDirs();
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
