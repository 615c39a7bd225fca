// /coordinates/transform in process where PROJ's default transformation needs care: a CRS whose area of use is
// larger than that of every operation to WGS 84 (ETRS89 / LAEA Europe: the null ETRS89 ↔ WGS 84 operation covers
// Europe's land, the CRS its seas too), both directions, and a CRS without horizontal coordinates.
// Expected figures: the worked example of IOGP's Guidance Note 7-2 (Lambert Azimuthal Equal Area, EPSG:3035).

import { inProcess, json, text } from '../helpers/in-process';

const app = inProcess();
afterAll(() => app.close());

interface Transform {
  results: { x: number; y: number; z: number }[];
  transformer_selection_strategy: string;
}

// GN 7-2, method 9820: ETRS89 50°N 5°E → E 3 962 799.45 m, N 2 999 718.85 m. ETRS89 → WGS 84 is the null
// operation (EPSG:1149, 1 m), so the same figures from 4326.
const LAEA_EXAMPLE = { lon: 5, lat: 50, e: 3962799.45, n: 2999718.85 };

test('4326 → 3035 (ETRS89 / LAEA Europe): the guidance note example to 1 cm', async () => {
  const r = await app.get(`/coordinates/transform/${LAEA_EXAMPLE.lon},${LAEA_EXAMPLE.lat};10,50.json?s_srs=4326&t_srs=3035`);
  expect(r.status).toBe(200);
  const t = json<Transform>(r);
  expect(Math.abs(t.results[0].x - LAEA_EXAMPLE.e)).toBeLessThan(0.01);
  expect(Math.abs(t.results[0].y - LAEA_EXAMPLE.n)).toBeLessThan(0.01);
  // 10°E is the projection's central meridian: the easting is its false easting.
  expect(t.results[1].x).toBeCloseTo(4321000, 6);
  expect(t.transformer_selection_strategy).toBe('auto');
});

test('3035 → 4326: the example back', async () => {
  const r = await app.get(`/coordinates/transform/${LAEA_EXAMPLE.e},${LAEA_EXAMPLE.n}.json?s_srs=3035&t_srs=4326`);
  expect(r.status).toBe(200);
  const [p] = json<Transform>(r).results;
  expect(Math.abs(p.x - LAEA_EXAMPLE.lon)).toBeLessThan(1e-7);
  expect(Math.abs(p.y - LAEA_EXAMPLE.lat)).toBeLessThan(1e-7);
});

test('the reverse direction asked first answers the same as after the forward one', async () => {
  // 3034 (ETRS89 / LCC Europe) has not been asked yet: the way back is built before the way there.
  const back = json<Transform>(await app.get('/coordinates/transform/4000000,2800000.json?s_srs=3034&t_srs=4326')).results[0];
  const there = json<Transform>(await app.get(`/coordinates/transform/${back.x},${back.y}.json?s_srs=4326&t_srs=3034`)).results[0];
  expect(Math.abs(there.x - 4000000)).toBeLessThan(0.001);
  expect(Math.abs(there.y - 2800000)).toBeLessThan(0.001);
});

test('a vertical CRS has no horizontal coordinates to transform: 400 saying so', async () => {
  const r = await app.get('/coordinates/transform/10,50.json?s_srs=4326&t_srs=5714');
  expect(r.status).toBe(400);
  expect(text(r)).toMatch(/EPSG:5714.*no horizontal coordinates/);
});
