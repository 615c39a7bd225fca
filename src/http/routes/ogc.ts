import { conformance } from '../../ogc/conformance';
import {
  collection,
  collections,
  dataTypeOf,
  landingPage,
  ogcTileMatrixSet,
  parseCollectionId,
  pyramidForTmsId,
  tileMatrixSetList,
  tileset,
  tilesetList,
} from '../../ogc/ogcapi-tiles';
import type { MbtilesStore } from '../../store/mbtiles';
import { jsonReply, notFound, type Reply } from '../reply';
import type { Params, RequestContext } from '../route-table';
import { mapTile } from './maps';
import { storedTile } from './tiles';

// OGC API - Tiles under /ogc: landing page, conformance, collections, tilesets, tile matrix sets and tiles.

export const ogcLanding = (ctx: RequestContext): Reply => jsonReply(landingPage(ctx.baseUrl, ctx.key, 'tilemirror'));
export const ogcConformance = (): Reply => jsonReply(conformance());
export const ogcCollections = (ctx: RequestContext): Reply => jsonReply(collections(ctx.catalog.list(), ctx.baseUrl, ctx.key));
export const ogcTileMatrixSets = (ctx: RequestContext): Reply => jsonReply(tileMatrixSetList(ctx.baseUrl, ctx.key));

export function ogcTileMatrixSetById(ctx: RequestContext, p: Params): Reply {
  const doc = ogcTileMatrixSet(p.tmsId ?? '', ctx.baseUrl, ctx.key);
  if (!doc) throw notFound(`Unknown tile matrix set: ${p.tmsId ?? ''}`);
  return jsonReply(doc);
}

/** The store of a collection id; `dataType` must match the path (`/map/tiles` raster, `/tiles` vector). */
function collectionStore(ctx: RequestContext, cid: string | undefined, dataType?: 'map' | 'vector'): MbtilesStore {
  const parsed = cid === undefined ? undefined : parseCollectionId(cid);
  const store = parsed && ctx.catalog.get(parsed.kind, parsed.id);
  if (!store) throw notFound(`Unknown collection: ${cid ?? ''}`);
  if (dataType && dataTypeOf(store.info) !== dataType) throw notFound(`Collection ${cid ?? ''} has no ${dataType} tilesets`);
  return store;
}

export const ogcCollection = (ctx: RequestContext, p: Params): Reply =>
  jsonReply(collection(collectionStore(ctx, p.collectionId).info, ctx.baseUrl, ctx.key));

export function ogcTilesets(dataType: 'map' | 'vector') {
  return (ctx: RequestContext, p: Params): Reply =>
    jsonReply(tilesetList(collectionStore(ctx, p.collectionId, dataType).info, ctx.baseUrl, ctx.key));
}

export function ogcTileset(dataType: 'map' | 'vector') {
  return (ctx: RequestContext, p: Params): Reply => {
    const { info } = collectionStore(ctx, p.collectionId, dataType);
    const pyramid = pyramidForTmsId(info, p.tmsId ?? '');
    if (!pyramid) throw notFound(`Unknown tileset: ${p.tmsId ?? ''}`);
    return jsonReply(tileset(info, pyramid, ctx.baseUrl, ctx.key));
  };
}

/** `.../tiles/{tmsId}/{tileMatrix}/{tileRow}/{tileCol}`: the same tile as the resource's own XYZ route. */
export function ogcTile(dataType: 'map' | 'vector') {
  return (ctx: RequestContext, p: Params): Reply | Promise<Reply> => {
    const { info } = collectionStore(ctx, p.collectionId, dataType);
    const pyramid = pyramidForTmsId(info, p.tmsId ?? '');
    if (!pyramid) throw notFound(`Unknown tileset: ${p.tmsId ?? ''}`);
    const xyz = { z: p.tileMatrix, x: p.tileCol, y: p.tileRow };
    if (info.kind === 'maps') return mapTile(ctx, { mapId: info.id, ...xyz, size: pyramid.tileSize === 256 ? '256' : undefined, format: pyramid.format });
    if (info.kind === 'tiles') return storedTile('tiles')(ctx, { tilesId: info.id, ...xyz });
    return storedTile('images')(ctx, { imageId: info.id, ...xyz });
  };
}
