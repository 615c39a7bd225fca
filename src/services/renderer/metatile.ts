// Where a metatile lies and how MapLibre is told to draw it: the tiles it holds, the canvas around them (with the
// margin that is cut away), its centre and MapLibre's zoom. Pure arithmetic, shared by render() and renderMetatile().

import { pixelXToLon, pixelYToLat } from '../../geo/mercator';
import type { RenderTile } from './types';

/**
 * Largest edge of a metatile's tiles in device pixels (margin aside): a 512 px @2x tile is 1024 pixels, so its
 * metatile holds at most 2 × 2 tiles whatever `render.metatile` says. Bounds the canvas (≤ 2560² with a 128 px margin
 * at @2x: ~26 MB of RGBA in the browser and as many when cut here) whatever the tile size and scale.
 */
export const MAX_METATILE_PIXELS = 2048;

/** MapLibre's largest zoom (`maxZoom` cannot be set beyond it). */
export const MAX_MAPLIBRE_ZOOM = 24;

/** A block of tiles drawn in one render: `cols` × `rows` tiles from (`x0`, `y0`) at `z`. */
export interface Metatile {
  mapId: string;
  styleVersion: string;
  tileSize: 256 | 512;
  scale: 1 | 2;
  z: number;
  x0: number;
  y0: number;
  cols: number;
  rows: number;
}

/** What the page is asked to draw: canvas size in CSS pixels, pixel ratio, centre, MapLibre zoom, and the tiles' part of the canvas. */
export interface View {
  width: number;
  height: number;
  pixelRatio: 1 | 2;
  center: [number, number];
  zoom: number;
  /** The metatile's tiles in the canvas (CSS pixels): what is captured, the margin left out. */
  clip: { x: number; y: number; width: number; height: number };
}

/** MapLibre zoom of a tile of `tileSize` CSS px at `z`: MapLibre draws 512 px tiles, so a 256 px tile at z is z - 1. */
export function maplibreZoom(z: number, tileSize: 256 | 512): number {
  return z + Math.log2(tileSize / 512);
}

/** Tiles on a metatile's edge: the configured count, fewer where a tile is big in device pixels. */
export function metatileEdge(configured: number, tileSize: number, scale: number): number {
  return Math.max(1, Math.min(configured, Math.floor(MAX_METATILE_PIXELS / (tileSize * scale))));
}

/** The metatile of edge `n` (aligned on multiples of n) that holds `tile`, clipped to its zoom's matrix. */
export function metatileOf(tile: RenderTile, n: number): Metatile {
  const x0 = Math.floor(tile.x / n) * n;
  const y0 = Math.floor(tile.y / n) * n;
  return blockOf(tile, tile.z, x0, y0, n, n);
}

/** `cols` × `rows` tiles from (x0, y0), clipped to the matrix of `z` (2^z tiles a side). */
export function blockOf(m: Pick<Metatile, 'mapId' | 'styleVersion' | 'tileSize' | 'scale'>, z: number, x0: number, y0: number, cols: number, rows: number): Metatile {
  const side = 2 ** z;
  return { mapId: m.mapId, styleVersion: m.styleVersion, tileSize: m.tileSize, scale: m.scale, z, x0, y0, cols: Math.min(cols, side - x0), rows: Math.min(rows, side - y0) };
}

/** The metatiles of edge at most `n` that cover `cols` × `rows` tiles from (x0, y0): the render job's area split to the pixel bound. */
export function splitArea(area: Metatile, n: number): Metatile[] {
  const out: Metatile[] = [];
  for (let y = area.y0; y < area.y0 + area.rows; y += n) {
    for (let x = area.x0; x < area.x0 + area.cols; x += n) {
      out.push(blockOf(area, area.z, x, y, Math.min(n, area.x0 + area.cols - x), Math.min(n, area.y0 + area.rows - y)));
    }
  }
  return out;
}

/**
 * The view drawing `m` with `margin` CSS px around it. Not beyond the top and bottom of the world: MapLibre keeps
 * its view inside the world's latitudes and would shift the whole picture by the margin, so a metatile on the
 * first or last row has no margin on that side (nothing crosses that edge). East and west the world repeats.
 */
export function viewOf(m: Metatile, margin: number): View {
  const side = 2 ** m.z;
  const top = m.y0 === 0 ? 0 : margin;
  const bottom = m.y0 + m.rows === side ? 0 : margin;
  const width = m.cols * m.tileSize;
  const height = m.rows * m.tileSize;
  // The canvas's middle, in tiles at z: the block's middle moved by half the difference of the margins.
  const middleY = m.y0 + m.rows / 2 + (bottom - top) / 2 / m.tileSize;
  return {
    width: width + 2 * margin,
    height: height + top + bottom,
    pixelRatio: m.scale,
    center: [pixelXToLon(m.x0 + m.cols / 2, side), pixelYToLat(middleY, side)],
    zoom: maplibreZoom(m.z, m.tileSize),
    clip: { x: margin, y: top, width, height },
  };
}

/** Identity of a metatile's pixels (every format is cut from the same pixels): what concurrent renders share. */
export function metatileKey(m: Metatile): string {
  return `${m.mapId}\n${m.styleVersion}\n${m.tileSize}@${m.scale}\n${m.z}/${m.x0}/${m.y0}/${m.cols}x${m.rows}`;
}
