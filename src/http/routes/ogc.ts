import { z } from 'zod';
import { DEFAULT_MAX_ZOOM } from '../../geo/tile-matrix-set';
import { conformance } from '../../ogc/conformance';
import { combineVectorTiles, datasetParts, datasetRangeAt, datasetTileset, datasetTilesetList, datasetTmsIds, partsAt } from '../../ogc/dataset-tilesets';
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
import { checkTileAddress, id, nonNegativeInteger } from '../params';
import { badRequest, jsonReply, notFound, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { serveMapTile } from './maps';
import { advertisedTile, storedTileReply, tileReply } from './tile-reply';
import { serveStoredTile } from './tiles';

// OGC API - Tiles under /ogc: landing page, conformance, collections, the collections' and the dataset's tilesets,
// tile matrix sets and tiles. Every answer of these routes, errors included, is what OGC API - Tiles 1.0 asks
// for: errors as problem details (the routes' dialect, http/problem-errors.ts), tiles under the media type their
// tileset's `item` link names (vector tiles as application/vnd.mapbox-vector-tile).

/** Whether the dataset has vector tiles: /ogc/tiles lists a tileset, the landing page links it, the class is declared. */
const hasDatasetTilesets = (ctx: RequestContext): boolean => datasetTmsIds(ctx.catalog.list()).length > 0;

export const ogcLanding = (ctx: RequestContext): Reply => jsonReply(landingPage(ctx.baseUrl, ctx.key, 'tilemirror', hasDatasetTilesets(ctx)));
export const ogcConformance = (ctx: RequestContext): Reply => jsonReply(conformance(hasDatasetTilesets(ctx)));
export const ogcCollections = (ctx: RequestContext): Reply => jsonReply(collections(ctx.catalog.list(), ctx.baseUrl, ctx.key));
export const ogcTileMatrixSets = (ctx: RequestContext): Reply => jsonReply(tileMatrixSetList(ctx.baseUrl, ctx.key));

const tmsId = id('tile matrix set id: `WebMercatorQuad` (256 px tiles) or `WebMercatorQuad512`').meta({ examples: ['WebMercatorQuad'] });
const collectionId = id('collection id: `{kind}.{id}`, kind maps, tiles or images').meta({ examples: ['maps.sample'] });

/** The identifiers of the tile matrices of both sets (/ogc/tileMatrixSets): the zooms 0 to 24, as strings. */
const TILE_MATRIX_IDS = Array.from({ length: DEFAULT_MAX_ZOOM + 1 }, (_, z) => String(z)) as [string, ...string[]];

/**
 * `{tileMatrix}`: a string, the identifier of one of the tile matrix set's matrices (/req/core/tc-tilematrix-definition),
 * handed to the handler as its zoom. Anything else (`05`, `25`, `x`) is a 400 naming the parameter.
 */
const tileMatrix = z
  .enum(TILE_MATRIX_IDS, { error: `Invalid tileMatrix: expected the identifier of a tile matrix of the set, 0 to ${DEFAULT_MAX_ZOOM}` })
  .meta({ examples: ['11'] })
  .transform(Number)
  .meta({ description: 'identifier of a tile matrix (a scale) of the tile matrix set: its zoom level' });
/** `{tileRow}`, `{tileCol}`: integers from 0 (/req/core/tc-tilerow-definition, /req/core/tc-tilecol-definition). */
const tileRow = nonNegativeInteger('tileRow', 'row index of the tile in the selected tile matrix, from the top');
const tileCol = nonNegativeInteger('tileCol', 'column index of the tile in the selected tile matrix, from the left');

/** The address exists in its tile matrix (a 400 naming it when not). */
function refineAddress(v: { tileMatrix: number; tileRow: number; tileCol: number }, ctx: z.RefinementCtx): void {
  const message = checkTileAddress({ z: v.tileMatrix, x: v.tileCol, y: v.tileRow });
  if (message) ctx.addIssue({ code: 'custom', message, path: ['tileMatrix'] });
}

export const tmsParams = z.object({ tmsId });
export const collectionParams = z.object({ collectionId });
export const tilesetParams = z.object({ collectionId, tmsId });
export const ogcTileParams = z.object({ collectionId, tmsId, tileMatrix, tileRow, tileCol }).superRefine(refineAddress);
export const datasetTileParams = z.object({ tmsId, tileMatrix, tileRow, tileCol }).superRefine(refineAddress);

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

const advertised = (reply: Reply | Promise<Reply>): Reply | Promise<Reply> => (reply instanceof Promise ? reply.then(advertisedTile) : advertisedTile(reply));

/** `.../tiles/{tmsId}/{tileMatrix}/{tileRow}/{tileCol}`: the same tile as the resource's own XYZ route, typed as the tileset's link says. */
function ogcTile(dataType: 'map' | 'vector') {
  return (ctx: RequestContext, p: z.output<typeof ogcTileParams>): Reply | Promise<Reply> => {
    const { info } = collectionStore(ctx, p.collectionId, dataType);
    const pyramid = pyramidForTmsId(info, p.tmsId);
    if (!pyramid) throw notFound(`Unknown tileset: ${p.tmsId}`);
    const a = { z: p.tileMatrix, x: p.tileCol, y: p.tileRow };
    if (info.kind !== 'maps') return advertised(serveStoredTile(ctx, info.kind, info.id, a));
    if (pyramid.format === 'pbf') throw notFound(`Collection ${p.collectionId} has no map tiles`);
    return advertised(serveMapTile(ctx, info.id, { ...a, tileSize: pyramid.tileSize === 256 ? 256 : 512, scale: 1, format: pyramid.format }));
  };
}

// One handler per route (named, so the route-table test can check which one a path reaches).
export const ogcMapTilesets = ogcTilesets('map');
export const ogcVectorTilesets = ogcTilesets('vector');
export const ogcMapTileset = ogcTileset('map');
export const ogcVectorTileset = ogcTileset('vector');
export const ogcMapTile = ogcTile('map');
export const ogcVectorTile = ogcTile('vector');

// The dataset's vector tiles (ogc/dataset-tilesets.ts says what the dataset is).

/** `/ogc/tiles`: the dataset's vector tilesets; 404 when the dataset has none (no vector tile set to combine). */
export function ogcDatasetTilesets(ctx: RequestContext): Reply {
  const list = datasetTilesetList(ctx.catalog.list(), ctx.baseUrl, ctx.key);
  if (list.tilesets.length === 0) throw notFound('The dataset has no vector tilesets');
  return jsonReply(list);
}

/** `/ogc/tiles/{tmsId}`: the dataset's vector tileset in one tile matrix set. */
export function ogcDatasetTileset(ctx: RequestContext, p: z.output<typeof tmsParams>): Reply {
  const doc = datasetTileset(ctx.catalog.list(), p.tmsId, ctx.baseUrl, ctx.key);
  if (!doc) throw notFound(`Unknown tileset: ${p.tmsId}`);
  return jsonReply(doc);
}

/**
 * `/ogc/tiles/{tmsId}/{tileMatrix}/{tileRow}/{tileCol}`: the layers of every collection of the dataset holding
 * this tile, in one vector tile. A tile only one collection holds is its stored tile as it is (gzip kept); one
 * held by several is their tiles joined (compressed on the way when the client accepts gzip); one none holds
 * inside the dataset's limits is empty (204); outside them, 400.
 */
export function ogcDatasetTile(ctx: RequestContext, p: z.output<typeof datasetTileParams>): Reply {
  const parts = datasetParts(ctx.catalog.list(), p.tmsId);
  if (parts.length === 0) throw notFound(`Unknown tileset: ${p.tmsId}`);
  const a = { z: p.tileMatrix, x: p.tileCol, y: p.tileRow };
  const range = datasetRangeAt(parts, a.z);
  if (!range) throw badRequest(`Out of bounds: the dataset has no tile matrix ${a.z}`);
  if (a.x < range.minX || a.x > range.maxX || a.y < range.minY || a.y > range.maxY) throw badRequest(`Out of bounds: tile ${a.z}/${a.x}/${a.y}`);
  const holding: { store: TileStore; pyramid: string }[] = [];
  for (const { info, pyramid } of partsAt(parts, a.z, a.x, a.y)) {
    const store = ctx.catalog.get(info.kind, info.id);
    if (store && (store.tile(pyramid.name, a.z, a.x, a.y)?.length ?? 0) > 0) holding.push({ store, pyramid: pyramid.name });
  }
  if (holding.length === 0) return tileReply(undefined, 'pbf');
  if (holding.length === 1) return advertisedTile(storedTileReply(ctx, holding[0].store, holding[0].pyramid, a, 'pbf'));
  const joined = combineVectorTiles(holding.map(({ store, pyramid }) => store.plainTile(pyramid, a.z, a.x, a.y) ?? Buffer.alloc(0)));
  return advertisedTile({ ...tileReply(joined, 'pbf'), compressible: true });
}
