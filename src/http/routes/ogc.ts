import { z } from 'zod';
import type { Grid } from '../../geo/grids';
import { DEFAULT_MAX_ZOOM, tileSizeOfTmsId, tmsIdFor } from '../../geo/tile-matrix-set';
import { conformance } from '../../ogc/conformance';
import { combineVectorTiles, datasetParts, datasetRangeAt, datasetTileset, datasetTilesetList, datasetTmsIds, partsAt } from '../../ogc/dataset-tilesets';
import { intersectIntervals, parseDatetime, parseSubset, type TimeInterval } from '../../ogc/datetime';
import { gridSource, gridTileMatrix, gridTileMatrixSet, gridTileset, tileMatrixSetListWithGrids, tilesetListWithGrids, type GridSource } from '../../ogc/grid-tilesets';
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
  tileset,
} from '../../ogc/ogcapi-tiles';
import type { TileStore } from '../../store/tile-reader';
import type { TilesetInfo } from '../../store/types';
import { assertInPyramid, checkTileAddress, id, nonNegativeInteger, type TileAddress } from '../params';
import { badRequest, isNoContent, jsonReply, notFound, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { gridTileReply } from './grid-tile-reply';
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
// Raster collections are also offered in the configured grids besides Web Mercator (`grids`, ogc/grid-tilesets.ts),
// their tiles drawn from the Web Mercator ones (gridTileReply).

/** Whether the dataset has vector tiles: /ogc/tiles lists a tileset, the landing page links it, the class is declared. */
const hasDatasetTilesets = (ctx: RequestContext): boolean => datasetTmsIds(ctx.catalog.list()).length > 0;

export const ogcLanding = (ctx: RequestContext): Reply => jsonReply(landingPage(ctx.baseUrl, ctx.key, 'tilemirror', hasDatasetTilesets(ctx)));
export const ogcConformance = (ctx: RequestContext): Reply => jsonReply(conformance(hasDatasetTilesets(ctx), weatherVariablesOf(ctx).length > 0));
export const ogcTileMatrixSets = (ctx: RequestContext): Reply => jsonReply(tileMatrixSetListWithGrids(ctx.services.gridTiles.grids, ctx.baseUrl, ctx.key));

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

const tmsId = id(
  'tile matrix set id: `WebMercatorQuad` (256 px tiles) or `WebMercatorQuad512`; for a raster collection (and under /ogc/tileMatrixSets) also a grid the server is configured with (`WorldCRS84Quad`, `EuropeanETRS89_LAEAQuad`, `UTM{nn}WGS84Quad` or its own), as /ogc/tileMatrixSets and the collection\'s tilesets list them',
).meta({ examples: ['WebMercatorQuad'] });
const collectionId = id('collection id: `{kind}.{id}`, kind maps, tiles or images').meta({ examples: ['maps.sample'] });

/** The identifiers of the tile matrices of both Web Mercator sets (/ogc/tileMatrixSets): the zooms 0 to 24, as strings. */
const TILE_MATRIX_IDS = Array.from({ length: DEFAULT_MAX_ZOOM + 1 }, (_, z) => String(z)) as [string, ...string[]];
const TILE_MATRIX_MESSAGE = `Invalid tileMatrix: expected the identifier of a tile matrix of the set, 0 to ${DEFAULT_MAX_ZOOM}`;

/**
 * `{tileMatrix}`: a string, the identifier of one of the tile matrix set's matrices (/req/core/tc-tilematrix-definition),
 * handed to the handler as its zoom. Anything else (`05`, `25`, `x`) is invalid, naming the parameter.
 */
const tileMatrix = z
  .enum(TILE_MATRIX_IDS, { error: TILE_MATRIX_MESSAGE })
  .meta({ examples: ['11'] })
  .transform(Number)
  .meta({ description: 'identifier of a tile matrix (a scale) of the tile matrix set: its zoom level' });

/**
 * `{tileMatrix}` of a raster collection's tile, which may be in a grid besides Web Mercator: any string here. For
 * a Web Mercator set it is checked as `tileMatrix` is, with the same message, by refineMapAddress; for a grid the
 * handler checks it against the grid's matrices (the configured grids are not known to the schema).
 */
const mapTileMatrix = z.string().meta({
  description:
    'identifier of a tile matrix (a scale) of the tile matrix set: for `WebMercatorQuad` and `WebMercatorQuad512` its zoom level, 0 to 24; for a grid one of the ids its definition (/ogc/tileMatrixSets/{tmsId}) lists',
  examples: ['11'],
});

/** Whether a tile matrix set id is one of the two Web Mercator sets, whose matrices are the zooms 0 to 24. */
function isWebMercatorTmsId(id: string): boolean {
  const size = tileSizeOfTmsId(id);
  return size !== undefined && tmsIdFor(size) === id;
}

/** `{tileRow}`, `{tileCol}`: integers from 0 (/req/core/tc-tilerow-definition, /req/core/tc-tilecol-definition). */
const tileRow = nonNegativeInteger('tileRow', 'row index of the tile in the selected tile matrix, from the top');
const tileCol = nonNegativeInteger('tileCol', 'column index of the tile in the selected tile matrix, from the left');

/** The address exists in its tile matrix (invalid, naming it, when not). */
function refineAddress(v: { tileMatrix: number; tileRow: number; tileCol: number }, ctx: z.RefinementCtx): void {
  const message = checkTileAddress({ z: v.tileMatrix, x: v.tileCol, y: v.tileRow });
  if (message) ctx.addIssue({ code: 'custom', message, path: ['tileMatrix'] });
}

/**
 * A raster collection's tile address in a Web Mercator set, checked as refineAddress checks the other tiles' with
 * the same messages: a tileMatrix other than 0 to 24 is the first issue (where the enum's would be, ahead of
 * tileRow's and tileCol's), the address against its matrix only once every parameter is valid. Another set's
 * address is the handler's to check.
 */
function refineMapAddress(payload: z.core.ParsePayload<{ tmsId: string; tileMatrix: string; tileRow: number; tileCol: number }>): void {
  const v = payload.value;
  if (!isWebMercatorTmsId(v.tmsId)) return;
  if (!TILE_MATRIX_IDS.includes(v.tileMatrix)) {
    payload.issues.unshift({ code: 'custom', message: TILE_MATRIX_MESSAGE, path: ['tileMatrix'], input: v.tileMatrix });
    return;
  }
  if (payload.issues.length > 0) return;
  const message = checkTileAddress({ z: Number(v.tileMatrix), x: v.tileCol, y: v.tileRow });
  if (message) payload.issues.push({ code: 'custom', message, path: ['tileMatrix'], input: v.tileMatrix });
}

export const tmsParams = z.object({ tmsId });
export const collectionParams = z.object({ collectionId });
export const tilesetParams = z.object({ collectionId, tmsId });
export const ogcTileParams = z.object({ collectionId, tmsId, tileMatrix, tileRow, tileCol, ...temporalParams }).superRefine(refineAddress);
export const ogcMapTileParams = z.object({ collectionId, tmsId, tileMatrix: mapTileMatrix, tileRow, tileCol, ...temporalParams }).check(refineMapAddress);
export const datasetTileParams = z.object({ tmsId, tileMatrix, tileRow, tileCol }).superRefine(refineAddress);

export function ogcTileMatrixSetById(ctx: RequestContext, p: z.output<typeof tmsParams>): Reply {
  const doc = ogcTileMatrixSet(p.tmsId, ctx.baseUrl, ctx.key);
  if (doc) return jsonReply(doc);
  const grid = ctx.services.gridTiles.grid(p.tmsId);
  if (!grid) throw notFound(`Unknown tile matrix set: ${p.tmsId}`);
  return jsonReply(gridTileMatrixSet(grid, ctx.baseUrl, ctx.key));
}

/** The grids besides Web Mercator a raster collection is offered in: those whose area meets its main pyramid's bounds. */
function offeredGrids(ctx: RequestContext, info: TilesetInfo): Grid[] {
  const source = gridSource(info);
  return source ? ctx.services.gridTiles.gridsFor(source.bounds) : [];
}

/** The grid `tmsId` names, when the collection is offered in it, and the pyramid its tiles are drawn from. */
function offeredGrid(ctx: RequestContext, info: TilesetInfo, tmsId: string): { grid: Grid; source: GridSource } | undefined {
  const source = gridSource(info);
  const grid = source && ctx.services.gridTiles.gridsFor(source.bounds).find((g) => g.id === tmsId);
  return source && grid ? { grid, source } : undefined;
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

// A weather collection keeps Web Mercator only here, though WMTS offers its layer in the grids: its tiles are a
// keyframe tile set's chosen per request by time, and its tilesets are ogc/weather-collections.ts's; offering the
// grids would take both there (a grid tile of the keyframe at the time asked for), which is not done.
function ogcTilesets(dataType: 'map' | 'vector') {
  return (ctx: RequestContext, p: z.output<typeof collectionParams>): Reply => {
    const weather = weatherVariable(ctx, p.collectionId, dataType);
    if (weather) return jsonReply(weatherTilesetList(weather, ctx.baseUrl, ctx.key));
    const { info } = collectionStore(ctx, p.collectionId, dataType);
    return jsonReply(tilesetListWithGrids(info, offeredGrids(ctx, info), ctx.baseUrl, ctx.key));
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
    if (pyramid) return jsonReply(tileset(info, pyramid, ctx.baseUrl, ctx.key));
    const offered = offeredGrid(ctx, info, p.tmsId);
    if (!offered) throw notFound(`Unknown tileset: ${p.tmsId}`);
    return jsonReply(gridTileset(info, offered.source, offered.grid, ctx.baseUrl, ctx.key));
  };
}

const advertised = (reply: Reply | Promise<Reply>): Reply | Promise<Reply> => (reply instanceof Promise ? reply.then(advertisedTile) : advertisedTile(reply));

/** What a collection's tile request names besides the tile's address. */
interface TileRequest {
  collectionId: string;
  tmsId: string;
  datetime?: string;
  subset?: string[];
}

/** The header naming the instant a tile shows (/rec/datetime/actual-datetime). */
const ACTUAL_DATETIME = 'OGCAPI-datetime';

/**
 * A weather collection's tile: the keyframe's tile at the time asked for (keyframeFor), with the instant it shows
 * in `OGCAPI-datetime`; empty when the request asks for times no keyframe has (no content: /req/core/tc-error B, and
 * /req/collections/rc-subset-definition C for a subset outside the extent). A tile at the latest keyframe because
 * the request named no time changes when a newer catalog is mirrored: cached as a document (revalidated).
 */
function weatherTile(ctx: RequestContext, v: WeatherVariable, p: TileRequest, a: TileAddress): Reply | Promise<Reply> {
  if (tmsIdFor(v.pyramid.tileSize) !== p.tmsId) throw notFound(`Unknown tileset: ${p.tmsId}`);
  const asked = askedTime(p);
  const keyframe = asked === 'empty' ? undefined : keyframeFor(v, asked);
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

/** `.../tiles/{tmsId}/{tileMatrix}/{tileRow}/{tileCol}` in a Web Mercator set: the same tile as the resource's own XYZ route, typed as the tileset's link says. */
function webMercatorTile(ctx: RequestContext, dataType: 'map' | 'vector', p: TileRequest, a: TileAddress): Reply | Promise<Reply> {
  const weather = weatherVariable(ctx, p.collectionId, dataType);
  if (weather) return weatherTile(ctx, weather, p, a);
  // Time is no axis of these collections' tiles; a malformed datetime or subset is still one (invalid).
  askedTime(p);
  const { info } = collectionStore(ctx, p.collectionId, dataType);
  const pyramid = pyramidForTmsId(info, p.tmsId);
  if (!pyramid) throw notFound(`Unknown tileset: ${p.tmsId}`);
  if (info.kind !== 'maps') return advertised(serveStoredTile(ctx, info.kind, info.id, a));
  if (pyramid.format === 'pbf') throw notFound(`Collection ${p.collectionId} has no map tiles`);
  return advertised(serveMapTile(ctx, info.id, { ...a, tileSize: pyramid.tileSize === 256 ? 256 : 512, scale: 1, format: pyramid.format }, 'pyramid'));
}

/**
 * `.../map/tiles/{gridId}/{tileMatrix}/{tileRow}/{tileCol}`: a raster collection's tile in a configured grid, drawn
 * from its main pyramid in that pyramid's format. Not found for a set the collection is not offered in (a weather
 * collection is offered in none); invalid, naming the parameter, for a matrix the grid has not or a tile outside it.
 */
function gridTile(ctx: RequestContext, p: z.output<typeof ogcMapTileParams>): Reply | Promise<Reply> {
  if (weatherVariable(ctx, p.collectionId, 'map')) throw notFound(`Unknown tileset: ${p.tmsId}`);
  askedTime(p);
  const store = collectionStore(ctx, p.collectionId, 'map');
  const offered = offeredGrid(ctx, store.info, p.tmsId);
  if (!offered) throw notFound(`Unknown tileset: ${p.tmsId}`);
  const found = gridTileMatrix(offered.grid, p.tileMatrix, p.tileRow, p.tileCol);
  if ('invalid' in found) throw badRequest(found.invalid);
  // Named as WMS and WMTS name the layer, so X-Tilemirror-Source reads the same whichever protocol asked.
  const source = { store, pyramidName: offered.source.name, name: `${store.info.kind}/${store.info.id}` };
  return gridTileReply(ctx, source, offered.grid, found.matrix, p.tileRow, p.tileCol, offered.source.format);
}

// One handler per route (named, so the route-table test can check which one a path reaches).
export const ogcMapTilesets = ogcTilesets('map');
export const ogcVectorTilesets = ogcTilesets('vector');
export const ogcMapTileset = ogcTileset('map');
export const ogcVectorTileset = ogcTileset('vector');

/** A map tile: in a Web Mercator set as the resource's own route answers it, in a configured grid drawn (gridTile). */
export function ogcMapTile(ctx: RequestContext, p: z.output<typeof ogcMapTileParams>): Reply | Promise<Reply> {
  if (!isWebMercatorTmsId(p.tmsId)) return gridTile(ctx, p);
  return webMercatorTile(ctx, 'map', p, { z: Number(p.tileMatrix), x: p.tileCol, y: p.tileRow });
}

export function ogcVectorTile(ctx: RequestContext, p: z.output<typeof ogcTileParams>): Reply | Promise<Reply> {
  return webMercatorTile(ctx, 'vector', p, { z: p.tileMatrix, x: p.tileCol, y: p.tileRow });
}

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
