// The sample terrain: Terrain-RGB tiles (Mapbox encoding) of a KNOWN SYNTHETIC FUNCTION, so an
// elevation service and its tests can check decoded values exactly.
//
// Pixel convention: pixel (px, py) of tile z/x/y (XYZ, tile edge `tileSize`, default 256) carries the
// elevation at its CENTRE, i.e. at world pixel ((x·T + px + 0.5), (y·T + py + 0.5)) of the Web Mercator
// world of T·2^z pixels, converted to lon/lat (terrainPixelCenter). The value is rounded to the
// 0.1 m step of the encoding. Every pixel of a stored tile carries the function, including pixels
// outside the store's bounds (only tiles that intersect the bounds are stored).

import sharp from 'sharp';
import type { Bounds } from '../store/types';
import { pixelXToLon as xToLon, pixelYToLat as yToLat, tileRange } from '../geo/mercator';
import { mapLimit, type TileEntry } from './store-file';

export const TERRAIN_BOUNDS: Bounds = [5.9, 45.8, 10.5, 47.8];
export const TERRAIN_TILE_SIZE = 256;
export const TERRAIN_MINZOOM = 0;
export const TERRAIN_MAXZOOM = 10;

const RAD = Math.PI / 180;

/**
 * The synthetic elevation in metres at lon/lat (degrees): smooth, with broad ranges and valleys
 * (periods of a few degrees) and finer ridges (periods of ~0.3°). Defined everywhere; its values
 * stay between 50 m and 3750 m (1900 ± 1850).
 */
export function sampleTerrainElevation(lon: number, lat: number): number {
  return (
    1900 +
    900 * Math.sin(lon * 40 * RAD) * Math.cos(lat * 60 * RAD) +
    500 * Math.sin((lon * 120 + lat * 90) * RAD) +
    300 * Math.cos((lon * 400 - lat * 300) * RAD) +
    150 * Math.sin(lon * 1100 * RAD) * Math.sin(lat * 1300 * RAD)
  );
}

/** Mapbox Terrain-RGB: elevation = -10000 + (R·65536 + G·256 + B) · 0.1 metres. */
export function decodeTerrainRgb(r: number, g: number, b: number): number {
  return -10000 + (r * 65536 + g * 256 + b) * 0.1;
}

/** Elevation (metres) to Terrain-RGB [r, g, b], rounded to the 0.1 m step. */
export function encodeTerrainRgb(elevation: number): [number, number, number] {
  const v = Math.max(0, Math.min(0xffffff, Math.round((elevation + 10000) * 10)));
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

/** [lon, lat] of the centre of pixel (px, py) of XYZ tile z/x/y with tiles of `tileSize` pixels. */
export function terrainPixelCenter(
  z: number,
  x: number,
  y: number,
  px: number,
  py: number,
  tileSize = TERRAIN_TILE_SIZE,
): [number, number] {
  const size = tileSize * 2 ** z;
  return [xToLon(x * tileSize + px + 0.5, size), yToLat(y * tileSize + py + 0.5, size)];
}

/**
 * Raw RGB pixels (tileSize² · 3 bytes) of one terrain tile. The function is evaluated in a separated
 * form (angle-sum identities, per-column and per-row factors computed once), which equals
 * sampleTerrainElevation to ~1e-9 m before rounding and avoids five trigonometric calls per pixel.
 */
export function terrainTileRgb(z: number, x: number, y: number, tileSize = TERRAIN_TILE_SIZE): Buffer {
  const size = tileSize * 2 ** z;
  const n = tileSize;
  // per column (longitude) factors
  const s40 = new Float64Array(n), s120 = new Float64Array(n), c120 = new Float64Array(n);
  const s400 = new Float64Array(n), c400 = new Float64Array(n), s1100 = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const lon = xToLon(x * n + i + 0.5, size);
    s40[i] = 900 * Math.sin(lon * 40 * RAD);
    s120[i] = 500 * Math.sin(lon * 120 * RAD);
    c120[i] = 500 * Math.cos(lon * 120 * RAD);
    s400[i] = 300 * Math.sin(lon * 400 * RAD);
    c400[i] = 300 * Math.cos(lon * 400 * RAD);
    s1100[i] = 150 * Math.sin(lon * 1100 * RAD);
  }
  const out = Buffer.alloc(n * n * 3);
  let o = 0;
  for (let py = 0; py < n; py++) {
    const lat = yToLat(y * n + py + 0.5, size);
    const c60 = Math.cos(lat * 60 * RAD);
    const c90 = Math.cos(lat * 90 * RAD), s90 = Math.sin(lat * 90 * RAD);
    const c300 = Math.cos(lat * 300 * RAD), s300 = Math.sin(lat * 300 * RAD);
    const s1300 = Math.sin(lat * 1300 * RAD);
    for (let px = 0; px < n; px++) {
      const e: number =
        1900 +
        s40[px] * c60 +
        (s120[px] * c90 + c120[px] * s90) + // 500 sin(a + b)
        (c400[px] * c300 + s400[px] * s300) + // 300 cos(a - b)
        s1100[px] * s1300;
      // Math.round of a positive number, without a call per pixel; e stays within 50..3750 m
      const v = Math.floor((e + 10000) * 10 + 0.5);
      out[o++] = (v >> 16) & 255;
      out[o++] = (v >> 8) & 255;
      out[o++] = v & 255;
    }
  }
  return out;
}

/** All tiles of the terrain pyramid that intersect TERRAIN_BOUNDS, as lossless PNG. */
export async function buildTerrainTiles(maxzoom = TERRAIN_MAXZOOM): Promise<TileEntry[]> {
  const coords: [number, number, number][] = [];
  for (let z = TERRAIN_MINZOOM; z <= maxzoom; z++) {
    const { minX: x0, minY: y0, maxX: x1, maxY: y1 } = tileRange(TERRAIN_BOUNDS, z);
    for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) coords.push([z, x, y]);
  }
  return mapLimit(coords, 4, async ([z, x, y]) => {
    const raw = terrainTileRgb(z, x, y);
    const data = await sharp(raw, { raw: { width: TERRAIN_TILE_SIZE, height: TERRAIN_TILE_SIZE, channels: 3 } })
      .png({ compressionLevel: 6, adaptiveFiltering: true })
      .toBuffer();
    return { pyramid: 'main', z, x, y, data };
  });
}
