// Bilinear interpolation of a height at a lon/lat inside one zoom level of a terrain pyramid. Pure: the service
// decodes the tiles, these functions say which pixels of which tiles to read and how to weigh them.
//
// Pixel convention (Mapbox, Terrarium, GDAL, and the sample's terrain): pixel (col, row) of tile z/x/y holds the
// height at its CENTRE, world pixel (x·W + col + 0.5, y·W + row + 0.5) in the Web Mercator world of W·2^z pixels.
// A point is interpolated between the four pixel centres around it. Near a tile edge some of those centres lie in
// the adjacent tile: they are read from it (across the antimeridian too), so there is no seam; where the adjacent
// tile is absent (the edge of a mirrored region, or beyond the top or bottom of the world) the sample is clamped to
// the nearest pixel of the covering tile instead.

import { latToPixelY, lonToPixelX } from '../../geo/mercator';

/** A decoded square tile: heights in metres, row by row from the top; NaN where the tile has no data (alpha 0). */
export interface HeightGrid {
  width: number;
  heights: Float32Array;
}

/** One of the four pixels around a point. */
export interface Tap {
  /** Which tile holds it, relative to the covering tile: -1, 0 or 1 on each axis. */
  dx: number;
  dy: number;
  /** The pixel in that tile. */
  col: number;
  row: number;
  /** The nearest pixel of the covering tile, read when tile (dx, dy) is absent. */
  clampedCol: number;
  clampedRow: number;
  weight: number;
}

/** The XYZ tile holding lon/lat at zoom z. */
export function coveringTile(lon: number, lat: number, z: number): [number, number] {
  const n = 2 ** z;
  const clampTile = (v: number): number => Math.min(n - 1, Math.max(0, Math.floor(v)));
  return [clampTile(lonToPixelX(lon, n)), clampTile(latToPixelY(lat, n))];
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/**
 * The four pixels around lon/lat at zoom z, for tiles of `width` pixels, relative to the covering tile (cx, cy)
 * (coveringTile's answer): where each lies and its bilinear weight (the four weights sum to 1).
 */
export function taps(lon: number, lat: number, z: number, cx: number, cy: number, width: number): Tap[] {
  const size = width * 2 ** z;
  // Continuous pixel coordinates whose integer points are pixel centres.
  const fx = lonToPixelX(lon, size) - 0.5;
  const fy = latToPixelY(lat, size) - 0.5;
  const i0 = Math.floor(fx);
  const j0 = Math.floor(fy);
  const tx = fx - i0;
  const ty = fy - j0;
  // Relative to the covering tile's first pixel: -1 .. width-1 (clamped against rounding at tile edges).
  const ri = clamp(i0 - cx * width, -1, width - 1);
  const rj = clamp(j0 - cy * width, -1, width - 1);
  const out: Tap[] = [];
  for (const [oi, oj, weight] of [
    [0, 0, (1 - tx) * (1 - ty)],
    [1, 0, tx * (1 - ty)],
    [0, 1, (1 - tx) * ty],
    [1, 1, tx * ty],
  ] as const) {
    const c = ri + oi;
    const r = rj + oj;
    const dx = c < 0 ? -1 : c >= width ? 1 : 0;
    const dy = r < 0 ? -1 : r >= width ? 1 : 0;
    out.push({ dx, dy, col: c - dx * width, row: r - dy * width, clampedCol: clamp(c, 0, width - 1), clampedRow: clamp(r, 0, width - 1), weight });
  }
  return out;
}

/**
 * The interpolated height from the covering tile and its neighbours (`neighbour(dx, dy)`, undefined when absent or
 * of another size). Pixels without data are left out and the weights of the others renormalised; undefined when
 * none of the four has data.
 */
export function interpolate(points: readonly Tap[], cover: HeightGrid, neighbour: (dx: number, dy: number) => HeightGrid | undefined): number | undefined {
  let sum = 0;
  let weights = 0;
  for (const t of points) {
    if (t.weight === 0) continue;
    const other = t.dx === 0 && t.dy === 0 ? cover : neighbour(t.dx, t.dy);
    const h = other && other.width === cover.width
      ? other.heights[t.row * other.width + t.col]
      : cover.heights[t.clampedRow * cover.width + t.clampedCol];
    if (Number.isNaN(h)) continue;
    sum += h * t.weight;
    weights += t.weight;
  }
  return weights > 0 ? sum / weights : undefined;
}
