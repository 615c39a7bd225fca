// Small private Web Mercator helpers for the sample builder (src/geo will hold the shared ones;
// these can be deduplicated against it later). Coordinates are "world pixels": the square world
// of `size` pixels at some zoom, x from the antimeridian eastwards, y from the north downwards.

import type { Bounds } from '../store/types';

export const MAX_LAT = 85.0511287798066;
export const WORLD_BOUNDS: Bounds = [-180, -MAX_LAT, 180, MAX_LAT];

/** Longitude (degrees) to world pixel x in a world of `size` pixels. */
export function lonToX(lon: number, size: number): number {
  return ((lon + 180) / 360) * size;
}

/** Latitude (degrees) to world pixel y in a world of `size` pixels; the latitude is clamped to ±89.9. */
export function latToY(lat: number, size: number): number {
  const l = Math.max(-89.9, Math.min(89.9, lat));
  const s = Math.sin((l * Math.PI) / 180);
  return (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * size;
}

export function xToLon(x: number, size: number): number {
  return (x / size) * 360 - 180;
}

export function yToLat(y: number, size: number): number {
  const n = Math.PI * (1 - (2 * y) / size);
  return (Math.atan(Math.sinh(n)) * 180) / Math.PI;
}

/** XYZ tile column/row range [xmin, ymin, xmax, ymax] (inclusive) of the tiles touching `bounds` at zoom z. */
export function tileRange(bounds: Bounds, z: number): [number, number, number, number] {
  const n = 2 ** z;
  const clamp = (v: number) => Math.max(0, Math.min(n - 1, v));
  const [w, s, e, nn] = bounds;
  const xmin = clamp(Math.floor(lonToX(w, n)));
  const xmax = clamp(Math.ceil(lonToX(e, n)) - 1);
  const ymin = clamp(Math.floor(latToY(Math.min(nn, MAX_LAT), n)));
  const ymax = clamp(Math.ceil(latToY(Math.max(s, -MAX_LAT), n)) - 1);
  return [xmin, ymin, Math.max(xmin, xmax), Math.max(ymin, ymax)];
}
