// WMS 1.3.0 (OGC 06-042) and 1.1.1 (OGC 01-068r3) KVP requests, read into checked values. Pure: parameters in,
// a request or the exception that answers it out. Parameter names are case-insensitive, values are not (§6.8.1).

import { WMS_EXCEPTION_FORMATS, type WmsException, type WmsExceptionFormat, type WmsVersion } from './wms-exception';

/** Output formats of GetMap: their WMS names (MIME types) and what sharp encodes. */
export const WMS_FORMATS = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' } as const;
export type WmsFormat = (typeof WMS_FORMATS)[keyof typeof WMS_FORMATS];

/** A CRS as a request names it: its EPSG code, and whether its BBOX follows the EPSG axis order (1.3.0 EPSG:*). */
export interface WmsCrs {
  /** As written in the request (EPSG:4326, CRS:84 ...), for messages and answers. */
  name: string;
  /** The EPSG code PROJ is asked with (CRS:84 is EPSG:4326 with longitude first). */
  code: number;
  /** 1.3.0 and an EPSG code: the BBOX is in the CRS's own axis order (latitude first for EPSG:4326). */
  authorityAxisOrder: boolean;
}

export interface WmsGetMap {
  request: 'GetMap';
  version: WmsVersion;
  layers: string[];
  crs: WmsCrs;
  /** The four BBOX numbers as sent (axis order per `crs.authorityAxisOrder`). */
  bbox: [number, number, number, number];
  width: number;
  height: number;
  format: WmsFormat;
  /** Its WMS name, for the answer's Content-Type. */
  mediaType: keyof typeof WMS_FORMATS;
  transparent: boolean;
  /** BGCOLOR as 0xRRGGBB (default white). */
  background: [number, number, number];
  exceptions: WmsExceptionFormat;
  /** TIME as sent (a weather layer's keyframe; absent: its default, the latest). */
  time?: string;
}

export interface WmsGetCapabilities {
  request: 'GetCapabilities';
  version: WmsVersion;
}

export type WmsRequest = WmsGetMap | WmsGetCapabilities;

export type WmsParse =
  | { ok: true; value: WmsRequest }
  /** What answers the request, in the version and form it asked for as far as they could be read. */
  | { ok: false; exception: WmsException; version: WmsVersion; exceptions: WmsExceptionFormat; image?: { width: number; height: number; format: WmsFormat; mediaType: keyof typeof WMS_FORMATS; transparent: boolean; background: [number, number, number] } };

export interface WmsLimits {
  maxWidth: number;
  maxHeight: number;
}

/** The parameters with upper-case names; a repeated one keeps its first value. */
export function wmsParams(query: Iterable<[string, string]>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of query) if (!out.has(k.toUpperCase())) out.set(k.toUpperCase(), v);
  return out;
}

/** Operations of WMS that this server does not offer: OperationNotSupported. Any other REQUEST is no operation. */
const NOT_OFFERED = new Set(['getfeatureinfo', 'describelayer', 'getlegendgraphic', 'getstyles', 'putstyles', 'feature_info']);

/**
 * The version a GetCapabilities answers (06-042 §6.2.4 negotiation): the one asked for when it is one of ours, the
 * highest below it otherwise, 1.3.0 when none is asked or it is above ours, 1.1.1 below 1.1.1.
 */
export function negotiateVersion(asked: string | undefined): WmsVersion {
  if (!asked) return '1.3.0';
  const parts = asked.split('.').map((n) => Number(n));
  if (parts.length !== 3 || parts.some((n) => !Number.isInteger(n) || n < 0)) return '1.3.0';
  const n = parts[0] * 10000 + parts[1] * 100 + parts[2];
  return n >= 10300 ? '1.3.0' : '1.1.1';
}

/**
 * Codes clients send for Web Mercator that are not EPSG's: the legacy 900913, and Esri's 102100 and 102113, which the
 * ArcGIS API for JavaScript 3.x (Web AppBuilder, the classic Map Viewer) sends as `EPSG:102100` whatever the layer lists.
 */
const WEB_MERCATOR_ALIASES = new Set([900913, 102100, 102113]);

/** A CRS name of a request: EPSG:n, CRS:84, or a legacy or Esri code of Web Mercator. */
export function parseCrs(text: string, version: WmsVersion): WmsCrs | undefined {
  const t = text.trim();
  if (/^CRS:84$/i.test(t)) return { name: 'CRS:84', code: 4326, authorityAxisOrder: false };
  const m = /^EPSG:(\d{1,9})$/i.exec(t);
  if (!m) return undefined;
  const code = WEB_MERCATOR_ALIASES.has(Number(m[1])) ? 3857 : Number(m[1]);
  return { name: `EPSG:${m[1]}`, code, authorityAxisOrder: version === '1.3.0' };
}

const FORMAT_ALIASES: Readonly<Record<string, keyof typeof WMS_FORMATS>> = { png: 'image/png', jpeg: 'image/jpeg', jpg: 'image/jpeg', webp: 'image/webp' };

/** A FORMAT value: a media type of WMS_FORMATS (parameters after `;` ignored), or a bare png/jpeg/webp. */
function parseFormat(text: string): keyof typeof WMS_FORMATS | undefined {
  const t = text.split(';')[0].trim().toLowerCase();
  if (t in WMS_FORMATS) return t as keyof typeof WMS_FORMATS;
  return FORMAT_ALIASES[t];
}

/** A value as a message quotes it: at most 100 characters. */
const cut = (v: string): string => (v.length > 100 ? `${v.slice(0, 100)}…` : v);

/** A positive integer parameter, or undefined. */
function positiveInt(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*\d{1,9}\s*$/.test(text)) return undefined;
  const n = Number(text);
  return n > 0 ? n : undefined;
}

/** Reads a request; GetFeatureInfo and anything else but GetCapabilities and GetMap is OperationNotSupported. */
export function parseWmsRequest(params: Map<string, string>, limits: WmsLimits): WmsParse {
  const request = params.get('REQUEST');
  const askedVersion = params.get('VERSION') ?? params.get('WMTVER');
  const version = negotiateVersion(askedVersion);
  const exceptionsText = params.get('EXCEPTIONS');
  const exceptions: WmsExceptionFormat = (exceptionsText !== undefined && WMS_EXCEPTION_FORMATS[version][version === '1.3.0' ? exceptionsText.toUpperCase() : exceptionsText]) || 'xml';
  const fail = (code: WmsException['code'], text: string, image?: Extract<WmsParse, { ok: false }>['image']): WmsParse => ({ ok: false, exception: { code, text }, version, exceptions: image ? exceptions : 'xml', ...(image && { image }) });
  const service = params.get('SERVICE');
  if (service !== undefined && service.toUpperCase() !== 'WMS') return fail('InvalidParameterValue', `SERVICE must be WMS, not ${cut(service)}`);
  if (!request) return fail('MissingParameterValue', 'REQUEST is missing (GetCapabilities or GetMap)');
  const req = request.toLowerCase();
  if (req === 'getcapabilities' || req === 'capabilities') return { ok: true, value: { request: 'GetCapabilities', version } };
  if (NOT_OFFERED.has(req)) return fail('OperationNotSupported', `${request} is not supported here (GetCapabilities and GetMap are)`);
  if (req !== 'getmap' && req !== 'map') return fail('InvalidParameterValue', `REQUEST ${cut(request)} is not an operation of WMS (GetCapabilities, GetMap)`);

  // What an INIMAGE or BLANK exception needs, read first so that the other errors can be drawn.
  const width = positiveInt(params.get('WIDTH'));
  const height = positiveInt(params.get('HEIGHT'));
  const mediaType = parseFormat(params.get('FORMAT') ?? '');
  const transparentText = params.get('TRANSPARENT');
  const transparent = transparentText?.toUpperCase() === 'TRUE';
  const bg = params.get('BGCOLOR');
  const bgMatch = bg === undefined ? undefined : /^0x([0-9a-f]{6})$/i.exec(bg.trim());
  const rgb = bgMatch ? Number.parseInt(bgMatch[1], 16) : 0xffffff;
  const background: [number, number, number] = [(rgb >> 16) & 255, (rgb >> 8) & 255, rgb & 255];
  const drawable = width !== undefined && height !== undefined && width <= limits.maxWidth && height <= limits.maxHeight && mediaType !== undefined;
  const image = drawable ? { width, height, format: WMS_FORMATS[mediaType], mediaType, transparent, background } : undefined;
  const bad = (code: WmsException['code'], text: string): WmsParse => fail(code, text, image);

  if (askedVersion === undefined) return bad('MissingParameterValue', 'VERSION is missing (1.3.0 or 1.1.1)');
  if (askedVersion !== '1.3.0' && askedVersion !== '1.1.1') return bad('InvalidParameterValue', `VERSION ${cut(askedVersion)} is not served (1.3.0 and 1.1.1 are)`);
  if (exceptionsText !== undefined && !WMS_EXCEPTION_FORMATS[version][version === '1.3.0' ? exceptionsText.toUpperCase() : exceptionsText]) {
    return bad('InvalidParameterValue', `EXCEPTIONS ${cut(exceptionsText)} is not one of ${Object.keys(WMS_EXCEPTION_FORMATS[version]).join(', ')}`);
  }
  const layersText = params.get('LAYERS');
  if (!layersText) return bad('MissingParameterValue', 'LAYERS is missing');
  const layers = layersText.split(',');
  if (layers.some((l) => l === '')) return bad('LayerNotDefined', `LAYERS ${cut(layersText)} names an empty layer`);
  const styles = params.get('STYLES');
  if (styles !== undefined && styles !== '') {
    const list = styles.split(',');
    if (list.length !== layers.length) return bad('StyleNotDefined', `STYLES names ${list.length} styles for ${layers.length} layers`);
    const unknown = list.find((s) => s !== '' && s.toLowerCase() !== 'default');
    if (unknown !== undefined) return bad('StyleNotDefined', `Style ${cut(unknown)} is not defined (each layer has one style, default)`);
  }
  const crsParam = version === '1.3.0' ? 'CRS' : 'SRS';
  const crsText = params.get(crsParam);
  if (!crsText) return bad('MissingParameterValue', `${crsParam} is missing`);
  const crs = parseCrs(crsText, version);
  if (!crs) return bad('InvalidCRS', `${crsParam} ${cut(crsText)} is not an EPSG code (EPSG:n) or CRS:84`);
  const bboxText = params.get('BBOX');
  if (!bboxText) return bad('MissingParameterValue', 'BBOX is missing');
  const bbox = bboxText.split(',').map((v) => (/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(v) ? Number(v) : Number.NaN));
  if (bbox.length !== 4 || bbox.some((v) => !Number.isFinite(v))) return bad('InvalidParameterValue', `BBOX ${cut(bboxText)} is not four numbers`);
  if (!(bbox[0] < bbox[2] && bbox[1] < bbox[3])) return bad('InvalidParameterValue', `BBOX ${cut(bboxText)}: each minimum must be below its maximum`);
  if (params.get('WIDTH') === undefined || params.get('HEIGHT') === undefined) return bad('MissingParameterValue', 'WIDTH and HEIGHT are required');
  if (width === undefined || height === undefined) return bad('InvalidParameterValue', 'WIDTH and HEIGHT must be positive integers');
  if (width > limits.maxWidth || height > limits.maxHeight) return bad('InvalidParameterValue', `WIDTH and HEIGHT may be at most ${limits.maxWidth} x ${limits.maxHeight}`);
  const formatText = params.get('FORMAT');
  if (!formatText) return bad('MissingParameterValue', 'FORMAT is missing');
  if (!mediaType) return bad('InvalidFormat', `FORMAT ${cut(formatText)} is not one of ${Object.keys(WMS_FORMATS).join(', ')}`);
  if (transparentText !== undefined && !/^(TRUE|FALSE)$/i.test(transparentText)) return bad('InvalidParameterValue', `TRANSPARENT must be TRUE or FALSE, not ${cut(transparentText)}`);
  if (bg !== undefined && !bgMatch) return bad('InvalidParameterValue', `BGCOLOR must be 0xRRGGBB, not ${cut(bg)}`);
  return {
    ok: true,
    value: {
      request: 'GetMap',
      version,
      layers,
      crs,
      bbox: bbox as [number, number, number, number],
      width,
      height,
      format: WMS_FORMATS[mediaType],
      mediaType,
      transparent,
      background,
      exceptions,
      ...(params.has('TIME') && { time: params.get('TIME') }),
    },
  };
}
