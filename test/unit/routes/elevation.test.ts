// src/http/routes/elevation.ts in process: heights from the sample terrain against the function it was drawn
// from, feet, every 400 of test/integration/elevation.test.ts (texts included), positions no terrain covers, and
// 503 without terrain or without the service.

import { join } from 'node:path';
import sharp from 'sharp';
import { tileRange } from '../../../src/geo/mercator';
import * as elevation from '../../../src/http/routes/elevation';
import { sampleTerrainElevation, TERRAIN_BOUNDS } from '../../../src/sample/terrain';
import { ELEVATION_400S } from '../../fixtures/bad-requests';
import { writeHandMadeStore } from '../../fixtures/hand-made-stores';
import { rng } from '../../helpers/fuzz-requests';
import { failure, inProcess, json, patternsOf } from '../../helpers/in-process';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-no-terrain-');

type Answer = [number, number, number][];
const TEXT = 'text/plain; charset=utf-8';
const path = (positions: readonly (readonly number[])[]) => `/elevation/${positions.map((p) => p.join(',')).join(';')}.json`;

const app = inProcess();
// A data directory without terrain; one whose only terrain covers a region (z5, 1500 m everywhere).
const empty = tempDir();
const region = tempDir('tilemirror-region-terrain-');
const REGION: [number, number, number, number] = [5.9, 45.8, 10.5, 47.8];
/** Terrain-RGB of a height, encoded here (0.1 m steps from -10 km), apart from the service's decoder. */
const mapboxRgb = (h: number): [number, number, number] => {
  const v = Math.round((h + 10000) * 10);
  return [Math.floor(v / 65536) % 256, Math.floor(v / 256) % 256, v % 256];
};
const apps: Record<string, ReturnType<typeof inProcess>> = {};
beforeAll(async () => {
  const raw = Buffer.alloc(256 * 256 * 3);
  for (let i = 0; i < 256 * 256; i++) raw.set(mapboxRgb(1500), i * 3);
  const png = await sharp(raw, { raw: { width: 256, height: 256, channels: 3 } }).png().toBuffer();
  const r = tileRange(REGION, 5);
  const tiles = [];
  for (let x = r.minX; x <= r.maxX; x++) for (let y = r.minY; y <= r.maxY; y++) tiles.push({ z: 5, x, y, data: png });
  writeHandMadeStore(join(region, 'tiles/region-terrain.mbtiles'), {
    metadata: { name: 'region', format: 'png', minzoom: '5', maxzoom: '5', bounds: REGION.join(','), encoding: 'mapbox' },
    tiles,
  });
  apps.region = inProcess({ dataDir: region, config: { elevation: { tileset: 'region-terrain' } } });
  apps.missing = inProcess({ dataDir: region, config: { elevation: { tileset: 'nope' } } });
  apps.empty = inProcess({ dataDir: empty });
  apps.without = inProcess({ without: ['elevation'] });
});
afterAll(async () => {
  for (const a of [app, ...Object.values(apps)]) await a.close();
  removeTempDirs();
});

test('the route table gives elevation.ts its one pattern', () => {
  expect(patternsOf(elevation)).toEqual(['/elevation/:locations.json']);
});

test('agrees with the sample terrain function at 50 seeded positions over its bounds (within 0.25 m), in the order asked', async () => {
  const random = rng(9);
  const [w, s, e, n] = TERRAIN_BOUNDS;
  const positions = Array.from({ length: 50 }, () => [Math.round((w + random() * (e - w)) * 1e6) / 1e6, Math.round((s + random() * (n - s)) * 1e6) / 1e6]);
  const r = await app.get(path(positions));
  expect(r).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', cache: 'document' });
  const answer = json<Answer>(r);
  expect(answer.map(([lng, lat]) => [lng, lat])).toEqual(positions);
  for (const [lng, lat, h] of answer) expect([lng, lat, Math.abs(h - sampleTerrainElevation(lng, lat)) < 0.25]).toEqual([lng, lat, true]);
});

test('feet are metres / 0.3048; unit=meters is the default', async () => {
  const pos = [[8.2, 46.8], [7.1, 46.1]];
  const m = json<Answer>(await app.get(path(pos)));
  const ft = json<Answer>(await app.get(path(pos), { query: { unit: 'feet' } }));
  ft.forEach(([, , h], i) => expect(Math.abs(h - m[i][2] / 0.3048)).toBeLessThan(0.02));
  expect(json(await app.get(path(pos), { query: { unit: 'meters' } }))).toEqual(m);
});

test('the limits themselves are fine: 50 positions, ±85 and ±179.999', async () => {
  const r = await app.get(path([...Array(48).fill([8, 46]), [179.999, 85], [-179.999, -85]]));
  expect(r.status).toBe(200);
  expect(json<Answer>(r)).toHaveLength(50);
});

test.each([
  ...ELEVATION_400S,
  ['/elevation/8,46.json?unit=yards', 'Invalid unit: yards (meters or feet)'],
])('%s → 400 %s', async (p, message) => {
  expect(failure(await app.get(p))).toEqual({ status: 400, type: TEXT, message });
});

test('a position the configured terrain does not cover is a 400 naming it', async () => {
  expect(json(await apps.region.get(path([[8.2, 46.8]])))).toEqual([[8.2, 46.8, 1500]]);
  expect(failure(await apps.region.get(path([[8.2, 46.8], [-120, 40]])))).toEqual({
    status: 400,
    type: TEXT,
    message: 'Out of bounds: position 2 (-120,40) is not covered by the terrain tileset region-terrain',
  });
});

test('503 when no terrain is mirrored, the configured tileset is missing, or the service is not running; validation first', async () => {
  expect(failure(await apps.empty.get(path([[8, 46]])))).toEqual({ status: 503, type: TEXT, message: 'No terrain tileset is mirrored (mirror tiles/terrain-rgb-v2, or set elevation.tileset)' });
  expect(failure(await apps.missing.get(path([[8, 46]])))).toEqual({ status: 503, type: TEXT, message: 'The configured elevation tileset tiles/nope is not in the data directory' });
  expect(failure(await apps.without.get(path([[8, 46]])))).toEqual({ status: 503, type: TEXT, message: 'The elevation service is not running on this server' });
  expect((await apps.empty.get('/elevation/x.json')).status).toBe(400);
});

test('every route of elevation.ts was reached, and nothing failed unexpectedly', () => {
  expect([...app.reached]).toEqual(expect.arrayContaining(patternsOf(elevation)));
  expect([app, ...Object.values(apps)].flatMap((a) => a.failures)).toEqual([]);
});
