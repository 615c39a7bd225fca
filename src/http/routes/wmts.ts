import { z } from 'zod';
import { buildWmtsCapabilities, findWmtsLayer, resolveWmtsLayer, WMTS_EXTENSIONS, wmtsLayersFor, type OwsServiceMetadata, type WmtsLayer, type WmtsSection } from '../../ogc/wmts';
import { TIME_DIMENSION, WEATHER_LAYER_PREFIX, weatherWmtsLayer, type WeatherWmtsLayer } from '../../ogc/weather-layers';
import { keyframeAt } from '../../ogc/weather-variables';
import {
  checkWmtsTile,
  kvpParams,
  parseWmtsKvp,
  parseWmtsRestTile,
  kvpDimensionValues,
  withRequestedDefaults,
  type DimensionValues,
  type WmtsTile,
  type WmtsTileRequest,
} from '../../ogc/wmts-requests';
import { mediaTypeOf, withKey } from '../../ogc/urls';
import type { TilesetInfo } from '../../store/types';
import { acceptsAny } from '../accept';
import { ServiceError } from '../../errors';
import type { OwsException } from '../../ogc/ows-exception';
import { owsError, owsRestError } from '../ows-errors';
import { answer, documentReply, isNoContent, noContent, notFound, type HttpError, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { gridTileReply, type GridTileFormat } from './grid-tile-reply';
import { serveMapTile } from './maps';
import { advertisedTile } from './tile-reply';
import { serveStoredTile } from './tiles';
import { requireStore } from './stores';
import { weatherVariablesOf } from './weather';

// WMTS 1.0.0: KVP GetCapabilities and GetTile (`/wmts?…`, also sent to every WMTSCapabilities.xml URL), the RESTful
// capabilities and tiles (`/wmts/1.0.0/…`, 07-057r7 §10). Every error is an OWS ExceptionReport (the routes'
// dialect, ../ows-errors.ts): in KVP with the status the standard gives its code, in RESTful as `not-found` — a URL
// that names no tile names no resource, the HTTP semantics 07-057r7 §7.1.3 and §7.2 point RESTful errors at.

// text/xml is what the spec names for WMTSCapabilities.xml.
const XML = 'text/xml; charset=utf-8';
const XML_TYPES = ['application/xml', 'text/xml'];
const SERVICE_CAPABILITIES_PATH = '/wmts/1.0.0/WMTSCapabilities.xml';

/** The service metadata of the configuration (`service`); the provider's site is this server unless configured. */
function serviceMetadata(ctx: RequestContext, title: string): OwsServiceMetadata {
  const { service } = ctx.config;
  return { ...service, title, provider: { ...service.provider, site: service.provider.site ?? withKey(ctx.baseUrl, '/', ctx.key) } };
}

/**
 * Capabilities of some layers, addressed (ServiceMetadataURL) at `path`; `title` names the service. A GetCapabilities
 * naming a dimension value gets it as the Default of the layers offering it (withRequestedDefaults).
 */
function layersCapabilities(ctx: RequestContext, layers: readonly WmtsLayer[], title: string, path: string, sections?: ReadonlySet<WmtsSection>, values?: DimensionValues): Reply {
  const requested = values ? withRequestedDefaults(withGrids(ctx, layers), values) : { ok: true as const, value: withGrids(ctx, layers) };
  if (!requested.ok) throw owsError(requested.exception);
  const xml = buildWmtsCapabilities({
    baseUrl: ctx.baseUrl,
    key: ctx.key,
    service: serviceMetadata(ctx, title),
    layers: requested.value,
    capabilitiesUrl: withKey(ctx.baseUrl, path, ctx.key),
    sections,
  });
  return documentReply(xml, XML);
}

/** The layers with the configured grids besides Web Mercator that their area meets (raster layers only). */
function withGrids<L extends WmtsLayer>(ctx: RequestContext, layers: readonly L[]): L[] {
  const { gridTiles } = ctx.services;
  if (gridTiles.grids.length === 0) return [...layers];
  return layers.map((l) => (['png', 'jpg', 'webp'].includes(l.format) ? { ...l, grids: gridTiles.gridsFor(l.bounds) } : l));
}

/** Capabilities of some resources, addressed (ServiceMetadataURL) at `path`; `title` names the service. */
export function capabilitiesReply(ctx: RequestContext, infos: TilesetInfo[], title: string, path: string, sections?: ReadonlySet<WmtsSection>): Reply {
  return layersCapabilities(ctx, infos.flatMap(wmtsLayersFor), title, path, sections);
}

/** The WMTS layers of the weather variables (ogc/weather-layers.ts): one per variable, with a Time dimension. */
function weatherLayers(ctx: RequestContext): WeatherWmtsLayer[] {
  return weatherVariablesOf(ctx).map(weatherWmtsLayer);
}

/**
 * The tile a checked request names, under the media type the capabilities advertise for it; `source` is the store
 * holding it when it is not the layer's own (a weather layer's keyframe at the requested time).
 */
function serveTile(ctx: RequestContext, t: WmtsTile, source: { kind: 'tiles' | 'images'; id: string } | undefined = undefined): Reply | Promise<Reply> {
  const { layer } = t;
  if (t.grid) return gridTile(ctx, t, t.grid, source);
  const a = { z: t.z, x: t.x, y: t.y };
  let reply: Reply | Promise<Reply>;
  if (layer.kind === 'maps' && !source) {
    // A map layer is raster: checkWmtsTile allowed png, jpg or webp only.
    const format = t.format as 'png' | 'jpg' | 'webp';
    reply = serveMapTile(ctx, layer.id, { ...a, tileSize: layer.tileSize === 256 ? 256 : 512, scale: 1, format }, 'pyramid');
  } else {
    const store = source ?? { kind: layer.kind as 'tiles' | 'images', id: layer.id };
    reply = serveStoredTile(ctx, store.kind, store.id, a, t.format === layer.format ? undefined : WMTS_EXTENSIONS[t.format]);
  }
  const advertised = (r: Reply): Reply | Promise<Reply> => (isNoContent(r) ? emptyTile(ctx, t) : advertisedTile(r));
  return reply instanceof Promise ? reply.then(advertised) : advertised(reply);
}

/** A tile of another grid: drawn from the layer's Web Mercator tiles (a map's: its mirrored pyramids and renders). */
function gridTile(ctx: RequestContext, t: WmtsTile, g: NonNullable<WmtsTile['grid']>, source: { kind: 'tiles' | 'images'; id: string } | undefined): Reply | Promise<Reply> {
  const { layer } = t;
  const store = requireStore(ctx, source?.kind ?? layer.kind, source?.id ?? layer.id);
  return gridTileReply(ctx, { store, pyramidName: layer.pyramidName, name: layer.identifier }, g.grid, g.matrix, t.y, t.x, t.format as GridTileFormat);
}

/**
 * A weather layer's tile: the tile of the keyframe at the requested Time. A tile at the Default (no Time named)
 * changes when a newer catalog is mirrored, so it is cached as a document (revalidated), not as a tile.
 */
function weatherTile(ctx: RequestContext, t: WmtsTile & { layer: WeatherWmtsLayer }): Reply | Promise<Reply> {
  const keyframe = keyframeAt(t.layer.variable, t.dimensions[TIME_DIMENSION]);
  // checkWmtsTile accepted only advertised times, each a keyframe's.
  if (!keyframe) throw notFound(`No keyframe at ${t.dimensions[TIME_DIMENSION]}`);
  const reply = serveTile(ctx, t, { kind: 'tiles', id: keyframe.tilesetId });
  if (!t.defaulted.includes(TIME_DIMENSION)) return reply;
  const revalidated = (r: Reply): Reply => (r.cache === 'tile' ? { ...r, cache: 'document' } : r);
  return reply instanceof Promise ? reply.then(revalidated) : revalidated(reply);
}

/**
 * WMTS 1.0 has no empty answer: a GetTile inside the TileMatrixSetLimits gets a tile of the requested Format
 * (07-057r7 §7.2.2.2), and clients that read every tile as an image (ArcGIS, the OGC's test suite) fail on an empty answer.
 * An absent tile is therefore a vector tile without layers (zero bytes, a valid MVT) or a blank raster tile of the
 * matrix's size. The cloud API's own routes keep answering empty (no content).
 */
async function emptyTile(ctx: RequestContext, t: WmtsTile): Promise<Reply> {
  const etag = `empty-${t.format}-${t.layer.tileSize}`;
  if (t.format === 'pbf') return answer({ body: Buffer.alloc(0), type: mediaTypeOf('pbf'), cache: 'tile', etag });
  // A blank Basis Universal texture is not worth a texture encoder: such a layer keeps the empty answer.
  if (t.format === 'basis') return noContent({ cache: 'tile', etag });
  const body = await ctx.services.rasterTiles.blank(t.format, t.layer.tileSize);
  return answer({ body, type: mediaTypeOf(t.format), cache: 'tile', etag });
}

/** How an exception of a request's binding is thrown: KVP's status of its code, or RESTful's `not-found`. */
type Refuse = (exception: OwsException) => HttpError;
const kvpError: Refuse = (exception) => owsError(exception);

/** A GetTile (KVP or RESTful): its layer looked up, the request checked against it, the tile served. */
function getTile(ctx: RequestContext, request: WmtsTileRequest, refuse: Refuse = kvpError): Reply | Promise<Reply> {
  if (request.layer.startsWith(WEATHER_LAYER_PREFIX)) {
    const layer = withGrids(ctx, weatherLayers(ctx)).find((l) => l.identifier === request.layer);
    const checked = checkWmtsTile(layer, request);
    if (!checked.ok) throw refuse(checked.exception);
    return weatherTile(ctx, { ...checked.value, layer: checked.value.layer as WeatherWmtsLayer });
  }
  const resolved = resolveWmtsLayer(request.layer);
  const store = resolved && ctx.catalog.get(resolved.kind, resolved.id);
  const found = store ? findWmtsLayer(store.info, request.layer) : undefined;
  const checked = checkWmtsTile(found && withGrids(ctx, [found])[0], request);
  if (!checked.ok) throw refuse(checked.exception);
  return serveTile(ctx, checked.value);
}

/**
 * A KVP request (`SERVICE=WMTS&REQUEST=GetCapabilities|GetTile&…`); `capabilities` answers GetCapabilities.
 * `restful`: sent to a RESTful capabilities URL, which answers without any parameter and where SERVICE and REQUEST
 * default to WMTS and GetCapabilities (OWSLib appends `service=WMTS&request=GetCapabilities&version=1.0.0`).
 */
export function wmtsKvp(ctx: RequestContext, capabilities: (sections?: ReadonlySet<WmtsSection>, values?: DimensionValues) => Reply, restful: boolean): Reply | Promise<Reply> {
  const params = kvpParams(ctx.query.entries());
  // The RESTful resource itself (07-057r7 §10.1): its one representation is XML (the OGC suite asks for `not-acceptable` otherwise),
  // so what it answers depends on Accept, and caches must know (Vary).
  const resource = restful && !params.has('request');
  if (resource && !acceptsAny(ctx.headers.accept, XML_TYPES)) {
    throw new ServiceError('not-acceptable', `Not acceptable: the capabilities are ${XML_TYPES.join(' or ')}`);
  }
  const parsed = parseWmtsKvp(params, restful ? { service: 'WMTS', request: 'GetCapabilities' } : {});
  if (!parsed.ok) throw owsError(parsed.exception);
  if (parsed.value.request === 'GetCapabilities') {
    const reply = capabilities(parsed.value.sections, kvpDimensionValues(params));
    return resource ? { ...reply, headers: { ...reply.headers, Vary: 'Accept' } } : reply;
  }
  return getTile(ctx, parsed.value.tile);
}

/**
 * The KVP parameters of WMTS 1.0 (GetCapabilities, GetTile), documented for the OpenAPI definition. Their names are
 * case-insensitive (OGC 06-121r3 §11.5.2), so the handler reads them from the query itself (ogc/wmts-requests.ts).
 */
const kvp = (description: string, meta: Record<string, unknown> = {}) => z.string().optional().meta({ description, ...meta });
export const wmtsKvpShape = {
  SERVICE: kvp('`WMTS` (required)', { enum: ['WMTS'] }),
  REQUEST: kvp('`GetCapabilities` or `GetTile` (required)', { enum: ['GetCapabilities', 'GetTile'] }),
  VERSION: kvp('GetTile: `1.0.0` (required)', { enum: ['1.0.0'] }),
  ACCEPTVERSIONS: kvp('GetCapabilities: versions the client accepts, comma-separated; `1.0.0` must be among them'),
  SECTIONS: kvp('GetCapabilities: sections to answer, comma-separated: ServiceIdentification, ServiceProvider, OperationsMetadata, Contents, Themes or All'),
  LAYER: kvp('GetTile: a layer identifier of the capabilities'),
  STYLE: kvp('GetTile: `default`'),
  TILEMATRIXSET: kvp('GetTile: the tile matrix set of the layer'),
  TILEMATRIX: kvp('GetTile: a tile matrix identifier of the set (the zoom level)'),
  TILEROW: kvp('GetTile: tile row, inside the layer\'s TileMatrixSetLimits', { type: 'integer', minimum: 0 }),
  TILECOL: kvp('GetTile: tile column, inside the layer\'s TileMatrixSetLimits', { type: 'integer', minimum: 0 }),
  FORMAT: kvp('GetTile: the media type of the tile: the layer\'s Format, or another raster type of a raster layer'),
  TIME: kvp(
    'GetTile of a weather layer (`weather/{name}`): a Value of its Time dimension (ISO 8601 in UTC, e.g. `2024-01-01T06:00:00Z`); none or `default`: its Default, the latest. GetCapabilities: a Value that becomes the Default of the layers offering it (for clients that always request the Default, as GDAL does)',
  ),
};
export const wmtsServiceParams = z.object(wmtsKvpShape);

/** Service-wide capabilities: every map, tile set and image, then every weather variable. */
function serviceCapabilities(ctx: RequestContext, sections?: ReadonlySet<WmtsSection>, values?: DimensionValues): Reply {
  const layers = [...ctx.catalog.list().flatMap(wmtsLayersFor), ...weatherLayers(ctx)];
  return layersCapabilities(ctx, layers, ctx.config.service.title, SERVICE_CAPABILITIES_PATH, sections, values);
}

/** `/wmts?SERVICE=WMTS&REQUEST=...` */
export const wmtsService = (ctx: RequestContext): Reply | Promise<Reply> => wmtsKvp(ctx, (s, r) => serviceCapabilities(ctx, s, r), false);

/** `/wmts/1.0.0/WMTSCapabilities.xml` */
export const wmtsServiceCapabilities = (ctx: RequestContext): Reply | Promise<Reply> => wmtsKvp(ctx, (s, r) => serviceCapabilities(ctx, s, r), true);

const WEATHER_CAPABILITIES_PATH = '/weather/WMTSCapabilities.xml';

/** `/weather/WMTSCapabilities.xml`: the weather variables only (not found when no catalog is mirrored or none can be offered). */
export function wmtsWeatherCapabilities(ctx: RequestContext): Reply | Promise<Reply> {
  const layers = weatherLayers(ctx);
  if (!layers.length) throw notFound('No weather catalog is mirrored');
  const title = `${ctx.config.service.title}: weather`;
  return wmtsKvp(ctx, (sections, values) => layersCapabilities(ctx, layers, title, WEATHER_CAPABILITIES_PATH, sections, values), true);
}

/**
 * The path segments of a RESTful tile, taken as sent: an empty one is a missing parameter and a bad one an
 * invalid value, answered as ExceptionReports by the handler (a schema error would have no exception code).
 */
const segment = (description: string) => z.string().meta({ description });
export const wmtsRestTileParams = z.object({
  layer: segment('the layer identifier, its slashes included: maps/{id}, maps/{id}/256, tiles/{id} or images/{id}'),
  style: segment('`default`'),
  tileMatrixSet: segment('the tile matrix set of the layer'),
  tileMatrix: segment('a tile matrix identifier of the set (the zoom level)'),
  tileRow: segment("tile row, inside the layer's TileMatrixSetLimits"),
  tileCol: segment("tile column, inside the layer's TileMatrixSetLimits"),
  format: segment('`png`, `jpg`, `webp` (raster layers) or `pbf` (vector layers)'),
});

/** `/wmts/1.0.0/{layer}/{style}/{tileMatrixSet}/{tileMatrix}/{tileRow}/{tileCol}.{format}` */
export function wmtsRestTile(ctx: RequestContext, p: z.output<typeof wmtsRestTileParams>): Reply | Promise<Reply> {
  const parsed = parseWmtsRestTile({ ...p, ext: p.format });
  if (!parsed.ok) throw owsRestError(parsed.exception);
  return getTile(ctx, parsed.value, owsRestError);
}

/** The path segments of a weather layer's RESTful tile: its variable name and the `{Time}` after the style. */
export const wmtsWeatherTileParams = wmtsRestTileParams.omit({ layer: true }).extend({
  name: segment('the name of the weather variable: the layer is `weather/{name}`'),
  time: segment('a Value of the Time dimension of the layer (ISO 8601 in UTC, e.g. `2024-01-01T06:00:00Z`), or `default` (the latest)'),
});

/** `/wmts/1.0.0/weather/{name}/{style}/{Time}/{tileMatrixSet}/{tileMatrix}/{tileRow}/{tileCol}.{format}` */
export function wmtsWeatherTile(ctx: RequestContext, p: z.output<typeof wmtsWeatherTileParams>): Reply | Promise<Reply> {
  const parsed = parseWmtsRestTile({ ...p, layer: `${WEATHER_LAYER_PREFIX}${p.name}`, ext: p.format, dimensions: { [TIME_DIMENSION]: p.time } });
  if (!parsed.ok) throw owsRestError(parsed.exception);
  return getTile(ctx, parsed.value, owsRestError);
}
