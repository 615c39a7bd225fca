// The approximate transformer against closed-form transforms written here: every pixel of the grid is compared with
// the formula evaluated at that pixel's centre, and the calls of the exact transform are counted.
import { warpGrid, type PointsTransform, type TargetRaster, type WarpGrid } from '../../src/geo/warp-grid';

type PointFn = (x: number, y: number) => [number, number];

/** A PointsTransform from a per-point formula, recording how many points each call carried and how many points
 *  were asked for more than once. */
function counted(f: PointFn): { transform: PointsTransform; calls: number[]; repeats: () => number } {
  const calls: number[] = [];
  const seen = new Set<string>();
  let repeated = 0;
  const transform: PointsTransform = async (xs, ys) => {
    calls.push(xs.length);
    const ox = new Float64Array(xs.length);
    const oy = new Float64Array(xs.length);
    for (let k = 0; k < xs.length; k++) {
      const key = `${xs[k]},${ys[k]}`;
      if (seen.has(key)) repeated++;
      seen.add(key);
      [ox[k], oy[k]] = f(xs[k], ys[k]);
    }
    return { xs: ox, ys: oy };
  };
  return { transform, calls, repeats: () => repeated };
}

/** Pixel (i, j)'s centre in the target CRS. */
function centre(t: TargetRaster, i: number, j: number): [number, number] {
  const [minX, minY, maxX, maxY] = t.bbox;
  return [minX + ((i + 0.5) * (maxX - minX)) / t.width, maxY - ((j + 0.5) * (maxY - minY)) / t.height];
}

interface Comparison {
  /** Largest |dx| + |dy| over the pixels both define. */
  maxError: number;
  /** Pixels NaN in one and not the other. */
  nanMismatches: number;
  nanPixels: number;
}

function compare(grid: WarpGrid, t: TargetRaster, f: PointFn): Comparison {
  let maxError = 0;
  let nanMismatches = 0;
  let nanPixels = 0;
  for (let j = 0; j < t.height; j++) {
    for (let i = 0; i < t.width; i++) {
      const [x, y] = centre(t, i, j);
      const [ex, ey] = f(x, y);
      const p = j * t.width + i;
      const refNaN = !Number.isFinite(ex) || !Number.isFinite(ey);
      const gridNaN = Number.isNaN(grid.sx[p]) || Number.isNaN(grid.sy[p]);
      if (refNaN) nanPixels++;
      if (refNaN !== gridNaN) nanMismatches++;
      else if (!refNaN) maxError = Math.max(maxError, Math.abs(grid.sx[p] - ex) + Math.abs(grid.sy[p] - ey));
    }
  }
  return { maxError, nanMismatches, nanPixels };
}

/** Lon/lat degrees to the pixels of a Web Mercator world `size` pixels wide, in closed form. */
function webMercatorPixels(size: number): PointFn {
  return (lon, lat) => {
    const phi = (lat * Math.PI) / 180;
    return [((lon + 180) / 360) * size, ((Math.PI - Math.log(Math.tan(Math.PI / 4 + phi / 2))) / (2 * Math.PI)) * size];
  };
}

// Float32 storage of a coordinate near 2048 rounds it by up to 1.2e-4 px.
const FLOAT32_SLACK = 5e-4;

describe('warpGrid', () => {
  test('an affine transform (scale, rotation, shear): every pixel exact, at most 2% of the points transformed, one call', async () => {
    const t: TargetRaster = { bbox: [500000, 4000000, 600000, 4075000], width: 1024, height: 768 };
    const f: PointFn = (x, y) => [0.01 * (x - 500000) + 0.002 * (y - 4000000) + 3.5, -0.0015 * (x - 500000) + 0.012 * (4075000 - y) + 10];
    const { transform, calls } = counted(f);
    const grid = await warpGrid(t, transform, { maxError: 0.125, step: 32 });
    const c = compare(grid, t, f);
    expect(c.nanPixels).toBe(0);
    expect(c.nanMismatches).toBe(0);
    expect(c.maxError).toBeLessThanOrEqual(FLOAT32_SLACK);
    expect(grid.exactPoints).toBe(calls.reduce((a, b) => a + b, 0));
    expect(grid.exactPoints!).toBeLessThanOrEqual(0.02 * t.width * t.height);
    // The lattice and its test points in one call; no cell splits.
    expect(calls).toHaveLength(1);
  });

  test('the inverse Web Mercator over the EPSG:4326 world (1024 x 512 into a 2048 px Mercator world): within maxError everywhere', async () => {
    const t: TargetRaster = { bbox: [-180, -90, 180, 90], width: 1024, height: 512 };
    const f = webMercatorPixels(2048);
    for (const maxError of [0.125, 0.5]) {
      const { transform, calls, repeats } = counted(f);
      const grid = await warpGrid(t, transform, { maxError, step: 32 });
      const c = compare(grid, t, f);
      expect(c.nanMismatches).toBe(0);
      expect(c.maxError).toBeLessThanOrEqual(maxError);
      expect(repeats()).toBe(0);
      // Mercator's y runs away near the poles, so the rows there end in exact pixels; elsewhere cells stay large.
      expect(grid.exactPoints!).toBeLessThan(0.1 * t.width * t.height);
      // One call per level of the quadtree: the first, then one per cut (a cut halves a side of at most 32 px; here
      // both sides are cut on the same levels, 5 of them).
      expect(calls.length).toBeLessThanOrEqual(6);
      expect(grid.transformCalls).toBe(calls.length);
    }
  });

  test('the default step over the Mercator square in EPSG:4326 (1024 x 512): within 0.125 px, under 5% of the points exact', async () => {
    const t: TargetRaster = { bbox: [-180, -85, 180, 85], width: 1024, height: 512 };
    const f = webMercatorPixels(4096);
    const { transform } = counted(f);
    const grid = await warpGrid(t, transform, { maxError: 0.125 });
    expect(compare(grid, t, f).maxError).toBeLessThanOrEqual(0.125);
    expect(grid.exactPoints!).toBeLessThan(0.05 * t.width * t.height);
  });

  test('a target crossing the antimeridian (source x jumps from the right edge to the left): the jump ends in exact pixels', async () => {
    const S = 1024;
    // Longitudes 100..260 east: the source wraps at 180.
    const t: TargetRaster = { bbox: [100, -60, 260, 60], width: 640, height: 480 };
    const wrap = (lon: number): number => ((((lon + 180) % 360) + 360) % 360) - 180;
    const f: PointFn = (lon, lat) => [((wrap(lon) + 180) / 360) * S, ((90 - lat) / 180) * S];
    const { transform } = counted(f);
    const grid = await warpGrid(t, transform, { maxError: 0.125, step: 32 });
    const c = compare(grid, t, f);
    expect(c.nanMismatches).toBe(0);
    expect(c.maxError).toBeLessThanOrEqual(0.125);
    // Lon 180 falls between columns 319 and 320: the source x there jumps from about S to about 0.
    const row = 200 * t.width;
    expect(grid.sx[row + 319]).toBeGreaterThan(S - 2);
    expect(grid.sx[row + 320]).toBeLessThan(2);
    // Only the columns near the jump are split down: a small share of pixels is exact.
    expect(grid.exactPoints!).toBeLessThan(0.05 * t.width * t.height);
  });

  test('a transform failing outside a disc (a projection horizon): NaN exactly outside, within maxError inside', async () => {
    const t: TargetRaster = { bbox: [-1.2, -1.2, 1.2, 1.2], width: 300, height: 300 };
    const f: PointFn = (x, y) => {
      const r2 = x * x + y * y;
      if (r2 > 1) return [NaN, NaN];
      // Orthographic back to lon/lat degrees, then scaled to a 1000 px equirectangular source.
      const z = Math.sqrt(1 - r2);
      const lon = Math.atan2(x, z);
      const lat = Math.asin(y);
      return [((lon / Math.PI + 0.5) * 1000) / 1, (0.5 - lat / Math.PI) * 1000];
    };
    const { transform } = counted(f);
    const grid = await warpGrid(t, transform, { maxError: 0.125, step: 32 });
    const c = compare(grid, t, f);
    expect(c.nanPixels).toBeGreaterThan(10000);
    expect(c.nanMismatches).toBe(0);
    expect(c.maxError).toBeLessThanOrEqual(0.125);
  });

  test('bounds: the smallest and largest finite coordinates of every pixel, NaN left out; none finite, no bounds', async () => {
    const t: TargetRaster = { bbox: [-1.2, -1.2, 1.2, 1.2], width: 200, height: 150 };
    // Inside the unit disc a curved map (interpolated pixels between exact ones), NaN outside.
    const f: PointFn = (x, y) => (x * x + y * y > 1 ? [NaN, NaN] : [300 + 100 * Math.sin(2 * x), 50 + 80 * y * y]);
    const grid = await warpGrid(t, counted(f).transform, { maxError: 0.125, step: 32 });
    const scan = [Infinity, Infinity, -Infinity, -Infinity];
    for (let p = 0; p < grid.sx.length; p++) {
      if (Number.isNaN(grid.sx[p])) continue;
      scan[0] = Math.min(scan[0], grid.sx[p]);
      scan[1] = Math.min(scan[1], grid.sy[p]);
      scan[2] = Math.max(scan[2], grid.sx[p]);
      scan[3] = Math.max(scan[3], grid.sy[p]);
    }
    expect(grid.bounds).toEqual(scan);
    // The map's own extremes over the disc: sin 2x is ±1 at x = ±π/4; y² runs 0-1 (pixels only approach them, at
    // centres 0.012 and 0.016 apart).
    expect(grid.bounds![0]).toBeCloseTo(200, 0);
    expect(grid.bounds![2]).toBeCloseTo(400, 0);
    expect(grid.bounds![1]).toBeCloseTo(50, 1);
    expect(grid.bounds![3]).toBeGreaterThan(127);
    expect(grid.bounds![3]).toBeLessThanOrEqual(130);
    const none = await warpGrid({ bbox: [0, 0, 1, 1], width: 9, height: 9 }, counted(() => [NaN, NaN]).transform, { maxError: 0.125 });
    expect(none.bounds).toBeUndefined();
  });

  test('its arrays come from `allocate` when given (contents as left by an earlier user), and are the same', async () => {
    const t: TargetRaster = { bbox: [10, 20, 30, 50], width: 70, height: 40 };
    const f: PointFn = (x, y) => [x * x * 0.5, Math.sin(y / 10) * 40];
    const fresh = await warpGrid(t, counted(f).transform, { maxError: 0.125, step: 16 });
    const given: ArrayBuffer[] = [];
    const allocate = (bytes: number): ArrayBuffer => {
      const b = new ArrayBuffer(bytes + 64);
      new Uint8Array(b).fill(0xa5); // dirty, as a reused buffer is
      given.push(b);
      return b;
    };
    const reused = await warpGrid(t, counted(f).transform, { maxError: 0.125, step: 16, allocate });
    expect(given.length).toBe(3); // sx, sy and the working state
    expect(reused.sx.buffer).toBe(given[0]);
    expect(reused.sx).toHaveLength(70 * 40);
    expect(Buffer.compare(Buffer.from(reused.sx.buffer, 0, 70 * 40 * 4), Buffer.from(fresh.sx.buffer, 0, 70 * 40 * 4))).toBe(0);
    expect(Buffer.compare(Buffer.from(reused.sy.buffer, 0, 70 * 40 * 4), Buffer.from(fresh.sy.buffer, 0, 70 * 40 * 4))).toBe(0);
    expect(reused.exactPoints).toBe(fresh.exactPoints);
  });

  test('a transform giving Infinity is treated as failing there', async () => {
    const t: TargetRaster = { bbox: [0, 0, 10, 10], width: 10, height: 10 };
    const f: PointFn = (x, y) => (x < 3 ? [Infinity, y] : [x, y]);
    const grid = await warpGrid(t, counted(f).transform, { maxError: 0.125, step: 4 });
    expect(Number.isNaN(grid.sx[5 * 10 + 2])).toBe(true);
    expect(grid.sx[5 * 10 + 3]).toBeCloseTo(3.5, 5);
  });

  test.each([
    [1, 1],
    [1, 7],
    [7, 1],
    [2, 3],
    [33, 65],
    [100, 3],
  ])('a %i x %i target: every pixel defined and exact for a smooth transform', async (width, height) => {
    const t: TargetRaster = { bbox: [10, 20, 30, 50], width, height };
    const f: PointFn = (x, y) => [x * x * 0.5, Math.sin(y / 10) * 40];
    const grid = await warpGrid(t, counted(f).transform, { maxError: 0.01, step: 8 });
    const c = compare(grid, t, f);
    expect(c.nanMismatches).toBe(0);
    expect(c.maxError).toBeLessThanOrEqual(0.01 + FLOAT32_SLACK);
    expect(grid.sx).toHaveLength(width * height);
  });

  test('maxError 0 transforms every pixel exactly, each once', async () => {
    const t: TargetRaster = { bbox: [0, 0, 1, 1], width: 40, height: 30 };
    const f: PointFn = (x, y) => [Math.exp(3 * x) * 10, y * y * 100];
    const { transform, calls } = counted(f);
    const grid = await warpGrid(t, transform, { maxError: 0, step: 16 });
    expect(compare(grid, t, f).maxError).toBeLessThanOrEqual(FLOAT32_SLACK);
    expect(calls.reduce((a, b) => a + b, 0)).toBe(t.width * t.height);
  });

  test('bad sizes and errors are refused', async () => {
    const { transform } = counted((x, y) => [x, y]);
    await expect(warpGrid({ bbox: [0, 0, 1, 1], width: 0, height: 5 }, transform, { maxError: 0.1 })).rejects.toThrow(RangeError);
    await expect(warpGrid({ bbox: [0, 0, 1, 1], width: 5, height: 5 }, transform, { maxError: NaN })).rejects.toThrow(RangeError);
  });
});
