// src/http/routes/openapi.ts in process: /openapi.json (public, the route table described for this base URL) and
// /docs (Swagger UI from this server, the key passed on).

import * as openapi from '../../../src/http/routes/openapi';
import { BASE_URL, inProcess, json, patternsOf, text } from '../../helpers/in-process';

const app = inProcess();
afterAll(() => app.close());

const OPENAPI_TYPE = 'application/vnd.oai.openapi+json;version=3.1';

test('the route table gives openapi.ts its two patterns', () => {
  expect(patternsOf(openapi)).toEqual(['/openapi.json', '/docs']);
});

test('/openapi.json: public, OpenAPI 3.1, its server the base URL it was asked through', async () => {
  const r = await app.get('/openapi.json', { key: null });
  expect(r).toMatchObject({ status: 200, type: OPENAPI_TYPE, cache: 'document', compressible: true });
  const doc = json<{ openapi: string; info: { title: string }; servers: { url: string }[]; paths: Record<string, Record<string, unknown>> }>(r);
  expect(doc.openapi).toMatch(/^3\.1\./);
  expect(doc.info.title).toBe('tilemirror');
  expect(doc.servers).toEqual([{ url: BASE_URL }]);
  // The spec's optional parts are spelled out: both sizes and scales of a map tile, both forms of the landing page.
  for (const path of ['/maps/{mapId}/{z}/{x}/{y}.{format}', '/maps/{mapId}/256/{z}/{x}/{y}@2x.{format}', '/ogc', '/ogc/', '/geocoding/{longitude},{latitude}.json', '/health/ready']) {
    expect([path, Object.keys(doc.paths[path] ?? {})]).toEqual([path, ['get']]);
  }
  // The admin API's two writes are its only POST operations.
  for (const path of ['/admin/api/jobs/{name}/run', '/admin/api/jobs/{name}/cancel']) expect([path, Object.keys(doc.paths[path] ?? {})]).toEqual([path, ['post']]);
  expect(Object.keys(doc.paths)).toHaveLength(81);
});

test('/docs: Swagger UI from this server, the definition with the key, no asset from elsewhere', async () => {
  const r = await app.get('/docs');
  expect(r).toMatchObject({ status: 200, type: 'text/html; charset=utf-8', cache: 'document' });
  expect(text(r)).toContain(`${BASE_URL}/assets/swagger-ui/swagger-ui-bundle.js`);
  expect(text(r)).toContain(JSON.stringify(`${BASE_URL}/openapi.json?key=demo`));
  expect(text(r)).not.toMatch(/https?:\/\/(?!maps\.example\.org)[^"']*\.(js|css)/);
  expect((await app.get('/docs', { key: null })).status).toBe(200);
});

test('every route of openapi.ts was reached, and nothing failed unexpectedly', () => {
  expect([...app.reached]).toEqual(expect.arrayContaining(patternsOf(openapi)));
  expect(app.failures).toEqual([]);
});
