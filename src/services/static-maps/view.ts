// Where a static image looks: its zoom (in the 512 px pyramid), its centre, and which stored pyramid level its
// pixels come from. Positions are "world fractions": x = (lon + 180) / 360 and y the Web Mercator y, both 0..1
// over the square world (x may leave 0..1 for paths unwrapped across the dateline; the world repeats in x).

import { latToPixelY, lonToPixelX } from '../../geo/mercator';
import type { Pyramid } from '../../store/types';
import { StaticMapError } from './request';

/** How far past the deepest mirrored detail a center-based image may zoom (the tiles are upscaled, at most 4x). */
export const OVERZOOM = 2;
/** How far below the coarsest mirrored level an image may zoom out (the tiles are downscaled, at most 2x). */
export const UNDERZOOM = 1;

export const worldX = (lon: number): number => lonToPixelX(lon, 1);
export const worldY = (lat: number): number => latToPixelY(lat, 1);

/** A stored pyramid level whose pixels make an image: pyramid, zoom, and its world size in pixels. */
export interface Level {
  pyramid: Pyramid;
  z: number;
  /** Pixels of one stored tile (tileSize x scale). */
  tilePx: number;
  /** Pixels across the whole world at this level. */
  worldPx: number;
}

const RASTER = new Set(['png', 'jpg', 'webp']);

/** Pyramids whose tiles can be composited (raster ones). */
export function rasterPyramids(pyramids: readonly Pyramid[]): Pyramid[] {
  return pyramids.filter((p) => RASTER.has(p.format));
}

/** The 512 px-pyramid zoom at which a level shows its pixels 1:1 (a 256 px tile at z is a 512 px zoom z-1). */
const equivalentZoom = (p: Pyramid, z: number): number => z + Math.log2((p.tileSize * p.scale) / 512);

/** The zooms (512 px pyramid) a map can render at: from its coarsest level to its finest detail. */
export function zoomRange(pyramids: readonly Pyramid[]): { coarsest: number; finest: number } {
  const raster = rasterPyramids(pyramids);
  if (raster.length === 0) throw new StaticMapError('This map has no raster tiles to render a static image from', 'not-found');
  return {
    coarsest: Math.min(...raster.map((p) => equivalentZoom(p, p.minzoom))),
    finest: Math.max(...raster.map((p) => equivalentZoom(p, p.maxzoom))),
  };
}

/**
 * The stored level to draw an image of 512 px-pyramid zoom `zoom` at pixel ratio `scale` from: the level whose
 * world size is nearest in scale (as MapLibre rounds raster zooms), so tiles are resized by a factor of
 * 0.71..1.41 at most inside the mirrored zooms; a tie goes to the map's main (first) pyramid. At an integer zoom
 * and scale 1 that is the 512 px pyramid at that zoom: the image is the stored tiles, pixel for pixel.
 */
export function chooseLevel(pyramids: readonly Pyramid[], zoom: number, scale: number): Level {
  const want = zoom + Math.log2(scale);
  let best: Level | undefined;
  let bestDistance = Infinity;
  for (const p of rasterPyramids(pyramids)) {
    const offset = Math.log2((p.tileSize * p.scale) / 512);
    const z = Math.min(p.maxzoom, Math.max(p.minzoom, Math.round(want - offset)));
    const distance = Math.abs(z + offset - want);
    if (distance < bestDistance - 1e-9) {
      bestDistance = distance;
      const tilePx = p.tileSize * p.scale;
      best = { pyramid: p, z, tilePx, worldPx: tilePx * 2 ** z };
    }
  }
  if (!best) throw new StaticMapError('This map has no raster tiles to render a static image from', 'not-found');
  return best;
}

/** Extents of marker icons around their anchors, in CSS pixels, kept inside the image when fitting. */
export interface Extents {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export interface FitInput {
  /** [minX, minY, maxX, maxY] in world fractions (minX may be below 0 or maxX above 1 across the dateline). */
  box: [number, number, number, number];
  /** CSS pixels. */
  width: number;
  height: number;
  padding: number;
  /** Room the markers' icons need around the box (CSS pixels). */
  extents?: Extents;
  minZoom: number;
  maxZoom: number;
}

/**
 * The zoom and centre at which `box` fits inside the image with at least `padding` x size free on each side
 * (and the icons' extents inside that margin when there is room): the largest such zoom, capped to the range.
 */
export function fitBox(f: FitInput): { zoom: number; cx: number; cy: number } {
  const e = f.extents ?? { left: 0, right: 0, top: 0, bottom: 0 };
  const padX = f.width * f.padding;
  const padY = f.height * f.padding;
  let availW = f.width - 2 * padX - e.left - e.right;
  let availH = f.height - 2 * padY - e.top - e.bottom;
  let offX = (e.left - e.right) / 2;
  let offY = (e.top - e.bottom) / 2;
  // An image too small for the icons: fit the positions alone.
  if (availW < 1) [availW, offX] = [Math.max(1, f.width - 2 * padX), 0];
  if (availH < 1) [availH, offY] = [Math.max(1, f.height - 2 * padY), 0];
  const [x0, y0, x1, y1] = f.box;
  const zx = x1 > x0 ? Math.log2(availW / (512 * (x1 - x0))) : Infinity;
  const zy = y1 > y0 ? Math.log2(availH / (512 * (y1 - y0))) : Infinity;
  const zoom = Math.min(f.maxZoom, Math.max(f.minZoom, Math.min(zx, zy)));
  const world = 512 * 2 ** zoom;
  return { zoom, cx: (x0 + x1) / 2 - offX / world, cy: (y0 + y1) / 2 - offY / world };
}

