// src/http/routes/coordinates.ts in process: search of the EPSG registry and transforms through PROJ (the index
// built by `npm run indexes`), the spec's documented example, every 400 of test/integration/coordinates.test.ts,
// and 503 without the index.

import * as coordinates from '../../../src/http/routes/coordinates';
import { COORDINATES_400S } from '../../fixtures/bad-requests';
import { failure, inProcess, json, patternsOf } from '../../helpers/in-process';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-no-index-');

const app = inProcess();
const noIndex = tempDir();
const bare = inProcess({ config: { indexDir: noIndex } });
afterAll(async () => {
  await app.close();
  await bare.close();
  removeTempDirs();
});

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

interface Transform {
  results: { x: number; y: number; z: number }[];
  transformer_selection_strategy: string;
}
interface Search {
  results: { id: { authority: string; code: number }; name: string; kind: string; deprecated: boolean; bbox: number[]; exports?: { proj4: string; wkt: string } }[];
  total: number;
}

test('the route table gives coordinates.ts its two patterns', () => {
  expect(patternsOf(coordinates)).toEqual(['/coordinates/search/:query.json', '/coordinates/transform/:coordinates.json']);
});

describe('transform', () => {
  test("the spec's documented example: 4326 → 5514 through the CRS's default transformation", async () => {
    const r = await app.get('/coordinates/transform/17,50;17.1,50.1.json?s_srs=4326&t_srs=5514');
    expect(r).toMatchObject({ status: 200, type: JSON_TYPE, cache: 'document' });
    const t = json<Transform>(r);
    expect(t.results.map((p) => [p.x.toFixed(3), p.y.toFixed(3)])).toEqual([
      ['-560595.699', '-1074706.257'],
      ['-552340.361', '-1064368.377'],
    ]);
    expect(t.transformer_selection_strategy).toBe('boundcrs');
  });

  test('both reference systems default to 4326; x,y is longitude, latitude', async () => {
    expect(json<Transform>(await app.get('/coordinates/transform/8.5,47.4.json')).results).toEqual([{ x: 8.5, y: 47.4, z: 0 }]);
  });

  test('4326 → 3857: the spherical Mercator formula, z kept', async () => {
    const [p] = json<Transform>(await app.get('/coordinates/transform/10,20,5.json?t_srs=3857')).results;
    const R = 6378137;
    expect(p.x).toBeCloseTo((R * 10 * Math.PI) / 180, 4);
    expect(p.y).toBeCloseTo(R * Math.log(Math.tan(Math.PI / 4 + (20 * Math.PI) / 360)), 4);
    expect(p.z).toBe(5);
  });

  test('ops: the listed operation is applied', async () => {
    const t = json<Transform>(await app.get('/coordinates/transform/17,50.json?t_srs=5514&ops=15965'));
    expect(t.transformer_selection_strategy).toBe('listed');
    expect(t.results[0].x.toFixed(3)).toBe('-560595.699');
  });
});

describe('search', () => {
  test('an exact code comes first, with its exports', async () => {
    const r = await app.get('/coordinates/search/5514.json?exports=true');
    expect(r).toMatchObject({ status: 200, type: JSON_TYPE, cache: 'document' });
    const first = json<Search>(r).results[0];
    expect(first).toMatchObject({ id: { authority: 'EPSG', code: 5514 }, name: 'S-JTSK / Krovak East North', kind: 'CRS-PROJCRS', deprecated: false });
    expect(first.exports?.proj4).toContain('+proj=krovak');
  });

  test.each([
    ['wgs 84', 4326],
    ['web mercator', 3857],
  ])('"%s" ranks EPSG:%d first', async (q, code) => {
    expect(json<Search>(await app.get(`/coordinates/search/${encodeURIComponent(q)}.json`)).results[0].id.code).toBe(code);
  });

  test('limit and offset page through the same list', async () => {
    const all = json<Search>(await app.get('/coordinates/search/Krovak.json?limit=20'));
    const page = json<Search>(await app.get('/coordinates/search/Krovak.json?limit=5&offset=5'));
    expect(page.total).toBe(all.total);
    expect(page.results.map((r) => r.id.code)).toEqual(all.results.slice(5, 10).map((r) => r.id.code));
  });
});

test.each([
  ...COORDINATES_400S,
  ['/coordinates/transform/-1,52.json?t_srs=27700&ops=7710', /ops.*EPSG:7710.*needs grid \S+/],
])('%s → 400 %s', async (path, message) => {
  expect(failure(await app.get(path))).toEqual({ status: 400, type: TEXT, message: expect.stringMatching(message) });
});

test.each(['/coordinates/search/wgs.json', '/coordinates/transform/1,2.json'])('without the index %s answers 503 saying to run npm run indexes', async (path) => {
  expect(failure(await bare.get(path))).toEqual({ status: 503, type: TEXT, message: expect.stringContaining('npm run indexes') });
});

test('every route of coordinates.ts was reached, and nothing failed unexpectedly', () => {
  expect([...app.reached]).toEqual(expect.arrayContaining(patternsOf(coordinates)));
  expect([...app.failures, ...bare.failures]).toEqual([]);
});
