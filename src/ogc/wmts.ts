// WMTS 1.0.0: the capabilities document, the layer identifiers it advertises, and the parsing of
// KVP GetTile / GetCapabilities requests. Pure: descriptions and URLs in, XML string or values out.
//
// Layer identifiers, unique across the server:
//   tiles/{id}          a tile set (its main pyramid)
//   maps/{id}           a map's 512 px pyramid (MapTiler names its WMTS layers the same way)
//   maps/{id}/256       a map's 256 px pyramid
//   images/{id}         an image
// Tile matrix sets: one per (tile size, zoom range) in use, GoogleMapsCompatible{256|512}-z{min}-{max}.

import { XMLBuilder } from 'fast-xml-parser';
import type { Bounds, Pyramid, ResourceKind, TileFormat, TilesetInfo } from '../store/types';
import { MAX_ZOOM } from '../geo/mercator';
import { isSupportedTileSize, limits, webMercatorQuad, wmtsTmsIdFor } from '../geo/tile-matrix-set';
import { mediaTypeOf, scaleOnePyramids, wmtsTileUrlTemplate, withKey } from './urls';

/** One WMTS layer: one scale-1 pyramid of one resource. */
export interface WmtsLayer {
  kind: ResourceKind;
  /** Resource id (map, tile set or image id). */
  id: string;
  /** Name of the pyramid inside the store ('main', '512', '256'). */
  pyramidName: string;
  /** The WMTS layer identifier, see the header comment. */
  identifier: string;
  title: string;
  abstract: string;
  bounds: Bounds;
  format: TileFormat;
  tileSize: number;
  minzoom: number;
  maxzoom: number;
  /** The pyramid itself, for URL building. */
  pyramid: Pyramid;
}

export interface WmtsCapabilitiesInput {
  /** Public base URL without trailing slash, e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  /** The requester's key; put into every URL. */
  key: string;
  /** Service title. */
  title: string;
  layers: WmtsLayer[];
  /** Absolute URL of this capabilities document as served (with its key), for ServiceMetadataURL and RESTful GetCapabilities. */
  capabilitiesUrl: string;
}

export const WMTS_KVP_PATH = '/wmts';
const WMS_CRS84_URN = 'urn:ogc:def:crs:OGC:2:84';
const EPSG_3857_URN = 'urn:ogc:def:crs:EPSG::3857';
const WMTS_GOOGLE_WKSS = 'urn:ogc:def:wkss:OGC:1.0:GoogleMapsCompatible';

/** WMTS layer identifier of a pyramid of a resource (see header comment). */
export function wmtsLayerId(kind: ResourceKind, id: string, pyramid: Pyramid): string {
  if (kind === 'maps' && pyramid.tileSize === 256) return `maps/${id}/256`;
  return `${kind}/${id}`;
}

/** One layer per scale-1 pyramid of a resource, in the store's pyramid order. */
export function wmtsLayersFor(info: TilesetInfo): WmtsLayer[] {
  return scaleOnePyramids(info)
    .filter((p) => isSupportedTileSize(p.tileSize))
    .map((p) => ({
      kind: info.kind,
      id: info.id,
      pyramidName: p.name,
      identifier: wmtsLayerId(info.kind, info.id, p),
      title: info.kind === 'maps' && p.tileSize === 256 ? `${info.name} (256 px)` : info.name,
      abstract: info.description,
      bounds: p.bounds,
      format: p.format,
      tileSize: p.tileSize,
      minzoom: p.minzoom,
      maxzoom: p.maxzoom,
      pyramid: p,
    }));
}

/** The WMTS TileMatrixSet identifier a layer is linked to. */
export function wmtsTileMatrixSetOf(layer: WmtsLayer): string {
  return wmtsTmsIdFor(layer.tileSize, layer.minzoom, layer.maxzoom);
}

/** Whether a TILEMATRIXSET value names the set of this layer (exact match: identifiers are case-sensitive). */
export function isWmtsTileMatrixSetOf(layer: WmtsLayer, tileMatrixSet: string): boolean {
  return wmtsTileMatrixSetOf(layer) === tileMatrixSet;
}

export interface ResolvedWmtsLayer {
  kind: ResourceKind;
  id: string;
  /** '512' or '256' for maps, 'main' (the first pyramid) for tile sets and images. */
  pyramidName: string;
}

/** Inverts the layer identifiers: 'maps/x/256' -> {maps, x, '256'}; undefined when malformed. */
export function resolveWmtsLayer(layerId: string): ResolvedWmtsLayer | undefined {
  const parts = layerId.split('/');
  const [kind, id, extra] = parts;
  if (!id || parts.length > 3) return undefined;
  if (kind === 'maps') {
    if (parts.length === 2) return { kind, id, pyramidName: '512' };
    if (extra === '256') return { kind, id, pyramidName: '256' };
    return undefined;
  }
  if ((kind === 'tiles' || kind === 'images') && parts.length === 2) return { kind, id, pyramidName: 'main' };
  return undefined;
}

/** The layer of a resource with the given identifier, if the resource has that pyramid. */
export function findWmtsLayer(info: TilesetInfo, layerId: string): WmtsLayer | undefined {
  return wmtsLayersFor(info).find((l) => l.identifier === layerId);
}

// ---------------------------------------------------------------------------------------------
// Capabilities document

// XML 1.0 forbids most control characters even when escaped; drop them from user text.
// eslint-disable-next-line no-control-regex
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
const text = (s: string): string => s.replace(XML_INVALID, '');

/** Numbers print in JavaScript's shortest round-trip form: full precision, no exponent in our ranges. */
const num = (n: number): string => String(n);

/** Element tree as fast-xml-parser's builder wants it: '@_' prefixed keys are attributes. */
type XmlNode = { [name: string]: XmlValue };
type XmlValue = string | XmlNode | XmlNode[] | string[];

function kvpConstraint(encoding: 'KVP' | 'RESTful'): XmlNode {
  return { '@_name': 'GetEncoding', 'ows:AllowedValues': { 'ows:Value': encoding } };
}

function operation(name: string, gets: XmlNode[]): XmlNode {
  return { '@_name': name, 'ows:DCP': { 'ows:HTTP': { 'ows:Get': gets } } };
}

function layerNode(layer: WmtsLayer, baseUrl: string, key: string): XmlNode {
  const [w, s, e, n] = layer.bounds;
  const mediaType = mediaTypeOf(layer.format);
  const tms = webMercatorQuad(layer.tileSize, layer.minzoom, layer.maxzoom);
  const node: XmlNode = { 'ows:Title': text(layer.title) };
  if (layer.abstract) node['ows:Abstract'] = text(layer.abstract);
  node['ows:WGS84BoundingBox'] = {
    '@_crs': WMS_CRS84_URN,
    'ows:LowerCorner': `${num(w)} ${num(s)}`,
    'ows:UpperCorner': `${num(e)} ${num(n)}`,
  };
  node['ows:Identifier'] = text(layer.identifier);
  node['Style'] = { '@_isDefault': 'true', 'ows:Identifier': 'default' };
  node['Format'] = mediaType;
  node['TileMatrixSetLink'] = {
    TileMatrixSet: tms.wmtsId,
    TileMatrixSetLimits: {
      TileMatrixLimits: limits(tms, layer.bounds, layer.minzoom, layer.maxzoom).map((l) => ({
        TileMatrix: l.tileMatrix,
        MinTileRow: num(l.minTileRow),
        MaxTileRow: num(l.maxTileRow),
        MinTileCol: num(l.minTileCol),
        MaxTileCol: num(l.maxTileCol),
      })),
    },
  };
  node['ResourceURL'] = {
    '@_format': mediaType,
    '@_resourceType': 'tile',
    '@_template': wmtsTileUrlTemplate(baseUrl, layer.kind, layer.id, layer.pyramid, key),
  };
  return node;
}

function tileMatrixSetNode(tileSize: number, minzoom: number, maxzoom: number): XmlNode {
  const tms = webMercatorQuad(tileSize, minzoom, maxzoom);
  const node: XmlNode = { 'ows:Identifier': tms.wmtsId, 'ows:SupportedCRS': EPSG_3857_URN };
  // Scales of the 512 px set are not those of the GoogleMapsCompatible well-known scale set.
  if (tileSize === 256) node['WellKnownScaleSet'] = WMTS_GOOGLE_WKSS;
  node['TileMatrix'] = tms.tileMatrices.map((m) => ({
    'ows:Identifier': m.id,
    ScaleDenominator: num(m.scaleDenominator),
    TopLeftCorner: `${num(m.pointOfOrigin[0])} ${num(m.pointOfOrigin[1])}`,
    TileWidth: num(m.tileWidth),
    TileHeight: num(m.tileHeight),
    MatrixWidth: num(m.matrixWidth),
    MatrixHeight: num(m.matrixHeight),
  }));
  return node;
}

/** The WMTS 1.0.0 capabilities XML, element order as in wmtsGetCapabilities_response.xsd. */
export function buildWmtsCapabilities(input: WmtsCapabilitiesInput): string {
  const { baseUrl, key, layers } = input;
  const kvpUrl = `${withKey(baseUrl, WMTS_KVP_PATH, key)}&`;

  const sets = new Map<string, [number, number, number]>();
  for (const l of layers) sets.set(wmtsTileMatrixSetOf(l), [l.tileSize, l.minzoom, l.maxzoom]);

  const doc: XmlNode = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    Capabilities: {
      '@_xmlns': 'http://www.opengis.net/wmts/1.0',
      '@_xmlns:ows': 'http://www.opengis.net/ows/1.1',
      '@_xmlns:xlink': 'http://www.w3.org/1999/xlink',
      '@_xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
      '@_xsi:schemaLocation':
        'http://www.opengis.net/wmts/1.0 http://schemas.opengis.net/wmts/1.0/wmtsGetCapabilities_response.xsd',
      '@_version': '1.0.0',
      'ows:ServiceIdentification': {
        'ows:Title': text(input.title),
        'ows:ServiceType': 'OGC WMTS',
        'ows:ServiceTypeVersion': '1.0.0',
      },
      'ows:OperationsMetadata': {
        'ows:Operation': [
          // GetCapabilities is offered as KVP and as the RESTful document itself (as GeoWebCache and
          // ArcGIS do); ows:HTTP allows any number of ows:Get, each with its own constraints.
          operation('GetCapabilities', [
            { '@_xlink:href': kvpUrl, 'ows:Constraint': kvpConstraint('KVP') },
            { '@_xlink:href': input.capabilitiesUrl, 'ows:Constraint': kvpConstraint('RESTful') },
          ]),
          operation('GetTile', [{ '@_xlink:href': kvpUrl, 'ows:Constraint': kvpConstraint('KVP') }]),
        ],
      },
      Contents: {
        Layer: layers.map((l) => layerNode(l, baseUrl, key)),
        TileMatrixSet: [...sets.values()].map(([size, min, max]) => tileMatrixSetNode(size, min, max)),
      },
      ServiceMetadataURL: { '@_xlink:href': input.capabilitiesUrl },
    },
  };

  const builder = new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    format: true,
    suppressEmptyNode: true,
    // Otherwise an attribute whose value is "true" is written bare (isDefault) which is not XML.
    suppressBooleanAttributes: false,
  });
  return builder.build(doc) as string;
}

// ---------------------------------------------------------------------------------------------
// KVP requests

export type WmtsKvpRequest =
  | { request: 'GetCapabilities' }
  | {
      request: 'GetTile';
      layer: string;
      style?: string;
      tileMatrixSet: string;
      z: number;
      x: number;
      y: number;
      format?: string;
    };

export type WmtsKvpResult = WmtsKvpRequest | { error: string };

type Query = Record<string, string | string[] | undefined>;

/** Case-insensitive lookup; a repeated parameter counts as its first value. */
function param(query: Query, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(query)) {
    if (k.toLowerCase() !== wanted) continue;
    const value = Array.isArray(v) ? v[0] : v;
    if (value !== undefined) return value;
  }
  return undefined;
}

// Digits only, no sign, no leading zero, at most 10 digits: rejects '1.5', '1e2', '-1', ' 3', '0x3'.
const NON_NEGATIVE_INT = /^(0|[1-9][0-9]{0,9})$/;

/**
 * Parses a KVP WMTS request (SERVICE=WMTS&REQUEST=GetTile&...; parameter names case-insensitive,
 * unknown parameters such as key or f ignored). GetTile values are validated strictly; the error
 * names the offending parameter. Layer existence, TILEMATRIXSET membership and FORMAT are checked
 * by the caller against the catalog (resolveWmtsLayer, isWmtsTileMatrixSetOf).
 */
export function parseWmtsKvp(query: Query): WmtsKvpResult {
  const service = param(query, 'SERVICE');
  if (service !== undefined && service.toUpperCase() !== 'WMTS') return { error: 'Invalid SERVICE: expected WMTS' };
  const request = param(query, 'REQUEST');
  if (request === undefined || request === '') return { error: 'Missing REQUEST parameter' };
  const req = request.toLowerCase();
  if (req === 'getcapabilities') return { request: 'GetCapabilities' };
  if (req !== 'gettile') return { error: `Unsupported REQUEST: ${request.slice(0, 40)}` };

  const version = param(query, 'VERSION');
  if (version !== undefined && version !== '1.0.0') return { error: 'Invalid VERSION: expected 1.0.0' };

  const layer = param(query, 'LAYER');
  if (!layer) return { error: 'Missing LAYER parameter' };
  const style = param(query, 'STYLE');
  // Only one style exists; an empty STYLE means the default one.
  if (style !== undefined && style !== '' && style !== 'default') return { error: 'Invalid STYLE: expected default' };
  const tileMatrixSet = param(query, 'TILEMATRIXSET');
  if (!tileMatrixSet) return { error: 'Missing TILEMATRIXSET parameter' };

  const ints: Record<'TILEMATRIX' | 'TILEROW' | 'TILECOL', number> = { TILEMATRIX: 0, TILEROW: 0, TILECOL: 0 };
  for (const name of ['TILEMATRIX', 'TILEROW', 'TILECOL'] as const) {
    const raw = param(query, name);
    if (raw === undefined || raw === '') return { error: `Missing ${name} parameter` };
    if (!NON_NEGATIVE_INT.test(raw)) return { error: `Invalid ${name}: expected a non-negative integer` };
    ints[name] = Number(raw);
  }
  const z = ints.TILEMATRIX;
  if (z > MAX_ZOOM) return { error: 'Invalid TILEMATRIX: out of range' };
  if (ints.TILEROW >= 2 ** z) return { error: 'Invalid TILEROW: out of range' };
  if (ints.TILECOL >= 2 ** z) return { error: 'Invalid TILECOL: out of range' };

  const format = param(query, 'FORMAT');
  const result: WmtsKvpRequest = { request: 'GetTile', layer, tileMatrixSet, z, x: ints.TILECOL, y: ints.TILEROW };
  if (style) result.style = style;
  if (format) result.format = format;
  return result;
}
