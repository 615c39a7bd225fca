// The kernels of resample() on cases computed by hand: identity, half-pixel shifts, constants and ramps, the edges
// and transparency (GDAL's rules: a transparent nearest pixel is background, transparent pixels take no part in a
// kernel, the alpha is the nearest pixel's).
import { resample, type Resampling, type RgbaImage } from '../../src/geo/resample';
import type { WarpGrid } from '../../src/geo/warp-grid';

const METHODS: Resampling[] = ['nearest', 'bilinear', 'cubic'];
const BG: [number, number, number, number] = [1, 2, 3, 4];

/** An image whose pixel (i, j) is px(i, j). */
function image(width: number, height: number, px: (i: number, j: number) => [number, number, number, number]): RgbaImage {
  const data = Buffer.alloc(width * height * 4);
  for (let j = 0; j < height; j++) for (let i = 0; i < width; i++) data.set(px(i, j), (j * width + i) * 4);
  return { data, width, height };
}

/** A grid sampling the source at (fx(i, j), fy(i, j)) for target pixel (i, j). */
function grid(width: number, height: number, at: (i: number, j: number) => [number, number]): WarpGrid {
  const sx = new Float32Array(width * height);
  const sy = new Float32Array(width * height);
  for (let j = 0; j < height; j++) {
    for (let i = 0; i < width; i++) [sx[j * width + i], sy[j * width + i]] = at(i, j);
  }
  return { width, height, sx, sy };
}

/** Target pixel (i, j) of an output buffer. */
const pixel = (out: Buffer, width: number, i: number, j: number): number[] => [...out.subarray((j * width + i) * 4, (j * width + i) * 4 + 4)];

const noise = (i: number, j: number, k: number): number => (i * 73 + j * 151 + k * 37 + ((i * j * 17) % 23)) % 256;

describe('resample', () => {
  test.each(METHODS)('%s: the identity grid returns the source exactly (opaque and partly transparent)', (method) => {
    for (const alpha of [(): number => 255, (i: number, j: number): number => 1 + ((i + 3 * j) % 255)]) {
      const src = image(13, 9, (i, j) => [noise(i, j, 0), noise(i, j, 1), noise(i, j, 2), alpha(i, j)]);
      const out = resample(src, grid(13, 9, (i, j) => [i + 0.5, j + 0.5]), method, BG);
      expect(Buffer.compare(out, Buffer.from(src.data))).toBe(0);
    }
  });

  test('bilinear halfway between pixel centres is the mean of the neighbours', () => {
    const src = image(4, 4, (i, j) => [10 * i + 40 * j, 200 - 20 * i, 7, 255]);
    // Between columns 1 and 2 on row 1's centre: mean of two; between rows 1-2 and columns 1-2: mean of four.
    const out = resample(src, grid(2, 1, (i) => (i === 0 ? [2, 1.5] : [2, 2])), 'bilinear', BG);
    expect(pixel(out, 2, 0, 0)).toEqual([55, 170, 7, 255]); // (50 + 60) / 2, (180 + 160) / 2
    expect(pixel(out, 2, 1, 0)).toEqual([75, 170, 7, 255]); // (50 + 60 + 90 + 100) / 4
  });

  test('bilinear at a quarter: weights 3/4 and 1/4, rounded to nearest', () => {
    const src = image(2, 1, (i) => [i === 0 ? 0 : 100, i === 0 ? 0 : 2, 0, 255]);
    const out = resample(src, grid(1, 1, () => [0.75, 0.5]), 'bilinear', BG);
    expect(pixel(out, 1, 0, 0)).toEqual([25, 1, 0, 255]); // 0.5 rounds up
  });

  test.each(METHODS)('%s: outside [0, width] x [0, height] and NaN are background; the edges themselves are inside', (method) => {
    const src = image(6, 5, () => [100, 110, 120, 255]);
    const points: [number, number][] = [
      [-0.01, 2],
      [6.01, 2],
      [3, -0.01],
      [3, 5.01],
      [NaN, 2],
      [3, NaN],
      [0, 0],
      [6, 5],
      [6, 0],
    ];
    const out = resample(src, grid(points.length, 1, (i) => points[i]), method, BG);
    for (let i = 0; i < 6; i++) expect(pixel(out, points.length, i, 0)).toEqual(BG);
    for (let i = 6; i < points.length; i++) expect(pixel(out, points.length, i, 0)).toEqual([100, 110, 120, 255]);
  });

  test('near the edge the kernels clamp to the edge pixels', () => {
    const src = image(5, 5, (i, j) => [i * 50, j * 50, 0, 255]);
    // Within half a pixel of the left and top edges only column 0 and row 0 count.
    for (const method of ['bilinear', 'cubic'] as Resampling[]) {
      const out = resample(src, grid(2, 1, (i) => (i === 0 ? [0.2, 0.1] : [4.9, 4.8])), method, BG);
      expect(pixel(out, 2, 0, 0)).toEqual([0, 0, 0, 255]);
      expect(pixel(out, 2, 1, 0)).toEqual([200, 200, 0, 255]);
    }
  });

  test('cubic on a constant image is that constant', () => {
    const src = image(12, 12, () => [37, 200, 255, 255]);
    const n = 40;
    const out = resample(src, grid(n, n, (i, j) => [0.29 * i + 0.01 * j, 0.29 * j + 0.013 * i]), 'cubic', BG);
    for (let p = 0; p < n * n; p++) expect([...out.subarray(p * 4, p * 4 + 4)]).toEqual([37, 200, 255, 255]);
  });

  test('cubic reproduces a linear ramp inside (beyond 1.5 px of the edges)', () => {
    // Column i holds 20 i + 5: the ramp's value at x is 20 (x - 0.5) + 5.
    const src = image(12, 6, (i, j) => [20 * i + 5, 30 * j, 100, 255]);
    const xs = [1.5, 1.73, 2.1, 3.5, 5.25, 7.99, 9.6, 10.5];
    const out = resample(src, grid(xs.length, 1, (i) => [xs[i], 2.7]), 'cubic', BG);
    xs.forEach((x, i) => expect(pixel(out, xs.length, i, 0)).toEqual([Math.round(20 * (x - 0.5) + 5), Math.round(30 * 2.2), 100, 255]));
  });

  test('cubic uses the Keys kernel (a = -0.5): halfway weights -1/16, 9/16, 9/16, -1/16', () => {
    // Columns 0..5 hold 0, 0, 160, 0, 0, 0: halfway between columns 1 and 2, 9/16 of 160 = 90 (bilinear would say 80).
    const src = image(6, 6, (i) => [i === 2 ? 160 : 0, i === 3 ? 160 : 0, 0, 255]);
    const out = resample(src, grid(2, 1, (i) => (i === 0 ? [2, 3] : [3, 3])), 'cubic', BG);
    expect(pixel(out, 2, 0, 0)).toEqual([90, 0, 0, 255]); // G: columns 0..3 hold 0, 0, 0, 160: -1/16 of 160, clamped
    expect(pixel(out, 2, 1, 0)).toEqual([90, 90, 0, 255]);
  });

  test('cubic overshoot is clamped to 0-255', () => {
    const src = image(8, 8, (i) => (i < 4 ? [0, 255, 0, 255] : [255, 0, 0, 255]));
    const out = resample(src, grid(1, 1, () => [3.3, 4]), 'cubic', BG);
    // Keys overshoots below 0 before a step up and above 255 before a step down.
    expect(pixel(out, 1, 0, 0)).toEqual([0, 255, 0, 255]);
  });

  test('cubic falls back to bilinear within 1.5 px of an edge', () => {
    const src = image(6, 6, (i) => [i === 1 ? 160 : 0, 0, 0, 255]);
    // x = 1.0: halfway between columns 0 and 1; cubic would need column -1.
    const out = resample(src, grid(1, 1, () => [1, 3]), 'cubic', BG);
    expect(pixel(out, 1, 0, 0)).toEqual([80, 0, 0, 255]);
  });

  describe('transparency (as gdalwarp with a source alpha band)', () => {
    // Column 0 opaque red, column 1 transparent black, column 2 half-transparent green, rows all alike.
    const src = image(3, 3, (i) => (i === 0 ? [255, 0, 0, 255] : i === 1 ? [0, 0, 0, 0] : [0, 255, 0, 128]));

    test.each(METHODS)('%s: a transparent nearest pixel gives background', (method) => {
      const out = resample(src, grid(1, 1, () => [1.4, 1.5]), method, BG);
      expect(pixel(out, 1, 0, 0)).toEqual(BG);
    });

    test('bilinear: transparent pixels take no part, the alpha is the nearest pixel\'s', () => {
      // Between red (0) and transparent (1), nearer red: red alone, opaque. Between transparent and green, nearer
      // green: green alone, green's alpha.
      const out = resample(src, grid(2, 1, (i) => (i === 0 ? [0.9, 1.5] : [2.2, 1.5])), 'bilinear', BG);
      expect(pixel(out, 2, 0, 0)).toEqual([255, 0, 0, 255]);
      expect(pixel(out, 2, 1, 0)).toEqual([0, 255, 0, 128]);
    });

    test('bilinear between two non-transparent pixels mixes their colours unweighted by alpha', () => {
      const two = image(2, 1, (i) => (i === 0 ? [200, 0, 0, 255] : [0, 100, 0, 10]));
      const out = resample(two, grid(2, 1, (i) => (i === 0 ? [0.9, 0.5] : [1.1, 0.5])), 'bilinear', BG);
      expect(pixel(out, 2, 0, 0)).toEqual([120, 40, 0, 255]); // 0.6 * 200, 0.4 * 100; nearest alpha 255
      expect(pixel(out, 2, 1, 0)).toEqual([80, 60, 0, 10]); // 0.4 * 200, 0.6 * 100; nearest alpha 10
    });

    test('cubic with a transparent pixel among its 16 is bilinear', () => {
      const wide = image(8, 8, (i, j) => (i === 2 && j === 2 ? [0, 0, 0, 0] : [i === 4 ? 160 : 0, 0, 0, 255]));
      // At (4, 3.5): columns 2..5, rows 2..5; (2, 2) transparent, so bilinear: halfway between 0 and 160.
      const out = resample(wide, grid(2, 1, (i) => (i === 0 ? [4, 3.5] : [4, 5.5])), 'cubic', BG);
      expect(pixel(out, 2, 0, 0)).toEqual([80, 0, 0, 255]);
      // Away from it: cubic, 9/16 of 160.
      expect(pixel(out, 2, 1, 0)).toEqual([90, 0, 0, 255]);
    });
  });

  test('the source may be a Buffer slice with an odd offset', () => {
    const backing = Buffer.alloc(1 + 2 * 2 * 4);
    const data = backing.subarray(1);
    data.set([1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255, 10, 11, 12, 255]);
    const out = resample({ data, width: 2, height: 2 }, grid(2, 2, (i, j) => [i + 0.5, j + 0.5]), 'bilinear', BG);
    expect([...out]).toEqual([...data]);
  });

  test.each(METHODS)('%s: opaque white stays white anywhere inside (each channel 255 in every kernel and path)', (method) => {
    const white = image(9, 9, () => [255, 255, 255, 255]);
    const out = resample(white, grid(5, 3, (i, j) => [0.3 + 2.07 * i, 0.6 + 3.9 * j]), method, BG);
    for (let p = 0; p < 15; p++) expect(pixel(out, 5, p % 5, Math.floor(p / 5))).toEqual([255, 255, 255, 255]);
  });

  test('into: the image is written in the buffer given (the same bytes); a short or unaligned one is refused', () => {
    const src = image(6, 5, (i, j) => [noise(i, j, 0), noise(i, j, 1), noise(i, j, 2), 255]);
    const g = grid(4, 3, (i, j) => [0.7 + 1.3 * i, 0.4 + 1.5 * j]);
    for (const method of METHODS) {
      const fresh = resample(src, g, method, BG);
      const into = Buffer.from(new ArrayBuffer(64)).fill(7);
      const out = resample(src, g, method, BG, undefined, into);
      expect(out.buffer).toBe(into.buffer);
      expect([...out]).toEqual([...fresh]);
    }
    expect(() => resample(src, g, 'bilinear', BG, undefined, Buffer.alloc(40))).toThrow(RangeError);
    expect(() => resample(src, g, 'bilinear', BG, undefined, Buffer.from(new ArrayBuffer(64)).subarray(2))).toThrow(RangeError);
  });

  test('a source shorter than its size, or empty, says so', () => {
    expect(() => resample({ data: Buffer.alloc(10), width: 2, height: 2 }, grid(1, 1, () => [1, 1]), 'nearest', BG)).toThrow(RangeError);
    expect(() => resample({ data: Buffer.alloc(0), width: 0, height: 2 }, grid(1, 1, () => [0, 1]), 'nearest', BG)).toThrow(RangeError);
  });
});
