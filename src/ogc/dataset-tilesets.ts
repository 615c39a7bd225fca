// The dataset's vector tilesets (OGC API - Tiles, requirement class Dataset Tilesets): tiles of the whole dataset,
// combining the vector collections in one tile, each collection's layers as they are.
//
// What the dataset is: every vector collection whose layers can sit in one tile beside the others'. A Mapbox vector
// tile is a list of named layers, and its encoders must not write two layers of one name (MVT 2.1 §4.1); so a
// collection joins, in collection order, when it names its layers (TileJSON `vector_layers`) and none of them is
// already in the dataset. The others stay out, as the standard permits a server to select the collections worth
// combining (/per/dataset-tilesets/geodata-selection); the tileset document's `layers` say which collection each
// layer comes from. Maps, images and raster tile sets are not combined: one drawn over another would hide it, and
// terrain or weather tiles carry numbers in their pixels, not a picture.
//
// One tileset per tile matrix set some member has a pyramid in (vector tiles of 512 px: WebMercatorQuad512). Its
// limits are, per tile matrix, the smallest range holding every member's; a tile inside them that no member holds
// is empty (204), a tile outside them does not exist (400, as for a collection's tiles).

import { tileRange, type TileRange } from '../geo/mercator';
import { tmsIdFor, webMercatorQuad, SUPPORTED_TILE_SIZES, type TileMatrixLimits, type TileMatrixSet } from '../geo/tile-matrix-set';
import type { Pyramid, TilesetInfo, VectorLayer } from '../store/types';
import {
  CRS84,
  DATASET_TILESETS_PATH,
  JSON_TYPE,
  collectionPath,
  dataTypeOf,
  link,
  pyramidForTmsId,
  tilesetEntry,
  tilesetLinks,
  tilesetPyramids,
  type Link,
  type Tileset,
  type TilesetEntry,
  type TilesetLayer,
} from './ogcapi-tiles';

export const REL_GEODATA = 'http://www.opengis.net/def/rel/ogc/1.0/geodata';

/** One vector collection of the dataset and its pyramid in one tile matrix set. */
export interface DatasetPart {
  info: TilesetInfo;
  pyramid: Pyramid;
}

/** The vector collections the dataset combines, in collection order (see above). */
export function datasetCollections(infos: readonly TilesetInfo[]): TilesetInfo[] {
  const layers = new Set<string>();
  const members: TilesetInfo[] = [];
  for (const info of infos) {
    const ids = (info.vectorLayers ?? []).map((l) => l.id);
    if (dataTypeOf(info) !== 'vector' || ids.length === 0 || tilesetPyramids(info).length === 0) continue;
    if (ids.some((id) => layers.has(id))) continue;
    for (const id of ids) layers.add(id);
    members.push(info);
  }
  return members;
}

/** The dataset's parts in the tile matrix set `tmsId`: empty when the dataset has no tiles there (or no such set). */
export function datasetParts(infos: readonly TilesetInfo[], tmsId: string): DatasetPart[] {
  const parts: DatasetPart[] = [];
  for (const info of datasetCollections(infos)) {
    const pyramid = pyramidForTmsId(info, tmsId);
    if (pyramid) parts.push({ info, pyramid });
  }
  return parts;
}

/** The ids of the tile matrix sets the dataset has tiles in, 256 px first. */
export function datasetTmsIds(infos: readonly TilesetInfo[]): string[] {
  const sizes = new Set(datasetCollections(infos).flatMap((i) => tilesetPyramids(i).map((p) => p.tileSize)));
  return SUPPORTED_TILE_SIZES.filter((s) => sizes.has(s)).map(tmsIdFor);
}

/** The smallest tile range holding every part's tiles at zoom z; undefined when no part has that zoom. */
export function datasetRangeAt(parts: readonly DatasetPart[], z: number): TileRange | undefined {
  let out: TileRange | undefined;
  for (const { pyramid } of parts) {
    if (z < pyramid.minzoom || z > pyramid.maxzoom) continue;
    const r = tileRange(pyramid.bounds, z);
    out = out ? { minX: Math.min(out.minX, r.minX), minY: Math.min(out.minY, r.minY), maxX: Math.max(out.maxX, r.maxX), maxY: Math.max(out.maxY, r.maxY) } : r;
  }
  return out;
}

/** The parts holding a tile at z/x/y: its zoom in the part's pyramid and the tile inside the part's bounds. */
export function partsAt(parts: readonly DatasetPart[], z: number, x: number, y: number): DatasetPart[] {
  return parts.filter(({ pyramid }) => {
    if (z < pyramid.minzoom || z > pyramid.maxzoom) return false;
    const r = tileRange(pyramid.bounds, z);
    return x >= r.minX && x <= r.maxX && y >= r.minY && y <= r.maxY;
  });
}

/** The dataset's limits: for each tile matrix some part has tiles in, the range holding every part's tiles there. */
function datasetLimits(parts: readonly DatasetPart[], tms: TileMatrixSet): TileMatrixLimits[] {
  const out: TileMatrixLimits[] = [];
  for (const m of tms.tileMatrices) {
    const r = datasetRangeAt(parts, m.zoom);
    if (r) out.push({ tileMatrix: m.id, minTileRow: r.minY, maxTileRow: r.maxY, minTileCol: r.minX, maxTileCol: r.maxX });
  }
  return out;
}

/** A layer of the dataset tileset: the collection's layer, its tile matrices, and a link to its collection. */
function datasetLayer(part: DatasetPart, layer: VectorLayer, baseUrl: string, key: string): TilesetLayer {
  const { info, pyramid } = part;
  return {
    id: layer.id,
    dataType: 'vector',
    ...(layer.description && { description: layer.description }),
    minTileMatrix: String(pyramid.minzoom),
    maxTileMatrix: String(pyramid.maxzoom),
    links: [link(baseUrl, key, collectionPath(info), REL_GEODATA, info.name)],
  };
}

/** `/ogc/tiles/{tmsId}`: the dataset's vector tileset in one tile matrix set, or undefined when it has none there. */
export function datasetTileset(infos: readonly TilesetInfo[], tmsId: string, baseUrl: string, key: string): Tileset | undefined {
  const parts = datasetParts(infos, tmsId);
  if (parts.length === 0) return undefined;
  const tms = webMercatorQuad(parts[0].pyramid.tileSize);
  const bounds = parts.map((p) => p.pyramid.bounds);
  return {
    title: 'Vector tiles of the dataset',
    description: `The layers of ${parts.map((p) => p.info.name).join(', ')} in one tile`,
    dataType: 'vector',
    crs: tms.crs,
    tileMatrixSetURI: tms.uri,
    tileMatrixSetLimits: datasetLimits(parts, tms),
    boundingBox: {
      lowerLeft: [Math.min(...bounds.map((b) => b[0])), Math.min(...bounds.map((b) => b[1]))],
      upperRight: [Math.max(...bounds.map((b) => b[2])), Math.max(...bounds.map((b) => b[3]))],
      crs: CRS84,
    },
    minzoom: Math.min(...parts.map((p) => p.pyramid.minzoom)),
    maxzoom: Math.max(...parts.map((p) => p.pyramid.maxzoom)),
    layers: parts.flatMap((part) => (part.info.vectorLayers ?? []).map((l) => datasetLayer(part, l, baseUrl, key))),
    links: tilesetLinks(`${DATASET_TILESETS_PATH}/${tms.id}`, tms, 'pbf', baseUrl, key),
  };
}

/** `/ogc/tiles`: the dataset's vector tilesets, one per tile matrix set it has tiles in. */
export function datasetTilesetList(infos: readonly TilesetInfo[], baseUrl: string, key: string): { links: Link[]; tilesets: TilesetEntry[] } {
  const tilesets: TilesetEntry[] = [];
  for (const tmsId of datasetTmsIds(infos)) {
    const doc = datasetTileset(infos, tmsId, baseUrl, key);
    if (doc) tilesets.push(tilesetEntry(doc, tmsId));
  }
  return { links: [link(baseUrl, key, DATASET_TILESETS_PATH, 'self', 'Vector tilesets of the dataset', JSON_TYPE)], tilesets };
}

/**
 * One vector tile of several: their layers in one tile. A vector tile is a protocol buffers message whose only field
 * is its repeated layers, and messages concatenated parse as one whose repeated fields are concatenated, so the
 * plain (not gzipped) tiles joined byte for byte are the tile holding every layer of each, in order.
 */
export function combineVectorTiles(plainTiles: readonly Buffer[]): Buffer {
  return Buffer.concat(plainTiles);
}
