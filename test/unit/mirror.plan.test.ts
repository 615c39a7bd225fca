import { tileRange } from '../../src/geo/mercator';
import { centreWithin, fingerprintOf, overzoomed, parseBBox, parseZoomRange, planBounds, planDiscovered, planPyramid, planZoom, renderRaster, renderedTiles } from '../../src/mirror/plan';
import type { Discovered } from '../../src/mirror/discovery/types';
import { formatSummary } from '../../src/mirror/report';
import type { MirrorResult } from '../../src/mirror/engine/result';
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

  test('a rectangle comes column by column, the order of the MBTiles index (zoom_level, tile_column, tile_row)', () => {
    const zp = planZoom([[5, 45, 11, 48]], WORLD, 9);
    expect(zp.bands).toHaveLength(1);
    const got = [...tilesOf({ pyramid: 'p', zooms: [zp], count: zp.count })].map((t) => [t.x, t.y]);
    const byColumn = got.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(got).toEqual(byColumn);
    // Not row by row: the second tile is below the first, not beside it.
    expect(got[1]).toEqual([got[0][0], got[0][1] + 1]);
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

/** A z0-4 raster source over Switzerland, as discovery hands it to the plan. */
function swissSource(): Discovered {
  const pyramid = { name: 'main', tileSize: 256, scale: 1, format: 'png' as const, minzoom: 0, maxzoom: 4, bounds: SWISS };
  return {
    kind: 'tiles', id: 'swiss', documents: [], notes: [], prefetched: [],
    header: { kind: 'tiles', name: 'Swiss', center: [8.2, 46.8, 2], pyramids: [pyramid] },
    pyramids: [{ pyramid, template: 'http://up.example/tiles/swiss/{z}/{x}/{y}.png' }],
  };
}

describe('narrowing a discovered source (what the run publishes and says)', () => {
  test('a bbox that misses the source is a usage error naming both boxes, not one tile published', () => {
    expect(() => planDiscovered(swissSource(), undefined, [[100, 10, 110, 20]])).toThrow(UsageError);
    expect(() => planDiscovered(swissSource(), undefined, [[100, 10, 110, 20]])).toThrow(/\[100, 10, 110, 20\] misses the source's bounds \[5\.9, 45\.8, 10\.5, 47\.8\]/);
  });
  test('one box of two missing is a note, the other is mirrored', () => {
    const p = planDiscovered(swissSource(), undefined, [[100, 10, 110, 20], [6, 46, 7, 47]]);
    expect(p.notes).toEqual(["the area [100, 10, 110, 20] misses the source's bounds: nothing mirrored for it"]);
    expect(p.header.pyramids[0].bounds).toEqual([6, 46, 7, 47]);
  });
  test('zooms beyond the source are cut with a note saying what was mirrored', () => {
    const p = planDiscovered(swissSource(), [3, 6]);
    expect(p.header.pyramids[0]).toMatchObject({ minzoom: 3, maxzoom: 4 });
    expect(p.notes).toEqual(['zooms 3-6 requested, the source has 0-4: mirrored 3-4']);
    expect(planDiscovered(swissSource(), [1, 3]).notes).toEqual([]);
    expect(() => planDiscovered(swissSource(), [6, 8])).toThrow(/zooms 6-8 are outside the upstream's \(0-4\)/);
  });
  test('the centre stays inside the mirrored bounds and zooms', () => {
    const p = planDiscovered(swissSource(), [3, 4], [[9.5, 47, 10.5, 47.8]]);
    expect(p.header.center).toEqual([10, 47.4, 3]);
    expect(planDiscovered(swissSource(), undefined, [[6, 46, 7, 47]]).header.center).toEqual([6.5, 46.5, 2]);
    expect(planDiscovered(swissSource(), undefined, [[8, 46.5, 8.5, 47]]).header.center).toEqual([8.2, 46.8, 2]);
    expect(planDiscovered(swissSource()).header.center).toEqual([8.2, 46.8, 2]);
    // Across the antimeridian the middle is on the far side, not at 0.
    expect(centreWithin([0, 0, 1], [170, -10, -170, 10], 0, 5)).toEqual([-180, 0, 1]);
    expect(centreWithin([0, 0, 9], [170, -10, -160, 10], 0, 5)).toEqual([-175, 0, 5]);
  });
  test('the summary names the mirrored zooms and bounds, not the source\'s', () => {
    const p = planDiscovered(swissSource(), [3, 6], [[6, 46, 7, 47]]);
    const r: MirrorResult = {
      resource: 'tiles/swiss', status: 'published', exitCode: 0, planned: p.total, stored: p.total, fetched: p.total, empty: 0, skipped: 0,
      revalidated: 0, unchanged: 0, notModified: 0, writes: p.total, failed: 0, failedPermanently: 0, failures: [], requests: p.total, retries: 0, hedges: 0, bytes: 1000,
      elapsedMs: 1000, problems: [], notes: p.notes,
      mirrored: p.header.pyramids.map((py) => ({ pyramid: py.name, minzoom: py.minzoom, maxzoom: py.maxzoom, bounds: py.bounds })),
    };
    const lines = formatSummary(r);
    expect(lines).toContain('  mirrored: z3-4, bounds 6,46,7,47');
    expect(lines).toContain('  note: zooms 3-6 requested, the source has 0-4: mirrored 3-4');
  });
});

describe('raster: render (a map described, its tiles left to the server)', () => {
  test('the header describes the same pyramids, marked render; no tile is planned; the saving is what the plan held', () => {
    const plain = planDiscovered(swissSource(), [1, 3], [[6, 46, 7, 47]]);
    const r = renderRaster(plain);
    expect(r.header.pyramids).toEqual(plain.header.pyramids);
    expect(r.header.extraMetadata).toEqual({ tilemirror_raster: 'render' });
    expect({ plans: r.plans, total: r.total }).toEqual({ plans: [], total: 0 });
    // Counted by hand: the box lies inside one tile at each of z1, z2 and z3 (x 1, 2, 4; y 0, 1, 2).
    const byHand = 3;
    expect(renderedTiles(r)).toBe(byHand);
    expect(renderedTiles(plain)).toBe(0);
    expect(r.notes.at(-1)).toBe(`raster: render: the pyramids main (z1-3) are described, their ${byHand} tiles not fetched: the server renders them from the style, whose tile sets, fonts and sprites are mirrored with the map`);
  });
  test('a rendered store is told apart from a mirrored one of the same source; a mirror keeps its fingerprint', () => {
    const d = swissSource();
    expect(fingerprintOf('http://up.example', d, true)).not.toBe(fingerprintOf('http://up.example', d));
    expect(fingerprintOf('http://up.example', d, false)).toBe(fingerprintOf('http://up.example', d));
  });
  test('zooms wholly above a tile set a rendered map draws from plan its deepest zoom; others are left alone', () => {
    expect(overzoomed([6, 8], swissSource())).toEqual([4, 8]);
    expect(planDiscovered(swissSource(), overzoomed([6, 8], swissSource())).header.pyramids[0]).toMatchObject({ minzoom: 4, maxzoom: 4 });
    expect(overzoomed([3, 8], swissSource())).toEqual([3, 8]);
    expect(overzoomed([0, 2], swissSource())).toEqual([0, 2]);
  });
});
