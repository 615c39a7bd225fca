import { buildWmtsCapabilities, findWmtsLayer, isWmtsTileMatrixSetOf, parseWmtsKvp, resolveWmtsLayer, wmtsLayersFor } from '../../ogc/wmts';
import { withKey } from '../../ogc/urls';
import type { TileFormat, TilesetInfo } from '../../store/types';
import { badRequest, documentReply, notFound, type Reply } from '../reply';
import { z } from 'zod';
import type { RequestContext } from '../route-table';
import { serveMapTile } from './maps';
import { serveStoredTile } from './tiles';

// text/xml is what the spec names for WMTSCapabilities.xml.
const XML = 'text/xml; charset=utf-8';
const WMTS_FORMATS: Record<string, TileFormat> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/jpg': 'jpg',
  'image/webp': 'webp',
  'application/vnd.mapbox-vector-tile': 'pbf',
  'application/x-protobuf': 'pbf',
};

/** Capabilities of some resources, addressed (ServiceMetadataURL) at `path`. */
export function capabilitiesReply(ctx: RequestContext, infos: TilesetInfo[], title: string, path: string): Reply {
  const xml = buildWmtsCapabilities({
    baseUrl: ctx.baseUrl,
    key: ctx.key,
    title,
    layers: infos.flatMap(wmtsLayersFor),
    capabilitiesUrl: withKey(ctx.baseUrl, path, ctx.key),
  });
  return documentReply(xml, XML);
}

/** A KVP GetTile: the layer's tile through the same handler as its RESTful URL. */
function kvpTile(ctx: RequestContext, q: Exclude<ReturnType<typeof parseWmtsKvp>, { error: string } | { request: 'GetCapabilities' }>): Reply | Promise<Reply> {
  const resolved = resolveWmtsLayer(q.layer);
  const store = resolved && ctx.catalog.get(resolved.kind, resolved.id);
  const layer = store && findWmtsLayer(store.info, q.layer);
  if (!resolved || !layer) throw notFound(`Unknown LAYER: ${q.layer}`);
  if (!isWmtsTileMatrixSetOf(layer, q.tileMatrixSet)) throw badRequest(`Invalid TILEMATRIXSET for layer ${q.layer}: ${q.tileMatrixSet}`);
  const format = q.format === undefined ? layer.format : WMTS_FORMATS[q.format.toLowerCase()];
  if (!format) throw badRequest(`Invalid FORMAT: ${q.format}`);
  const a = { z: q.z, x: q.x, y: q.y };
  if (resolved.kind === 'maps') {
    if (format === 'pbf') throw badRequest(`Invalid FORMAT: ${q.format ?? format}`);
    return serveMapTile(ctx, resolved.id, { ...a, tileSize: resolved.pyramidName === '256' ? 256 : 512, scale: 1, format });
  }
  return serveStoredTile(ctx, resolved.kind, resolved.id, a, format === layer.format ? undefined : format);
}

/**
 * The KVP parameters of WMTS 1.0 (GetCapabilities, GetTile), documented for the OpenAPI definition. Their names are
 * case-insensitive (OGC 06-121r9), so the handler reads them from the query itself (ogc/wmts.ts parseWmtsKvp).
 */
const kvp = (description: string, meta: Record<string, unknown> = {}) => z.string().optional().meta({ description, ...meta });
export const wmtsKvpShape = {
  SERVICE: kvp('`WMTS`', { enum: ['WMTS'] }),
  REQUEST: kvp('`GetCapabilities` or `GetTile`; without it the capabilities are answered', { enum: ['GetCapabilities', 'GetTile'] }),
  VERSION: kvp('`1.0.0`', { enum: ['1.0.0'] }),
  LAYER: kvp('GetTile: a layer identifier of the capabilities'),
  STYLE: kvp('GetTile: `default`'),
  TILEMATRIXSET: kvp('GetTile: a tile matrix set of the layer'),
  TILEMATRIX: kvp('GetTile: zoom level', { type: 'integer', minimum: 0 }),
  TILEROW: kvp('GetTile: tile row', { type: 'integer', minimum: 0 }),
  TILECOL: kvp('GetTile: tile column', { type: 'integer', minimum: 0 }),
  FORMAT: kvp('GetTile: media type of the tile, e.g. `image/png`'),
};
export const wmtsServiceParams = z.object(wmtsKvpShape);

/**
 * KVP requests (`SERVICE=WMTS&REQUEST=GetCapabilities|GetTile`); `capabilities` answers GetCapabilities
 * (and a request without REQUEST when `lenient`, as on the RESTful capabilities paths, where OWSLib appends its own KVP).
 */
export function wmtsKvp(ctx: RequestContext, capabilities: () => Reply, lenient: boolean): Reply | Promise<Reply> {
  const query = Object.fromEntries(ctx.query.entries());
  const hasRequest = [...ctx.query.keys()].some((k) => k.toLowerCase() === 'request');
  if (lenient && !hasRequest) return capabilities();
  const parsed = parseWmtsKvp(query);
  if ('error' in parsed) throw badRequest(parsed.error);
  if (parsed.request === 'GetCapabilities') return capabilities();
  return kvpTile(ctx, parsed);
}

/** Service-wide capabilities: every map, tile set and image. */
function serviceCapabilities(ctx: RequestContext): Reply {
  return capabilitiesReply(ctx, ctx.catalog.list(), 'tilemirror WMTS', '/wmts/1.0.0/WMTSCapabilities.xml');
}

/** `/wmts?SERVICE=WMTS&REQUEST=...` */
export const wmtsService = (ctx: RequestContext): Reply | Promise<Reply> => wmtsKvp(ctx, () => serviceCapabilities(ctx), true);

/** `/wmts/1.0.0/WMTSCapabilities.xml` */
export const wmtsServiceCapabilities = (ctx: RequestContext): Reply | Promise<Reply> =>
  wmtsKvp(ctx, () => serviceCapabilities(ctx), true);
