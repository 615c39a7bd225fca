// src/http/routes/admin-console.ts in process: the console page, its script and style sheet. 404 with no admin key
// configured; with one, answered to anyone (they hold no data: the script reads the admin API with the key the
// operator types in), never cached, never indexed, under a CSP that allows scripts and styles of this origin only.

import * as adminConsole from '../../../src/http/routes/admin-console';
import { failure, inProcess, patternsOf, SAMPLE_DIR, text } from '../../helpers/in-process';
import { JobStateFile } from '../../../src/store/data-dir/job-state';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-console-');

const ADMIN = 'admin-key-5f1e7c3b';
const PATHS = ['/admin/', '/admin', '/admin/console.js', '/admin/console.css'];

const hidden = inProcess();
const data = tempDir();
new JobStateFile(data).update('nightly-secret-name', (st) => {
  st.runs = 1;
});
const app = inProcess({
  dataDir: data,
  config: { admin: { keys: [ADMIN] }, mirror: { upstream: 'http://127.0.0.1:9/', jobs: [{ name: 'nightly-secret-name', resources: ['tiles/sample-vector'] }] } },
});
const sample = inProcess({ dataDir: SAMPLE_DIR, config: { admin: { keys: [ADMIN] } } });
afterAll(async () => {
  for (const a of [hidden, app, sample]) await a.close();
  removeTempDirs();
});

test('the route table gives admin-console.ts its three patterns, all public', () => {
  expect(patternsOf(adminConsole)).toEqual(['/admin[/]', '/admin/console.js', '/admin/console.css']);
});

test.each(PATHS)('without admin keys configured %s does not exist (404)', async (path) => {
  expect(failure(await hidden.get(path, { key: ADMIN }))).toMatchObject({ status: 404, message: 'Not found' });
});

test.each([
  ['/admin/', 'text/html; charset=utf-8'],
  ['/admin/console.js', 'text/javascript; charset=utf-8'],
  ['/admin/console.css', 'text/css; charset=utf-8'],
])('%s answers without a key, never stored, not indexed', async (path, type) => {
  for (const key of [null, 'not-a-key', ADMIN]) {
    const r = await app.get(path, { key });
    expect(r).toMatchObject({
      status: 200,
      type,
      cache: 'none',
      headers: { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff', 'X-Robots-Tag': 'noindex, nofollow' },
    });
  }
});

test('the page is a shell: no data, no inline script or style, its files from this server, a strict CSP', async () => {
  const r = await app.get('/admin/', { key: ADMIN });
  const html = text(r);
  const csp = r.headers?.['Content-Security-Policy'] ?? '';
  expect(csp.split('; ')).toEqual(expect.arrayContaining(["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]));
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
  expect(html).toContain('<meta name="robots" content="noindex, nofollow">');
  // Scripts and styles only as files of this server; no inline code, no style attributes, no event handlers.
  expect([...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual(['<script type="module" src="/admin/console.js">']);
  expect(html).not.toMatch(/<script[^>]*>[^<]+<\/script>/);
  expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
  expect([...html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1])).toEqual(['/assets/maplibre-gl/maplibre-gl.css', '/admin/console.css']);
  // No job, store or key in it: everything comes from the API, with the key typed in.
  expect(html).not.toContain('nightly-secret-name');
  expect(html).not.toContain('sample-vector');
  expect(html).not.toContain(ADMIN);
  // The key field is a password field, and the form cannot be submitted to a URL (the CSP's form-action 'none').
  expect(html).toMatch(/<input type="password" id="admin-key"/);
  expect(csp).toContain("form-action 'none'");
});

test('the script sends the key as a Bearer header to the admin API, takes ?key= once and removes it from the address', async () => {
  const js = text(await sample.get('/admin/console.js', { key: null }));
  expect(js).toContain("import { Map, NavigationControl } from '../assets/maplibre-gl/maplibre-gl.mjs';");
  expect(js).toContain("new URL('api/', import.meta.url)");
  expect(js).toContain("Authorization: 'Bearer ' + key");
  expect(js).toContain('sessionStorage');
  expect(js).toContain('history.replaceState');
  // Nothing from the API is parsed as markup.
  expect(js).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  // It parses as a module (syntax only: the browser tests run it).
  expect(() => new Function(js.replace(/^import .*$/m, '').replace(/import\.meta\.url/g, "'http://x/admin/console.js'"))).not.toThrow();
});

test('every route of admin-console.ts was reached, and nothing failed unexpectedly', () => {
  expect(patternsOf(adminConsole).filter((p) => !app.reached.has(p))).toEqual([]);
  expect([hidden, app, sample].flatMap((a) => a.failures)).toEqual([]);
});
