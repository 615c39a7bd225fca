// Where each pixel of a target image samples the source image: an approximate transformer in the manner of GDAL's
// (GDALApproxTransform), but over a quadtree of cells instead of scanlines. A sparse lattice of target pixel centres
// is transformed exactly, the pixels inside each cell are interpolated bilinearly from its four corners, and each
// cell is checked at its edge midpoints, its centre and its quadrants' centres; a cell whose interpolation is off by
// more than 3/4 of `maxError` source pixels there (or that has a point the transform cannot map) is cut across the
// direction that fails, down to sides of one step or cells of 2 x 2 steps whose every pixel is one of their
// corners, edge midpoints or centre, so exact (decision 0052).
// GDAL checks only the midpoint of each scanline segment against the whole maxError, which bounds the error at the
// points checked only; the quadrants and the quarter kept in reserve are for the pixels between them (the error of
// bilinear interpolation peaks where the transform's second derivatives do, not always at a point checked): with
// them the smooth transforms of the tests stay within maxError at every pixel, for about 8% more exact points.
//
// The exact transform may cross a thread (PROJ in a worker), so every level of the quadtree is one call: the first
// call maps the lattice and the first cells' test points, each further call the test points of the cells split by
// the level before.

/** Exact transformation of many points from the target CRS (x east-ish, y north-ish, in the CRS's own units, axis
 *  order already normalised to x/y) to the source's pixel space. Points it cannot transform come back NaN. */
export type PointsTransform = (xs: Float64Array, ys: Float64Array) => Promise<{ xs: Float64Array; ys: Float64Array }>;

export interface TargetRaster {
  /** minX, minY, maxX, maxY of the image's outer edges in the target CRS (x/y order). */
  bbox: [number, number, number, number];
  width: number;
  height: number;
}

export interface WarpGrid {
  width: number;
  height: number;
  /** For each target pixel centre (row-major, row 0 at the top = maxY), its source pixel coordinates (continuous,
   *  pixel centres at .5), NaN where the transform failed. */
  sx: Float32Array;
  sy: Float32Array;
  /** The smallest and largest finite sx and sy: [minX, minY, maxX, maxY], undefined when none is finite. Those of
   *  the exact points, which bound the rest (each is interpolated between the corners of its cell). */
  bounds?: [number, number, number, number];
  /** How many points were transformed exactly (each at most once). */
  exactPoints?: number;
  /** How many calls of the exact transform were made (one per level of the quadtree). */
  transformCalls?: number;
}

export interface WarpGridOptions {
  /** Largest allowed error of interpolation, in source pixels (GDAL's default is 0.125). */
  maxError: number;
  /** First grid step in target pixels (default 64); cells whose interpolation error exceeds maxError are
   *  subdivided down to exact transforms per pixel. A larger step costs one more call per doubling and saves
   *  points where the transform curves along one direction only (cells are cut across that direction alone). */
  step?: number;
  /** Where the grid's arrays (and its working state) get their memory: a pool's buffers, reused between images
   *  (contents undefined); by default new ones. */
  allocate?: (bytes: number) => ArrayBuffer;
}

const DEFAULT_STEP = 64;
/** The share of maxError a cell's test points must be within. */
const ACCEPT_SHARE = 0.75;

/** A cell of the quadtree: pixel columns x0..x1 and rows y0..y1, both ends included (its corners are pixel
 *  centres shared with its neighbours). */
interface Cell {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

const mid = (a: number, b: number): number => a + ((b - a) >> 1);

/** Lattice lines: 0, step, 2 step, ... and always the last pixel. */
function latticeLines(size: number, step: number): number[] {
  const lines: number[] = [];
  for (let v = 0; v < size - 1; v += step) lines.push(v);
  lines.push(size - 1);
  return lines;
}

const KNOWN = 2;

/** Exact transforms of target pixel centres, each point mapped at most once and every level in one call. They are
 *  written straight into the grid's arrays (a pixel transformed exactly keeps that value: fills skip it), which
 *  spares two more arrays the size of the image; the interpolation then starts from float32 corners, off by
 *  1e-4 px at most for a source of a few thousand pixels. */
class ExactPoints {
  /** 0 unknown, 1 asked in the pending batch, KNOWN transformed. */
  readonly state: Uint8Array;
  private pending: number[] = [];
  count = 0;
  calls = 0;
  /** Of the finite points transformed so far, as stored (single precision). */
  minX = Infinity;
  minY = Infinity;
  maxX = -Infinity;
  maxY = -Infinity;

  constructor(
    private readonly target: TargetRaster,
    private readonly toSource: PointsTransform,
    readonly sx: Float32Array,
    readonly sy: Float32Array,
    state: Uint8Array,
  ) {
    this.state = state.fill(0);
  }

  ask(i: number, j: number): void {
    const p = j * this.target.width + i;
    if (this.state[p] !== 0) return;
    this.state[p] = 1;
    this.pending.push(p);
  }

  async flush(): Promise<void> {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    const { bbox, width, height } = this.target;
    const resX = (bbox[2] - bbox[0]) / width;
    const resY = (bbox[3] - bbox[1]) / height;
    const xs = new Float64Array(batch.length);
    const ys = new Float64Array(batch.length);
    for (let k = 0; k < batch.length; k++) {
      const p = batch[k];
      const j = Math.floor(p / width);
      xs[k] = bbox[0] + (p - j * width + 0.5) * resX;
      ys[k] = bbox[3] - (j + 0.5) * resY;
    }
    const out = await this.toSource(xs, ys);
    if (out.xs.length !== batch.length || out.ys.length !== batch.length) {
      throw new Error(`the transform returned ${out.xs.length} x and ${out.ys.length} y for ${batch.length} points`);
    }
    for (let k = 0; k < batch.length; k++) {
      const p = batch[k];
      const x = out.xs[k];
      const y = out.ys[k];
      // Infinity (a pole of Mercator, a point past a projection's horizon) is as unusable as NaN.
      const ok = Number.isFinite(x) && Number.isFinite(y);
      this.sx[p] = ok ? x : NaN;
      this.sy[p] = ok ? y : NaN;
      this.state[p] = KNOWN;
      if (ok) {
        const fx = this.sx[p];
        const fy = this.sy[p];
        if (fx < this.minX) this.minX = fx;
        if (fx > this.maxX) this.maxX = fx;
        if (fy < this.minY) this.minY = fy;
        if (fy > this.maxY) this.maxY = fy;
      }
    }
    this.count += batch.length;
    this.calls++;
  }
}

// What a test point tests (bits of a cell's failures).
const ALONG_X = 1;
const ALONG_Y = 2;
const INSIDE = 4;

/** The points a cell is checked at, as [column, row, what it tests]: its edge midpoints (top and bottom test the
 *  interpolation along x, left and right along y), its centre and its quadrants' centres (which also catch an
 *  error that is odd about the centre, as a cubic term is, and vanishes there). */
function testPoints(c: Cell): [number, number, number][] {
  const xm = mid(c.x0, c.x1);
  const ym = mid(c.y0, c.y1);
  const xa = mid(c.x0, xm);
  const xb = mid(xm, c.x1);
  const ya = mid(c.y0, ym);
  const yb = mid(ym, c.y1);
  return [
    [xm, c.y0, ALONG_X],
    [xm, c.y1, ALONG_X],
    [c.x0, ym, ALONG_Y],
    [c.x1, ym, ALONG_Y],
    [xm, ym, INSIDE],
    [xa, ya, INSIDE],
    [xb, ya, INSIDE],
    [xa, yb, INSIDE],
    [xb, yb, INSIDE],
  ];
}

function askTestPoints(exact: ExactPoints, c: Cell): void {
  for (const [i, j] of testPoints(c)) exact.ask(i, j);
}

/** Which of the cell's tests fail (ALONG_X | ALONG_Y | INSIDE bits, 0 when it passes): the bilinear interpolation
 *  from the corners is off the exact point by more than `tolerance` (L1 in source pixels, as GDAL measures it), or
 *  the point or a corner is NaN. */
function cellFailures(exact: ExactPoints, c: Cell, width: number, tolerance: number): number {
  const { x0, y0, x1, y1 } = c;
  const ex = exact.sx;
  const ey = exact.sy;
  const p00 = y0 * width + x0;
  const p10 = y0 * width + x1;
  const p01 = y1 * width + x0;
  const p11 = y1 * width + x1;
  let failures = 0;
  for (const [i, j, what] of testPoints(c)) {
    const s = x1 > x0 ? (i - x0) / (x1 - x0) : 0;
    const t = y1 > y0 ? (j - y0) / (y1 - y0) : 0;
    const ix = (1 - t) * ((1 - s) * ex[p00] + s * ex[p10]) + t * ((1 - s) * ex[p01] + s * ex[p11]);
    const iy = (1 - t) * ((1 - s) * ey[p00] + s * ey[p10]) + t * ((1 - s) * ey[p01] + s * ey[p11]);
    const p = j * width + i;
    const err = Math.abs(ix - ex[p]) + Math.abs(iy - ey[p]);
    if (!(err <= tolerance)) failures |= what;
  }
  return failures;
}

/** Fills the pixels of a cell not transformed exactly by bilinear interpolation from its corners. */
function fillCell(exact: ExactPoints, c: Cell, width: number): void {
  const { x0, y0, x1, y1 } = c;
  const { sx, sy, state } = exact;
  const p00 = y0 * width + x0;
  const p10 = y0 * width + x1;
  const p01 = y1 * width + x0;
  const p11 = y1 * width + x1;
  const w = x1 - x0;
  const h = y1 - y0;
  for (let j = y0; j <= y1; j++) {
    const t = h > 0 ? (j - y0) / h : 0;
    const lx = sx[p00] + t * (sx[p01] - sx[p00]);
    const ly = sy[p00] + t * (sy[p01] - sy[p00]);
    const rx = sx[p10] + t * (sx[p11] - sx[p10]);
    const ry = sy[p10] + t * (sy[p11] - sy[p10]);
    const dx = w > 0 ? (rx - lx) / w : 0;
    const dy = w > 0 ? (ry - ly) / w : 0;
    let o = j * width + x0;
    for (let i = 0; i <= w; i++, o++) {
      if (state[o] === KNOWN) continue;
      sx[o] = lx + i * dx;
      sy[o] = ly + i * dy;
    }
  }
}

/** The cell's children. It is cut across the direction its interpolation fails in (across x when a top or bottom
 *  midpoint fails, across y when a left or right one does, both when only inside points fail), so that a transform
 *  curving one way only (latitude to Mercator y) is not cut the other way. A side is cut down to 1 step: a cell one
 *  row high has no rows to interpolate between, only each row along x (GDAL's approximate transformer works on such
 *  rows), which is what a transform curving fast along y (Mercator near a pole) needs. */
function split(c: Cell, failures: number): Cell[] {
  const canX = c.x1 - c.x0 >= 2;
  const canY = c.y1 - c.y0 >= 2;
  let cutX = (failures & ALONG_X) !== 0 || failures === INSIDE;
  let cutY = (failures & ALONG_Y) !== 0 || failures === INSIDE;
  if (!(cutX && canX) && !(cutY && canY)) {
    cutX = true;
    cutY = true;
  }
  const xs = cutX && canX ? [c.x0, mid(c.x0, c.x1), c.x1] : [c.x0, c.x1];
  const ys = cutY && canY ? [c.y0, mid(c.y0, c.y1), c.y1] : [c.y0, c.y1];
  const children: Cell[] = [];
  for (let b = 0; b + 1 < ys.length; b++) {
    for (let a = 0; a + 1 < xs.length; a++) children.push({ x0: xs[a], y0: ys[b], x1: xs[a + 1], y1: ys[b + 1] });
  }
  return children;
}

/** The source pixel each target pixel centre samples, interpolated to within 3/4 of `opts.maxError` source pixels at
 *  the points each cell is checked at. */
export async function warpGrid(target: TargetRaster, toSource: PointsTransform, opts: WarpGridOptions): Promise<WarpGrid> {
  const { width, height } = target;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`target size must be positive integers, got ${width} x ${height}`);
  }
  if (!(opts.maxError >= 0)) throw new RangeError(`maxError must be 0 or more, got ${opts.maxError}`);
  const step = Math.max(2, Math.floor(opts.step ?? DEFAULT_STEP));

  // Every pixel is written: each lies in a cell that is filled or cut down to exact pixels.
  const n = width * height;
  const allocate = opts.allocate ?? ((bytes: number) => new ArrayBuffer(bytes));
  const sx = new Float32Array(allocate(n * 4), 0, n);
  const sy = new Float32Array(allocate(n * 4), 0, n);
  const exact = new ExactPoints(target, toSource, sx, sy, new Uint8Array(allocate(n), 0, n));

  const cols = latticeLines(width, step);
  const rows = latticeLines(height, step);
  let cells: Cell[] = [];
  for (let b = 0; b < Math.max(1, rows.length - 1); b++) {
    for (let a = 0; a < Math.max(1, cols.length - 1); a++) {
      cells.push({ x0: cols[a], y0: rows[b], x1: cols[Math.min(a + 1, cols.length - 1)], y1: rows[Math.min(b + 1, rows.length - 1)] });
    }
  }
  for (const c of cells) {
    exact.ask(c.x0, c.y0);
    exact.ask(c.x1, c.y0);
    exact.ask(c.x0, c.y1);
    exact.ask(c.x1, c.y1);
    askTestPoints(exact, c);
  }
  await exact.flush();

  while (cells.length > 0) {
    const next: Cell[] = [];
    for (const c of cells) {
      // At most 2 steps each way: every pixel is a corner, midpoint or centre, all transformed exactly.
      if (c.x1 - c.x0 <= 2 && c.y1 - c.y0 <= 2) continue;
      const failures = cellFailures(exact, c, width, ACCEPT_SHARE * opts.maxError);
      if (failures === 0) {
        fillCell(exact, c, width);
        continue;
      }
      for (const child of split(c, failures)) {
        askTestPoints(exact, child);
        next.push(child);
      }
    }
    await exact.flush();
    cells = next;
  }

  const bounds: WarpGrid['bounds'] = exact.minX <= exact.maxX ? [exact.minX, exact.minY, exact.maxX, exact.maxY] : undefined;
  return { width, height, sx, sy, bounds, exactPoints: exact.count, transformCalls: exact.calls };
}
