// OGC API - Tiles 1.0 documents under /ogc, shaped for what GDAL 3.6 (and QGIS through it) reads:
// absolute hrefs carrying the key, one bbox per collection, map and vector tilesets never in the
// same collection, tiling-scheme links to TMS JSON that has both 2D-TMS 2.0 and 17-083r2 keys.
//
// URL space (cid = collection id `{kind}.{id}`, e.g. maps.streets, tiles.terrain, images.scan):
//   /ogc                                             landingPage
//   /ogc/conformance                                 conformance (./conformance.ts)
//   /ogc/collections                                 collections
//   /ogc/collections/{cid}                           collection
//   /ogc/collections/{cid}/map/tiles                 tilesetList (raster: maps, images, raster tile sets)
//   /ogc/collections/{cid}/tiles                     tilesetList (vector: pbf tile sets)
//   .../{tmsId}                                      tileset       (tmsId WebMercatorQuad | WebMercatorQuad512)
//   .../{tmsId}/{tileMatrix}/{tileRow}/{tileCol}     a tile (served by the routes)
//   /ogc/tileMatrixSets, /ogc/tileMatrixSets/{tmsId} tileMatrixSetList, ogcTileMatrixSet

import type { Pyramid, ResourceKind, TilesetInfo } from '../store/types';
import { isSupportedTileSize, limits, tileSizeOfTmsId, tmsIdFor, webMercatorQuad } from '../geo/tile-matrix-set';
import type { TileMatrixLimits } from '../geo/tile-matrix-set';
import { tileMatrixSetJson } from './tile-matrix-set-json';
import type { TileMatrixSetJson } from './tile-matrix-set-json';
import { OPENAPI_MEDIA_TYPE } from './openapi';
import { mediaTypeOf, scaleOnePyramids, withKey } from './urls';

export const CRS84 = 'http://www.opengis.net/def/crs/OGC/1.3/CRS84';
export const REL_TILESETS_MAP = 'http://www.opengis.net/def/rel/ogc/1.0/tilesets-map';
export const REL_TILESETS_VECTOR = 'http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector';
export const REL_TILING_SCHEME = 'http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme';
export const REL_TILING_SCHEMES = 'http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes';
const JSON_TYPE = 'application/json';
const OGC_ROOT = '/ogc';

export interface Link {
  href: string;
  rel: string;
  type?: string;
  title?: string;
  templated?: boolean;
}

export type DataType = 'map' | 'vector';

const link = (baseUrl: string, key: string, path: string, rel: string, title?: string, type = JSON_TYPE): Link =>
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

/** Path of a collection's tileset list: /map/tiles for raster, /tiles for vector. */
export function tilesetsPath(info: TilesetInfo): string {
  const base = `${OGC_ROOT}/collections/${encodeURIComponent(collectionId(info.kind, info.id))}`;
  return dataTypeOf(info) === 'vector' ? `${base}/tiles` : `${base}/map/tiles`;
}

/** The pyramids advertised as OGC tilesets: scale 1, 256 or 512 px. */
function tilesetPyramids(info: TilesetInfo): Pyramid[] {
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

export function landingPage(baseUrl: string, key: string, title: string) {
  return {
    title,
    description: 'OGC API - Tiles of the mirrored maps, tile sets and images',
    links: [
      link(baseUrl, key, OGC_ROOT, 'self', 'This document'),
      link(baseUrl, key, '/openapi.json', 'service-desc', 'The API definition (OpenAPI 3.1)', OPENAPI_MEDIA_TYPE),
      link(baseUrl, key, '/docs', 'service-doc', 'The API documentation', 'text/html'),
      link(baseUrl, key, `${OGC_ROOT}/conformance`, 'conformance', 'Conformance declaration'),
      link(baseUrl, key, `${OGC_ROOT}/collections`, 'data', 'Collections'),
      link(baseUrl, key, `${OGC_ROOT}/tileMatrixSets`, REL_TILING_SCHEMES, 'Tile matrix sets'),
    ],
  };
}

export function collection(info: TilesetInfo, baseUrl: string, key: string) {
  const cid = collectionId(info.kind, info.id);
  const dataType = dataTypeOf(info);
  return {
    id: cid,
    title: info.name,
    description: info.description,
    attribution: info.attribution,
    dataType,
    extent: { spatial: { bbox: [[...info.bounds]], crs: CRS84 } },
    crs: [CRS84],
    links: [
      link(baseUrl, key, `${OGC_ROOT}/collections/${encodeURIComponent(cid)}`, 'self', info.name),
      link(
        baseUrl,
        key,
        tilesetsPath(info),
        dataType === 'vector' ? REL_TILESETS_VECTOR : REL_TILESETS_MAP,
        dataType === 'vector' ? 'Vector tilesets' : 'Map tilesets',
      ),
    ],
  };
}

export function collections(infos: TilesetInfo[], baseUrl: string, key: string) {
  return {
    links: [link(baseUrl, key, `${OGC_ROOT}/collections`, 'self', 'Collections')],
    collections: infos.map((info) => collection(info, baseUrl, key)),
  };
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
  layers?: { id: string; dataType: 'vector'; description?: string }[];
  links: Link[];
}

/** The tileset of one pyramid; selfPath overrides the self link (used by resourceTileset). */
export function tileset(info: TilesetInfo, pyramid: Pyramid, baseUrl: string, key: string, selfPath?: string): Tileset {
  const tms = webMercatorQuad(pyramid.tileSize);
  const path = `${tilesetsPath(info)}/${tms.id}`;
  const [w, s, e, n] = pyramid.bounds;
  const doc: Tileset = {
    title: pyramid.tileSize === 256 && info.kind === 'maps' ? `${info.name} (256 px)` : info.name,
    description: info.description,
    dataType: dataTypeOf(info),
    crs: tms.crs,
    tileMatrixSetURI: tms.uri,
    tileMatrixSetLimits: limits(tms, pyramid.bounds, pyramid.minzoom, pyramid.maxzoom),
    boundingBox: { lowerLeft: [w, s], upperRight: [e, n], crs: CRS84 },
    minzoom: pyramid.minzoom,
    maxzoom: pyramid.maxzoom,
    links: [
      link(baseUrl, key, selfPath ?? path, 'self', 'This tileset'),
      link(baseUrl, key, `${OGC_ROOT}/tileMatrixSets/${tms.id}`, REL_TILING_SCHEME, `Tile matrix set ${tms.id}`),
      {
        ...link(baseUrl, key, `${path}/{tileMatrix}/{tileRow}/{tileCol}`, 'item', 'Tiles', mediaTypeOf(pyramid.format)),
        templated: true,
      },
    ],
  };
  if (pyramid.format === 'pbf') {
    doc.layers = (info.vectorLayers ?? []).map((l) =>
      l.description ? { id: l.id, dataType: 'vector' as const, description: l.description } : { id: l.id, dataType: 'vector' as const },
    );
  }
  return doc;
}

/** { tilesets: [...] }: one entry per scale-1 pyramid, main pyramid first (GDAL takes the first). */
export function tilesetList(info: TilesetInfo, baseUrl: string, key: string) {
  return {
    links: [link(baseUrl, key, tilesetsPath(info), 'self', 'Tilesets')],
    tilesets: tilesetPyramids(info).map((p) => {
      const tms = webMercatorQuad(p.tileSize);
      return {
        title: p.tileSize === 256 && info.kind === 'maps' ? `${info.name} (256 px)` : info.name,
        dataType: dataTypeOf(info),
        crs: tms.crs,
        tileMatrixSetURI: tms.uri,
        links: [
          link(baseUrl, key, `${tilesetsPath(info)}/${tms.id}`, 'self', `Tileset ${tms.id}`),
          link(baseUrl, key, `${OGC_ROOT}/tileMatrixSets/${tms.id}`, REL_TILING_SCHEME, `Tile matrix set ${tms.id}`),
        ],
      };
    }),
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

export function tileMatrixSetList(baseUrl: string, key: string) {
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
