import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { routes } from '../../src/http/routes';
import { buildOpenApi, expandPattern } from '../../src/ogc/openapi';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('openapi-');

// The OpenAPI definition built from the route table: valid OpenAPI 3.1 (checked by an independent validator from
// npm), and the shapes it gives optional parts, parameters, statuses and the key.

const BASE = 'https://maps.example.org/tiles';
const doc = buildOpenApi(routes, BASE, { title: 'tilemirror', version: '0.0.0-test' }) as {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, { get: Operation }>;
  components: { securitySchemes: Record<string, unknown> };
  security: unknown[];
};
interface Parameter {
  name: string;
  in: string;
  required: boolean;
  schema: Record<string, unknown>;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  responses: Record<string, { content?: Record<string, unknown> }>;
  security?: unknown[];
  deprecated?: boolean;
}

test('the document validates as OpenAPI 3.1 (@seriousme/openapi-schema-validator)', () => {
  const dir = tempDir();
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  const out = execFileSync(process.execPath, [join(__dirname, '../helpers/validate-openapi.mjs'), file], { encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual({ valid: true, version: '3.1', errors: [] });
});

test('the validator does reject a broken document (it is not a no-op)', () => {
  const dir = tempDir();
  const file = join(dir, 'broken.json');
  const broken = { ...doc, paths: { '/x': { get: { responses: { 200: { content: {} } } } } } };
  writeFileSync(file, JSON.stringify(broken));
  const out = JSON.parse(execFileSync(process.execPath, [join(__dirname, '../helpers/validate-openapi.mjs'), file], { encoding: 'utf8' }));
  expect(out.valid).toBe(false);
});

test('optional parts expand to concrete paths; literal parameters are written out', () => {
  const shape = { size: z.literal('256').optional(), scale: z.literal('@2x').optional(), mapId: z.string(), z: z.string(), x: z.string(), y: z.string(), format: z.string() };
  expect(expandPattern('/maps/:mapId/[:size(256)/]:z/:x/:y([^/.@]+)[:scale(@\\d+x)].:format', shape).map((c) => c.path)).toEqual([
    '/maps/{mapId}/{z}/{x}/{y}.{format}',
    '/maps/{mapId}/{z}/{x}/{y}@2x.{format}',
    '/maps/{mapId}/256/{z}/{x}/{y}.{format}',
    '/maps/{mapId}/256/{z}/{x}/{y}@2x.{format}',
  ]);
  expect(expandPattern('/tiles/:tilesId/:z/:x/:y([^/.@]+)[.:ext]')).toEqual([
    { path: '/tiles/{tilesId}/{z}/{x}/{y}', params: ['tilesId', 'z', 'x', 'y'] },
    { path: '/tiles/{tilesId}/{z}/{x}/{y}.{ext}', params: ['tilesId', 'z', 'x', 'y', 'ext'] },
  ]);
  expect(expandPattern('/ogc[/]').map((c) => c.path)).toEqual(['/ogc', '/ogc/']);
});

test('servers, the key as an apiKey scheme, public operations without it', () => {
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.servers).toEqual([{ url: BASE }]);
  expect(doc.components.securitySchemes).toEqual({ key: expect.objectContaining({ type: 'apiKey', in: 'query', name: 'key' }) });
  expect(doc.security).toEqual([{ key: [] }]);
  expect(doc.paths['/health'].get.security).toEqual([]);
  expect(doc.paths['/openapi.json'].get.security).toEqual([]);
  expect(doc.paths['/maps/{mapId}/style.json'].get.security).toBeUndefined();
  expect(doc.paths['/maps/{mapId}/sprite.{format}'].get.deprecated).toBe(true);
});

test('a tile operation: typed path parameters and the statuses the spec names', () => {
  const op = doc.paths['/maps/{mapId}/256/{z}/{x}/{y}@2x.{format}'].get;
  const byName = Object.fromEntries((op.parameters ?? []).map((p) => [p.name, p]));
  expect(Object.keys(byName).sort()).toEqual(['format', 'mapId', 'x', 'y', 'z']);
  expect(byName.z).toMatchObject({ in: 'path', required: true, schema: { type: 'integer', minimum: 0 } });
  expect(byName.z.schema.pattern).toBeUndefined();
  expect(byName.format.schema).toMatchObject({ type: 'string', enum: ['png', 'jpg', 'jpeg', 'webp', 'basis'] });
  expect(Object.keys(op.responses).sort()).toEqual(['200', '204', '304', '400', '403', '404', '414']);
  expect(Object.keys(op.responses['200'].content ?? {})).toEqual(expect.arrayContaining(['image/png', 'image/jpeg', 'image/webp']));
});

test('query parameters: repeated ones are arrays, flags booleans, WMTS KVP listed', () => {
  const op = doc.paths['/maps/{mapId}/static/{area}/{size}.{format}'].get;
  const byName = Object.fromEntries((op.parameters ?? []).map((p) => [p.name, p]));
  expect(byName.path).toMatchObject({ in: 'query', required: false, schema: { type: 'array', items: { type: 'string' } } });
  expect(byName.latlng).toMatchObject({ in: 'query', required: false, schema: { type: 'boolean' } });
  const wmts = doc.paths['/wmts'].get.parameters?.map((p) => p.name);
  expect(wmts).toEqual(['SERVICE', 'REQUEST', 'VERSION', 'ACCEPTVERSIONS', 'SECTIONS', 'LAYER', 'STYLE', 'TILEMATRIXSET', 'TILEMATRIX', 'TILEROW', 'TILECOL', 'FORMAT', 'TIME']);
});

test('an OGC API tile operation: tileMatrix a string naming a matrix, tileRow and tileCol integers from 0 (/req/core/tc-*-definition)', () => {
  const MAP_TILE = '/ogc/collections/{collectionId}/map/tiles/{tmsId}/{tileMatrix}/{tileRow}/{tileCol}';
  for (const path of [MAP_TILE, '/ogc/collections/{collectionId}/tiles/{tmsId}/{tileMatrix}/{tileRow}/{tileCol}', '/ogc/tiles/{tmsId}/{tileMatrix}/{tileRow}/{tileCol}']) {
    const byName = Object.fromEntries((doc.paths[path].get.parameters ?? []).map((p) => [p.name, p]));
    // Vector tiles are in the Web Mercator sets only: their matrices are the zooms. A map tile may be in a grid the
    // server is configured with, whose matrices its definition names.
    const tileMatrix =
      path === MAP_TILE
        ? {
            description:
              'identifier of a tile matrix (a scale) of the tile matrix set: for `WebMercatorQuad` and `WebMercatorQuad512` its zoom level, 0 to 24; for a grid one of the ids its definition (/ogc/tileMatrixSets/{tmsId}) lists',
            schema: { type: 'string', examples: ['11'] },
          }
        : {
            description: 'identifier of a tile matrix (a scale) of the tile matrix set: its zoom level',
            schema: { type: 'string', enum: ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13', '14', '15', '16', '17', '18', '19', '20', '21', '22', '23', '24'], examples: ['11'] },
          };
    expect([path, byName.tileMatrix]).toEqual([path, { name: 'tileMatrix', in: 'path', required: true, ...tileMatrix }]);
    expect(byName.tmsId).toMatchObject({ in: 'path', required: true, schema: { type: 'string' } });
    expect(byName.tileRow).toMatchObject({ in: 'path', required: true, schema: { type: 'integer', minimum: 0 } });
    expect(byName.tileCol).toMatchObject({ in: 'path', required: true, schema: { type: 'integer', minimum: 0 } });
  }
});

test('OGC API operations: tiles under the media types their links advertise, errors as problem details', () => {
  const problem = {
    'application/problem+json': {
      schema: {
        type: 'object',
        required: ['type', 'title', 'status', 'detail'],
        properties: { type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' } },
      },
    },
  };
  const vector = doc.paths['/ogc/tiles/{tmsId}/{tileMatrix}/{tileRow}/{tileCol}'].get;
  expect(vector.responses['200'].content).toEqual({ 'application/vnd.mapbox-vector-tile': { schema: { type: 'string', contentMediaType: 'application/vnd.mapbox-vector-tile' } } });
  expect(Object.keys(doc.paths['/ogc/collections/{collectionId}/tiles/{tmsId}/{tileMatrix}/{tileRow}/{tileCol}'].get.responses['200'].content ?? {})).toEqual(['application/vnd.mapbox-vector-tile']);
  expect(Object.keys(doc.paths['/ogc/collections/{collectionId}/map/tiles/{tmsId}/{tileMatrix}/{tileRow}/{tileCol}'].get.responses['200'].content ?? {})).toEqual(['image/png', 'image/jpeg', 'image/webp']);
  expect(Object.keys(vector.responses).sort()).toEqual(['200', '204', '304', '400', '403', '404', '414']);
  for (const [path, item] of Object.entries(doc.paths).filter(([p]) => p.startsWith('/ogc'))) {
    for (const [status, response] of Object.entries(item.get.responses)) {
      if (Number(status) >= 400) expect([path, status, response.content]).toEqual([path, status, problem]);
    }
  }
  // The other routes keep their plain-text errors.
  expect(doc.paths['/maps/{mapId}/style.json'].get.responses['404'].content).toEqual({ 'text/plain': { schema: { type: 'string' } } });
});

test('operation ids are unique', () => {
  const ids = Object.values(doc.paths).flatMap((p) => Object.values(p as Record<string, { operationId: string }>).map((op) => op.operationId));
  expect(new Set(ids).size).toBe(ids.length);
});

test('the admin writes are the only POST operations, under the Admin tag, answering 202', () => {
  const posts = Object.entries(doc.paths).filter(([, item]) => 'post' in (item as object));
  expect(posts.map(([path]) => path).sort()).toEqual(['/admin/api/jobs/{name}/cancel', '/admin/api/jobs/{name}/run']);
  for (const [, item] of posts) {
    const op = (item as unknown as { post: { tags: string[]; responses: Record<string, unknown> } }).post;
    expect(op.tags).toEqual(['Admin']);
    expect(Object.keys(op.responses)).toContain('202');
    expect(Object.keys(op.responses)).not.toContain('200');
  }
  for (const item of Object.values(doc.paths)) expect(Object.keys(item as object).every((m) => m === 'get' || m === 'post')).toBe(true);
});

afterAll(removeTempDirs);
