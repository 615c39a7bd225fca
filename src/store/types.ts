// Plain descriptions of what a store holds. Builders (ogc/) and routes (http/) work from these,
// never from SQLite rows, so document builders stay pure and testable.

/** Media formats a tile can be stored or served in. `pbf` is a (usually gzip-compressed) Mapbox Vector Tile. */
export type TileFormat = 'png' | 'jpg' | 'webp' | 'pbf' | 'basis';

/** What kind of tiled resource a store mirrors; it decides the URL space it is served under. */
export type ResourceKind = 'tiles' | 'maps' | 'images';

/**
 * Resources that are documents only (no tiles): glyph ranges of one font, one sprite sheet, a dataset's
 * features.json, the weather catalog (latest.json), the upstream's OGC conformance declaration (provenance).
 */
export type DocumentKind = 'fonts' | 'sprites' | 'data' | 'weather' | 'ogc';

/** Every DocumentKind, in the order of the spec's sections. */
export const DOCUMENT_KIND_LIST: readonly DocumentKind[] = ['data', 'weather', 'sprites', 'fonts', 'ogc'];

export function isDocumentKind(kind: string): kind is DocumentKind {
  return (DOCUMENT_KIND_LIST as readonly string[]).includes(kind);
}

export type StoreKind = ResourceKind | DocumentKind;

/** The MBTiles metadata row of a map store that says how its raster tiles come: `render` (drawn here), or absent (mirrored). */
export const RASTER_MODE_KEY = 'tilemirror_raster';

/**
 * The id of a store is its file name without `.mbtiles`: any name but hidden ones (staging files start with a
 * dot), without path separators or control characters (font names hold spaces). One rule for the catalog that
 * reads the data directory and the mirror that names what it writes.
 */
const STORE_ID = /^[^./\\\x00-\x1f][^/\\\x00-\x1f]*$/;

export function isStoreId(id: string): boolean {
  return STORE_ID.test(id);
}

import type { Bounds } from '../geo/bounds';
import { MAX_ZOOM } from '../geo/mercator';

/** Bounds are geo's; re-exported for the descriptions below and the builders that read them. */
export type { Bounds };

export interface VectorLayer {
  id: string;
  description?: string;
  minzoom?: number;
  maxzoom?: number;
  fields: Record<string, string>;
}

/**
 * One pyramid of tiles in a store. A tile set has one; a map has one per tile size
 * (`512` is the map's main pyramid, `256` the one under `/maps/{id}/256/`) and may add `@2x` ones.
 */
export interface Pyramid {
  /** Key of the pyramid inside its store: '512', '256', '512@2x', ... ; the main pyramid of a tile set is 'main'. */
  name: string;
  /** Edge of one tile in CSS pixels (what the tile matrix set is built for): 256 or 512. */
  tileSize: number;
  /** Pixel ratio of the stored images: 1, or 2 for @2x (a 256 px @2x tile is a 512 px image). */
  scale: number;
  format: TileFormat;
  minzoom: number;
  maxzoom: number;
  bounds: Bounds;
}

/** The description of one served resource (a tile set, a map or an image), read from its store's metadata. */
export interface TilesetInfo {
  kind: ResourceKind;
  id: string;
  name: string;
  description: string;
  attribution: string;
  /** MBTiles `type`: baselayer or overlay. */
  type: string;
  /** Format of the main pyramid. */
  format: TileFormat;
  minzoom: number;
  maxzoom: number;
  bounds: Bounds;
  /** lon, lat, zoom */
  center: [number, number, number];
  /** Pyramids held by the store; the first is the main one (the MBTiles `tiles` table). */
  pyramids: Pyramid[];
  /** For `pbf` tile sets: the layers as in MBTiles metadata `json`. */
  vectorLayers?: VectorLayer[];
  /** For elevation tiles: how heights are encoded in the pixels (`mapbox` terrain-RGB or `terrarium`). */
  encoding?: 'mapbox' | 'terrarium';
  /**
   * For maps mirrored without their raster pyramids (metadata RASTER_MODE_KEY = `render`): the pyramids are described
   * but hold no tile; every tile of them is rendered here from the map's style.
   */
  raster?: 'render';
  /** For images: pixel size of the whole image at maxzoom (image.json). */
  image?: { width: number; height: number };
  /** A content version for ETags of generated documents: changes whenever the store file changes. */
  version: string;
}

/**
 * Why a pyramid cannot be served, or undefined: its zoom range must lie in 0..MAX_ZOOM with min <= max (the tile
 * matrix sets and every capabilities document are built from it), its tile size must be a sane positive integer.
 */
export function pyramidProblem(p: Pyramid): string | undefined {
  const { minzoom, maxzoom, tileSize, bounds } = p;
  if (!Number.isInteger(minzoom) || !Number.isInteger(maxzoom) || minzoom < 0 || maxzoom > MAX_ZOOM || minzoom > maxzoom) {
    return `has the zoom range ${minzoom}-${maxzoom} (need 0 <= minzoom <= maxzoom <= ${MAX_ZOOM})`;
  }
  if (!Number.isInteger(tileSize) || tileSize < 1 || tileSize > 4096) return `has the tile size ${tileSize} (need 1..4096)`;
  if (!Array.isArray(bounds) || bounds.length !== 4 || !bounds.every(Number.isFinite)) return `has no valid bounds (${JSON.stringify(bounds)})`;
  return undefined;
}
