// Which mirrored tileset the elevation service reads: a pure rule over the catalog's descriptions.

import type { TilesetInfo } from '../../store/types';

/** The cloud's own terrain tileset: preferred when mirrored. */
export const CLOUD_TERRAIN_ID = 'terrain-rgb-v2';

/** Ids that name terrain: terrain, terrain-rgb, terrarium, dem, elevation (as a word of the id). */
const TERRAIN_ID = /(^|[^a-z])(terrain|terrarium|dem|elevation)([^a-z]|$)/i;

/** Raster tile formats a height can be read from without loss. */
const LOSSLESS = new Set(['png', 'webp']);

/** A tileset whose pixels are heights: a `tiles` store of PNG or WebP whose metadata names an encoding, or whose id names terrain. */
export function isTerrain(info: TilesetInfo): boolean {
  if (info.kind !== 'tiles' || !LOSSLESS.has(info.format)) return false;
  return info.encoding !== undefined || TERRAIN_ID.test(info.id);
}

function area(info: TilesetInfo): number {
  const [w, s, e, n] = info.bounds;
  return Math.max(0, (e >= w ? e - w : e - w + 360) * (n - s));
}

/**
 * The terrain tileset to read when none is configured, among the catalog's tile sets: `terrain-rgb-v2` when
 * mirrored; else, among the terrain tile sets (isTerrain), one whose metadata names its encoding before one found
 * by its id alone, then the widest bounds, then the deepest maxzoom, then the first id in alphabetical order.
 */
export function chooseTerrain(infos: readonly TilesetInfo[]): TilesetInfo | undefined {
  const candidates = infos.filter(isTerrain);
  const rank = (i: TilesetInfo): number[] => [i.id === CLOUD_TERRAIN_ID ? 0 : 1, i.encoding ? 0 : 1, -area(i), -i.maxzoom];
  candidates.sort((a, b) => {
    const ra = rank(a), rb = rank(b);
    for (let k = 0; k < ra.length; k++) if (ra[k] !== rb[k]) return ra[k] - rb[k];
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  return candidates[0];
}
