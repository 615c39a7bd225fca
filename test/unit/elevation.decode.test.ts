import { decodeMapbox, decodeTerrarium, encodingOf } from '../../src/services/elevation/encoding';
import { chooseTerrain, isTerrain } from '../../src/services/elevation/select';
import { coveringTile, interpolate, taps, type HeightGrid } from '../../src/services/elevation/bilinear';
import { parsePositions } from '../../src/http/routes/elevation';
import type { TilesetInfo } from '../../src/store/types';

describe('height encodings', () => {
  test('Mapbox Terrain-RGB: -10000 + (R*65536 + G*256 + B) * 0.1', () => {
    expect(decodeMapbox(0, 0, 0)).toBe(-10000);
    expect(decodeMapbox(1, 134, 160)).toBeCloseTo(0, 9); // 100000 * 0.1 - 10000
    expect(decodeMapbox(1, 165, 226)).toBeCloseTo(800.2, 9); // 65536 + 42240 + 226 = 108002
    expect(decodeMapbox(255, 255, 255)).toBeCloseTo(1667721.5, 6);
  });
  test('Terrarium: R*256 + G + B/256 - 32768', () => {
    expect(decodeTerrarium(128, 0, 0)).toBe(0);
    expect(decodeTerrarium(131, 10, 128)).toBe(778.5); // 33536 + 10 + 0.5 - 32768
    expect(decodeTerrarium(0, 0, 0)).toBe(-32768);
    expect(decodeTerrarium(127, 255, 0)).toBe(-1);
  });
});

const info = (over: Partial<TilesetInfo>): TilesetInfo => ({
  kind: 'tiles',
  id: 'x',
  name: 'x',
  description: '',
  attribution: '',
  type: 'overlay',
  format: 'png',
  minzoom: 0,
  maxzoom: 10,
  bounds: [-180, -85, 180, 85],
  center: [0, 0, 0],
  pyramids: [],
  version: 'v',
  ...over,
});

describe('which encoding, which tileset', () => {
  test('encoding: metadata first, then "terrarium" in the id or name, else Mapbox', () => {
    expect(encodingOf({ id: 'terrarium-x', name: 'a', encoding: 'mapbox' })).toBe('mapbox');
    expect(encodingOf({ id: 'dem', name: 'b', encoding: 'terrarium' })).toBe('terrarium');
    expect(encodingOf({ id: 'aws-terrarium', name: 'b' })).toBe('terrarium');
    expect(encodingOf({ id: 'dem', name: 'Mapzen Terrarium tiles' })).toBe('terrarium');
    expect(encodingOf({ id: 'terrain-rgb-v2', name: 'Terrain RGB' })).toBe('mapbox');
  });
  test('terrain: PNG/WebP tile sets with an encoding or a terrain id; not maps, vector or jpeg', () => {
    expect(isTerrain(info({ id: 'terrain-rgb-v2' }))).toBe(true);
    expect(isTerrain(info({ id: 'my-dem', format: 'webp' }))).toBe(true);
    expect(isTerrain(info({ id: 'heights', encoding: 'mapbox' }))).toBe(true);
    expect(isTerrain(info({ id: 'elevation' }))).toBe(true);
    expect(isTerrain(info({ id: 'demo-satellite' }))).toBe(false); // "dem" is not a word of it
    expect(isTerrain(info({ id: 'terrain-rgb', format: 'jpg' }))).toBe(false);
    expect(isTerrain(info({ id: 'terrain', format: 'pbf' }))).toBe(false);
    expect(isTerrain(info({ id: 'terrain', kind: 'maps' }))).toBe(false);
    expect(isTerrain(info({ id: 'sample-temperature-0000' }))).toBe(false);
  });
  test('choice: terrain-rgb-v2, then declared encoding, then widest bounds, deepest zoom, id', () => {
    const region = info({ id: 'a-terrain', encoding: 'mapbox', bounds: [5, 45, 11, 48], maxzoom: 14 });
    const world = info({ id: 'b-terrain', encoding: 'mapbox' });
    const guessed = info({ id: 'c-dem' });
    const cloud = info({ id: 'terrain-rgb-v2', bounds: [0, 0, 1, 1] });
    expect(chooseTerrain([guessed, region, world, cloud])?.id).toBe('terrain-rgb-v2');
    expect(chooseTerrain([guessed, region, world])?.id).toBe('b-terrain');
    expect(chooseTerrain([guessed, region])?.id).toBe('a-terrain');
    expect(chooseTerrain([guessed])?.id).toBe('c-dem');
    expect(chooseTerrain([info({ id: 'z-terrain' }), info({ id: 'y-terrain' })])?.id).toBe('y-terrain');
    expect(chooseTerrain([info({ id: 'z-terrain', maxzoom: 12 }), info({ id: 'y-terrain' })])?.id).toBe('z-terrain');
    expect(chooseTerrain([info({ id: 'roads', format: 'pbf' })])).toBeUndefined();
  });
});

describe('bilinear taps', () => {
  // z1, 4-pixel tiles: the world is 8 x 8 pixels of 45° of longitude each; pixel centres at 22.5° + k·45° - 180°.
  const W = 4;
  test('a point on a pixel centre weighs that pixel alone', () => {
    const [cx, cy] = coveringTile(-180 + 45 * 1.5, 0.0001, 1); // pixel column 1
    expect([cx, cy]).toEqual([0, 0]);
    const t = taps(-180 + 45 * 1.5, 10, 1, cx, cy, W).filter((p) => p.weight > 1e-12);
    expect(t.map((p) => p.col)).toEqual([1, 1]);
  });
  test('between the last column of one tile and the first of the next, the samples come from both tiles', () => {
    // Longitude 0 is the edge between tiles x=0 and x=1 at z1: halfway between pixel 3 (tile 0) and pixel 0 (tile 1).
    const [cx] = coveringTile(-1e-9, 30, 1);
    expect(cx).toBe(0);
    const t = taps(-1e-9, 30, 1, 0, 0, W);
    const byTile = t.map((p) => [p.dx, p.col, Math.round(p.weight * 1e6) / 1e6]);
    expect(byTile.filter(([dx]) => dx === 0).every(([, col]) => col === 3)).toBe(true);
    expect(byTile.filter(([dx]) => dx === 1).every(([, col]) => col === 0)).toBe(true);
    expect(t.reduce((s, p) => s + p.weight, 0)).toBeCloseTo(1, 12);
  });
  test('west of the first pixel centre, the neighbour is across the antimeridian (dx = -1)', () => {
    const t = taps(-179, 30, 1, 0, 0, W);
    expect(t.filter((p) => p.dx === -1).map((p) => p.col)).toEqual([3, 3]);
    expect(t.filter((p) => p.dx === 0).map((p) => p.col)).toEqual([0, 0]);
  });
  test('interpolate: neighbours read when present, clamped to the covering tile when absent, NaN left out', () => {
    const grid = (f: (c: number, r: number) => number): HeightGrid => {
      const heights = new Float32Array(W * W);
      for (let r = 0; r < W; r++) for (let c = 0; c < W; c++) heights[r * W + c] = f(c, r);
      return { width: W, heights };
    };
    const left = grid(() => 100);
    const right = grid(() => 200);
    // Halfway between the last column of `left` and the first of `right` (at a row centre: 0 weight on the other row).
    const lat = 0; // equator: edge between rows 3 (tile y 0) and 0 (tile y 1) at z1
    const t = taps(-1e-9, lat, 1, 0, 0, W);
    const full = interpolate(t, left, (dx, dy) => (dx === 1 && dy === 0 ? right : dx === 0 && dy === 1 ? left : dx === 1 && dy === 1 ? right : undefined));
    expect(full).toBeCloseTo(150, 3);
    expect(interpolate(t, left, () => undefined)).toBeCloseTo(100, 6);
    expect(interpolate(t, left, () => grid(() => NaN))).toBeCloseTo(100, 6);
    expect(interpolate(t, grid(() => NaN), () => undefined)).toBeUndefined();
  });
});

describe('positions', () => {
  test('parsed in order; limits and syntax named by position', () => {
    expect(parsePositions('8.5,47.1;-179.9,-85;179.9,85;1e1,-2.5e1;.5,+.5')).toEqual([[8.5, 47.1], [-179.9, -85], [179.9, 85], [10, -25], [0.5, 0.5]]);
    expect(parsePositions(Array(51).fill('1,1').join(';'))).toBe('Invalid locations: 51 positions, at most 50');
    expect(parsePositions(Array(50).fill('1,1').join(';'))).toHaveLength(50);
    expect(parsePositions('1,1;2')).toBe('Invalid locations: position 2 ("2") is not lng,lat');
    expect(parsePositions('1,1,1')).toBe('Invalid locations: position 1 ("1,1,1") is not lng,lat');
    expect(parsePositions('1,1;')).toBe('Invalid locations: position 2 ("") is not lng,lat');
    expect(parsePositions('NaN,1')).toBe('Invalid locations: position 1 ("NaN,1") is not two numbers lng,lat');
    expect(parsePositions('0x10,1')).toBe('Invalid locations: position 1 ("0x10,1") is not two numbers lng,lat');
    expect(parsePositions('1e999,1')).toBe('Invalid locations: position 1 ("1e999,1") has a number out of range');
    expect(parsePositions('180,0')).toBe('Out of bounds: position 1 ("180,0"): longitude must be greater than -180 and less than 180');
    expect(parsePositions('0,0;-180,0')).toBe('Out of bounds: position 2 ("-180,0"): longitude must be greater than -180 and less than 180');
    expect(parsePositions('0,85.0001')).toBe('Out of bounds: position 1 ("0,85.0001"): latitude must lie in -85..85');
    expect(parsePositions('0,-85.0001')).toBe('Out of bounds: position 1 ("0,-85.0001"): latitude must lie in -85..85');
  });
});
