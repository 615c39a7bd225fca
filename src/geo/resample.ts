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

/**
 * Where a grid's coordinates fall in a source that is a window of a larger image at another scale: (sx * scale - x0,
 * sy * scale - y0), each rounded to single precision as a grid's own coordinates are.
 */
export interface GridShift {
  scale: number;
  x0: number;
  y0: number;
}

/**
 * The target image: each pixel sampled from `source` at (grid.sx, grid.sy), or at those shifted by `shift` (without a
 * shifted copy of the grid: two arrays of the image's size less per layer); pixels outside the source or NaN get
 * `background` (RGBA, 0-255).
 */
export function resample(
  source: RgbaImage,
  grid: WarpGrid,
  method: Resampling,
  background: [number, number, number, number],
  shift: GridShift = { scale: 1, x0: 0, y0: 0 },
): Buffer {
  const { width: w, height: h } = source;
  const src = source.data;
  if (!(w >= 1 && h >= 1)) throw new RangeError(`source size must be positive, got ${w} x ${h}`);
  if (src.length < w * h * 4) throw new RangeError(`source data holds ${src.length} bytes, ${w} x ${h} RGBA needs ${w * h * 4}`);
  const n = grid.width * grid.height;
  if (grid.sx.length < n || grid.sy.length < n) throw new RangeError('grid coordinates are shorter than its size');
  const out = Buffer.allocUnsafe(n * 4);
  const [bgR, bgG, bgB, bgA] = background.map(clampByte);
  const stride = w * 4;
  const { sx, sy } = grid;
  const rgb = new Float64Array(3);

  /** Bilinear colour into rgb, over the in-bounds non-transparent pixels of the 2 x 2 around (x, y). */
  const bilinear = (x: number, y: number): void => {
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
  };

  /** Cubic colour into rgb; false where GDAL falls back to bilinear. */
  const cubic = (x: number, y: number): boolean => {
    const ix = Math.trunc(x - 0.5);
    const iy = Math.trunc(y - 0.5);
    if (ix - 1 < 0 || ix + 2 >= w || iy - 1 < 0 || iy + 2 >= h) return false;
    // Keys weights (a = -0.5) of columns ix - 1 .. ix + 2 and rows iy - 1 .. iy + 2, inline: this is the hot loop.
    let d = x - 0.5 - ix;
    let half = 0.5 * d;
    let half2 = half * d;
    let three = 3 * d;
    const x0 = half * (-1 + d * (2 - d));
    const x1 = 1 + half2 * (-5 + three);
    const x2 = half * (1 + d * (4 - three));
    const x3 = half2 * (-1 + d);
    d = y - 0.5 - iy;
    half = 0.5 * d;
    half2 = half * d;
    three = 3 * d;
    let r = 0;
    let g = 0;
    let b = 0;
    let minAlpha = 255;
    for (let k = 0, o = (iy - 1) * stride + (ix - 1) * 4; k < 4; k++, o += stride) {
      const f = k === 0 ? half * (-1 + d * (2 - d)) : k === 1 ? 1 + half2 * (-5 + three) : k === 2 ? half * (1 + d * (4 - three)) : half2 * (-1 + d);
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
  };

  const { scale, x0, y0 } = shift;
  for (let p = 0, q = 0; p < n; p++, q += 4) {
    const x = Math.fround(sx[p] * scale - x0);
    const y = Math.fround(sy[p] * scale - y0);
    let alpha = 0;
    let o = 0;
    // NaN fails every comparison, so it is background too.
    if (x >= 0 && y >= 0 && x <= w && y <= h) {
      let ix = (x + INDEX_EPSILON) | 0;
      let iy = (y + INDEX_EPSILON) | 0;
      if (ix >= w) ix = w - 1;
      if (iy >= h) iy = h - 1;
      o = iy * stride + ix * 4;
      alpha = src[o + 3];
    }
    if (alpha === 0) {
      out[q] = bgR;
      out[q + 1] = bgG;
      out[q + 2] = bgB;
      out[q + 3] = bgA;
    } else if (method === 'nearest') {
      out[q] = src[o];
      out[q + 1] = src[o + 1];
      out[q + 2] = src[o + 2];
      out[q + 3] = alpha;
    } else {
      if (method === 'bilinear' || !cubic(x, y)) bilinear(x, y);
      out[q] = clampByte(rgb[0]);
      out[q + 1] = clampByte(rgb[1]);
      out[q + 2] = clampByte(rgb[2]);
      out[q + 3] = alpha;
    }
  }
  return out;
}
