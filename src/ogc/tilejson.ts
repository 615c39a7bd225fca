// TileJSON 3.0.0 of one pyramid of a resource. The caller passes the tile URL template (see
// tileUrlTemplate in ./urls) so the routes decide the URLs and this module only shapes the document.

import type { Bounds, Pyramid, TileFormat, TilesetInfo, VectorLayer } from '../store/types';

export { tileUrlTemplate } from './urls';

export interface TileJson {
  tilejson: '3.0.0';
  name: string;
  description: string;
  attribution: string;
  version: string;
  scheme: 'xyz';
  tiles: string[];
  minzoom: number;
  maxzoom: number;
  bounds: Bounds;
  center: [number, number, number];
  format: TileFormat;
  /** Not in TileJSON 3.0.0; MapLibre and tileserver-gl read it for raster sources, others ignore it. */
  tileSize?: number;
  /** Pixel ratio of the tiles, as the upstream's TileJSON has it. */
  scale?: number;
  vector_layers?: VectorLayer[];
  /** Elevation tiles: how heights are encoded (MapLibre's raster-dem `encoding`). */
  encoding?: 'mapbox' | 'terrarium';
}

export interface TileJsonOptions {
  /** Absolute tile URL template with {z}, {x}, {y} and the requester's key. */
  tilesUrl: string;
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

export function buildTileJson(info: TilesetInfo, pyramid: Pyramid, opts: TileJsonOptions): TileJson {
  const [lon, lat, zoom] = info.center;
  const doc: TileJson = {
    tilejson: '3.0.0',
    name: info.name,
    description: info.description,
    attribution: info.attribution,
    version: '1.0.0',
    scheme: 'xyz',
    tiles: [opts.tilesUrl],
    minzoom: pyramid.minzoom,
    maxzoom: pyramid.maxzoom,
    bounds: pyramid.bounds,
    // The stored center may name a zoom of another pyramid (512 vs 256 px): keep it inside this one.
    center: [lon, lat, clamp(zoom, pyramid.minzoom, pyramid.maxzoom)],
    format: pyramid.format,
  };
  if (pyramid.format === 'pbf') {
    doc.vector_layers = info.vectorLayers ?? [];
  } else {
    doc.tileSize = pyramid.tileSize;
    doc.scale = pyramid.scale;
    if (info.encoding) doc.encoding = info.encoding;
  }
  return doc;
}
