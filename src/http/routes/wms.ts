import { z } from 'zod';
import type { WmsException, WmsVersion } from '../../ogc/wms-exception';
import { advertisedCrs, buildWmsCapabilities, weatherTileset, weatherWmsLayer, wmsLayersFor, type WmsLayer } from '../../ogc/wms';
import { parseWmsRequest, wmsParams, type WmsGetMap, type WmsParse } from '../../ogc/wms-requests';
import { withKey } from '../../ogc/urls';
import { blankImage, exceptionImage, type GetMapLayer } from '../../services/wms/get-map';
import { ServiceError } from '../../errors';
import { TransformError } from '../../services/coordinates';
import { answer, documentReply, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { wmsExceptionReply } from '../wms-errors';
import { requireStore } from './stores';
import { weatherVariablesOf } from './weather';

// WMS 1.3.0 and 1.1.1 (`/wms`, and `/maps/{id}/wms` for one map): GetCapabilities and GetMap, reprojected from the
// Web Mercator tiles (services/wms/get-map.ts). Requests are read by ogc/wms-requests.ts; an exception is answered
// as the request asked (a report, the message in an image, or a blank image).

const kvp = (description: string, meta: Record<string, unknown> = {}) => z.string().optional().meta({ description, ...meta });
const wmsKvpShape = {
  SERVICE: kvp('`WMS`', { enum: ['WMS'] }),
  REQUEST: kvp('`GetCapabilities` or `GetMap` (GetFeatureInfo is answered OperationNotSupported)', { enum: ['GetCapabilities', 'GetMap'] }),
  VERSION: kvp('`1.3.0` or `1.1.1` (GetCapabilities negotiates: absent is 1.3.0)', { enum: ['1.3.0', '1.1.1'] }),
  LAYERS: kvp('GetMap: layer names of the capabilities, comma-separated, bottom first'),
  STYLES: kvp('GetMap: empty, or `default` for each layer'),
  CRS: kvp('GetMap 1.3.0: `EPSG:n` (any EPSG CRS PROJ reaches from Web Mercator) or `CRS:84`'),
  SRS: kvp('GetMap 1.1.1: as CRS'),
  BBOX: kvp('GetMap: minx,miny,maxx,maxy in the CRS (1.3.0 with an EPSG code: in its axis order, latitude first for EPSG:4326)'),
  WIDTH: kvp('GetMap: image width in pixels', { type: 'integer', minimum: 1 }),
  HEIGHT: kvp('GetMap: image height in pixels', { type: 'integer', minimum: 1 }),
  FORMAT: kvp('GetMap: `image/png`, `image/jpeg` or `image/webp`'),
  TIME: kvp('GetMap of a weather layer (`weather/{name}`): one of its times (ISO 8601, UTC); absent or `current`: the latest'),
  TRANSPARENT: kvp('GetMap: `TRUE` keeps where nothing is drawn transparent (png, webp); default `FALSE`'),
  BGCOLOR: kvp('GetMap: `0xRRGGBB`, default white'),
  EXCEPTIONS: kvp('1.3.0: `XML`, `INIMAGE` or `BLANK`; 1.1.1: `application/vnd.ogc.se_xml`, `…se_inimage` or `…se_blank`'),
};
export const wmsServiceParams = z.object(wmsKvpShape);
export const mapWmsParams = z.object({ mapId: z.string().meta({ description: 'map id' }), ...wmsKvpShape });

const CAPABILITIES_TYPE: Readonly<Record<WmsVersion, string>> = { '1.3.0': 'text/xml; charset=utf-8', '1.1.1': 'application/vnd.ogc.wms_xml; charset=utf-8' };

/** Every WMS layer of the catalog (raster maps, tile sets and images), then every weather variable. */
function allLayers(ctx: RequestContext): WmsLayer[] {
  return [...ctx.catalog.list().flatMap(wmsLayersFor), ...weatherVariablesOf(ctx).map(weatherWmsLayer)];
}

function capabilities(ctx: RequestContext, version: WmsVersion, layers: WmsLayer[], path: string, title: string): Reply {
  const { service, wms } = ctx.config;
  const xml = buildWmsCapabilities({
    version,
    serviceUrl: withKey(ctx.baseUrl, path, ctx.key),
    site: service.provider.site ?? withKey(ctx.baseUrl, '/', ctx.key),
    service: { ...service, title },
    layers,
    crs: advertisedCrs(wms.crs),
    maxWidth: wms.maxWidth,
    maxHeight: wms.maxHeight,
  });
  return documentReply(xml, CAPABILITIES_TYPE[version]);
}

/** What answers an exception: the report, or (INIMAGE, BLANK) an image of the size and format asked for. */
async function exceptionReply(e: WmsException, parse: Extract<WmsParse, { ok: false }> | WmsGetMap): Promise<Reply> {
  const mode = 'exceptions' in parse ? parse.exceptions : 'xml';
  const image = 'image' in parse ? parse.image : 'width' in parse ? parse : undefined;
  if (mode === 'xml' || !image) return wmsExceptionReply(e, parse.version);
  const body =
    mode === 'blank'
      ? await blankImage(image.width, image.height, image.format, image.transparent, image.background)
      : await exceptionImage(`${e.code}: ${e.text}`, image.width, image.height, image.format, image.transparent, image.background);
  return answer({ body, type: image.mediaType, cache: 'none' });
}

/** The layers of a GetMap, each with its base tiles; a WmsException for one the capabilities do not offer. */
function getMapLayers(ctx: RequestContext, req: WmsGetMap, offered: WmsLayer[]): GetMapLayer[] | WmsException {
  const out: GetMapLayer[] = [];
  for (const name of req.layers) {
    const layer = offered.find((l) => l.name === name);
    if (!layer) return { code: 'LayerNotDefined', text: `Layer ${name.length > 100 ? `${name.slice(0, 100)}…` : name} is not offered here` };
    const id = weatherTileset(layer, req.time);
    if (id === undefined) return { code: 'InvalidDimensionValue', text: `TIME ${(req.time ?? '').slice(0, 100)} is not a time of ${name} (its times: ${layer.time!.values.join(', ')})` };
    const store = requireStore(ctx, layer.kind, id);
    out.push({ name, base: ctx.services.renderedTiles.rasterBase(store, layer.pyramidName) });
  }
  return out;
}

/** The BBOX in x/y order (easting or longitude first), or an exception for a CRS PROJ does not know. */
function xyBbox(ctx: RequestContext, req: WmsGetMap): [number, number, number, number] | WmsException {
  const { crs, bbox } = req;
  if (crs.code === 3857) return bbox;
  const coordinates = ctx.services.coordinates;
  if (!coordinates) throw new ServiceError('unavailable', 'The coordinates index is not built (npm run indexes): only EPSG:3857 can be drawn');
  const northFirst = coordinates.northFirst(crs.code);
  if (northFirst === undefined) return { code: 'InvalidCRS', text: `${crs.name} is not a coordinate reference system known here` };
  return crs.authorityAxisOrder && northFirst ? [bbox[1], bbox[0], bbox[3], bbox[2]] : bbox;
}

async function wmsAnswer(ctx: RequestContext, offered: WmsLayer[], path: string, title: string): Promise<Reply> {
  const parse = parseWmsRequest(wmsParams(ctx.query), ctx.config.wms);
  if (!parse.ok) return exceptionReply(parse.exception, parse);
  const req = parse.value;
  if (req.request === 'GetCapabilities') return capabilities(ctx, req.version, offered, path, title);
  const layers = getMapLayers(ctx, req, offered);
  if (!Array.isArray(layers)) return exceptionReply(layers, req);
  const bbox = xyBbox(ctx, req);
  if (!Array.isArray(bbox)) return exceptionReply(bbox, req);
  await ctx.reserveAnswer();
  try {
    const { data, levels } = await ctx.services.wmsMaps.draw({ layers, crs: req.crs.code, bbox, width: req.width, height: req.height, format: req.format, transparent: req.transparent, background: req.background }, ctx.signal);
    return answer({ body: data, type: req.mediaType, cache: 'tile', headers: { 'X-Tilemirror-Source': levels.join(', ') } });
  } catch (err) {
    // PROJ has no way from Web Mercator to this CRS: the CRS is not one this server can draw in.
    if (err instanceof TransformError) return exceptionReply({ code: 'InvalidCRS', text: err.message }, req);
    throw err;
  }
}

/** `/wms?SERVICE=WMS&REQUEST=…`: every raster map, tile set and image. */
export function wmsService(ctx: RequestContext): Promise<Reply> {
  return wmsAnswer(ctx, allLayers(ctx), '/wms', ctx.config.service.title);
}

/** `/maps/{mapId}/wms?…`: the one map. */
export function mapWms(ctx: RequestContext, p: z.output<typeof mapWmsParams>): Promise<Reply> {
  const store = requireStore(ctx, 'maps', p.mapId);
  return wmsAnswer(ctx, wmsLayersFor(store.info), `/maps/${encodeURIComponent(p.mapId)}/wms`, store.info.name);
}
