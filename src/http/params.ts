import { tileRange, type TileRange } from '../geo/mercator';
import type { Pyramid } from '../store/types';
import { badRequest } from './reply';

// Validation at the edge: every path parameter is checked here before a handler touches a store.

/** Deepest zoom a request may name; deeper ones are out of bounds for any store (and would overflow 2^z). */
export const MAX_ZOOM = 30;

const INTEGER = /^\d{1,10}$/;

export interface TileAddress {
  z: number;
  x: number;
  y: number;
}

/** z/x/y as non-negative integers inside the zoom's matrix; anything else is a 400 naming the parameter. */
export function parseTileAddress(z: string | undefined, x: string | undefined, y: string | undefined): TileAddress {
  const out: number[] = [];
  for (const [name, value] of [['z', z], ['x', x], ['y', y]] as const) {
    if (value === undefined || !INTEGER.test(value)) throw badRequest(`Invalid ${name}: expected a non-negative integer`);
    out.push(Number(value));
  }
  const [zz, xx, yy] = out;
  if (zz > MAX_ZOOM) throw badRequest(`Out of bounds: zoom ${zz}`);
  const size = 2 ** zz;
  if (xx >= size || yy >= size) throw badRequest(`Out of bounds: tile ${zz}/${xx}/${yy} does not exist`);
  return { z: zz, x: xx, y: yy };
}

// Tile ranges per pyramid and zoom: computing them takes trigonometry, and a pyramid object lives as long as its store.
const ranges = new WeakMap<Pyramid, TileRange[]>();
function rangeOf(p: Pyramid, z: number): TileRange {
  let perZoom = ranges.get(p);
  if (!perZoom) ranges.set(p, (perZoom = []));
  return (perZoom[z] ??= tileRange(p.bounds, z));
}

/** 400 when the tile lies outside the pyramid's zoom range or bounds (a tile inside them may still be absent: 204). */
export function assertInPyramid(p: Pyramid, { z, x, y }: TileAddress): void {
  if (z < p.minzoom || z > p.maxzoom) throw badRequest(`Out of bounds: zoom ${z} is outside ${p.minzoom}-${p.maxzoom}`);
  const r = rangeOf(p, z);
  if (x < r.minX || x > r.maxX || y < r.minY || y > r.maxY) throw badRequest(`Out of bounds: tile ${z}/${x}/${y}`);
}

/** A strict boolean query flag: absent, true or false (1/0 accepted). */
export function parseBoolean(name: string, value: string | null): boolean | undefined {
  if (value === null || value === '') return undefined;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw badRequest(`Invalid ${name}: expected true or false`);
}
