// The sample sprite: Maki icons (CC0, @mapbox/maki) drawn with sharp (librsvg) at 1x and 2x, packed with potpack
// into one sheet per pixel ratio, in the MapLibre sprite format (`{name: {x, y, width, height, pixelRatio}}`).
// Deterministic: icons in name order, one layout computed at 1x and doubled for 2x, PNGs without timestamps.

import fs from 'node:fs';
import path from 'node:path';
import potpack from 'potpack';
import sharp from 'sharp';

/** Id of the sample sprite (`sprites/sample.mbtiles`). */
export const SPRITE_ID = 'sample';

/** The Maki icons in the sample sprite (names as in Maki and in the sprite). */
export const SPRITE_ICONS = [
  'airfield', 'airport', 'attraction', 'bus', 'campsite', 'castle', 'circle', 'circle-stroked', 'city', 'embassy',
  'ferry', 'globe', 'harbor', 'heart', 'hospital', 'information', 'lighthouse', 'marker', 'marker-stroked', 'monument',
  'mountain', 'museum', 'park', 'rail', 'square', 'square-stroked', 'star', 'star-stroked', 'town', 'town-hall',
  'triangle', 'triangle-stroked', 'viewpoint', 'village', 'volcano', 'water', 'waterfall',
] as const;

/** Colour of the icons; a white halo of one pixel surrounds each. */
export const ICON_COLOR = '#3d3d3d';
/** Icons drawn in a colour of their own. */
export const ICON_COLORS: Readonly<Record<string, string>> = { marker: '#d63e2a', 'marker-stroked': '#d63e2a', star: '#c0392b', heart: '#c0392b' };
/** Maki draws on a 15 x 15 grid; the halo adds one pixel on each side: 17 x 17 CSS pixels per icon. */
export const ICON_SIZE = 17;
/** Empty pixels between two icons of the sheet (CSS pixels), so icons never bleed into each other. */
const GAP = 1;

export interface SpriteEntry {
  x: number;
  y: number;
  width: number;
  height: number;
  pixelRatio: number;
}

export type SpriteIndex = Record<string, SpriteEntry>;

export interface SpriteLayout {
  width: number;
  height: number;
  /** Positions at 1x, by icon name, names sorted. */
  index: SpriteIndex;
}

/**
 * Packs icons (CSS pixel sizes) into a near-square sheet with potpack, leaving GAP pixels around each.
 * Deterministic: the input is sorted by name first, and potpack's sort is stable.
 */
export function packSprite(icons: readonly { name: string; width: number; height: number }[]): SpriteLayout {
  const boxes = [...icons]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((i) => ({ name: i.name, iw: i.width, ih: i.height, w: i.width + 2 * GAP, h: i.height + 2 * GAP, x: 0, y: 0 }));
  const { w, h } = potpack(boxes);
  const index: SpriteIndex = {};
  for (const b of [...boxes].sort((a, c) => (a.name < c.name ? -1 : 1))) {
    index[b.name] = { x: b.x + GAP, y: b.y + GAP, width: b.iw, height: b.ih, pixelRatio: 1 };
  }
  return { width: w, height: h, index };
}

/** The layout at another pixel ratio: every coordinate and size multiplied. */
export function scaleLayout(layout: SpriteLayout, ratio: number): SpriteLayout {
  const index: SpriteIndex = {};
  for (const [name, e] of Object.entries(layout.index)) {
    index[name] = { x: e.x * ratio, y: e.y * ratio, width: e.width * ratio, height: e.height * ratio, pixelRatio: ratio };
  }
  return { width: layout.width * ratio, height: layout.height * ratio, index };
}

function makiDir(): string {
  return path.join(path.dirname(require.resolve('@mapbox/maki/package.json')), 'icons');
}

/** The inner markup of a Maki SVG (its shapes), checked to be drawn on the 15 x 15 grid. */
export function makiShapes(name: string): string {
  const svg = fs.readFileSync(path.join(makiDir(), `${name}.svg`), 'utf8');
  const open = /<svg\b[^>]*>/.exec(svg);
  const close = svg.lastIndexOf('</svg>');
  if (!open || close < 0) throw new Error(`maki icon ${name}: not an SVG`);
  const viewBox = /viewBox="([^"]*)"/.exec(open[0])?.[1].trim().split(/[\s,]+/).map(Number);
  if (!viewBox || viewBox.join(' ') !== '0 0 15 15') throw new Error(`maki icon ${name}: viewBox is not 0 0 15 15`);
  return svg.slice(open.index + open[0].length, close);
}

/** One icon as an SVG document of ICON_SIZE * ratio pixels: the shapes filled, over a white halo. */
export function iconSvg(name: string, ratio: number): string {
  const px = ICON_SIZE * ratio;
  const color = ICON_COLORS[name] ?? ICON_COLOR;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${px}" height="${px}" viewBox="-1 -1 ${ICON_SIZE} ${ICON_SIZE}">` +
    `<g fill="#ffffff" stroke="#ffffff" stroke-width="2" stroke-linejoin="round">${makiShapes(name)}</g>` +
    `<g fill="${color}">${makiShapes(name)}</g></svg>`
  );
}

export interface SpriteSheet {
  json: string;
  png: Buffer;
}

async function drawSheet(layout: SpriteLayout, ratio: number): Promise<SpriteSheet> {
  const composites = await Promise.all(
    Object.entries(layout.index).map(async ([name, e]) => ({
      input: await sharp(Buffer.from(iconSvg(name, ratio))).png().toBuffer(),
      left: e.x,
      top: e.y,
    })),
  );
  const png = await sharp({ create: { width: layout.width, height: layout.height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite(composites)
    .png({ compressionLevel: 9, adaptiveFiltering: false })
    .toBuffer();
  return { json: JSON.stringify(layout.index), png };
}

/** The sprite sheets at 1x and 2x of the given icons (default: SPRITE_ICONS). */
export async function buildSprite(icons: readonly string[] = SPRITE_ICONS): Promise<{ x1: SpriteSheet; x2: SpriteSheet }> {
  const layout = packSprite(icons.map((name) => ({ name, width: ICON_SIZE, height: ICON_SIZE })));
  const [x1, x2] = await Promise.all([drawSheet(layout, 1), drawSheet(scaleLayout(layout, 2), 2)]);
  return { x1, x2 };
}
