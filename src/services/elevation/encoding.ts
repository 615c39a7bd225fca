// How heights are packed into the red, green and blue bytes of a terrain tile, and which packing a tileset uses.
// Pure functions: the service decodes pixels with them, tests check them against literal values.

import type { TilesetInfo } from '../../store/types';

/** `mapbox`: Mapbox Terrain-RGB (the cloud's `terrain-rgb-v2`, the sample's `sample-terrain`); `terrarium`: Mapzen Terrarium. */
export type TerrainEncoding = 'mapbox' | 'terrarium';

/** Mapbox Terrain-RGB: -10000 + (R·65536 + G·256 + B) · 0.1 metres (0.1 m steps from -10 km). */
export function decodeMapbox(r: number, g: number, b: number): number {
  return -10000 + (r * 65536 + g * 256 + b) * 0.1;
}

/** Terrarium: R·256 + G + B/256 - 32768 metres (1/256 m steps from -32768 m). */
export function decodeTerrarium(r: number, g: number, b: number): number {
  return r * 256 + g + b / 256 - 32768;
}

export function decoder(encoding: TerrainEncoding): (r: number, g: number, b: number) => number {
  return encoding === 'terrarium' ? decodeTerrarium : decodeMapbox;
}

/**
 * The encoding of a terrain tileset: the store's `encoding` metadata when it says `mapbox` or `terrarium` (a mirror
 * run copies it from the upstream TileJSON, MapLibre's raster-dem `encoding`); else Terrarium when the id or name
 * says "terrarium"; else Mapbox Terrain-RGB, the cloud's convention (its `terrain-rgb-v2` TileJSON names none).
 */
export function encodingOf(info: Pick<TilesetInfo, 'id' | 'name' | 'encoding'>): TerrainEncoding {
  if (info.encoding) return info.encoding;
  return /terrarium/i.test(`${info.id} ${info.name}`) ? 'terrarium' : 'mapbox';
}

/** Metres to feet (international foot, 0.3048 m). */
export const METRES_PER_FOOT = 0.3048;
