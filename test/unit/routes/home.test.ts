// src/http/routes/home.ts in process: the index page `/` on the bundled sample (a resource of every kind, an example
// for every endpoint family, every link carrying the key and answering), its escaping, and /health, /health/live.

import * as home from '../../../src/http/routes/home';
import { writeDataStore } from '../../fixtures/document-stores';
import { HOME_EXAMPLE_FAMILIES, SAMPLE_RESOURCES } from '../../fixtures/sample-listings';
import { BASE_URL, inProcess, json, patternsOf, PAID_KEY, text } from '../../helpers/in-process';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-home-');

const app = inProcess();
const odd = tempDir();
writeDataStore(odd, `a"b<i>&c`);
const escaped = inProcess({ dataDir: odd });
const bare = inProcess({ without: ['geocoding', 'coordinates', 'elevation', 'geolocation'] });
afterAll(async () => {
  await app.close();
  await escaped.close();
  await bare.close();
  removeTempDirs();
});

/** The hrefs of a page, entities undone (the page escapes `&` in URLs). */
const hrefs = (html: string): string[] =>
  [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>'));

let page = '';
beforeAll(async () => {
  const r = await app.get('/');
  expect(r).toMatchObject({ status: 200, type: 'text/html; charset=utf-8', cache: 'document' });
  page = text(r);
});

test('the route table gives home.ts its three patterns', () => {
  expect(patternsOf(home)).toEqual(['/', '/health', '/health/live']);
});

test('lists a resource of every kind, with its id', () => {
  const kinds = [...page.matchAll(/<tr><td>([a-z]+)<\/td><td>([^<]+)<\/td>/g)].map((m) => `${m[1]}/${m[2]}`);
  expect(kinds).toEqual(expect.arrayContaining(SAMPLE_RESOURCES));
});

test('links the API docs and the OpenAPI document, and shows an example for every endpoint family', () => {
  const paths = hrefs(page).map((h) => decodeURIComponent(new URL(h).pathname));
  for (const p of ['/docs', '/openapi.json']) expect(paths).toContain(p);
  expect(HOME_EXAMPLE_FAMILIES.filter(([, re]) => !paths.some((p) => re.test(p))).map(([name]) => name)).toEqual([]);
});

test('every example link is on this server, carries the key and answers 200', async () => {
  const links = [...new Set(hrefs(page))].filter((h) => !h.startsWith('data:'));
  expect(links.length).toBeGreaterThan(40);
  const failures: string[] = [];
  for (const href of links) {
    const u = new URL(href);
    expect(u.origin).toBe(BASE_URL);
    expect(u.searchParams.get('key')).toBe(PAID_KEY);
    u.searchParams.delete('key');
    const r = await app.get(`${u.pathname}${u.search}`);
    if (r.status !== 200) failures.push(`${r.status} ${u.pathname}${u.search}`);
  }
  expect(failures).toEqual([]);
});

test('the location services\' examples are asked of them: the place named is the one found at the position given', async () => {
  const paths = hrefs(page).map((h) => decodeURIComponent(new URL(h).pathname));
  const byId = paths.find((p) => /^\/geocoding\/[a-z_]+\.\d+\.json$/.test(p))!;
  const reverse = paths.find((p) => /^\/geocoding\/-?[\d.]+,-?[\d.]+\.json$/.test(p))!;
  const found = json<{ features: { id: string }[] }>(await app.get(reverse)).features[0];
  expect(byId).toBe(`/geocoding/${found.id}.json`);
  // The elevation example lies in the mirrored terrain: a height, not a refusal.
  const heights = json<number[][]>(await app.get(paths.find((p) => p.startsWith('/elevation/'))!));
  expect(Number.isFinite(heights[0][2])).toBe(true);
});

test('without the location services the page says why instead of linking what would fail', async () => {
  const html = text(await bare.get('/'));
  for (const family of ['Geocoding', 'Coordinates', 'Elevation', 'Geolocation']) expect(html).toMatch(new RegExp(`<th>${family}</th><td><i>not available: `));
  const paths = hrefs(html).map((h) => new URL(h).pathname);
  expect(paths.filter((p) => /^\/(geocoding|coordinates|elevation|geolocation)\//.test(p))).toEqual([]);
});

test('ids and names with markup are shown as text, and the link still works', async () => {
  const html = text(await escaped.get('/'));
  expect(html).not.toContain('<i>&c');
  expect(html).toContain('a&quot;b&lt;i&gt;&amp;c');
  const link = new URL(hrefs(html).find((h) => h.includes('/data/'))!);
  const r = await escaped.get(link.pathname);
  expect(r.status).toBe(200);
  expect(json<{ type: string }>(r).type).toBe('FeatureCollection');
});

test.each(['/health', '/health/live'])('%s: public liveness, ok, never cached', async (path) => {
  const r = await app.get(path, { key: null });
  expect(r).toEqual({ status: 200, body: Buffer.from('ok\n'), type: 'text/plain; charset=utf-8', cache: 'none' });
});

test('every route of home.ts was reached, and nothing failed unexpectedly', () => {
  expect(patternsOf(home).filter((p) => !app.reached.has(p))).toEqual([]);
  expect([...app.failures, ...escaped.failures, ...bare.failures]).toEqual([]);
});
