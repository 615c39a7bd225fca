// /coordinates/search and /coordinates/transform on the real server (loopback), with the registry index built by
// `npm run indexes` from proj-wasm's proj.db, and through the cloud's own client library (@maptiler/client,
// pointed at this server with its `fetch` hook).

import { DEFAULT_INDEX_DIR } from '../../src/config/load';
import { COORDINATES_400S } from '../fixtures/bad-requests';
import { KEY, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('no-index-');

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ config: { indexDir: DEFAULT_INDEX_DIR } });
});
afterAll(() => srv.close());

async function get(path: string): Promise<{ status: number; body: string }> {
  const r = await fetch(`${srv.url}${path}${path.includes('?') ? '&' : '?'}key=${KEY}`);
  return { status: r.status, body: await r.text() };
}
async function json<T>(path: string): Promise<T> {
  const r = await get(path);
  expect([path, r.status]).toEqual([path, 200]);
  return JSON.parse(r.body) as T;
}

interface Result {
  id: { authority: string; code: number };
  name: string;
  kind: string;
  deprecated: boolean;
  area: string;
  bbox: number[];
  default_transformation: { authority: string; code: number } | null;
  exports?: { proj4: string; wkt: string };
  transformations?: { id: { code: number }; grids: { path: string }[]; usable: boolean; target_crs: { code: number } }[];
}
interface Search {
  results: Result[];
  total: number;
}
interface Transform {
  results: { x: number; y: number; z: number }[];
  transformer_selection_strategy: string;
}

describe('transform', () => {
  test("the spec's documented example: 4326 → 5514 through the CRS's default transformation (EPSG:15965)", async () => {
    const t = await json<Transform>('/coordinates/transform/17,50;17.1,50.1.json?s_srs=4326&t_srs=5514');
    expect(t.results.map((r) => [r.x.toFixed(3), r.y.toFixed(3)])).toEqual([
      ['-560595.699', '-1074706.257'],
      ['-552340.361', '-1064368.377'],
    ]);
    expect(t.transformer_selection_strategy).toBe('boundcrs');
  });

  test('both CRS default to 4326; x,y is longitude, latitude', async () => {
    const t = await json<Transform>('/coordinates/transform/8.5,47.4.json');
    expect(t.results).toEqual([{ x: 8.5, y: 47.4, z: 0 }]);
  });

  test('4326 → 3857 (no datum change): the spherical Mercator formula', async () => {
    const t = await json<Transform>('/coordinates/transform/10,20,5.json?t_srs=3857');
    const R = 6378137;
    expect(t.results[0].x).toBeCloseTo((R * 10 * Math.PI) / 180, 4);
    expect(t.results[0].y).toBeCloseTo(R * Math.log(Math.tan(Math.PI / 4 + (20 * Math.PI) / 360)), 4);
    expect(t.results[0].z).toBe(5);
  });

  test('a default that needs a grid falls back to the next operation, and the strategy says so', async () => {
    const t = await json<Transform>('/coordinates/transform/-1,52.json?t_srs=27700');
    expect(t.transformer_selection_strategy).toMatch(/^auto \(skipped .*needs grid uk_os_OSTN15_NTv2_OSGBtoETRS\.tif\)$/);
    expect(Number.isFinite(t.results[0].x)).toBe(true);
  });

  test('ops: the listed operation is applied (15965 gives the documented example; 5239 another answer)', async () => {
    const a = await json<Transform>('/coordinates/transform/17,50.json?t_srs=5514&ops=15965');
    expect(a.transformer_selection_strategy).toBe('listed');
    expect(a.results[0].x.toFixed(3)).toBe('-560595.699');
    const b = await json<Transform>('/coordinates/transform/17,50.json?t_srs=5514&ops=5239');
    expect(Math.abs(b.results[0].x - a.results[0].x)).toBeGreaterThan(1);
  });

  test('a requested operation that needs a missing grid is a 400 naming the grid', async () => {
    const r = await get('/coordinates/transform/-1,52.json?t_srs=27700&ops=7710');
    expect(r.status).toBe(400);
    expect(r.body).toMatch(/ops.*EPSG:7710.*needs grid \S+/);
  });

  test('dynamic frames answer as cs2cs does, with its warning that the coordinates have no epoch', async () => {
    // ETRF2014 (geographic): through ETRS89, a null transformation without an epoch, as PROJ 9.9 chooses.
    const etrf = await json<Transform>('/coordinates/transform/10,50.json?t_srs=9069');
    expect(etrf.results[0]).toEqual({ x: 10, y: 50, z: 0 });
    expect(etrf.transformer_selection_strategy).toBe('auto (input coordinates lack a coordinate epoch, whereas the destination CRS is dynamic: results might be inaccurate)');
    // ITRF2000 (geocentric): through WGS 84 (G1150), whose Helmert to ITRF2000 is null; so the geocentric
    // coordinates of the point on GRS 80, worked out here from the ellipsoid (to 1 mm).
    const itrf = await json<Transform>('/coordinates/transform/10,50,0.json?t_srs=4919');
    const a = 6378137;
    const f = 1 / 298.257222101;
    const e2 = f * (2 - f);
    const [lat, lon] = [(50 * Math.PI) / 180, (10 * Math.PI) / 180];
    const n = a / Math.sqrt(1 - e2 * Math.sin(lat) ** 2);
    const { x, y, z } = itrf.results[0];
    const ecef = [n * Math.cos(lat) * Math.cos(lon), n * Math.cos(lat) * Math.sin(lon), n * (1 - e2) * Math.sin(lat)];
    expect(Math.max(...[x, y, z].map((v, i) => Math.abs(v - ecef[i])))).toBeLessThan(0.001);
    // and back from ETRF2014, the source side now dynamic
    const back = await json<Transform>('/coordinates/transform/10,50.json?s_srs=9069');
    expect(back.transformer_selection_strategy).toMatch(/whereas the source CRS is dynamic/);
  });

  test('round trip 4326 → 2056 → 4326 within 1e-7 degrees (1 cm)', async () => {
    const there = await json<Transform>('/coordinates/transform/8.5,47.4;7.4,46.9.json?t_srs=2056');
    const back = await json<Transform>(`/coordinates/transform/${there.results.map((r) => `${r.x},${r.y}`).join(';')}.json?s_srs=2056`);
    expect(back.results[0].x).toBeCloseTo(8.5, 7);
    expect(back.results[1].y).toBeCloseTo(46.9, 7);
  });
});

describe('search', () => {
  test('an exact code comes first, with every field of the result', async () => {
    const s = await json<Search>('/coordinates/search/5514.json?transformations=true&exports=true');
    const r = s.results[0];
    expect(r.id).toEqual({ authority: 'EPSG', code: 5514 });
    expect(r).toMatchObject({ name: 'S-JTSK / Krovak East North', kind: 'CRS-PROJCRS', deprecated: false, default_transformation: { authority: 'EPSG', code: 15965 } });
    expect(r.bbox).toHaveLength(4);
    expect(r.exports?.proj4).toContain('+proj=krovak');
    expect(r.exports?.wkt).toMatch(/^PROJCRS\["S-JTSK \/ Krovak East North"/);
    const codes = r.transformations?.map((t) => t.id.code);
    expect(codes).toEqual(expect.arrayContaining([15965, 5239]));
    for (const t of r.transformations ?? []) expect([t.target_crs.code, t.usable]).toEqual([4326, t.grids.length === 0]);
  });

  test.each([
    ['wgs 84', 4326],
    ['mercator', 3857],
    ['web mercator', 3857],
    ['google', 3857],
  ])('"%s" ranks EPSG:%d first', async (q, code) => {
    const s = await json<Search>(`/coordinates/search/${encodeURIComponent(q)}.json`);
    expect(s.results[0].id.code).toBe(code);
  });

  test('kind filters use the spec codes; a kind with no objects answers an empty list', async () => {
    const ens = await json<Search>('/coordinates/search/kind:DATUM-ENSEMDAT.json?limit=50');
    expect(ens.results.length).toBeGreaterThan(0);
    expect(ens.results.every((r) => r.kind === 'DATUM-ENSEMDAT')).toBe(true);
    expect(ens.results.map((r) => r.id.code)).toContain(6326);
    const tran = await json<Search>('/coordinates/search/S-JTSK%20WGS%2084%20kind:COORDOP-COPTRAN.json?limit=50');
    expect(tran.results.map((r) => r.id.code)).toContain(15965);
    const none = await json<Search>('/coordinates/search/kind:CRS-DRVDCRS.json');
    expect(none).toEqual({ results: [], total: 0 });
  });

  test('limit, offset and total page through the same list', async () => {
    const all = await json<Search>('/coordinates/search/Krovak.json?limit=20');
    const page = await json<Search>('/coordinates/search/Krovak.json?limit=5&offset=5');
    expect(page.total).toBe(all.total);
    expect(page.results.map((r) => r.id.code)).toEqual(all.results.slice(5, 10).map((r) => r.id.code));
  });

  test('deprecated:0 (default) hides deprecated objects; deprecated:1 shows only them; code: and trans: filter', async () => {
    const dep = await json<Search>('/coordinates/search/deprecated:1%20kind:*.json?limit=50');
    expect(dep.total).toBeGreaterThan(0);
    expect(dep.results.every((r) => r.deprecated)).toBe(true);
    const def = await json<Search>('/coordinates/search/kind:*.json?limit=50');
    expect(def.results.every((r) => !r.deprecated)).toBe(true);
    const code = await json<Search>('/coordinates/search/code:2056.json');
    expect(code.results.map((r) => r.id.code)).toEqual([2056]);
    const trans = await json<Search>('/coordinates/search/trans:15965%20Krovak.json?limit=50');
    expect(trans.results.map((r) => r.id.code)).toContain(5514);
  });
});

describe('every 400', () => {
  test.each(COORDINATES_400S)('%s', async (path, message) => {
    const r = await get(path);
    expect([r.status, r.body]).toEqual([400, expect.stringMatching(message)]);
  });

  test('no key is 403', async () => {
    const r = await fetch(`${srv.url}/coordinates/search/wgs.json`);
    expect(r.status).toBe(403);
  });
});

test('without the index both endpoints answer 503 saying to run npm run indexes', async () => {
  const bare = await startServer({ config: { indexDir: tempDir() } });
  try {
    for (const p of ['/coordinates/search/wgs.json', '/coordinates/transform/1,2.json']) {
      const r = await fetch(`${bare.url}${p}?key=${KEY}`);
      expect([r.status, await r.text()]).toEqual([503, expect.stringContaining('npm run indexes')]);
    }
  } finally {
    await bare.close();
  }
});

describe('the cloud client library (@maptiler/client)', () => {
  // Its CommonJS build (Jest's sandbox cannot import the ES module one).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const client = require('@maptiler/client') as typeof import('@maptiler/client', { with: { 'resolution-mode': 'require' } });
  beforeAll(() => {
    client.config.apiKey = KEY;
    client.config.fetch = ((u: string | URL, init?: RequestInit) => fetch(String(u).replace('https://api.maptiler.com', srv.url), init)) as typeof fetch;
  });

  test('coordinates.search', async () => {
    const r = await client.coordinates.search('mercator', { limit: 3, transformations: true, exports: true });
    expect(r.results[0].id.code).toBe(3857);
    expect(r.results.length).toBe(3);
    expect(r.total).toBeGreaterThan(3);
    expect(r.results[0].exports?.proj4).toContain('+proj=merc');
  });

  test('coordinates.transform', async () => {
    const r = await client.coordinates.transform([[17, 50], [17.1, 50.1]], { sourceCrs: 4326, targetCrs: 5514 });
    expect(r.results.map((p) => [p.x?.toFixed(3), p.y?.toFixed(3)])).toEqual([
      ['-560595.699', '-1074706.257'],
      ['-552340.361', '-1064368.377'],
    ]);
    expect(r.transformer_selection_strategy).toBe('boundcrs');
  });
});

afterAll(removeTempDirs);
