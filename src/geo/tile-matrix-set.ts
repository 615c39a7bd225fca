// The WebMercatorQuad tile matrix set (OGC 2D-TMS / WMTS GoogleMapsCompatible) for 256 and 512 px
// tiles, described once and rendered by the WMTS and OGC API builders.
//
// Identifiers (256 and 512 px must never share one: ArcGIS loads the wrong set, tileserver-gl#1149):
// - OGC API:  `WebMercatorQuad` (256 px, the registered set) and `WebMercatorQuad512` (512 px), each
//   covering zooms 0..DEFAULT_MAX_ZOOM. A set cut to a zoom range gets the suffix `-z{min}-{max}`
//   because it is no longer the registered set (e.g. `WebMercatorQuad512-z0-14`).
// - WMTS:     `GoogleMapsCompatible256-z{min}-{max}` and `GoogleMapsCompatible512-z{min}-{max}`, in the
//   style of MapTiler's `GoogleMapsCompatible512-z0-22`; a WMTS set always holds only the zooms used.

import type { Bounds } from './bounds';
import { ORIGIN_SHIFT, resolution, scaleDenominator, tileRange } from './mercator';

export const CRS_3857 = 'http://www.opengis.net/def/crs/EPSG/0/3857';
/** The registered 2D-TMS URI of the 256 px set. */
export const WEB_MERCATOR_QUAD_URI = 'http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad';
/** No registry names a 512 px Web Mercator set; a URN says "identifier, do not fetch". */
export const WEB_MERCATOR_QUAD_512_URI = 'urn:tilemirror:def:tilematrixset:WebMercatorQuad512';
/** 2D-TMS well-known scale set (the WMTS one is a URN, see ogc/wmts.ts). Only true for 256 px. */
export const GOOGLE_WKSS_URI = 'http://www.opengis.net/def/wkss/OGC/1.0/GoogleMapsCompatible';
/** Zooms of a full set; WebMercatorQuad's registered definition stops at 24 too. */
export const DEFAULT_MAX_ZOOM = 24;
export const SUPPORTED_TILE_SIZES = [256, 512] as const;

export interface TileMatrix {
  /** The zoom as a string. */
  id: string;
  zoom: number;
  scaleDenominator: number;
  /** Metres per pixel. */
  cellSize: number;
  /** Top-left corner, x then y. */
  pointOfOrigin: [number, number];
  tileWidth: number;
  tileHeight: number;
  matrixWidth: number;
  matrixHeight: number;
}

export interface TileMatrixSet {
  /** OGC API id (path segment under /ogc/tileMatrixSets/). */
  id: string;
  /** WMTS TileMatrixSet identifier. */
  wmtsId: string;
  title: string;
  /** Registered URI when the set is the full registered one; absent for zoom-cut sets. */
  uri?: string;
  crs: string;
  /** Set only for 256 px, whose scales are those of GoogleMapsCompatible. */
  wellKnownScaleSet?: string;
  tileSize: number;
  minzoom: number;
  maxzoom: number;
  /** Extent in metres: [xmin, ymin, xmax, ymax]. */
  boundingBox: [number, number, number, number];
  tileMatrices: TileMatrix[];
}

export interface TileMatrixLimits {
  tileMatrix: string;
  minTileRow: number;
  maxTileRow: number;
  minTileCol: number;
  maxTileCol: number;
}

export function isSupportedTileSize(tileSize: number): boolean {
  return (SUPPORTED_TILE_SIZES as readonly number[]).includes(tileSize);
}

/** OGC API id of the full set for a tile size: WebMercatorQuad (256) or WebMercatorQuad512 (512). */
export function tmsIdFor(tileSize: number): string {
  if (!isSupportedTileSize(tileSize)) throw new RangeError(`unsupported tile size ${tileSize}`);
  return tileSize === 256 ? 'WebMercatorQuad' : `WebMercatorQuad${tileSize}`;
}

/** WMTS identifier of the set for a tile size and zoom range, e.g. GoogleMapsCompatible512-z0-14. */
export function wmtsTmsIdFor(tileSize: number, minzoom: number, maxzoom: number): string {
  if (!isSupportedTileSize(tileSize)) throw new RangeError(`unsupported tile size ${tileSize}`);
  return `GoogleMapsCompatible${tileSize}-z${minzoom}-${maxzoom}`;
}

/** Tile size of an OGC API set id made by tmsIdFor / webMercatorQuad, or undefined. */
export function tileSizeOfTmsId(id: string): number | undefined {
  const m = /^WebMercatorQuad(512)?(?:-z\d+-\d+)?$/.exec(id);
  if (!m) return undefined;
  return m[1] ? 512 : 256;
}

/** The WebMercatorQuad set for a tile size, with matrices minzoom..maxzoom (default the full 0..24). */
export function webMercatorQuad(tileSize: number, minzoom = 0, maxzoom = DEFAULT_MAX_ZOOM): TileMatrixSet {
  const baseId = tmsIdFor(tileSize);
  if (!Number.isInteger(minzoom) || !Number.isInteger(maxzoom) || minzoom < 0 || maxzoom < minzoom || maxzoom > 30) {
    throw new RangeError(`invalid zoom range ${minzoom}-${maxzoom}`);
  }
  const full = minzoom === 0 && maxzoom === DEFAULT_MAX_ZOOM;
  const tileMatrices: TileMatrix[] = [];
  for (let z = minzoom; z <= maxzoom; z++) {
    tileMatrices.push({
      id: String(z),
      zoom: z,
      scaleDenominator: scaleDenominator(z, tileSize),
      cellSize: resolution(z, tileSize),
      pointOfOrigin: [-ORIGIN_SHIFT, ORIGIN_SHIFT],
      tileWidth: tileSize,
      tileHeight: tileSize,
      matrixWidth: 2 ** z,
      matrixHeight: 2 ** z,
    });
  }
  return {
    id: full ? baseId : `${baseId}-z${minzoom}-${maxzoom}`,
    wmtsId: wmtsTmsIdFor(tileSize, minzoom, maxzoom),
    title: `Google Maps Compatible for the World, ${tileSize} px tiles`,
    uri: full ? (tileSize === 256 ? WEB_MERCATOR_QUAD_URI : WEB_MERCATOR_QUAD_512_URI) : undefined,
    crs: CRS_3857,
    wellKnownScaleSet: tileSize === 256 ? GOOGLE_WKSS_URI : undefined,
    tileSize,
    minzoom,
    maxzoom,
    boundingBox: [-ORIGIN_SHIFT, -ORIGIN_SHIFT, ORIGIN_SHIFT, ORIGIN_SHIFT],
    tileMatrices,
  };
}

/**
 * Tile rows and columns of `tms` that hold data within bounds, for each matrix whose zoom is in
 * [minzoom, maxzoom]. Rows count from the top, like XYZ y.
 */
export function limits(tms: TileMatrixSet, bounds: Bounds, minzoom: number, maxzoom: number): TileMatrixLimits[] {
  return tms.tileMatrices
    .filter((m) => m.zoom >= minzoom && m.zoom <= maxzoom)
    .map((m) => {
      const r = tileRange(bounds, m.zoom);
      return { tileMatrix: m.id, minTileRow: r.minY, maxTileRow: r.maxY, minTileCol: r.minX, maxTileCol: r.maxX };
    });
}
