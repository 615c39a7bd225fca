import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tileRange } from '../../src/geo/mercator';
import { coverRows, coverSet, coverZoom, parseArea, readAreaFile, type PolygonArea } from '../../src/mirror/area';
import { planBounds, planPyramid, planZoom } from '../../src/mirror/plan';
import { tilesOf, zoomPlanHas } from '../../src/geo/tile-bands';
import { UsageError } from '../../src/mirror/errors';
import { StagingStore, storePaths } from '../../src/store/mbtiles/staging';
import type { Bounds } from '../../src/store/types';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-area-');

const WORLD: Bounds = [-180, -85.0511287798066, 180, 85.0511287798066];

// ---- brute force: clip the polygon (projected to tile units, edges straight in Mercator) to each tile and measure the area.

type Pt = [number, number];

function toTile([lon, lat]: Pt, z: number): Pt {
  const n = 2 ** z;
  const phi = (lat * Math.PI) / 180;
  return [((lon + 180) / 360) * n, ((1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2) * n];
}

/** Sutherland–Hodgman against one axis-aligned half-plane. */
function clipHalf(poly: Pt[], inside: (p: Pt) => boolean, cross: (a: Pt, b: Pt) => Pt): Pt[] {
  const out: Pt[] = [];
  for (let i = 0; i < poly.length; i++) {
    const cur = poly[i];
    const prev = poly[(i + poly.length - 1) % poly.length];
    if (inside(cur)) {
      if (!inside(prev)) out.push(cross(prev, cur));
      out.push(cur);
    } else if (inside(prev)) out.push(cross(prev, cur));
  }
  return out;
}

function clipToBox(poly: Pt[], x0: number, y0: number, x1: number, y1: number): Pt[] {
  const atX = (x: number) => (a: Pt, b: Pt): Pt => [x, a[1] + ((x - a[0]) / (b[0] - a[0])) * (b[1] - a[1])];
  const atY = (y: number) => (a: Pt, b: Pt): Pt => [a[0] + ((y - a[1]) / (b[1] - a[1])) * (b[0] - a[0]), y];
  let p = clipHalf(poly, (q) => q[0] >= x0, atX(x0));
  p = clipHalf(p, (q) => q[0] <= x1, atX(x1));
  p = clipHalf(p, (q) => q[1] >= y0, atY(y0));
  return clipHalf(p, (q) => q[1] <= y1, atY(y1));
}

function area(poly: Pt[]): number {
  let a = 0;
  for (let i = 0; i < poly.length; i++) {
    const [x0, y0] = poly[i];
    const [x1, y1] = poly[(i + 1) % poly.length];
    a += x0 * y1 - x1 * y0;
  }
  return Math.abs(a) / 2;
}

/** Tiles whose overlap with the polygon (outer minus holes; holes inside the outer ring) has a positive area. */
function bruteForce(rings: Pt[][], z: number): Set<string> {
  const n = 2 ** z;
  const projected = rings.map((r) => r.map((p) => toTile(p, z)));
  const out = new Set<string>();
  for (let x = 0; x < n; x++)
    for (let y = 0; y < n; y++) {
      const a = area(clipToBox(projected[0], x, y, x + 1, y + 1)) - projected.slice(1).reduce((s, h) => s + area(clipToBox(h, x, y, x + 1, y + 1)), 0);
      if (a > 1e-9) out.add(`${x}/${y}`);
    }
  return out;
}

const ring = (pts: Pt[]): Pt[] => [...pts, pts[0]];
const polygonArea = (rings: Pt[][], name = 'test'): PolygonArea => parseArea({ type: 'Polygon', coordinates: rings.map(ring) }, name);

const TRIANGLE: Pt[] = [
  [-47.3, -12.9],
  [61.7, 8.4],
  [3.1, 71.2],
];

const sorted = (s: Set<string>): string[] => [...s].sort();

describe('polygon covers', () => {
  test("a triangle's cover at z5 is exactly the tiles it overlaps (brute force over every tile)", () => {
    const tri = polygonArea([TRIANGLE]);
    const cover = coverSet({ areas: [tri] }, 5);
    const brute = bruteForce([TRIANGLE], 5);
    expect(brute.size).toBeGreaterThan(50);
    expect(sorted(cover)).toEqual(sorted(brute));
    // Not just the bbox: the triangle's bbox has more tiles.
    const r = tileRange(tri.bbox, 5);
    expect(cover.size).toBeLessThan((r.maxX - r.minX + 1) * (r.maxY - r.minY + 1));
  });

  test.each([3, 4, 6, 7])('a concave polygon at z%i equals the brute force', (z) => {
    const concave: Pt[] = [
      [-20.5, -30.2],
      [40.3, -28.7],
      [10.1, -5.3],
      [45.9, 35.6],
      [-5.2, 20.4],
      [-30.7, 44.1],
    ];
    expect(sorted(coverSet({ areas: [polygonArea([concave])] }, z))).toEqual(sorted(bruteForce([concave], z)));
  });

  test('a hole excludes the tiles that lie wholly inside it, and only those', () => {
    const outer: Pt[] = [
      [-60.3, -40.7],
      [70.2, -40.7],
      [70.2, 60.9],
      [-60.3, 60.9],
    ];
    const hole: Pt[] = [
      [-30.6, -20.1],
      [40.4, -20.1],
      [40.4, 35.3],
      [-30.6, 35.3],
    ];
    const z = 5;
    const withHole = coverSet({ areas: [polygonArea([outer, hole])] }, z);
    expect(sorted(withHole)).toEqual(sorted(bruteForce([outer, hole], z)));
    const full = coverSet({ areas: [polygonArea([outer])] }, z);
    const removed = [...full].filter((t) => !withHole.has(t));
    expect(removed.length).toBeGreaterThanOrEqual(20);
    // Every removed tile lies inside the hole's box; tiles crossing the hole's edge stay.
    const hr = tileRange([hole[0][0], hole[0][1], hole[2][0], hole[2][1]], z);
    for (const t of removed) {
      const [x, y] = t.split('/').map(Number);
      expect(x > hr.minX && x < hr.maxX && y > hr.minY && y < hr.maxY).toBe(true);
    }
    expect(withHole.has(`${hr.minX}/${hr.minY}`)).toBe(true);
  });

  test('edges lying on tile edges do not pull in the neighbours (as bboxes do)', () => {
    // Exactly the z2 tile 1/1 (lon -90..0, lat 0..66.51326044311186).
    const lat = 66.51326044311186;
    const sq = polygonArea([
      [
        [-90, 0],
        [0, 0],
        [0, lat],
        [-90, lat],
      ],
    ]);
    expect(sorted(coverSet({ areas: [sq] }, 2))).toEqual(['1/1']);
    expect(coverSet({ areas: [sq] }, 3).size).toBe(4);
  });

  test('union with a bbox, and clipping to the upstream bounds', () => {
    const tri = polygonArea([TRIANGLE]);
    const box: Bounds = [100.2, -40.3, 150.8, -10.1];
    const z = 5;
    const union = coverSet({ areas: [tri], bboxes: [box] }, z);
    const r = tileRange(box, z);
    const expected = bruteForce([TRIANGLE], z);
    for (let x = r.minX; x <= r.maxX; x++) for (let y = r.minY; y <= r.maxY; y++) expected.add(`${x}/${y}`);
    expect(sorted(union)).toEqual(sorted(expected));
    // ∩ upstream bounds.
    const upstream: Bounds = [0, 0, 180, 85];
    const clipped = planZoom([box], upstream, z, [tri]);
    const u = tileRange(upstream, z);
    const want = [...expected].filter((t) => {
      const [x, y] = t.split('/').map(Number);
      return x >= u.minX && x <= u.maxX && y >= u.minY && y <= u.maxY;
    });
    const got = [...tilesOf({ pyramid: 'p', zooms: [clipped], count: clipped.count })].map((t) => `${t.x}/${t.y}`);
    expect(got.sort()).toEqual(want.sort());
  });

  test('several areas: the union, each tile once', () => {
    const a = polygonArea([TRIANGLE], 'a');
    const b = polygonArea(
      [
        [
          [0.5, 0.5],
          [90.5, 0.5],
          [90.5, 50.5],
        ],
      ],
      'b',
    );
    const z = 6;
    const both = coverSet({ areas: [a, b] }, z);
    const expected = new Set([...coverSet({ areas: [a] }, z), ...coverSet({ areas: [b] }, z)]);
    expect(sorted(both)).toEqual(sorted(expected));
    const zp = coverZoom({ areas: [a, b] }, z);
    expect(zp.count).toBe(both.size);
  });

  test("plan counts equal the generator's output; membership agrees", () => {
    const tri = polygonArea([TRIANGLE]);
    const plan = planPyramid('main', { minzoom: 0, maxzoom: 8, bounds: WORLD }, [[100, -40, 150, -10]], [0, 8], [tri]);
    let n = 0;
    const seen = new Set<string>();
    for (const t of tilesOf(plan)) {
      n++;
      seen.add(`${t.z}/${t.x}/${t.y}`);
      expect(zoomPlanHas(plan.zooms[t.z], t.x, t.y)).toBe(true);
    }
    expect(n).toBe(plan.count);
    expect(seen.size).toBe(n);
    for (const zp of plan.zooms) {
      expect(zp.count).toBe([...tilesOf({ pyramid: 'main', zooms: [zp], count: zp.count })].length);
      expect(zp.count).toBe(coverSet({ areas: [tri], bboxes: [[100, -40, 150, -10]], within: [tileRange(WORLD, zp.z)] }, zp.z).size);
    }
    expect(zoomPlanHas(plan.zooms[8], 0, 0)).toBe(false);
    // The advertised bounds hold the polygon and the box.
    expect(planBounds(WORLD, [[100, -40, 150, -10], tri.bbox])).toEqual([-47.3, -40, 150, 71.2]);
  });

  test('a country-sized polygon at z14 is planned as rows, not tiles', () => {
    // A rough Switzerland.
    const ch: Pt[] = [
      [5.96, 46.13],
      [6.79, 46.43],
      [7.04, 45.93],
      [7.86, 45.92],
      [8.43, 46.46],
      [9.04, 45.83],
      [10.45, 46.54],
      [10.47, 46.86],
      [9.53, 47.27],
      [8.56, 47.8],
      [7.59, 47.58],
      [6.0, 46.6],
    ];
    const zp = coverZoom({ areas: [polygonArea([ch])] }, 14);
    expect(zp.count).toBeGreaterThan(10_000);
    expect(zp.bands.length).toBeLessThan(2 ** 14);
    let rows = 0;
    let tiles = 0;
    for (const r of coverRows({ areas: [polygonArea([ch])] }, 14)) {
      rows++;
      tiles += r.xs.reduce((k, [lo, hi]) => k + hi - lo + 1, 0);
    }
    expect(tiles).toBe(zp.count);
    // Rows, not tiles: the work is counted in rows and bands (each a handful of column ranges), not timed.
    expect(rows).toBeLessThan(600);
    expect(zp.bands.length).toBeLessThanOrEqual(rows);
    expect(zp.bands.reduce((k, b) => k + b.xs.length, 0)).toBeLessThan(zp.count / 10);
  });
});

describe('GeoJSON input', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir();
  });
  afterAll(removeTempDirs);

  test('Feature, FeatureCollection, MultiPolygon and Polygon are read; others are refused clearly', () => {
    const poly = { type: 'Polygon', coordinates: [ring(TRIANGLE)] };
    const multi = { type: 'MultiPolygon', coordinates: [[ring(TRIANGLE)], [ring([[100, 10], [110, 10], [110, 20]])]] };
    const fc = { type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: poly }, { type: 'Feature', properties: {}, geometry: multi }] };
    const file = join(dir, 'areas.geojson');
    writeFileSync(file, JSON.stringify(fc));
    const a = readAreaFile(file);
    expect(a.name).toBe('areas.geojson');
    expect(a.polygons).toHaveLength(3);
    expect(a.bbox).toEqual([-47.3, -12.9, 110, 71.2]);
    expect(parseArea({ type: 'Feature', properties: null, geometry: poly }, 'f').polygons).toHaveLength(1);
    expect(() => parseArea({ type: 'LineString', coordinates: [[0, 0], [1, 1]] }, 'x')).toThrow(/LineString is not an area/);
    expect(() => parseArea({ type: 'Polygon', coordinates: [[[0, 0], [1, 1], [0, 0]]] }, 'x')).toThrow(UsageError);
    expect(() => parseArea({ type: 'Polygon', coordinates: [[[0, 0], [1, 95], [2, 0], [0, 0]]] }, 'x')).toThrow(/latitude 95/);
    writeFileSync(join(dir, 'bad.json'), '{nope');
    expect(() => readAreaFile(join(dir, 'bad.json'))).toThrow(/not JSON/);
    expect(() => readAreaFile(join(dir, 'missing.json'))).toThrow(/cannot read area file/);
  });

  test('antimeridian: longitudes past 180 wrap; a ring jumping across it is refused with a hint', () => {
    const z = 4;
    const across = polygonArea([
      [
        [170.2, -20.4],
        [190.6, -20.4],
        [190.6, 10.3],
        [170.2, 10.3],
      ],
    ]);
    expect(across.bbox).toEqual([170.2, -20.4, -169.4, 10.3]);
    const split = [
      polygonArea([
        [
          [170.2, -20.4],
          [180, -20.4],
          [180, 10.3],
          [170.2, 10.3],
        ],
      ]),
      polygonArea([
        [
          [-180, -20.4],
          [-169.4, -20.4],
          [-169.4, 10.3],
          [-180, 10.3],
        ],
      ]),
    ];
    const a = coverSet({ areas: [across] }, z);
    expect(sorted(a)).toEqual(sorted(coverSet({ areas: split }, z)));
    expect(a.has('0/7')).toBe(true);
    expect(a.has('15/7')).toBe(true);
    expect(() =>
      polygonArea([
        [
          [170, 0],
          [-170, 0],
          [-170, 10],
          [170, 10],
        ],
      ]),
    ).toThrow(/antimeridian/);
  });
});

describe('staging stores with polygon plans', () => {
  test('pruning and counting work for plans with hundreds of bands (rows scanned, not one SQL condition)', async () => {
    const dir = tempDir('tm-area-staging-');
    const circle: Pt[] = Array.from({ length: 64 }, (_, i) => [10 + 8 * Math.cos((i / 64) * 2 * Math.PI), 45 + 5 * Math.sin((i / 64) * 2 * Math.PI)] as Pt);
    const area = polygonArea([circle]);
    const bounds: Bounds = [1.5, 39.5, 18.5, 50.5];
    const header = { kind: 'tiles' as const, name: 't', pyramids: [{ name: 'main', tileSize: 256, scale: 1, format: 'png' as const, minzoom: 13, maxzoom: 13, bounds }] };
    const paths = storePaths(dir, 'tiles', 't');
    mkdirSync(paths.dir, { recursive: true });
    const boxPlan = planPyramid('main', header.pyramids[0], [bounds], [13, 13]);
    const polyPlan = planPyramid('main', header.pyramids[0], [], [13, 13], [area]);
    expect(polyPlan.zooms[0].bands.length).toBeGreaterThan(64);
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    // A first run over the box stores tiles inside and outside the circle, and empties.
    const first = StagingStore.open({ paths, header, fingerprint: 'f', upstream: 'u', plans: [boxPlan], planSignature: 'box' });
    const some = [...tilesOf(boxPlan)].filter((_, i) => i % 211 === 0);
    await Promise.all(some.map((t, i) => first.record(t, i % 2 ? { data: png } : { emptyStatus: 204 }, { checkedAt: 1 })));
    first.flush();
    first.close();
    // Resumed with the circle: what lies outside it is pruned, what lies inside is counted.
    const second = StagingStore.open({ paths, header, fingerprint: 'f', upstream: 'u', plans: [polyPlan], planSignature: 'poly' });
    const inside = some.filter((t) => zoomPlanHas(polyPlan.zooms[0], t.x, t.y));
    expect(inside.length).toBeGreaterThan(10);
    expect(inside.length).toBeLessThan(some.length);
    const c = second.countPlanned([polyPlan]);
    expect(c.stored + c.empty).toBe(inside.length);
    expect(second.countAll()).toBe(inside.length);
    second.close();
  });
});

afterAll(removeTempDirs);
