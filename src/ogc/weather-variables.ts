// The variables of a weather catalog (`/weather/latest.json`) as the WMTS layers and OGC API collections that offer
// them describe them: one pyramid every keyframe holds, and the keyframes in time order. Pure: the parsed catalog
// and a lookup of the mirrored keyframe tile sets in, plain descriptions out (./weather-layers.ts and
// ./weather-collections.ts build the documents).
//
// A variable is offered when it has a variable_id and at least one usable keyframe. A keyframe is usable when its
// timestamp is an RFC 3339 date-time and its tile set `tiles/{id}` is mirrored with a main raster pyramid (PNG,
// JPEG or WebP: the values are in the pixels) of the variable's format and tile size (the catalog's `tile_format`
// and `tile_matrix_set` tile width, else those of the latest keyframe). What is offered is what every usable keyframe holds: the zooms and bounds the catalog gives,
// narrowed to those of each keyframe's tile set (a run mirrors some zooms and areas only), so every tile a layer
// advertises exists at every one of its times. Two keyframes at one instant: the first in catalog order is kept.
//
// Times are written in UTC with `Z`, to the second (2024-01-01T06:00:00Z), whatever offset the catalog uses: a `+`
// in a URL query reads as a space, and clients write the values they read back into URLs as they are.

import { isSupportedTileSize } from '../geo/tile-matrix-set';
import type { Bounds, Pyramid, TileFormat, TilesetInfo } from '../store/types';
import { formatInstant, parseInstant } from './datetime';

/** One keyframe: the time it shows and the tile set holding its tiles. */
export interface WeatherKeyframe {
  /** ISO 8601 in UTC with `Z` (see above). */
  time: string;
  /** Milliseconds since the epoch. */
  instant: number;
  /** Id of the keyframe's tile set, `tiles/{tilesetId}`. */
  tilesetId: string;
}

export interface WeatherVariable {
  /** The catalog's `variable_id`, e.g. `temperature-2m:gfs`. */
  variableId: string;
  /** A URL-safe name of the variable (weatherName): the WMTS layer and the collection are named after it. */
  name: string;
  title: string;
  description: string;
  attribution: string;
  unit?: string;
  /** How values are encoded in the pixels, as the catalog says (`channels`, `min`, `max`). */
  decoding?: { channels?: string; min?: number; max?: number };
  /** What every keyframe holds: format, tile size, zooms and bounds (scale 1). */
  pyramid: Pyramid;
  /** The usable keyframes, earliest first; the last is the latest. */
  keyframes: WeatherKeyframe[];
}

/**
 * The URL-safe name of a variable id: `:` becomes `.` (`temperature-2m:gfs` -> `temperature-2m.gfs`), any other
 * character but letters, digits, `.`, `_` and `-` becomes `_`. Stable: it depends on the variable id only. Two
 * ids with one name (ids differing only where they are rewritten): the first variable in catalog order keeps it.
 */
export function weatherName(variableId: string): string {
  return variableId.replace(/:/g, '.').replace(/[^A-Za-z0-9._-]/g, '_');
}

/** The formats a weather variable is offered in: rasters, whose pixels carry the values (`decoding`). */
const FORMATS: Readonly<Record<string, TileFormat>> = { png: 'png', jpg: 'jpg', jpeg: 'jpg', webp: 'webp' };
const RASTER: readonly TileFormat[] = Object.values(FORMATS);

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const record = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** What the catalog says of a variable's tiles: format, tile size, zoom range and bounds, each where it says it. */
interface Declared {
  format?: TileFormat;
  tileSize?: number;
  minzoom?: number;
  maxzoom?: number;
  bounds?: Bounds;
}

function declared(v: Record<string, unknown>): Declared {
  const out: Declared = {};
  const format = text(v.tile_format)?.toLowerCase();
  if (format && Object.hasOwn(FORMATS, format)) out.format = FORMATS[format];
  const items = list(record(v.tile_matrix_set).items).map(record);
  const zooms = items.map((i) => num(i.zoom_level)).filter((z): z is number => z !== undefined && Number.isInteger(z) && z >= 0);
  if (zooms.length) {
    out.minzoom = Math.min(...zooms);
    out.maxzoom = Math.max(...zooms);
  }
  const widths = new Set(items.map((i) => num(i.tile_width)));
  const [width] = widths;
  if (widths.size === 1 && width !== undefined) out.tileSize = width;
  const b = list(v.bounds).map(num);
  if (b.length === 4 && b.every((x) => x !== undefined)) out.bounds = b as unknown as Bounds;
  return out;
}

/** The main pyramid of a keyframe's tile set, when it is one a layer can offer (raster, scale 1, 256 or 512 px). */
function keyframePyramid(info: TilesetInfo | undefined): Pyramid | undefined {
  const main = info?.pyramids[0];
  return main && RASTER.includes(main.format) && main.scale === 1 && isSupportedTileSize(main.tileSize) ? main : undefined;
}

/** The part of two bounds both cover; undefined when they do not overlap. */
function intersectBounds(a: Bounds, b: Bounds): Bounds | undefined {
  const out: Bounds = [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  return out[0] < out[2] && out[1] < out[3] ? out : undefined;
}

/** One variable of the catalog, or undefined when it cannot be offered (see the header). */
function readVariable(v: Record<string, unknown>, keyframeInfo: (id: string) => TilesetInfo | undefined): WeatherVariable | undefined {
  const meta = record(record(v.metadata).weather_variable);
  const variableId = text(meta.variable_id);
  if (!variableId) return undefined;

  // The keyframes with a time and a mirrored tile set, latest first (the reference when the catalog says nothing).
  const seen = new Set<number>();
  const candidates: { keyframe: WeatherKeyframe; pyramid: Pyramid }[] = [];
  for (const k of list(v.keyframes).map(record)) {
    const id = text(k.id);
    const timestamp = text(k.timestamp);
    const instant = timestamp === undefined ? undefined : parseInstant(timestamp);
    const pyramid = id === undefined ? undefined : keyframePyramid(keyframeInfo(id));
    if (id === undefined || instant === undefined || !pyramid || seen.has(instant)) continue;
    seen.add(instant);
    candidates.push({ keyframe: { time: formatInstant(instant), instant, tilesetId: id }, pyramid });
  }
  candidates.sort((a, b) => b.keyframe.instant - a.keyframe.instant);
  if (!candidates.length) return undefined;

  const d = declared(v);
  const format = d.format ?? candidates[0].pyramid.format;
  const tileSize = d.tileSize ?? candidates[0].pyramid.tileSize;
  const usable = candidates.filter((c) => c.pyramid.format === format && c.pyramid.tileSize === tileSize);
  if (!usable.length) return undefined;
  let minzoom = d.minzoom ?? 0;
  let maxzoom = d.maxzoom ?? Infinity;
  let bounds: Bounds | undefined = d.bounds ?? usable[0].pyramid.bounds;
  for (const { pyramid } of usable) {
    minzoom = Math.max(minzoom, pyramid.minzoom);
    maxzoom = Math.min(maxzoom, pyramid.maxzoom);
    bounds = bounds && intersectBounds(bounds, pyramid.bounds);
  }
  if (minzoom > maxzoom || !bounds) return undefined;

  const decoding = record(meta.decoding);
  return {
    variableId,
    name: weatherName(variableId),
    title: text(meta.name) ?? variableId,
    description: text(meta.description) ?? '',
    attribution: text(meta.attribution) ?? '',
    ...(text(meta.unit) !== undefined && { unit: text(meta.unit) }),
    ...(Object.keys(decoding).length > 0 && { decoding: { channels: text(decoding.channels), min: num(decoding.min), max: num(decoding.max) } }),
    pyramid: { name: 'main', tileSize, scale: 1, format, minzoom, maxzoom, bounds },
    keyframes: usable.map((c) => c.keyframe).reverse(),
  };
}

/**
 * The variables of a parsed weather catalog that can be offered, in catalog order, each name once.
 * `keyframeInfo` gives the mirrored tile set of a keyframe id (`tiles/{id}`), undefined when it is not mirrored.
 */
export function weatherVariables(catalog: unknown, keyframeInfo: (id: string) => TilesetInfo | undefined): WeatherVariable[] {
  const out: WeatherVariable[] = [];
  for (const v of list(record(catalog).variables).map(record)) {
    const variable = readVariable(v, keyframeInfo);
    if (variable && !out.some((o) => o.name === variable.name)) out.push(variable);
  }
  return out;
}

/** The keyframe of a variable at a time (as written in its `time`), if any. */
export function keyframeAt(variable: WeatherVariable, time: string): WeatherKeyframe | undefined {
  return variable.keyframes.find((k) => k.time === time);
}

/** The latest keyframe: what a request that names no time gets. */
export function latestKeyframe(variable: WeatherVariable): WeatherKeyframe {
  return variable.keyframes[variable.keyframes.length - 1];
}
