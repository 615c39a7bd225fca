import { buildWmtsCapabilities, findWmtsLayer, isWmtsTileMatrixSetOf, parseWmtsKvp, resolveWmtsLayer, wmtsLayersFor } from '../../ogc/wmts';
import { withKey } from '../../ogc/urls';
import type { TilesetInfo } from '../../store/types';
import { badRequest, documentReply, notFound, type Reply } from '../reply';
import type { Params, RequestContext } from '../route-table';
import { mapTile } from './maps';
import { storedTile } from './tiles';

// text/xml is what the spec names for WMTSCapabilities.xml.
const XML = 'text/xml; charset=utf-8';
const WMTS_FORMATS: Record<string, string> = {
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
  const xyz = { z: String(q.z), x: String(q.x), y: String(q.y) };
  if (resolved.kind === 'maps') {
    return mapTile(ctx, { mapId: resolved.id, ...xyz, size: resolved.pyramidName === '256' ? '256' : undefined, format });
  }
  const ext = format === layer.format ? undefined : format;
  if (resolved.kind === 'tiles') return storedTile('tiles')(ctx, { tilesId: resolved.id, ...xyz, ext });
  return storedTile('images')(ctx, { imageId: resolved.id, ...xyz, ext });
}

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
export const wmtsServiceCapabilities = (ctx: RequestContext, _p: Params): Reply | Promise<Reply> =>
  wmtsKvp(ctx, () => serviceCapabilities(ctx), true);
