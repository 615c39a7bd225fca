// The sample image: a non-geographic picture served as a tile pyramid (images API). The picture is a
// plate carrée world map between two dark bands with a coloured disc in each corner, so tests and
// eyes can tell its orientation: red top-left, green top-right, blue bottom-left, orange bottom-right.
//
// Pyramid: zoom M (maxzoom) is full resolution, M = ceil(log2(max(W, H) / tileSize)); at zoom z the
// picture is scaled by 2^(z-M), cut into tiles from the top-left, and the right/bottom edge tiles are
// padded with transparent pixels to full tiles.

import sharp from 'sharp';
import type { Position } from 'geojson';
import type { Bounds } from '../store/types';
import { imageBounds } from '../geo/mercator';
import { naturalEarth, rings, wrapOffsets } from './natural-earth';
import { COLORS } from './style';
import { mapLimit, type TileEntry } from './store-file';

export const IMAGE_ID = 'sample-image';
export const IMAGE_WIDTH = 2000;
export const IMAGE_HEIGHT = 1200;
export const IMAGE_TILE_SIZE = 256;
/** Band height above and below the map, in picture pixels. */
const BAND = 100;

export const IMAGE_CORNERS = {
  topLeft: { x: 50, y: 50, color: '#e03131' },
  topRight: { x: IMAGE_WIDTH - 50, y: 50, color: '#2f9e44' },
  bottomLeft: { x: 50, y: IMAGE_HEIGHT - 50, color: '#1971c2' },
  bottomRight: { x: IMAGE_WIDTH - 50, y: IMAGE_HEIGHT - 50, color: '#f08c00' },
} as const;
export const IMAGE_BAND_COLOR = '#22313f';

/** The zoom at which a picture of w × h pixels is shown at full resolution. */
export function imageMaxZoom(width: number, height: number, tileSize = IMAGE_TILE_SIZE): number {
  return Math.max(0, Math.ceil(Math.log2(Math.max(width, height) / tileSize)));
}

/** Pixel size of the picture at zoom z of its pyramid. */
export function imageSizeAtZoom(width: number, height: number, z: number, maxzoom: number): [number, number] {
  const f = 2 ** (z - maxzoom);
  return [Math.max(1, Math.round(width * f)), Math.max(1, Math.round(height * f))];
}

/**
 * Lon/lat footprint [west, south, east, north] of a w × h picture placed at the top-left corner of the
 * Web Mercator square of tileSize·2^maxzoom pixels at zoom maxzoom (how WMTS / OGC API clients can
 * show an image pyramid on a Web Mercator plane).
 */
export function imageFootprint(width: number, height: number, maxzoom: number, tileSize = IMAGE_TILE_SIZE): Bounds {
  return imageBounds(width, height, maxzoom, tileSize);
}

function pictureSvg(): string {
  const W = IMAGE_WIDTH;
  const mapH = IMAGE_HEIGHT - 2 * BAND;
  const px = (lon: number) => (((lon + 180) / 360) * W).toFixed(1);
  const py = (lat: number) => (BAND + ((90 - lat) / 180) * mapH).toFixed(1);
  const path = (line: Position[], close: boolean) =>
    wrapOffsets(line)
      .map((off) => line.map((p, i) => (i ? 'L' : 'M') + px(p[0] + off) + ' ' + py(Math.max(-90, p[1]))).join('') + (close ? 'Z' : ''))
      .join('');
  const ne = naturalEarth('110m');
  const land = ne.countries.map((c) => rings(c.geometry).map((r) => path(r, true)).join('')).join('');
  const grat: string[] = [];
  for (let lon = -150; lon < 180; lon += 30) grat.push(`M${px(lon)} ${py(90)}L${px(lon)} ${py(-90)}`);
  for (let lat = -60; lat < 90; lat += 30) grat.push(`M${px(-180)} ${py(lat)}L${px(180)} ${py(lat)}`);
  const disc = (c: { x: number; y: number; color: string }) => `<circle cx="${c.x}" cy="${c.y}" r="36" fill="${c.color}"/>`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${IMAGE_HEIGHT}" viewBox="0 0 ${W} ${IMAGE_HEIGHT}">`,
    `<rect width="${W}" height="${IMAGE_HEIGHT}" fill="${IMAGE_BAND_COLOR}"/>`,
    `<svg x="0" y="${BAND}" width="${W}" height="${mapH}" viewBox="0 ${BAND} ${W} ${mapH}">`,
    `<rect x="0" y="${BAND}" width="${W}" height="${mapH}" fill="${COLORS.ocean}"/>`,
    `<path d="${grat.join('')}" fill="none" stroke="${COLORS.graticule}" stroke-width="1.5"/>`,
    `<path d="${land}" fill="${COLORS.land}" fill-rule="evenodd"/>`,
    `<path d="${ne.coasts.map((l) => path(l, false)).join('')}" fill="none" stroke="${COLORS.coast}" stroke-width="1.2" stroke-linejoin="round"/>`,
    `<path d="${ne.borders.map((l) => path(l, false)).join('')}" fill="none" stroke="${COLORS.border}" stroke-width="1" stroke-linejoin="round"/>`,
    '</svg>',
    ...Object.values(IMAGE_CORNERS).map(disc),
    '</svg>',
  ].join('');
}

/** The full-resolution picture as raw RGBA (IMAGE_WIDTH × IMAGE_HEIGHT × 4), fully opaque. */
export async function renderPicture(): Promise<Buffer> {
  const { data, info } = await sharp(Buffer.from(pictureSvg()), { density: 72 })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.width !== IMAGE_WIDTH || info.height !== IMAGE_HEIGHT || info.channels !== 4) {
    throw new Error(`unexpected picture ${info.width}x${info.height}x${info.channels}`);
  }
  return data;
}

export interface ImageTiles {
  tiles: TileEntry[];
  maxzoom: number;
}

/** Cuts the picture into its pyramid (zooms 0..maxzoom) of PNG tiles padded with transparency. */
export async function buildImageTiles(): Promise<ImageTiles> {
  const W = IMAGE_WIDTH;
  const H = IMAGE_HEIGHT;
  const T = IMAGE_TILE_SIZE;
  const M = imageMaxZoom(W, H, T);
  const full = await renderPicture();
  const tiles: TileEntry[] = [];
  for (let z = 0; z <= M; z++) {
    const [w, h] = imageSizeAtZoom(W, H, z, M);
    const level =
      z === M
        ? full
        : await sharp(full, { raw: { width: W, height: H, channels: 4 } })
            .resize(w, h, { fit: 'fill', kernel: 'lanczos3' })
            .raw()
            .toBuffer();
    const coords: [number, number][] = [];
    for (let x = 0; x < Math.ceil(w / T); x++) for (let y = 0; y < Math.ceil(h / T); y++) coords.push([x, y]);
    const encoded = await mapLimit(coords, 4, async ([x, y]) => {
      const tile = Buffer.alloc(T * T * 4); // transparent where the picture ends
      const cw = Math.min(T, w - x * T);
      const ch = Math.min(T, h - y * T);
      for (let row = 0; row < ch; row++) {
        const src = ((y * T + row) * w + x * T) * 4;
        level.copy(tile, row * T * 4, src, src + cw * 4);
      }
      const data = await sharp(tile, { raw: { width: T, height: T, channels: 4 } })
        .png({ compressionLevel: 6 })
        .toBuffer();
      return { pyramid: 'main', z, x, y, data };
    });
    tiles.push(...encoded);
  }
  return { tiles, maxzoom: M };
}
