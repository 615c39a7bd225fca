// src/http/routes/admin-stores.ts in process over the bundled sample: every store with its facts (tiles and bytes
// read from the file, the sample as origin), and a store's coverage at a zoom read from its tiles.

import { statSync } from 'node:fs';
import { join } from 'node:path';
import * as adminStores from '../../../src/http/routes/admin-stores';
import { failure, inProcess, json, patternsOf, SAMPLE_DIR } from '../../helpers/in-process';

const ADMIN = 'admin-key-stores-9d2c';
const app = inProcess({ dataDir: SAMPLE_DIR, config: { admin: { keys: [ADMIN] } } });
const hidden = inProcess();
afterAll(async () => {
  await app.close();
  await hidden.close();
});

interface Store {
  id: string;
  kind: string;
  format: string;
  storage: string;
  tileSize: number;
  minzoom: number;
  maxzoom: number;
  tiles: number;
  bytes: number;
  origin: { type: string };
  job: string | null;
  coverage: string;
}

test('the route table gives admin-stores.ts its two patterns', () => {
  expect(patternsOf(adminStores)).toEqual(['/admin/api/stores', '/admin/api/stores/:id(.+?)/coverage']);
});

test('admin key only: 404 without admin keys, 403 for an API key', async () => {
  expect((await hidden.get('/admin/api/stores', { key: ADMIN })).status).toBe(404);
  expect(failure(await app.get('/admin/api/stores'))).toMatchObject({ status: 403 });
  expect((await app.get('/admin/api/stores', { key: null, headers: { Authorization: `Bearer ${ADMIN}` } })).status).toBe(200);
});

test('every tile store of the sample, its facts from its file', async () => {
  const r = await app.get('/admin/api/stores', { key: ADMIN });
  expect(r).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', cache: 'none', headers: { 'Cache-Control': 'no-store' } });
  const { stores } = json<{ stores: Store[] }>(r);
  const map = stores.find((s) => s.id === 'maps/sample')!;
  // The sample map: two pyramids of 1,365 tiles each (z0-5, 512 and 256 px).
  expect(map).toMatchObject({ kind: 'maps', format: 'png', storage: 'mbtiles', tileSize: 512, minzoom: 0, maxzoom: 5, tiles: 2730, origin: { type: 'sample' }, job: null });
  expect(map.bytes).toBe(statSync(join(SAMPLE_DIR, 'maps', 'sample.mbtiles')).size);
  expect(map.coverage).toBe('/admin/api/stores/maps%2Fsample/coverage');
  expect(stores.map((s) => s.id)).toEqual(expect.arrayContaining(['tiles/sample-vector', 'images/sample-image']));
});

test('coverage: the mirrored area and the tiles present at a zoom; z outside the store is a 400, an unknown store a 404', async () => {
  const c = json<{ z: number; tiles: number; expected: number; truncated: boolean; features: { properties: Record<string, unknown>; geometry: { coordinates: number[][][] } }[] }>(
    await app.get('/admin/api/stores/maps%2Fsample/coverage?z=2', { key: ADMIN }),
  );
  expect(c).toMatchObject({ z: 2, tiles: 16, expected: 16, truncated: false });
  expect(c.features[0].properties).toEqual({ type: 'mirrored' });
  expect(c.features.slice(1).map((f) => `${f.properties.x}/${f.properties.y}`).sort()).toHaveLength(16);
  // Tile 2/0/0: the north-west quarter of the north-west quarter.
  const nw = c.features.find((f) => f.properties.x === 0 && f.properties.y === 0)!;
  expect(nw.geometry.coordinates[0][0][0]).toBeCloseTo(-180, 6);
  expect(nw.geometry.coordinates[0][2][1]).toBeCloseTo(85.0511, 3);
  // Without z: the deepest zoom of at most 20,000 expected tiles (z5: 1,024).
  expect(json<{ z: number }>(await app.get('/admin/api/stores/maps/sample/coverage', { key: ADMIN })).z).toBe(5);
  expect(failure(await app.get('/admin/api/stores/maps%2Fsample/coverage?z=6', { key: ADMIN }))).toMatchObject({ status: 400 });
  expect(failure(await app.get('/admin/api/stores/maps%2Fnope/coverage', { key: ADMIN }))).toMatchObject({ status: 404 });
});
