// OGC API - Tiles 1.0 documents under /ogc, shaped for what GDAL 3.6 (and QGIS through it) reads:
// absolute hrefs carrying the key, one bbox per collection, map and vector tilesets never in the
// same collection, tiling-scheme links to TMS JSON that has both 2D-TMS 2.0 and 17-083r2 keys.
//
// URL space (cid = collection id `{kind}.{id}`, e.g. maps.streets, tiles.terrain, images.scan; a weather variable's
// collection is `weather.{name}`, ./weather-collections.ts):
//   /ogc                                             landingPage
//   /ogc/conformance                                 conformance (./conformance.ts)
//   /ogc/collections                                 collections
//   /ogc/collections/{cid}                           collection
//   /ogc/collections/{cid}/map/tiles                 tilesetList (raster: maps, images, raster tile sets)
//   /ogc/collections/{cid}/tiles                     tilesetList (vector: pbf tile sets)
//   .../{tmsId}                                      tileset       (tmsId WebMercatorQuad | WebMercatorQuad512; a
//                                                    raster collection also a configured grid's id, ./grid-tilesets.ts)
//   .../{tmsId}/{tileMatrix}/{tileRow}/{tileCol}     a tile (served by the routes)
//   /ogc/tiles, /ogc/tiles/{tmsId}, .../{tileMatrix}/{tileRow}/{tileCol}
//                                                    the dataset's vector tiles (./dataset-tilesets.ts)
//   /ogc/tileMatrixSets, /ogc/tileMatrixSets/{tmsId} tileMatrixSetList, ogcTileMatrixSet (and the grids':
//                                                    ./grid-tilesets.ts)

import type { Pyramid, ResourceKind, TileFormat, TilesetInfo, VectorLayer } from '../store/types';
import { isSupportedTileSize, limits, tileSizeOfTmsId, tmsIdFor, webMercatorQuad } from '../geo/tile-matrix-set';
import type { TileMatrixLimits, TileMatrixSet } from '../geo/tile-matrix-set';
import { tileMatrixSetJson } from './tile-matrix-set-json';
import type { TileMatrixSetJson } from './tile-matrix-set-json';
import { OPENAPI_MEDIA_TYPE } from './openapi';
import { mediaTypeOf, scaleOnePyramids, withKey } from './urls';

export const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';
export const REL_TILESETS_MAP = 'http://www.opengis.net/def/rel/ogc/1.0/tilesets-map';
export const REL_TILESETS_VECTOR = 'http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector';
export const REL_TILING_SCHEME = 'http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme';
export const REL_TILING_SCHEMES = 'http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes';
export const JSON_TYPE = 'application/json';
export const OGC_ROOT = '/ogc';
/** The dataset's vector tilesets (the requirement class Dataset Tilesets names the path `/tiles` under the root). */
export const DATASET_TILESETS_PATH = `${OGC_ROOT}/tiles`;

export interface Link {
  href: string;
  rel: string;
  type?: string;
  title?: string;
  templated?: boolean;
}

export type DataType = 'map' | 'vector';

/** An absolute link carrying the key (a JSON document unless `type` says otherwise). */
export const link = (baseUrl: string, key: string, path: string, rel: string, title?: string, type = JSON_TYPE): Link =>
  title === undefined ? { href: withKey(baseUrl, path, key), rel, type } : { href: withKey(baseUrl, path, key), rel, type, title };

// ---------------------------------------------------------------------------------------------
// Identifiers and paths

export function collectionId(kind: ResourceKind, id: string): string {
  return `${kind}.${id}`;
}

/** Inverts collectionId ('maps.a.b' -> maps / 'a.b': the kind ends at the first dot). */
export function parseCollectionId(cid: string): { kind: ResourceKind; id: string } | undefined {
  const dot = cid.indexOf('.');
  if (dot < 0) return undefined;
  const kind = cid.slice(0, dot);
  const id = cid.slice(dot + 1);
  if (!id || (kind !== 'maps' && kind !== 'tiles' && kind !== 'images')) return undefined;
  return { kind, id };
}

export function dataTypeOf(info: TilesetInfo): DataType {
  return info.format === 'pbf' ? 'vector' : 'map';
}

/** The path of a collection by its id. */
export function collectionPathOf(cid: string): string {
  return `${OGC_ROOT}/collections/${encodeURIComponent(cid)}`;
}

/** The path of a collection. */
export function collectionPath(info: TilesetInfo): string {
  return collectionPathOf(collectionId(info.kind, info.id));
}

/** Path of a collection's tileset list by its id and data type: /map/tiles for raster, /tiles for vector. */
export function tilesetsPathOf(cid: string, dataType: DataType): string {
  const base = collectionPathOf(cid);
  return dataType === 'vector' ? `${base}/tiles` : `${base}/map/tiles`;
}

/** Path of a collection's tileset list. */
export function tilesetsPath(info: TilesetInfo): string {
  return tilesetsPathOf(collectionId(info.kind, info.id), dataTypeOf(info));
}

/** The pyramids advertised as OGC tilesets: scale 1, 256 or 512 px. */
export function tilesetPyramids(info: TilesetInfo): Pyramid[] {
  return scaleOnePyramids(info).filter((p) => isSupportedTileSize(p.tileSize));
}

/** The pyramid behind a tileset id (WebMercatorQuad -> the 256 px one, WebMercatorQuad512 -> 512 px). */
export function pyramidForTmsId(info: TilesetInfo, tmsId: string): Pyramid | undefined {
  const size = tileSizeOfTmsId(tmsId);
  if (size === undefined || tmsId !== tmsIdFor(size)) return undefined;
  return tilesetPyramids(info).find((p) => p.tileSize === size);
}

// ---------------------------------------------------------------------------------------------
// Documents

/**
 * The landing page: the API definition and its documentation, the conformance declaration, the collections, the
 * tile matrix sets, and (`datasetTilesets`: when the dataset has vector tiles) the dataset's vector tilesets.
 */
export function landingPage(baseUrl: string, key: string, title: string, datasetTilesets = false) {
  const links = [
    link(baseUrl, key, OGC_ROOT, 'self', 'This document'),
    link(baseUrl, key, '/openapi.json', 'service-desc', 'The API definition (OpenAPI 3.1)', OPENAPI_MEDIA_TYPE),
    link(baseUrl, key, '/docs', 'service-doc', 'The API documentation', 'text/html'),
    link(baseUrl, key, `${OGC_ROOT}/conformance`, 'conformance', 'Conformance declaration'),
    link(baseUrl, key, `${OGC_ROOT}/collections`, 'data', 'Collections'),
    link(baseUrl, key, `${OGC_ROOT}/tileMatrixSets`, REL_TILING_SCHEMES, 'Tile matrix sets'),
  ];
  if (datasetTilesets) links.push(link(baseUrl, key, DATASET_TILESETS_PATH, REL_TILESETS_VECTOR, 'Vector tilesets of the dataset'));
  return { title, description: 'OGC API - Tiles of the mirrored maps, tile sets and images', links };
}

/**
 * A collection's extent (OGC API - Common Part 2): the spatial one, one bbox in CRS84 degrees, and for a collection
 * whose tiles change with time the temporal one: its first and last instant (`interval`, one interval) and, as
 * OGC API - EDR writes them, every instant it has tiles for (`values`).
 */
export interface CollectionExtent {
  spatial: { bbox: number[][]; crs: string };
  temporal?: { interval: [string, string][]; trs: string; values?: string[] };
}

/** The Gregorian calendar in UTC, the temporal reference system of ISO 8601 instants (OGC API - Common Part 2). */
export const GREGORIAN_TRS = 'http://www.opengis.net/def/uom/ISO-8601/0/Gregorian';

/** What a collection document says of its collection. */
export interface CollectionSubject {
  id: string;
  title: string;
  description: string;
  attribution: string;
  dataType: DataType;
  extent: CollectionExtent;
}

/** A collection document: its description, extent, CRS, and links to itself and its tilesets. */
export function collectionDocument(c: CollectionSubject, baseUrl: string, key: string) {
  return {
    id: c.id,
    title: c.title,
    description: c.description,
    attribution: c.attribution,
    dataType: c.dataType,
    extent: c.extent,
    crs: [CRS84],
    links: [
      link(baseUrl, key, collectionPathOf(c.id), 'self', c.title),
      link(
        baseUrl,
        key,
        tilesetsPathOf(c.id, c.dataType),
        c.dataType === 'vector' ? REL_TILESETS_VECTOR : REL_TILESETS_MAP,
        c.dataType === 'vector' ? 'Vector tilesets' : 'Map tilesets',
      ),
    ],
  };
}

export type Collection = ReturnType<typeof collectionDocument>;

export function collection(info: TilesetInfo, baseUrl: string, key: string): Collection {
  const extent: CollectionExtent = { spatial: { bbox: [[...info.bounds]], crs: CRS84 } };
  const subject = { id: collectionId(info.kind, info.id), title: info.name, description: info.description, attribution: info.attribution, dataType: dataTypeOf(info), extent };
  return collectionDocument(subject, baseUrl, key);
}

/** The collections: one per resource, then `more` (the weather variables'). */
export function collections(infos: TilesetInfo[], baseUrl: string, key: string, more: readonly Collection[] = []) {
  return {
    links: [link(baseUrl, key, `${OGC_ROOT}/collections`, 'self', 'Collections')],
    collections: [...infos.map((info) => collection(info, baseUrl, key)), ...more],
  };
}

/** A layer of a vector tileset (2D-TMS 2.0 tileset metadata `layers`). */
export interface TilesetLayer {
  id: string;
  dataType: 'vector';
  description?: string;
  /** The tile matrices holding the layer (in a tileset combining collections, where they differ). */
  minTileMatrix?: string;
  maxTileMatrix?: string;
  /** The collection the layer comes from (rel `geodata`), in a tileset combining collections. */
  links?: Link[];
}

export interface Tileset {
  title: string;
  description: string;
  dataType: DataType;
  crs: string;
  tileMatrixSetURI?: string;
  tileMatrixSetLimits: TileMatrixLimits[];
  boundingBox: { lowerLeft: [number, number]; upperRight: [number, number]; crs: string };
  minzoom: number;
  maxzoom: number;
  layers?: TilesetLayer[];
  links: Link[];
}

/**
 * The links of a tileset at `path`: itself (at `selfPath`), its tiling scheme, and the template of its tiles
 * (`item`, templated, typed with the media type its tiles are served with).
 */
export function tilesetLinks(path: string, tms: Pick<TileMatrixSet, 'id'>, format: TileFormat, baseUrl: string, key: string, selfPath = path): Link[] {
  return [
    link(baseUrl, key, selfPath, 'self', 'This tileset'),
    link(baseUrl, key, `${OGC_ROOT}/tileMatrixSets/${tms.id}`, REL_TILING_SCHEME, `Tile matrix set ${tms.id}`),
    { ...link(baseUrl, key, `${path}/{tileMatrix}/{tileRow}/{tileCol}`, 'item', 'Tiles', mediaTypeOf(format)), templated: true },
  ];
}

/** What a tileset document says of its collection: where its tilesets are, its title, description, vector layers. */
export interface TilesetSubject {
  /** The path of the collection's tilesets list (tilesetsPathOf). */
  tilesetsPath: string;
  title: string;
  description: string;
  dataType: DataType;
  vectorLayers?: readonly VectorLayer[];
}

/** The tileset of one pyramid of a collection; selfPath overrides the self link (used by resourceTileset). */
export function pyramidTileset(subject: TilesetSubject, pyramid: Pyramid, baseUrl: string, key: string, selfPath?: string): Tileset {
  const tms = webMercatorQuad(pyramid.tileSize);
  const path = `${subject.tilesetsPath}/${tms.id}`;
  const [w, s, e, n] = pyramid.bounds;
  const doc: Tileset = {
    title: subject.title,
    description: subject.description,
    dataType: subject.dataType,
    crs: tms.crs,
    tileMatrixSetURI: tms.uri,
    tileMatrixSetLimits: limits(tms, pyramid.bounds, pyramid.minzoom, pyramid.maxzoom),
    boundingBox: { lowerLeft: [w, s], upperRight: [e, n], crs: CRS84 },
    minzoom: pyramid.minzoom,
    maxzoom: pyramid.maxzoom,
    links: tilesetLinks(path, tms, pyramid.format, baseUrl, key, selfPath),
  };
  if (pyramid.format === 'pbf') {
    doc.layers = (subject.vectorLayers ?? []).map((l) =>
      l.description ? { id: l.id, dataType: 'vector' as const, description: l.description } : { id: l.id, dataType: 'vector' as const },
    );
  }
  return doc;
}

/** The tileset of one pyramid of a resource; selfPath overrides the self link (used by resourceTileset). */
export function tileset(info: TilesetInfo, pyramid: Pyramid, baseUrl: string, key: string, selfPath?: string): Tileset {
  const title = pyramid.tileSize === 256 && info.kind === 'maps' ? `${info.name} (256 px)` : info.name;
  const subject = { tilesetsPath: tilesetsPath(info), title, description: info.description, dataType: dataTypeOf(info), vectorLayers: info.vectorLayers };
  return pyramidTileset(subject, pyramid, baseUrl, key, selfPath);
}

/** One entry of a tileset list. */
export interface TilesetEntry {
  title: string;
  dataType: DataType;
  crs: string;
  tileMatrixSetURI?: string;
  tileMatrixSetId: string;
  tileMatrixSetLimits: TileMatrixLimits[];
  links: Link[];
}

/**
 * A tileset as an entry of a list: what Tilesets List requires of it (dataType, crs, the self and tiling-scheme
 * links, the tileMatrixSetURI of a registered set), and what a reader of the list uses without fetching the
 * tileset: the set's id, its limits and the template of its tiles (the OGC's test suite reads these three from
 * the lists the landing page links to).
 */
export function tilesetEntry(doc: Pick<Tileset, 'title' | 'dataType' | 'crs' | 'tileMatrixSetURI' | 'tileMatrixSetLimits' | 'links'>, tmsId: string): TilesetEntry {
  return {
    title: doc.title,
    dataType: doc.dataType,
    crs: doc.crs,
    tileMatrixSetURI: doc.tileMatrixSetURI,
    tileMatrixSetId: tmsId,
    tileMatrixSetLimits: doc.tileMatrixSetLimits,
    links: doc.links.map((l) => (l.rel === 'self' ? { ...l, title: `Tileset ${tmsId}` } : l)),
  };
}

/** { tilesets: [...] }: one entry per scale-1 pyramid, main pyramid first (GDAL takes the first). */
export function tilesetList(info: TilesetInfo, baseUrl: string, key: string) {
  return {
    links: [link(baseUrl, key, tilesetsPath(info), 'self', 'Tilesets')],
    tilesets: tilesetPyramids(info).map((p) => tilesetEntry(tileset(info, p, baseUrl, key), tmsIdFor(p.tileSize))),
  };
}

/** Path of a resource's own tileset endpoint from the spec: /maps/{id}/tiles, /tiles/{id}/tiles, /images/{id}/tiles. */
export function resourceTilesetPath(info: TilesetInfo): string {
  return `/${info.kind}/${encodeURIComponent(info.id)}/tiles`;
}

/** The spec's /{kind}/{id}/tiles document: the main pyramid's tileset, self link on that path. */
export function resourceTileset(info: TilesetInfo, baseUrl: string, key: string): Tileset | undefined {
  const main = tilesetPyramids(info)[0];
  if (!main) return undefined;
  return tileset(info, main, baseUrl, key, resourceTilesetPath(info));
}

/** The spec's /{kind}/{id}/tileMatrixSet document: the main pyramid's set, cut to its zoom range. */
export function resourceTileMatrixSet(info: TilesetInfo): TileMatrixSetJson | undefined {
  const main = tilesetPyramids(info)[0];
  if (!main) return undefined;
  return tileMatrixSetJson(webMercatorQuad(main.tileSize, main.minzoom, main.maxzoom));
}

const OGC_TMS_SIZES = [256, 512] as const;

/** One tile matrix set of /ogc/tileMatrixSets; `uri` for a set on the OGC's register. */
export interface TileMatrixSetSummary {
  id: string;
  title: string;
  uri?: string;
  crs: string;
  links: Link[];
}

export function tileMatrixSetList(baseUrl: string, key: string): { links: Link[]; tileMatrixSets: TileMatrixSetSummary[] } {
  return {
    links: [link(baseUrl, key, `${OGC_ROOT}/tileMatrixSets`, 'self', 'Tile matrix sets')],
    tileMatrixSets: OGC_TMS_SIZES.map((size) => {
      const tms = webMercatorQuad(size);
      return {
        id: tms.id,
        title: tms.title,
        uri: tms.uri,
        crs: tms.crs,
        links: [link(baseUrl, key, `${OGC_ROOT}/tileMatrixSets/${tms.id}`, 'self', tms.title)],
      };
    }),
  };
}

/** /ogc/tileMatrixSets/{tmsId}: the full set with a self link, or undefined for an unknown id. */
export function ogcTileMatrixSet(tmsId: string, baseUrl: string, key: string): (TileMatrixSetJson & { links: Link[] }) | undefined {
  const size = tileSizeOfTmsId(tmsId);
  if (size === undefined || tmsId !== tmsIdFor(size)) return undefined;
  const tms = webMercatorQuad(size);
  return { ...tileMatrixSetJson(tms), links: [link(baseUrl, key, `${OGC_ROOT}/tileMatrixSets/${tms.id}`, 'self', tms.title)] };
}
