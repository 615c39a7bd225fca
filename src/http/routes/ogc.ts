import { z } from 'zod';
import { DEFAULT_MAX_ZOOM, tmsIdFor } from '../../geo/tile-matrix-set';
import { conformance } from '../../ogc/conformance';
import { combineVectorTiles, datasetParts, datasetRangeAt, datasetTileset, datasetTilesetList, datasetTmsIds, partsAt } from '../../ogc/dataset-tilesets';
import { intersectIntervals, parseDatetime, parseSubset, type TimeInterval } from '../../ogc/datetime';
import { keyframeFor, weatherCollection, weatherCollectionMeets, weatherNameOf, weatherTileset, weatherTilesetList } from '../../ogc/weather-collections';
import type { WeatherVariable } from '../../ogc/weather-variables';
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
import { assertInPyramid, checkTileAddress, id, nonNegativeInteger } from '../params';
import { badRequest, isNoContent, jsonReply, notFound, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { serveMapTile } from './maps';
import { advertisedTile, storedTileReply, tileReply } from './tile-reply';
import { serveStoredTile } from './tiles';
import { weatherVariablesOf } from './weather';

// OGC API - Tiles under /ogc: landing page, conformance, collections, the collections' and the dataset's tilesets,
// tile matrix sets and tiles. Every answer of these routes, errors included, is what OGC API - Tiles 1.0 asks
// for: errors as problem details (the routes' dialect, http/problem-errors.ts), tiles under the media type their
// tileset's `item` link names (vector tiles as application/vnd.mapbox-vector-tile). The weather variables are map
// collections `weather.{name}` whose tiles change with time (ogc/weather-collections.ts): their tile requests and
// the collections list take `datetime` and `subset=datetime(...)` (the DateTime class, declared while there are any).

/** Whether the dataset has vector tiles: /ogc/tiles lists a tileset, the landing page links it, the class is declared. */
const hasDatasetTilesets = (ctx: RequestContext): boolean => datasetTmsIds(ctx.catalog.list()).length > 0;

export const ogcLanding = (ctx: RequestContext): Reply => jsonReply(landingPage(ctx.baseUrl, ctx.key, 'tilemirror', hasDatasetTilesets(ctx)));
export const ogcConformance = (ctx: RequestContext): Reply => jsonReply(conformance(hasDatasetTilesets(ctx), weatherVariablesOf(ctx).length > 0));
export const ogcTileMatrixSets = (ctx: RequestContext): Reply => jsonReply(tileMatrixSetList(ctx.baseUrl, ctx.key));

/** `datetime` and `subset`: the query parameters that select by time (ogc/datetime.ts). */
const temporalParams = {
  datetime: z
    .string()
    .optional()
    .meta({
      description:
        'an instant (RFC 3339, e.g. `2024-01-01T06:00:00Z`) or an interval `start/end` (either end open: `..` or empty). Tiles of a weather collection: the latest keyframe the value holds, No Content when it holds none; the latest keyframe without it. Collections: those whose temporal extent meets it, and every collection without one. Ignored by collections without a temporal extent.',
    }),
  subset: z
    .array(z.string())
    .optional()
    .meta({ description: 'the one axis is datetime: `datetime("2024-01-01T06:00:00Z")` or `datetime("low":"high")` (`*` for an open end); read as datetime is, together with it' }),
};

/** What a request asks of time (datetime and subset together): undefined when nothing, `empty` when they exclude each other. */
function askedTime(p: { datetime?: string; subset?: string[] }): TimeInterval | 'empty' | undefined {
  const datetime = p.datetime === undefined ? undefined : parseDatetime(p.datetime);
  if (datetime && !datetime.ok) throw badRequest(datetime.message);
  const subset = parseSubset(p.subset ?? []);
  if (!subset.ok) throw badRequest(subset.message);
  return intersectIntervals(datetime?.value, subset.value);
}

export const collectionsParams = z.object(temporalParams);

/** `/ogc/collections`: every resource's, and the weather variables' whose temporal extent meets the time asked for. */
export function ogcCollections(ctx: RequestContext, p: z.output<typeof collectionsParams>): Reply {
  const asked = askedTime(p);
  const weather = weatherVariablesOf(ctx).filter((v) => asked === undefined || (asked !== 'empty' && weatherCollectionMeets(v, asked)));
  return jsonReply(collections(ctx.catalog.list(), ctx.baseUrl, ctx.key, weather.map((v) => weatherCollection(v, ctx.baseUrl, ctx.key))));
}

const tmsId = id('tile matrix set id: `WebMercatorQuad` (256 px tiles) or `WebMercatorQuad512`').meta({ examples: ['WebMercatorQuad'] });
const collectionId = id('collection id: `{kind}.{id}`, kind maps, tiles or images').meta({ examples: ['maps.sample'] });

/** The identifiers of the tile matrices of both sets (/ogc/tileMatrixSets): the zooms 0 to 24, as strings. */
const TILE_MATRIX_IDS = Array.from({ length: DEFAULT_MAX_ZOOM + 1 }, (_, z) => String(z)) as [string, ...string[]];

/**
 * `{tileMatrix}`: a string, the identifier of one of the tile matrix set's matrices (/req/core/tc-tilematrix-definition),
 * handed to the handler as its zoom. Anything else (`05`, `25`, `x`) is invalid, naming the parameter.
 */
const tileMatrix = z
  .enum(TILE_MATRIX_IDS, { error: `Invalid tileMatrix: expected the identifier of a tile matrix of the set, 0 to ${DEFAULT_MAX_ZOOM}` })
  .meta({ examples: ['11'] })
  .transform(Number)
  .meta({ description: 'identifier of a tile matrix (a scale) of the tile matrix set: its zoom level' });
/** `{tileRow}`, `{tileCol}`: integers from 0 (/req/core/tc-tilerow-definition, /req/core/tc-tilecol-definition). */
const tileRow = nonNegativeInteger('tileRow', 'row index of the tile in the selected tile matrix, from the top');
const tileCol = nonNegativeInteger('tileCol', 'column index of the tile in the selected tile matrix, from the left');

/** The address exists in its tile matrix (invalid, naming it, when not). */
function refineAddress(v: { tileMatrix: number; tileRow: number; tileCol: number }, ctx: z.RefinementCtx): void {
  const message = checkTileAddress({ z: v.tileMatrix, x: v.tileCol, y: v.tileRow });
  if (message) ctx.addIssue({ code: 'custom', message, path: ['tileMatrix'] });
}

export const tmsParams = z.object({ tmsId });
export const collectionParams = z.object({ collectionId });
export const tilesetParams = z.object({ collectionId, tmsId });
export const ogcTileParams = z.object({ collectionId, tmsId, tileMatrix, tileRow, tileCol, ...temporalParams }).superRefine(refineAddress);
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

/**
 * The weather variable of a collection id (`weather.{name}`), undefined for another kind of collection; not found when
 * there is no such variable, or (`dataType` vector) when the path asks for vector tilesets, which it has none of.
 */
function weatherVariable(ctx: RequestContext, cid: string, dataType?: 'map' | 'vector'): WeatherVariable | undefined {
  const name = weatherNameOf(cid);
  if (name === undefined) return undefined;
  const variable = weatherVariablesOf(ctx).find((v) => v.name === name);
  if (!variable) throw notFound(`Unknown collection: ${cid}`);
  if (dataType === 'vector') throw notFound(`Collection ${cid} has no vector tilesets`);
  return variable;
}

export function ogcCollection(ctx: RequestContext, p: z.output<typeof collectionParams>): Reply {
  const weather = weatherVariable(ctx, p.collectionId);
  if (weather) return jsonReply(weatherCollection(weather, ctx.baseUrl, ctx.key));
  return jsonReply(collection(collectionStore(ctx, p.collectionId).info, ctx.baseUrl, ctx.key));
}

function ogcTilesets(dataType: 'map' | 'vector') {
  return (ctx: RequestContext, p: z.output<typeof collectionParams>): Reply => {
    const weather = weatherVariable(ctx, p.collectionId, dataType);
    if (weather) return jsonReply(weatherTilesetList(weather, ctx.baseUrl, ctx.key));
    return jsonReply(tilesetList(collectionStore(ctx, p.collectionId, dataType).info, ctx.baseUrl, ctx.key));
  };
}

function ogcTileset(dataType: 'map' | 'vector') {
  return (ctx: RequestContext, p: z.output<typeof tilesetParams>): Reply => {
    const weather = weatherVariable(ctx, p.collectionId, dataType);
    if (weather) {
      const doc = weatherTileset(weather, p.tmsId, ctx.baseUrl, ctx.key);
      if (!doc) throw notFound(`Unknown tileset: ${p.tmsId}`);
      return jsonReply(doc);
    }
    const { info } = collectionStore(ctx, p.collectionId, dataType);
    const pyramid = pyramidForTmsId(info, p.tmsId);
    if (!pyramid) throw notFound(`Unknown tileset: ${p.tmsId}`);
    return jsonReply(tileset(info, pyramid, ctx.baseUrl, ctx.key));
  };
}

const advertised = (reply: Reply | Promise<Reply>): Reply | Promise<Reply> => (reply instanceof Promise ? reply.then(advertisedTile) : advertisedTile(reply));

/** The header naming the instant a tile shows (/rec/datetime/actual-datetime). */
const ACTUAL_DATETIME = 'OGCAPI-datetime';

/**
 * A weather collection's tile: the keyframe's tile at the time asked for (keyframeFor), with the instant it shows
 * in `OGCAPI-datetime`; empty when the request asks for times no keyframe has (no content: /req/core/tc-error B, and
 * /req/collections/rc-subset-definition C for a subset outside the extent). A tile at the latest keyframe because
 * the request named no time changes when a newer catalog is mirrored: cached as a document (revalidated).
 */
function weatherTile(ctx: RequestContext, v: WeatherVariable, p: z.output<typeof ogcTileParams>): Reply | Promise<Reply> {
  if (tmsIdFor(v.pyramid.tileSize) !== p.tmsId) throw notFound(`Unknown tileset: ${p.tmsId}`);
  const asked = askedTime(p);
  const keyframe = asked === 'empty' ? undefined : keyframeFor(v, asked);
  const a = { z: p.tileMatrix, x: p.tileCol, y: p.tileRow };
  assertInPyramid(v.pyramid, a);
  if (!keyframe) return tileReply(ctx, undefined, v.pyramid.format);
  const dated = (r: Reply): Reply => ({
    ...advertisedTile(r),
    // Exposed to scripts of other origins, which read it to label the map.
    ...(!isNoContent(r) && { headers: { ...r.headers, [ACTUAL_DATETIME]: keyframe.time, 'Access-Control-Expose-Headers': ACTUAL_DATETIME } }),
    ...(asked === undefined && r.cache === 'tile' && { cache: 'document' as const }),
  });
  const reply = serveStoredTile(ctx, 'tiles', keyframe.tilesetId, a);
  return reply instanceof Promise ? reply.then(dated) : dated(reply);
}

/** `.../tiles/{tmsId}/{tileMatrix}/{tileRow}/{tileCol}`: the same tile as the resource's own XYZ route, typed as the tileset's link says. */
function ogcTile(dataType: 'map' | 'vector') {
  return (ctx: RequestContext, p: z.output<typeof ogcTileParams>): Reply | Promise<Reply> => {
    const weather = weatherVariable(ctx, p.collectionId, dataType);
    if (weather) return weatherTile(ctx, weather, p);
    // Time is no axis of these collections' tiles; a malformed datetime or subset is still one (invalid).
    askedTime(p);
    const { info } = collectionStore(ctx, p.collectionId, dataType);
    const pyramid = pyramidForTmsId(info, p.tmsId);
    if (!pyramid) throw notFound(`Unknown tileset: ${p.tmsId}`);
    const a = { z: p.tileMatrix, x: p.tileCol, y: p.tileRow };
    if (info.kind !== 'maps') return advertised(serveStoredTile(ctx, info.kind, info.id, a));
    if (pyramid.format === 'pbf') throw notFound(`Collection ${p.collectionId} has no map tiles`);
    return advertised(serveMapTile(ctx, info.id, { ...a, tileSize: pyramid.tileSize === 256 ? 256 : 512, scale: 1, format: pyramid.format }, 'pyramid'));
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

/** `/ogc/tiles`: the dataset's vector tilesets; not found when the dataset has none (no vector tile set to combine). */
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
 * inside the dataset's limits is empty; outside them, invalid.
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
  if (holding.length === 0) return tileReply(ctx, undefined, 'pbf');
  if (holding.length === 1) return advertisedTile(storedTileReply(ctx, holding[0].store, holding[0].pyramid, a, 'pbf'));
  const joined = combineVectorTiles(holding.map(({ store, pyramid }) => store.plainTile(pyramid, a.z, a.x, a.y) ?? Buffer.alloc(0)));
  return advertisedTile({ ...tileReply(ctx, joined, 'pbf'), compressible: true });
}
