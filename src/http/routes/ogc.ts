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
import type { TileStore } from '../../store/tile-reader';
import { z } from 'zod';
import { id, tileAddress } from '../params';
import { jsonReply, notFound, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { serveMapTile } from './maps';
import { serveStoredTile } from './tiles';

// OGC API - Tiles under /ogc: landing page, conformance, collections, tilesets, tile matrix sets and tiles.

export const ogcLanding = (ctx: RequestContext): Reply => jsonReply(landingPage(ctx.baseUrl, ctx.key, 'tilemirror'));
export const ogcConformance = (): Reply => jsonReply(conformance());
export const ogcCollections = (ctx: RequestContext): Reply => jsonReply(collections(ctx.catalog.list(), ctx.baseUrl, ctx.key));
export const ogcTileMatrixSets = (ctx: RequestContext): Reply => jsonReply(tileMatrixSetList(ctx.baseUrl, ctx.key));

const tmsId = id('tile matrix set id: `WebMercatorQuad` (256 px tiles) or `WebMercatorQuad512`').meta({ examples: ['WebMercatorQuad'] });
const collectionId = id('collection id: `{kind}.{id}`, kind maps, tiles or images').meta({ examples: ['maps.sample'] });
export const tmsParams = z.object({ tmsId });
export const collectionParams = z.object({ collectionId });
export const tilesetParams = z.object({ collectionId, tmsId });
const xyz = tileAddress({ z: 'tileMatrix', x: 'tileCol', y: 'tileRow' });
export const ogcTileParams = z.object({ collectionId, tmsId, ...xyz.shape }).superRefine(xyz.refine);

export function ogcTileMatrixSetById(ctx: RequestContext, p: z.output<typeof tmsParams>): Reply {
  const doc = ogcTileMatrixSet(p.tmsId, ctx.baseUrl, ctx.key);
  if (!doc) throw notFound(`Unknown tile matrix set: ${p.tmsId}`);
  return jsonReply(doc);
}

/** The store of a collection id; `dataType` must match the path (`/map/tiles` raster, `/tiles` vector). */
function collectionStore(ctx: RequestContext, cid: string, dataType?: 'map' | 'vector'): TileStore {
  const parsed = parseCollectionId(cid);
  const store = parsed && ctx.catalog.get(parsed.kind, parsed.id);
  if (!store) throw notFound(`Unknown collection: ${cid}`);
  if (dataType && dataTypeOf(store.info) !== dataType) throw notFound(`Collection ${cid} has no ${dataType} tilesets`);
  return store;
}

export const ogcCollection = (ctx: RequestContext, p: z.output<typeof collectionParams>): Reply =>
  jsonReply(collection(collectionStore(ctx, p.collectionId).info, ctx.baseUrl, ctx.key));

function ogcTilesets(dataType: 'map' | 'vector') {
  return (ctx: RequestContext, p: z.output<typeof collectionParams>): Reply =>
    jsonReply(tilesetList(collectionStore(ctx, p.collectionId, dataType).info, ctx.baseUrl, ctx.key));
}

function ogcTileset(dataType: 'map' | 'vector') {
  return (ctx: RequestContext, p: z.output<typeof tilesetParams>): Reply => {
    const { info } = collectionStore(ctx, p.collectionId, dataType);
    const pyramid = pyramidForTmsId(info, p.tmsId);
    if (!pyramid) throw notFound(`Unknown tileset: ${p.tmsId}`);
    return jsonReply(tileset(info, pyramid, ctx.baseUrl, ctx.key));
  };
}

/** `.../tiles/{tmsId}/{tileMatrix}/{tileRow}/{tileCol}`: the same tile as the resource's own XYZ route. */
function ogcTile(dataType: 'map' | 'vector') {
  return (ctx: RequestContext, p: z.output<typeof ogcTileParams>): Reply | Promise<Reply> => {
    const { info } = collectionStore(ctx, p.collectionId, dataType);
    const pyramid = pyramidForTmsId(info, p.tmsId);
    if (!pyramid) throw notFound(`Unknown tileset: ${p.tmsId}`);
    const a = { z: p.tileMatrix, x: p.tileCol, y: p.tileRow };
    if (info.kind !== 'maps') return serveStoredTile(ctx, info.kind, info.id, a);
    if (pyramid.format === 'pbf') throw notFound(`Collection ${p.collectionId} has no map tiles`);
    return serveMapTile(ctx, info.id, { ...a, tileSize: pyramid.tileSize === 256 ? 256 : 512, scale: 1, format: pyramid.format });
  };
}

// One handler per route (named, so the route-table test can check which one a path reaches).
export const ogcMapTilesets = ogcTilesets('map');
export const ogcVectorTilesets = ogcTilesets('vector');
export const ogcMapTileset = ogcTileset('map');
export const ogcVectorTileset = ogcTileset('vector');
export const ogcMapTile = ogcTile('map');
export const ogcVectorTile = ogcTile('vector');
