import {
  EARTH_RADIUS,
  MAX_LAT,
  ORIGIN_SHIFT,
  imageBounds,
  isValidTile,
  lonLatToMeters,
  lonLatToTile,
  metersToLonLat,
  resolution,
  scaleDenominator,
  tileBoundsLonLat,
  tileBoundsMeters,
  tileIntersects,
  tileRange,
} from '../../src/geo/mercator';
import type { Bounds } from '../../src/store/types';

describe('constants', () => {
  test('origin shift is half the equator', () => {
    expect(ORIGIN_SHIFT).toBe(Math.PI * EARTH_RADIUS);
  });
  test('MAX_LAT maps to the top of the square', () => {
    expect(lonLatToMeters(0, MAX_LAT)[1]).toBeCloseTo(ORIGIN_SHIFT, 3);
  });
});

describe('resolution and scale denominator', () => {
  test('exact z0 values', () => {
    expect(resolution(0, 256)).toBe(156543.03392804097);
    expect(scaleDenominator(0, 256)).toBe(559082264.0287178);
    expect(scaleDenominator(0, 512)).toBe(279541132.0143589);
    expect(scaleDenominator(0)).toBe(559082264.0287178);
  });
  test('halves per zoom; 512 px at z equals 256 px at z+1', () => {
    for (let z = 0; z < 24; z++) {
      expect(scaleDenominator(z + 1, 256)).toBe(scaleDenominator(z, 256) / 2);
      expect(scaleDenominator(z, 512)).toBe(scaleDenominator(z + 1, 256));
    }
  });
});

describe('conversions', () => {
  test('meters round-trip', () => {
    const [x, y] = lonLatToMeters(8.55, 47.36667);
    const [lon, lat] = metersToLonLat(x, y);
    expect(lon).toBeCloseTo(8.55, 9);
    expect(lat).toBeCloseTo(47.36667, 9);
  });
  test('corners', () => {
    expect(lonLatToMeters(-180, 0)).toEqual([-ORIGIN_SHIFT, expect.closeTo(0, 6)]);
    expect(lonLatToMeters(180, 0)[0]).toBe(ORIGIN_SHIFT);
  });
  test('lonLatToTile is fractional and clamps latitude', () => {
    const [x, y] = lonLatToTile(5.9, 47.8, 8);
    expect(x).toBeCloseTo(132.19555555555556, 9);
    expect(y).toBeCloseTo(89.20142767807516, 9);
    expect(lonLatToTile(0, 90, 1)[1]).toBeCloseTo(0, 9);
    expect(lonLatToTile(0, -90, 1)[1]).toBeCloseTo(2, 9);
  });
  test('tile bounds', () => {
    const [w, s, e, n] = tileBoundsLonLat(0, 0, 0);
    expect([w, e]).toEqual([-180, 180]);
    expect(n).toBeCloseTo(MAX_LAT, 9);
    expect(s).toBeCloseTo(-MAX_LAT, 9);
    expect(tileBoundsLonLat(1, 1, 0)).toEqual([0, 0, 180, expect.closeTo(MAX_LAT, 9)]);
    expect(tileBoundsMeters(0, 0, 0)).toEqual([-ORIGIN_SHIFT, -ORIGIN_SHIFT, ORIGIN_SHIFT, ORIGIN_SHIFT]);
    expect(tileBoundsMeters(1, 0, 1)).toEqual([-ORIGIN_SHIFT, -ORIGIN_SHIFT, 0, 0]);
  });
});

describe('tileRange', () => {
  const swiss: Bounds = [5.9, 45.8, 10.5, 47.8];
  test('Switzerland at z8', () => {
    expect(tileRange(swiss, 8)).toEqual({ minX: 132, minY: 89, maxX: 135, maxY: 91 });
  });
  test('z0 is one tile', () => {
    expect(tileRange(swiss, 0)).toEqual({ minX: 0, minY: 0, maxX: 0, maxY: 0 });
  });
  test('whole world with out-of-range latitudes is clamped', () => {
    expect(tileRange([-180, -90, 180, 90], 2)).toEqual({ minX: 0, minY: 0, maxX: 3, maxY: 3 });
    expect(tileRange([-200, -90, 200, 90], 1)).toEqual({ minX: 0, minY: 0, maxX: 1, maxY: 1 });
  });
  test('an edge exactly on a tile edge does not pull in the next tile', () => {
    expect(tileRange([0, 0, 90, 45], 2)).toEqual({ minX: 2, minY: 1, maxX: 2, maxY: 1 });
    // Bounds computed from tiles must give back exactly those tiles at many zooms.
    for (const [z, x, y] of [
      [5, 16, 11],
      [8, 133, 90],
      [12, 2145, 1434],
      [14, 8580, 5738],
    ]) {
      expect(tileRange(tileBoundsLonLat(z, x, y), z)).toEqual({ minX: x, minY: y, maxX: x, maxY: y });
      const [w, , , n] = tileBoundsLonLat(z, x, y);
      const [, s, e] = tileBoundsLonLat(z, x + 2, y + 3);
      expect(tileRange([w, s, e, n], z)).toEqual({ minX: x, minY: y, maxX: x + 2, maxY: y + 3 });
    }
  });
  test('bounds crossing the antimeridian take every column', () => {
    expect(tileRange([170, -10, -170, 10], 3)).toEqual({ minX: 0, minY: 3, maxX: 7, maxY: 4 });
  });
  test('a point still yields its tile', () => {
    expect(tileRange([8.5, 47.3, 8.5, 47.3], 10)).toEqual({ minX: 536, minY: 358, maxX: 536, maxY: 358 });
    // a point exactly on a tile corner
    expect(tileRange([0, 0, 0, 0], 1)).toEqual({ minX: 1, minY: 1, maxX: 1, maxY: 1 });
  });
  test('tileIntersects agrees with tileRange', () => {
    expect(tileIntersects(swiss, 8, 132, 89)).toBe(true);
    expect(tileIntersects(swiss, 8, 135, 91)).toBe(true);
    expect(tileIntersects(swiss, 8, 136, 91)).toBe(false);
    expect(tileIntersects(swiss, 8, 132, 88)).toBe(false);
    expect(tileIntersects([0, 0, 90, 45], 2, 3, 1)).toBe(false);
  });
});

describe('isValidTile', () => {
  test.each([
    [0, 0, 0, true],
    [1, 1, 1, true],
    [1, 2, 0, false],
    [1, 0, 2, false],
    [-1, 0, 0, false],
    [31, 0, 0, false],
    [30, 2 ** 30 - 1, 0, true],
    [2, 1.5, 0, false],
    [2, 0, -1, false],
    [Number.NaN, 0, 0, false],
  ])('z%s x%s y%s -> %s', (z, x, y, ok) => {
    expect(isValidTile(z, x, y)).toBe(ok);
  });
});

describe('imageBounds', () => {
  test('an image the size of the world covers the square', () => {
    const [w, s, e, n] = imageBounds(2048, 2048, 3, 256);
    expect([w, e]).toEqual([-180, 180]);
    expect(n).toBeCloseTo(MAX_LAT, 9);
    expect(s).toBeCloseTo(-MAX_LAT, 9);
  });
  test('a smaller image sits at the top-left', () => {
    const [w, s, e, n] = imageBounds(1000, 600, 3, 256);
    expect(w).toBe(-180);
    expect(e).toBeCloseTo(-4.21875, 12);
    expect(s).toBeCloseTo(59.5343180010956, 9);
    expect(n).toBeCloseTo(MAX_LAT, 9);
  });
  test('half the world at 512 px', () => {
    const [, s, e] = imageBounds(512, 512, 1, 512);
    expect(e).toBe(0);
    expect(s).toBeCloseTo(0, 12);
  });
});
