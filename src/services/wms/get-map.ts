// WMS GetMap images in any CRS PROJ reaches, warped from the Web Mercator tiles of raster resources as gdalwarp
// would: PROJ transforms a sparse lattice of the image's pixel centres to Web Mercator and the rest is interpolated
// within `maxError` source pixels (geo/warp-grid.ts, GDAL's approximate transformer), each layer's source level is
// the one nearest in scale to the image at its centre (the rule static maps use), its tiles are assembled into one
// source region (static-maps' sourceRegion) and sampled with the configured kernel (geo/resample.ts). Layers are
// drawn bottom first; the image is flattened over BGCOLOR unless TRANSPARENT (always for JPEG). The pixels of a
// GetMap count against the one budget of image work (static maps, the renderer's metatiles).

import { resample, type Resampling } from '../../geo/resample';
import { warpGrid, type PointsTransform, type WarpGrid } from '../../geo/warp-grid';
import { ByteLru } from '../../store/bytes/lru';
import { ScratchBuffers } from '../scratch-buffers';
import { sharp } from '../sharp';
import { chooseLevel, RenderQueue, sourceRegion, type BaseTiles, type Raw } from '../static-maps';

const R = 6378137;
const HALF = Math.PI * R;
/** A source region holds at most this many pixels (64 MB of RGBA); a coarser level is read beyond it. */
const MAX_SOURCE_PIXELS = 16 * 1024 * 1024;
/** Kernel reach beyond the sampled coordinates, in source pixels (cubic's 4 x 4). */
const KERNEL_MARGIN = 3;
/** Free working buffers kept between images: those of about four 1024 x 768 images of one layer (~16 MB each). */
const SCRATCH_IDLE_BYTES = 64 * 1024 * 1024;

export interface GetMapLayer {
  /** The layer's name, for the `levels` report. */
  name: string;
  base: BaseTiles;
}

export interface GetMapInput {
  layers: GetMapLayer[];
  /** EPSG code of the image's CRS. */
  crs: number;
  /** minX, minY, maxX, maxY in the CRS, x first (easting or longitude). */
  bbox: [number, number, number, number];
  width: number;
  height: number;
  format: 'png' | 'jpeg' | 'webp';
  transparent: boolean;
  background: [number, number, number];
  /** zlib level of a PNG, sharp's 6 when not given (9 for tiles written once and sent many times). */
  pngLevel?: number;
}

export interface GetMapResult {
  data: Buffer;
  /** The source level each layer was drawn from (`name pyramid z`): said in a response header, for operators. */
  levels: string[];
}

export interface WmsMapsOptions {
  queue: RenderQueue;
  maxWaiting: number;
  resampling: Resampling;
  /** Largest interpolation error of the sample grid, in source pixels. */
  maxError: number;
  /** PROJ: points from EPSG:s to EPSG:t, NaN where it cannot. */
  transform: (xs: Float64Array, ys: Float64Array, s: number, t: number) => Promise<{ xs: Float64Array; ys: Float64Array }>;
}

/** The image's pixel centres in its CRS. */
function pixelCentre(input: GetMapInput, col: number, row: number): [number, number] {
  const [minX, minY, maxX, maxY] = input.bbox;
  return [minX + ((col + 0.5) * (maxX - minX)) / input.width, maxY - ((row + 0.5) * (maxY - minY)) / input.height];
}

export class WmsMaps {
  private readonly decoded = new ByteLru(32 * 1024 * 1024);
  /** The warp grid, source regions and canvas of each image, reused (scratch-buffers.ts says why). */
  readonly scratch = new ScratchBuffers(SCRATCH_IDLE_BYTES);

  constructor(private readonly opts: WmsMapsOptions) {}

  /** Target points to Web Mercator metres. */
  private toMercator(crs: number): PointsTransform {
    if (crs === 3857) return async (xs, ys) => ({ xs: Float64Array.from(xs), ys: Float64Array.from(ys) });
    return (xs, ys) => this.opts.transform(xs, ys, crs, 3857);
  }

  /** The GetMap image; `too-busy` when the image budget's queue is full, `abandoned` when `signal` fires first. */
  async draw(input: GetMapInput, signal?: AbortSignal): Promise<GetMapResult> {
    return this.opts.queue.run(input.width * input.height * (input.layers.length + 1), this.opts.maxWaiting, signal, () => this.compose(input));
  }

  private async compose(input: GetMapInput): Promise<GetMapResult> {
    const lease = this.scratch.lease();
    try {
      return await this.composeWith(input, lease.take);
    } finally {
      // The encoded image is sharp's own buffer: nothing taken outlives this.
      lease.release();
    }
  }

  private async composeWith(input: GetMapInput, allocate: (bytes: number) => ArrayBuffer): Promise<GetMapResult> {
    const { width, height } = input;
    // The first layer drawn is the canvas itself (over an empty canvas it would be copied as it is); none: blank.
    let drawn: Buffer | undefined;
    let layerPixels: Buffer | undefined;
    const pixels = (): Buffer => Buffer.from(allocate(width * height * 4), 0, width * height * 4);
    const levels: string[] = [];
    const toMercator = this.toMercator(input.crs);
    const metres = await this.resolution(input, toMercator);
    if (metres !== undefined) {
      // The grid in pixels of a reference world size (that of the finest level drawn), scaled to each layer's.
      const chosen = input.layers.map((l) => chooseLevel(l.base.pyramids, Math.log2((2 * HALF) / (512 * metres)), 1));
      const worldRef = Math.max(...chosen.map((c) => c.worldPx));
      const toPixels: PointsTransform = async (xs, ys) => {
        const m = await toMercator(xs, ys);
        for (let i = 0; i < m.xs.length; i++) {
          m.xs[i] = ((m.xs[i] + HALF) / (2 * HALF)) * worldRef;
          m.ys[i] = ((HALF - m.ys[i]) / (2 * HALF)) * worldRef;
        }
        return m;
      };
      const grid = await warpGrid({ bbox: input.bbox, width, height }, toPixels, { maxError: this.opts.maxError, allocate });
      for (const [i, layer] of input.layers.entries()) {
        let level = chosen[i];
        let k = level.worldPx / worldRef;
        let window = sourceWindow(grid.bounds, k, level.worldPx);
        // A region too large for memory (a CRS that stretches Mercator far, near a pole): a coarser level.
        while (window && window.w * window.h > MAX_SOURCE_PIXELS && level.z > level.pyramid.minzoom) {
          level = { ...level, z: level.z - 1, worldPx: level.worldPx / 2 };
          k /= 2;
          window = sourceWindow(grid.bounds, k, level.worldPx);
        }
        levels.push(`${layer.name} ${level.pyramid.name} ${level.z}`);
        if (!window || window.w * window.h > MAX_SOURCE_PIXELS) continue;
        const region = await sourceRegion(this.decoded, layer.base, level, window.x0, window.y0, window.w, window.h, allocate);
        // Each layer after the first is drawn into one buffer of its own and laid over the canvas.
        const into = drawn ? (layerPixels ??= pixels()) : pixels();
        const top = resample(region, grid, this.opts.resampling, [0, 0, 0, 0], { scale: k, x0: window.x0, y0: window.y0 }, into);
        if (drawn) over({ data: drawn, width, height }, top);
        else drawn = top;
      }
    }
    const canvas: Raw = { data: drawn ?? pixels().fill(0), width, height };
    return { data: await encode(canvas, input), levels };
  }

  /**
   * Web Mercator metres per image pixel at the image's centre (the geometric mean of a pixel's two sides), or at
   * the first point of a coarse lattice PROJ can transform; undefined when it can transform none (all background).
   */
  private async resolution(input: GetMapInput, toMercator: PointsTransform): Promise<number | undefined> {
    const cols: number[] = [];
    const rows: number[] = [];
    const n = 9;
    for (let j = 0; j < n; j++) {
      for (let i = 0; i < n; i++) {
        // The centre first, then a 9 x 9 lattice.
        const c = j === 0 && i === 0 ? (input.width - 1) / 2 : ((i + 0.5) * input.width) / n;
        const r = j === 0 && i === 0 ? (input.height - 1) / 2 : ((j + 0.5) * input.height) / n;
        cols.push(c, c + 1, c);
        rows.push(r, r, r + 1);
      }
    }
    const xs = new Float64Array(cols.length);
    const ys = new Float64Array(cols.length);
    for (let i = 0; i < cols.length; i++) [xs[i], ys[i]] = pixelCentre(input, cols[i], rows[i]);
    const m = await toMercator(xs, ys);
    for (let i = 0; i < cols.length; i += 3) {
      const dx = Math.hypot(m.xs[i + 1] - m.xs[i], m.ys[i + 1] - m.ys[i]);
      const dy = Math.hypot(m.xs[i + 2] - m.xs[i], m.ys[i + 2] - m.ys[i]);
      const res = Math.sqrt(dx * dy);
      if (Number.isFinite(res) && res > 0) return res;
    }
    return undefined;
  }
}

/** The source pixels a grid whose coordinates lie within `bounds` samples at scale `k`, with the kernel's margin; rows
 *  clamped to the world's. */
function sourceWindow(bounds: WarpGrid['bounds'], k: number, worldPx: number): { x0: number; y0: number; w: number; h: number } | undefined {
  if (!bounds) return undefined;
  const [minX, minY, maxX, maxY] = bounds.map((v) => v * k);
  const x0 = Math.floor(minX) - KERNEL_MARGIN;
  const y0 = Math.max(0, Math.floor(minY) - KERNEL_MARGIN);
  const y1 = Math.min(worldPx, Math.ceil(maxY) + KERNEL_MARGIN);
  if (y1 <= y0) return undefined;
  return { x0, y0, w: Math.ceil(maxX) + KERNEL_MARGIN - x0, h: y1 - y0 };
}

/** Porter-Duff "over" of `top` (straight alpha, the canvas's size) onto `canvas`. */
function over(canvas: Raw, top: Buffer): void {
  const d = canvas.data;
  for (let j = 0; j < d.length; j += 4) {
    const a = top[j + 3];
    if (a === 0) continue;
    if (a === 255 || d[j + 3] === 0) {
      d[j] = top[j];
      d[j + 1] = top[j + 1];
      d[j + 2] = top[j + 2];
      d[j + 3] = a;
      continue;
    }
    const as = a / 255;
    const ad = d[j + 3] / 255;
    const ao = as + ad * (1 - as);
    for (let c = 0; c < 3; c++) d[j + c] = Math.round((top[j + c] * as + d[j + c] * ad * (1 - as)) / ao);
    d[j + 3] = Math.round(ao * 255);
  }
}

/** Whether every pixel of the canvas is opaque. */
function opaque(canvas: Raw): boolean {
  const d = canvas.data;
  for (let j = 3; j < d.length; j += 4) if (d[j] !== 255) return false;
  return true;
}

/**
 * The canvas encoded, flattened over the background unless transparent (JPEG always). A transparent image with no
 * pixel that is not opaque is written without its alpha channel, as the same pixels: a quarter less to compress
 * (~25 % less CPU for the PNG, ~7 % fewer bytes).
 */
async function encode(canvas: Raw, input: GetMapInput): Promise<Buffer> {
  let img = sharp(canvas.data, { raw: { width: canvas.width, height: canvas.height, channels: 4 } });
  const [r, g, b] = input.background;
  if (!input.transparent || input.format === 'jpeg') img = img.flatten({ background: { r, g, b } });
  else if (opaque(canvas)) img = img.removeAlpha();
  if (input.format === 'png') return img.png(input.pngLevel === undefined ? {} : { compressionLevel: input.pngLevel }).toBuffer();
  if (input.format === 'jpeg') return img.jpeg({ quality: 90 }).toBuffer();
  return img.webp({ quality: 90 }).toBuffer();
}

/** The image a BLANK exception answers: the background (transparent when asked), nothing drawn. */
export function blankImage(width: number, height: number, format: GetMapInput['format'], transparent: boolean, background: [number, number, number]): Promise<Buffer> {
  const canvas: Raw = { data: Buffer.alloc(width * height * 4), width, height };
  return encode(canvas, { layers: [], crs: 3857, bbox: [0, 0, 1, 1], width, height, format, transparent, background });
}

/** The image an INIMAGE exception answers: the message written on the background. */
export async function exceptionImage(text: string, width: number, height: number, format: GetMapInput['format'], transparent: boolean, background: [number, number, number]): Promise<Buffer> {
  const blank = await blankImage(width, height, 'png', transparent, background);
  const escaped = text.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] as string);
  const label = await sharp({ text: { text: `<span foreground="#cc0000">${escaped}</span>`, font: 'sans 11', dpi: 72, rgba: true, width: Math.max(1, width - 8), wrap: 'word-char' } })
    .png()
    .toBuffer();
  const meta = await sharp(label).metadata();
  const fits = (meta.width ?? 0) <= width && (meta.height ?? 0) <= height;
  const composed = fits ? await sharp(blank).composite([{ input: label, left: Math.min(4, width - (meta.width ?? 0)), top: Math.min(4, height - (meta.height ?? 0)) }]).png().toBuffer() : blank;
  const img = sharp(composed);
  if (format === 'png') return img.png().toBuffer();
  if (format === 'jpeg') return img.flatten({ background: { r: background[0], g: background[1], b: background[2] } }).jpeg({ quality: 90 }).toBuffer();
  return img.webp({ quality: 90 }).toBuffer();
}
