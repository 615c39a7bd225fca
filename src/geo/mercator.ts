// Web Mercator (EPSG:3857) math on the XYZ tile grid: tile x grows east, tile y grows south,
// zoom z has 2^z x 2^z tiles whatever the tile size (a 512 px tile covers the same ground as a
// 256 px tile of the same z, only with more pixels).
// Tile bounds come from @mapbox/tilebelt; the range and edge rules tilebelt has no notion of
// (clamping, snapping an edge that lies on a tile edge) are written here.

import { tileToBBOX } from '@mapbox/tilebelt';
import type { Bounds } from './bounds';

export const EARTH_RADIUS = 6378137;
/** Half the equator in metres (pi * EARTH_RADIUS): the x and y extent of the square map. */
export const ORIGIN_SHIFT = 20037508.342789244;
/** Latitude at which the Web Mercator square ends. */
export const MAX_LAT = 85.0511287798066;
/** The whole Web Mercator square in degrees. */
export const WORLD_BOUNDS: Bounds = [-180, -MAX_LAT, 180, MAX_LAT];
/** Highest zoom any part of tilemirror accepts: at 30, 2^z still fits a safe integer comfortably. */
export const MAX_ZOOM = 30;
/** The "standardized rendering pixel size" of WMTS and OGC 2D-TMS, 0.28 mm. Using 96 dpi instead breaks GDAL. */
export const STANDARD_PIXEL_SIZE = 0.00028;

/** [xmin, ymin, xmax, ymax] in EPSG:3857 metres. */
export type MeterBounds = [number, number, number, number];

/** Inclusive range of XYZ tiles at one zoom. */
export interface TileRange {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

export function lonLatToMeters(lon: number, lat: number): [number, number] {
  const x = (lon * ORIGIN_SHIFT) / 180;
  const phi = (clamp(lat, -MAX_LAT, MAX_LAT) * Math.PI) / 180;
  const y = EARTH_RADIUS * Math.log(Math.tan(Math.PI / 4 + phi / 2));
  return [x, y];
}

export function metersToLonLat(x: number, y: number): [number, number] {
  const lon = (x / ORIGIN_SHIFT) * 180;
  const lat = (2 * Math.atan(Math.exp(y / EARTH_RADIUS)) - Math.PI / 2) * (180 / Math.PI);
  return [lon, lat];
}

/** Fractional tile coordinates of a point (lat clamped to the Mercator square). */
export function lonLatToTile(lon: number, lat: number, z: number): [number, number] {
  const n = 2 ** z;
  const phi = (clamp(lat, -MAX_LAT, MAX_LAT) * Math.PI) / 180;
  const x = ((lon + 180) / 360) * n;
  const y = ((1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2) * n;
  return [x, y];
}

// "World pixels": the square world of `worldSize` pixels at some zoom, x eastwards from the antimeridian,
// y southwards from the top edge (tile coordinates are world pixels with worldSize = 2^z).

export function pixelXToLon(x: number, worldSize: number): number {
  return (x / worldSize) * 360 - 180;
}

export function pixelYToLat(y: number, worldSize: number): number {
  const n = Math.PI - (2 * Math.PI * y) / worldSize;
  return (180 / Math.PI) * Math.atan(Math.sinh(n));
}

export function lonToPixelX(lon: number, worldSize: number): number {
  return ((lon + 180) / 360) * worldSize;
}

/** Latitude to world pixel y, clamped to ±maxLat (drawing code passes more than MAX_LAT to overshoot the edge). */
export function latToPixelY(lat: number, worldSize: number, maxLat = MAX_LAT): number {
  const s = Math.sin((clamp(lat, -maxLat, maxLat) * Math.PI) / 180);
  return (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * worldSize;
}


/** [west, south, east, north] in degrees of tile z/x/y. */
export function tileBoundsLonLat(z: number, x: number, y: number): Bounds {
  return tileToBBOX([x, y, z]) as Bounds;
}

/** [xmin, ymin, xmax, ymax] in metres of tile z/x/y. */
export function tileBoundsMeters(z: number, x: number, y: number): MeterBounds {
  const size = (2 * ORIGIN_SHIFT) / 2 ** z;
  return [-ORIGIN_SHIFT + x * size, ORIGIN_SHIFT - (y + 1) * size, -ORIGIN_SHIFT + (x + 1) * size, ORIGIN_SHIFT - y * size];
}

/** Metres per pixel at zoom z for tiles of tileSize pixels. */
export function resolution(z: number, tileSize = 256): number {
  // Same operation order as GDAL and the OGC tables so the doubles come out identical.
  return (2 * Math.PI * EARTH_RADIUS) / tileSize / 2 ** z;
}

/** WMTS / 2D-TMS scale denominator: z0 = 559082264.0287178 (256 px) and 279541132.0143589 (512 px). */
export function scaleDenominator(z: number, tileSize = 256): number {
  return resolution(z, tileSize) / STANDARD_PIXEL_SIZE;
}

// Fractional tile coordinates computed from degrees that lie exactly on a tile edge come back as
// e.g. 2.0000000000004 or 1.9999999999996; snapping them keeps an edge from pulling in a neighbour.
const EDGE_EPSILON = 1e-9;
function snap(v: number): number {
  const r = Math.round(v);
  return Math.abs(v - r) < EDGE_EPSILON ? r : v;
}

/**
 * XYZ tiles at zoom z that intersect bounds [w, s, e, n] (degrees). An edge lying exactly on a tile
 * edge does not include the tile beyond it; a degenerate (point or line) bounds still yields its tile.
 * Bounds crossing the antimeridian (w > e) cannot be one column range, so they get every column.
 */
export function tileRange(bounds: Bounds, z: number): TileRange {
  const [s, n] = [bounds[1], bounds[3]];
  const [w, e] = bounds[0] > bounds[2] ? [-180, 180] : [bounds[0], bounds[2]];
  const last = 2 ** z - 1;
  const [x0, y0] = lonLatToTile(clamp(w, -180, 180), clamp(n, -MAX_LAT, MAX_LAT), z);
  const [x1, y1] = lonLatToTile(clamp(e, -180, 180), clamp(s, -MAX_LAT, MAX_LAT), z);
  const minX = clamp(Math.floor(snap(x0)), 0, last);
  const minY = clamp(Math.floor(snap(y0)), 0, last);
  const maxX = clamp(Math.max(minX, Math.ceil(snap(x1)) - 1), 0, last);
  const maxY = clamp(Math.max(minY, Math.ceil(snap(y1)) - 1), 0, last);
  return { minX, minY, maxX, maxY };
}

/** Whether tile z/x/y is one of the tiles tileRange(bounds, z) returns. */
export function tileIntersects(bounds: Bounds, z: number, x: number, y: number): boolean {
  const r = tileRange(bounds, z);
  return x >= r.minX && x <= r.maxX && y >= r.minY && y <= r.maxY;
}

/** Integers with 0 <= z <= MAX_ZOOM and x, y inside the 2^z grid. */
export function isValidTile(z: number, x: number, y: number): boolean {
  if (!Number.isInteger(z) || !Number.isInteger(x) || !Number.isInteger(y)) return false;
  if (z < 0 || z > MAX_ZOOM) return false;
  const n = 2 ** z;
  return x >= 0 && x < n && y >= 0 && y < n;
}

/**
 * Footprint in degrees of an image of width x height pixels shown at maxzoom with tiles of tileSize:
 * the image sits at the top-left corner of the Web Mercator square of tileSize * 2^maxzoom pixels.
 */
export function imageBounds(width: number, height: number, maxzoom: number, tileSize = 256): Bounds {
  const worldPx = tileSize * 2 ** maxzoom;
  const fx = Math.min(width / worldPx, 1);
  const fy = Math.min(height / worldPx, 1);
  return [pixelXToLon(0, 1), pixelYToLat(fy, 1), pixelXToLon(fx, 1), pixelYToLat(0, 1)];
}
