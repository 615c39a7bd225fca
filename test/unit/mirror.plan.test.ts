import { tileRange } from '../../src/geo/mercator';
import { parseBBox, parseZoomRange, planBounds, planPyramid, planZoom } from '../../src/mirror/plan';
import { mergeIntervals, rangesToBands, tileAt, tilesOf } from '../../src/geo/tile-bands';
import { UsageError } from '../../src/mirror/errors';
import type { Bounds } from '../../src/store/types';

const WORLD: Bounds = [-180, -85.0511287798066, 180, 85.0511287798066];
const SWISS: Bounds = [5.9, 45.8, 10.5, 47.8];

/** Brute force: every tile of every area's range ∩ the limit range, as a set of keys. */
function bruteForce(areas: Bounds[], limit: Bounds, z: number): Set<string> {
  const lim = tileRange(limit, z);
  const out = new Set<string>();
  for (const a of areas) {
    const r = tileRange(a, z);
    for (let x = Math.max(r.minX, lim.minX); x <= Math.min(r.maxX, lim.maxX); x++)
      for (let y = Math.max(r.minY, lim.minY); y <= Math.min(r.maxY, lim.maxY); y++) out.add(`${z}/${x}/${y}`);
  }
  return out;
}

describe('argument parsing', () => {
  test('bbox', () => {
    expect(parseBBox('5.9,45.8,10.5,47.8')).toEqual(SWISS);
    expect(parseBBox(' 170, -10 , -170, 10')).toEqual([170, -10, -170, 10]);
    for (const bad of ['1,2,3', '1,2,3,x', '0,50,10,40', '-190,0,0,10', '0,-91,1,1', '1,,2,3']) expect(() => parseBBox(bad)).toThrow(UsageError);
  });
  test('zoom range', () => {
    expect(parseZoomRange('0-8')).toEqual([0, 8]);
    expect(parseZoomRange('5')).toEqual([5, 5]);
    for (const bad of ['8-0', 'a', '0-31', '-1', '1-2-3']) expect(() => parseZoomRange(bad)).toThrow(UsageError);
  });
});

describe('plan counts', () => {
  test('the whole world has 4^z tiles per zoom', () => {
    const plan = planPyramid('main', { minzoom: 0, maxzoom: 6, bounds: WORLD });
    expect(plan.zooms.map((z) => z.count)).toEqual([1, 4, 16, 64, 256, 1024, 4096]);
    expect(plan.count).toBe(5461);
  });

  test('requested zooms are clipped to the upstream range', () => {
    const plan = planPyramid('main', { minzoom: 2, maxzoom: 4, bounds: WORLD }, [], [0, 10]);
    expect(plan.zooms.map((z) => z.z)).toEqual([2, 3, 4]);
    expect(planPyramid('main', { minzoom: 2, maxzoom: 4, bounds: WORLD }, [], [6, 8]).zooms).toEqual([]);
  });

  test('a bbox yields exactly the tiles of tileRange per zoom', () => {
    for (let z = 0; z <= 12; z++) {
      const r = tileRange(SWISS, z);
      expect(planZoom([SWISS], WORLD, z).count).toBe((r.maxX - r.minX + 1) * (r.maxY - r.minY + 1));
    }
  });

  test('overlapping bboxes are counted and generated once', () => {
    const areas: Bounds[] = [
      [5, 45, 11, 48],
      [8, 46, 12, 49],
      [9, 47, 9.5, 47.5], // inside the first
      [-5, 40, 2, 51],
    ];
    for (let z = 0; z <= 11; z++) {
      const zp = planZoom(areas, WORLD, z);
      const expected = bruteForce(areas, WORLD, z);
      expect(zp.count).toBe(expected.size);
      const got = [...tilesOf({ pyramid: 'p', zooms: [zp], count: zp.count })].map((t) => `${t.z}/${t.x}/${t.y}`);
      expect(got.length).toBe(expected.size);
      expect(new Set(got)).toEqual(expected);
    }
  });

  test('areas are intersected with the upstream bounds', () => {
    const areas: Bounds[] = [[0, 40, 20, 50]];
    for (let z = 0; z <= 12; z++) expect(planZoom(areas, SWISS, z).count).toBe(bruteForce(areas, SWISS, z).size);
    // Disjoint from the upstream: nothing.
    expect(planZoom([[-20, -20, -10, -10]], SWISS, 8).count).toBe(0);
    // No areas: the upstream bounds themselves (the sample terrain is 198 tiles over z0-10).
    expect(planPyramid('main', { minzoom: 0, maxzoom: 10, bounds: SWISS }).count).toBe(198);
  });

  test('a bbox crossing the antimeridian covers both sides only', () => {
    const zp = planZoom([[170, -10, -170, 10]], WORLD, 4);
    const expected = bruteForce([[170, -10, 180, 10], [-180, -10, -170, 10]], WORLD, 4);
    expect(zp.count).toBe(expected.size);
    expect(zp.count).toBeLessThan(16 * 2);
  });

  test('tiles come one at a time from a generator, even for huge plans', () => {
    const plan = planPyramid('main', { minzoom: 0, maxzoom: 20, bounds: WORLD });
    expect(plan.count).toBe((4 ** 21 - 1) / 3);
    const it = tilesOf(plan);
    expect(it.next().value).toEqual({ pyramid: 'main', z: 0, x: 0, y: 0 });
    expect(it.next().value).toEqual({ pyramid: 'main', z: 1, x: 0, y: 0 });
  });

  test('tileAt agrees with the generator order', () => {
    const zp = planZoom([[5, 45, 11, 48], [8, 46, 12, 49]], WORLD, 9);
    const all = [...tilesOf({ pyramid: 'p', zooms: [zp], count: zp.count })];
    all.forEach((t, i) => expect(tileAt(zp, i)).toEqual({ x: t.x, y: t.y }));
    expect(tileAt(zp, all.length)).toBeUndefined();
  });

  test('bands and intervals', () => {
    expect(mergeIntervals([[5, 7], [0, 2], [3, 4], [10, 12], [11, 11]])).toEqual([[0, 7], [10, 12]]);
    expect(rangesToBands([{ minX: 0, maxX: 3, minY: 0, maxY: 3 }, { minX: 2, maxX: 5, minY: 2, maxY: 5 }])).toEqual([
      { y0: 0, y1: 1, xs: [[0, 3]] },
      { y0: 2, y1: 3, xs: [[0, 5]] },
      { y0: 4, y1: 5, xs: [[2, 5]] },
    ]);
  });

  test('advertised bounds: the areas clipped to the upstream', () => {
    expect(planBounds(SWISS, [])).toEqual(SWISS);
    expect(planBounds(SWISS, [[0, 40, 7, 46], [9, 47, 20, 60]])).toEqual([5.9, 45.8, 10.5, 47.8]);
    expect(planBounds(WORLD, [[1, 2, 3, 4], [5, 6, 7, 8]])).toEqual([1, 2, 7, 8]);
  });
});
