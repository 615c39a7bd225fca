// Samples an RGBA source image at the continuous source coordinates of a warp grid, with the kernels of gdalwarp
// (GDAL's gdalwarpkernel.cpp, its 4-sample paths used when the target is not much smaller than the source):
//  - nearest: the source pixel the coordinate falls in;
//  - bilinear: the 2 x 2 pixels around the coordinate;
//  - cubic: Keys cubic convolution with a = -0.5 over the 4 x 4 pixels around it (GDAL's "cubic"), falling back
//    to bilinear where those 16 pixels are not all inside the source or not all non-transparent, as GDAL does.
//
// Alpha, as gdalwarp with a source alpha band: a target pixel whose nearest source pixel is fully transparent is
// background; its alpha is that nearest pixel's alpha (GDAL writes the nearest pixel's density to the destination,
// not an interpolated one); its colour is the kernel's weighted mean over the kernel's non-transparent pixels, the
// weights renormalised over them (colours are not premultiplied: transparent pixels take no part, so the
// transparent black of a missing tile does not darken the edge of the tiles beside it). A partly transparent pixel
// keeps its alpha: compositing it over an opaque background (a WMS BGCOLOR) is the caller's, as with gdalwarp.
//
// Edges: a coordinate outside [0, width] x [0, height] is background (NaN too). Inside, the bilinear kernel drops
// the pixels beyond the edge and renormalises its weights over the rest, which amounts to clamping to the edge pixel
// (GDAL's way); the cubic kernel uses bilinear within one pixel and a half of an edge (GDAL's way). Values are
// clamped to 0-255 and rounded to nearest (GDAL's (int)(v + 0.5)).

import type { WarpGrid } from './warp-grid';

export type Resampling = 'nearest' | 'bilinear' | 'cubic';

/** 4 bytes per pixel (R, G, B, A), row-major. */
export interface RgbaImage {
  data: Uint8Array | Buffer;
  width: number;
  height: number;
}

/** The coordinate tolerance GDAL adds before truncating to a pixel index (2.9999999999 is pixel 3). */
const INDEX_EPSILON = 1e-10;

const clampByte = (v: number): number => (v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0);

const NEAREST = 0;
const BILINEAR = 1;
const CUBIC = 2;

/** Whether a pixel read as one 32-bit word has R in its low byte: the passes with literal shifts need it. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** One pixel as the 32-bit word whose bytes in memory are R, G, B, A, in this machine's byte order. */
const word = (rgba: readonly number[]): number => new Uint32Array(Uint8Array.from(rgba).buffer)[0];

/** The first `count` pixels of `bytes` as 32-bit words: a view when it is aligned, else a copy (a source only: an
 *  output is always aligned, see `resample`). */
function words(bytes: Uint8Array, count: number): Uint32Array {
  if (bytes.byteOffset % 4 === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset, count);
  const copy = new Uint8Array(count * 4);
  copy.set(bytes.subarray(0, count * 4));
  return new Uint32Array(copy.buffer, 0, count);
}

/**
 * Where a grid's coordinates fall in a source that is a window of a larger image at another scale: (sx * scale - x0,
 * sy * scale - y0), each rounded to single precision as a grid's own coordinates are.
 */
export interface GridShift {
  scale: number;
  x0: number;
  y0: number;
}

/** A source image as the kernels read it. */
interface Samples {
  src: Uint8Array;
  w: number;
  h: number;
  stride: number;
}

/** Bilinear colour into rgb, over the in-bounds non-transparent pixels of the 2 x 2 around (x, y). */
function bilinearAt(s: Samples, x: number, y: number, rgb: Float64Array): void {
  const { src, w, h, stride } = s;
  let ix = Math.floor(x - 0.5);
  let iy = Math.floor(y - 0.5);
  let rx = 1.5 - (x - ix); // the weight of column ix
  let ry = 1.5 - (y - iy);
  if (ix === -1) {
    ix = 0;
    rx = 1;
  }
  if (iy === -1) {
    iy = 0;
    ry = 1;
  }
  const o = iy * stride + ix * 4;
  if (ix + 1 < w && iy + 1 < h && src[o + 3] !== 0 && src[o + 7] !== 0 && src[o + stride + 3] !== 0 && src[o + stride + 7] !== 0) {
    const a = rx * ry;
    const b = (1 - rx) * ry;
    const c = rx * (1 - ry);
    const d = (1 - rx) * (1 - ry);
    const o2 = o + stride;
    rgb[0] = a * src[o] + b * src[o + 4] + c * src[o2] + d * src[o2 + 4];
    rgb[1] = a * src[o + 1] + b * src[o + 5] + c * src[o2 + 1] + d * src[o2 + 5];
    rgb[2] = a * src[o + 2] + b * src[o + 6] + c * src[o2 + 2] + d * src[o2 + 6];
    return;
  }
  let sum = 0;
  let r = 0;
  let g = 0;
  let b = 0;
  for (let dy = 0; dy < 2 && iy + dy < h; dy++) {
    const fy = dy === 0 ? ry : 1 - ry;
    for (let dx = 0; dx < 2 && ix + dx < w; dx++) {
      const q = o + dy * stride + dx * 4;
      if (src[q + 3] === 0) continue;
      const f = (dx === 0 ? rx : 1 - rx) * fy;
      sum += f;
      r += src[q] * f;
      g += src[q + 1] * f;
      b += src[q + 2] * f;
    }
  }
  // The nearest pixel is one of the four and not transparent, so sum >= 1/4.
  rgb[0] = r / sum;
  rgb[1] = g / sum;
  rgb[2] = b / sum;
}

/** Keys cubic convolution weights (a = -0.5) of the four samples around a point `d` (0-1) past the second, into
 *  kw[at .. at + 3]. */
function keysWeights(d: number, kw: Float64Array, at: number): void {
  const half = 0.5 * d;
  const half2 = half * d;
  const three = 3 * d;
  kw[at] = half * (-1 + d * (2 - d));
  kw[at + 1] = 1 + half2 * (-5 + three);
  kw[at + 2] = half * (1 + d * (4 - three));
  kw[at + 3] = half2 * (-1 + d);
}

/** Cubic colour into rgb (kw: room for eight weights); false where GDAL falls back to bilinear. */
function cubicAt(s: Samples, x: number, y: number, rgb: Float64Array, kw: Float64Array): boolean {
  const { src, w, h, stride } = s;
  const ix = Math.trunc(x - 0.5);
  const iy = Math.trunc(y - 0.5);
  if (ix - 1 < 0 || ix + 2 >= w || iy - 1 < 0 || iy + 2 >= h) return false;
  // Keys weights of columns ix - 1 .. ix + 2 and rows iy - 1 .. iy + 2.
  keysWeights(x - 0.5 - ix, kw, 0);
  keysWeights(y - 0.5 - iy, kw, 4);
  const x0 = kw[0];
  const x1 = kw[1];
  const x2 = kw[2];
  const x3 = kw[3];
  let r = 0;
  let g = 0;
  let b = 0;
  let minAlpha = 255;
  for (let k = 0, o = (iy - 1) * stride + (ix - 1) * 4; k < 4; k++, o += stride) {
    const f = kw[4 + k];
    minAlpha = Math.min(minAlpha, src[o + 3], src[o + 7], src[o + 11], src[o + 15]);
    r += f * (x0 * src[o] + x1 * src[o + 4] + x2 * src[o + 8] + x3 * src[o + 12]);
    g += f * (x0 * src[o + 1] + x1 * src[o + 5] + x2 * src[o + 9] + x3 * src[o + 13]);
    b += f * (x0 * src[o + 2] + x1 * src[o + 6] + x2 * src[o + 10] + x3 * src[o + 14]);
  }
  // A transparent pixel among the 16: GDAL's bilinear instead.
  if (minAlpha === 0) return false;
  rgb[0] = r;
  rgb[1] = g;
  rgb[2] = b;
  return true;
}

/**
 * The cubic pass with its common case inline: the 4 x 4 pixels inside the source and all opaque, as one
 * little-endian RGBA word (alpha 255). The numbers are cubicAt's, summed in its order; the sums are written out (a
 * helper per row was not inlined by the compiler and made the pass 2.5 times slower). Every other pixel goes to
 * samplePixel.
 */
function cubicPass(pass: Pass, sx: Float32Array, sy: Float32Array, n: number, scale: number, x0: number, y0: number): void {
  const { src32, out32, kw } = pass;
  const { w, h } = pass.samples;
  for (let p = 0; p < n; p++) {
    const x = Math.fround(sx[p] * scale - x0);
    const y = Math.fround(sy[p] * scale - y0);
    const ix = Math.trunc(x - 0.5);
    const iy = Math.trunc(y - 0.5);
    // NaN fails every comparison: samplePixel's background.
    if (ix >= 1 && iy >= 1 && ix + 2 < w && iy + 2 < h) {
      const o0 = (iy - 1) * w + ix - 1;
      const o1 = o0 + w;
      const o2 = o1 + w;
      const o3 = o2 + w;
      const a0 = src32[o0], a1 = src32[o0 + 1], a2 = src32[o0 + 2], a3 = src32[o0 + 3];
      const b0 = src32[o1], b1 = src32[o1 + 1], b2 = src32[o1 + 2], b3 = src32[o1 + 3];
      const c0 = src32[o2], c1 = src32[o2 + 1], c2 = src32[o2 + 2], c3 = src32[o2 + 3];
      const d0 = src32[o3], d1 = src32[o3 + 1], d2 = src32[o3 + 2], d3 = src32[o3 + 3];
      if ((a0 & a1 & a2 & a3 & b0 & b1 & b2 & b3 & c0 & c1 & c2 & c3 & d0 & d1 & d2 & d3) >>> 24 === 255) {
        keysWeights(x - 0.5 - ix, kw, 0);
        keysWeights(y - 0.5 - iy, kw, 4);
        const wx0 = kw[0];
        const wx1 = kw[1];
        const wx2 = kw[2];
        const wx3 = kw[3];
        const f0 = kw[4];
        const f1 = kw[5];
        const f2 = kw[6];
        const f3 = kw[7];
        // Each sum starts at 0 as cubicAt's does, rows in its order (0 + the first product is that product, -0 aside).
        let r = 0 + f0 * (wx0 * (a0 & 255) + wx1 * (a1 & 255) + wx2 * (a2 & 255) + wx3 * (a3 & 255));
        r += f1 * (wx0 * (b0 & 255) + wx1 * (b1 & 255) + wx2 * (b2 & 255) + wx3 * (b3 & 255));
        r += f2 * (wx0 * (c0 & 255) + wx1 * (c1 & 255) + wx2 * (c2 & 255) + wx3 * (c3 & 255));
        r += f3 * (wx0 * (d0 & 255) + wx1 * (d1 & 255) + wx2 * (d2 & 255) + wx3 * (d3 & 255));
        let g = 0 + f0 * (wx0 * ((a0 >>> 8) & 255) + wx1 * ((a1 >>> 8) & 255) + wx2 * ((a2 >>> 8) & 255) + wx3 * ((a3 >>> 8) & 255));
        g += f1 * (wx0 * ((b0 >>> 8) & 255) + wx1 * ((b1 >>> 8) & 255) + wx2 * ((b2 >>> 8) & 255) + wx3 * ((b3 >>> 8) & 255));
        g += f2 * (wx0 * ((c0 >>> 8) & 255) + wx1 * ((c1 >>> 8) & 255) + wx2 * ((c2 >>> 8) & 255) + wx3 * ((c3 >>> 8) & 255));
        g += f3 * (wx0 * ((d0 >>> 8) & 255) + wx1 * ((d1 >>> 8) & 255) + wx2 * ((d2 >>> 8) & 255) + wx3 * ((d3 >>> 8) & 255));
        let bl = 0 + f0 * (wx0 * ((a0 >>> 16) & 255) + wx1 * ((a1 >>> 16) & 255) + wx2 * ((a2 >>> 16) & 255) + wx3 * ((a3 >>> 16) & 255));
        bl += f1 * (wx0 * ((b0 >>> 16) & 255) + wx1 * ((b1 >>> 16) & 255) + wx2 * ((b2 >>> 16) & 255) + wx3 * ((b3 >>> 16) & 255));
        bl += f2 * (wx0 * ((c0 >>> 16) & 255) + wx1 * ((c1 >>> 16) & 255) + wx2 * ((c2 >>> 16) & 255) + wx3 * ((c3 >>> 16) & 255));
        bl += f3 * (wx0 * ((d0 >>> 16) & 255) + wx1 * ((d1 >>> 16) & 255) + wx2 * ((d2 >>> 16) & 255) + wx3 * ((d3 >>> 16) & 255));
        out32[p] = clampByte(r) | (clampByte(g) << 8) | (clampByte(bl) << 16) | 0xff000000;
        continue;
      }
    }
    samplePixel(pass, p, x, y);
  }
}

/** What one resampling pass reads and writes. The kernels are functions apart from the loops: variables a closure
 *  captured would be read from the heap in the hot loop. */
interface Pass {
  samples: Samples;
  src32: Uint32Array;
  out: Buffer;
  out32: Uint32Array;
  bg32: number;
  kernel: number;
  rgb: Float64Array;
  /** Cubic's weights of a pixel: four across, four down. */
  kw: Float64Array;
}

/** Pixel p sampled at (x, y) by the pass's kernel, byte-wise, every case: background, alpha, edges. */
function samplePixel(pass: Pass, p: number, x: number, y: number): void {
  const { samples, out, out32, rgb } = pass;
  const { src, w, h } = samples;
  // NaN fails every comparison, so it is background too.
  if (!(x >= 0 && y >= 0 && x <= w && y <= h)) {
    out32[p] = pass.bg32;
    return;
  }
  let nx = (x + INDEX_EPSILON) | 0;
  let ny = (y + INDEX_EPSILON) | 0;
  if (nx >= w) nx = w - 1;
  if (ny >= h) ny = h - 1;
  const o = (ny * w + nx) * 4;
  const alpha = src[o + 3];
  if (alpha === 0) {
    out32[p] = pass.bg32;
    return;
  }
  if (pass.kernel === NEAREST) {
    out32[p] = pass.src32[o >> 2];
    return;
  }
  if (pass.kernel === BILINEAR || !cubicAt(samples, x, y, rgb, pass.kw)) bilinearAt(samples, x, y, rgb);
  const q = p * 4;
  out[q] = clampByte(rgb[0]);
  out[q + 1] = clampByte(rgb[1]);
  out[q + 2] = clampByte(rgb[2]);
  out[q + 3] = alpha;
}

/**
 * The bilinear pass with its common case inline: the 2 x 2 pixels inside the source and all opaque. The nearest
 * pixel is one of them (its alpha is 255), the weights are positive and sum to 1, so each sum lies in 0-255 and
 * rounding is all clampByte would do. The shifts are literal (little-endian: R in the low byte) for the compiler's
 * sake. Every other pixel goes to samplePixel.
 */
function bilinearPass(pass: Pass, sx: Float32Array, sy: Float32Array, n: number, scale: number, x0: number, y0: number): void {
  const { src32, out32 } = pass;
  const { w, h } = pass.samples;
  for (let p = 0; p < n; p++) {
    const x = Math.fround(sx[p] * scale - x0);
    const y = Math.fround(sy[p] * scale - y0);
    const ix = Math.floor(x - 0.5);
    const iy = Math.floor(y - 0.5);
    // NaN fails every comparison: samplePixel's background.
    if (ix >= 0 && iy >= 0 && ix + 1 < w && iy + 1 < h) {
      const i = iy * w + ix;
      const p00 = src32[i];
      const p10 = src32[i + 1];
      const p01 = src32[i + w];
      const p11 = src32[i + w + 1];
      if ((p00 & p10 & p01 & p11) >>> 24 === 255) {
        const rx = 1.5 - (x - ix);
        const ry = 1.5 - (y - iy);
        const a = rx * ry;
        const b = (1 - rx) * ry;
        const c = rx * (1 - ry);
        const d = (1 - rx) * (1 - ry);
        const r = a * (p00 & 255) + b * (p10 & 255) + c * (p01 & 255) + d * (p11 & 255);
        const g = a * ((p00 >>> 8) & 255) + b * ((p10 >>> 8) & 255) + c * ((p01 >>> 8) & 255) + d * ((p11 >>> 8) & 255);
        const bl = a * ((p00 >>> 16) & 255) + b * ((p10 >>> 16) & 255) + c * ((p01 >>> 16) & 255) + d * ((p11 >>> 16) & 255);
        out32[p] = ((r + 0.5) | 0) | (((g + 0.5) | 0) << 8) | (((bl + 0.5) | 0) << 16) | 0xff000000;
        continue;
      }
    }
    samplePixel(pass, p, x, y);
  }
}

/**
 * The target image: each pixel sampled from `source` at (grid.sx, grid.sy), or at those shifted by `shift` (without a
 * shifted copy of the grid: two arrays of the image's size less per layer); pixels outside the source or NaN get
 * `background` (RGBA, 0-255). Written into `into` when given (a reused buffer of at least the image's bytes).
 */
export function resample(
  source: RgbaImage,
  grid: WarpGrid,
  method: Resampling,
  background: [number, number, number, number],
  shift: GridShift = { scale: 1, x0: 0, y0: 0 },
  into?: Buffer,
): Buffer {
  const { width: w, height: h } = source;
  const src = source.data;
  if (!(w >= 1 && h >= 1)) throw new RangeError(`source size must be positive, got ${w} x ${h}`);
  if (src.length < w * h * 4) throw new RangeError(`source data holds ${src.length} bytes, ${w} x ${h} RGBA needs ${w * h * 4}`);
  const n = grid.width * grid.height;
  if (grid.sx.length < n || grid.sy.length < n) throw new RangeError('grid coordinates are shorter than its size');
  if (into && (into.length < n * 4 || into.byteOffset % 4 !== 0)) throw new RangeError(`the output buffer must be aligned to 4 bytes and hold ${n * 4}`);
  // A new ArrayBuffer rather than allocUnsafe's pool: aligned for the 32-bit stores.
  const out = into ? into.subarray(0, n * 4) : Buffer.from(new ArrayBuffer(n * 4));
  const { sx, sy } = grid;
  const { scale, x0, y0 } = shift;
  // The kernel as a number: a method string read from the config is not interned, and comparing it per pixel
  // compared its characters.
  const kernel = method === 'nearest' ? NEAREST : method === 'bilinear' ? BILINEAR : CUBIC;
  // Whole pixels as one 32-bit load or store each where it pays (a quarter of the memory operations of the byte-wise
  // kernels, for the same numbers: the channels are taken out with shifts and the sums made in the same order).
  const pass: Pass = {
    samples: { src, w, h, stride: w * 4 },
    src32: words(src, w * h),
    out,
    out32: words(out, n),
    bg32: word(background.map(clampByte)),
    kernel,
    rgb: new Float64Array(3),
    kw: new Float64Array(8),
  };
  if (kernel === BILINEAR && LITTLE_ENDIAN) {
    bilinearPass(pass, sx, sy, n, scale, x0, y0);
    return out;
  }
  if (kernel === CUBIC && LITTLE_ENDIAN) {
    cubicPass(pass, sx, sy, n, scale, x0, y0);
    return out;
  }
  for (let p = 0; p < n; p++) samplePixel(pass, p, Math.fround(sx[p] * scale - x0), Math.fround(sy[p] * scale - y0));
  return out;
}
