// WMTS 1.0.0 requests read and checked: KVP GetCapabilities and GetTile (OGC 07-057r7 §8, OGC 06-121r3 §7.2,
// §11.5.2), RESTful tile paths (07-057r7 §10.2), and a tile request checked against its layer. Pure: parameters in,
// a request or the OWS exception that answers it out. Which HTTP status an exception gets is http's concern.
//
// Parameter names are case-insensitive, values case-sensitive (06-121r3 §11.5.2). Locators name the parameter as
// the request encoding writes it: `service`, `request`, `AcceptVersions`, `Sections` (06-121r3 Table 5) for
// GetCapabilities; `Service`, `Version`, `Layer`, `Style`, `Format`, `TileMatrixSet`, `TileMatrix`, `TileRow`,
// `TileCol` and a dimension's identifier (07-057r7 Table 29) for GetTile.

import type { Grid, GridMatrix } from '../geo/grids';
import { tileRange } from '../geo/mercator';
import type { TileFormat } from '../store/types';
import type { OwsException } from './ows-exception';
import { mediaTypeOf } from './urls';
import { WMTS_SECTIONS, WMTS_STYLE, WMTS_VERSION, wmtsTileMatrixSetOf, type WmtsLayer, type WmtsSection } from './wmts';

/** A request read, or the exception that answers it. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; exception: OwsException };

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
const fail = (code: OwsException['code'], locator: string | undefined, text: string): { ok: false; exception: OwsException } => ({
  ok: false,
  exception: locator === undefined ? { code, text } : { code, locator, text },
});

/** Quoted back in an exception text: at most 80 characters of what the client sent. */
const quote = (value: string): string => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);

/** KVP parameters by lower-cased name, each with its first value. */
export type KvpParams = ReadonlyMap<string, string>;

/**
 * Reads query parameters: names lower-cased (they are case-insensitive), the first of a repeated parameter kept.
 * A `?` before a name is dropped: a client that joins `?query` to a URL prefix already ending in `&` (the OGC
 * test suite's exception tests do so with the advertised `…/wmts?key=…&`) still means that parameter.
 */
export function kvpParams(entries: Iterable<[string, string]>): KvpParams {
  const params = new Map<string, string>();
  for (const [name, value] of entries) {
    const n = name.replace(/^\?+/, '').toLowerCase();
    if (!params.has(n)) params.set(n, value);
  }
  return params;
}

export interface WmtsGetCapabilities {
  request: 'GetCapabilities';
  /** The sections asked for; absent: all (no `Sections`, or `All` among them). */
  sections?: ReadonlySet<WmtsSection>;
}

/** The parameters of a GetTile as sent (KVP or RESTful), before its layer is known. */
export interface WmtsTileRequest {
  layer: string;
  style: string;
  /** Media type. */
  format: string;
  tileMatrixSet: string;
  tileMatrix: string;
  tileRow: string;
  tileCol: string;
  /** The value sent for a sample dimension of the layer (by its identifier, any letter case), if any. */
  dimension(identifier: string): string | undefined;
}

export interface WmtsGetTile {
  request: 'GetTile';
  tile: WmtsTileRequest;
}

/**
 * What a path implies when its query does not say it: the RESTful capabilities URLs are the service's and the
 * GetCapabilities operation's own, so there SERVICE and REQUEST default to WMTS and GetCapabilities.
 */
export interface KvpDefaults {
  service?: 'WMTS';
  request?: 'GetCapabilities';
}

/** Operations of WMTS 1.0 this server does not implement (07-057r7: GetFeatureInfo is optional). */
const NOT_IMPLEMENTED = new Set(['GetFeatureInfo']);

/** Reads a KVP request: the operation, SERVICE, and that operation's mandatory parameters (present, not empty). */
export function parseWmtsKvp(params: KvpParams, defaults: KvpDefaults = {}): Outcome<WmtsGetCapabilities | WmtsGetTile> {
  const request = params.get('request') ?? defaults.request;
  if (!request) return fail('MissingParameterValue', 'request', 'Missing parameter: request');
  if (NOT_IMPLEMENTED.has(request)) return fail('OperationNotSupported', request, `Operation not supported: ${request}`);
  if (request !== 'GetCapabilities' && request !== 'GetTile') {
    return fail('InvalidParameterValue', 'request', `Invalid request ${quote(request)}: expected GetCapabilities or GetTile`);
  }
  const serviceLocator = request === 'GetTile' ? 'Service' : 'service';
  const service = params.get('service') ?? defaults.service;
  if (!service) return fail('MissingParameterValue', serviceLocator, `Missing parameter: ${serviceLocator}`);
  if (service !== 'WMTS') return fail('InvalidParameterValue', serviceLocator, `Invalid ${serviceLocator} ${quote(service)}: expected WMTS`);
  return request === 'GetCapabilities' ? parseGetCapabilities(params) : parseGetTile(params);
}

/**
 * GetCapabilities: AcceptVersions negotiated (1.0.0 is the one version), Sections chosen. VERSION is not a
 * GetCapabilities parameter (06-121r3 §7.3.1: AcceptVersions is) and is ignored, as are updateSequence (this server
 * keeps none: 06-121r3 §7.3.4 then asks for the latest document) and AcceptFormats (not supported: the document is
 * XML whatever it asks).
 */
function parseGetCapabilities(params: KvpParams): Outcome<WmtsGetCapabilities> {
  const accept = params.get('acceptversions');
  if (accept !== undefined) {
    if (accept === '') return fail('MissingParameterValue', 'AcceptVersions', 'Missing value: AcceptVersions');
    if (!accept.split(',').includes(WMTS_VERSION)) {
      return fail('VersionNegotiationFailed', undefined, `None of the versions ${quote(accept)} is supported; this server supports ${WMTS_VERSION}`);
    }
  }
  const sections = params.get('sections');
  if (sections === undefined) return ok({ request: 'GetCapabilities' });
  if (sections === '') return fail('MissingParameterValue', 'Sections', 'Missing value: Sections');
  const names = sections.split(',');
  const unknown = names.find((n) => n !== 'All' && !(WMTS_SECTIONS as readonly string[]).includes(n));
  if (unknown !== undefined) return fail('InvalidParameterValue', 'Sections', `Invalid section ${quote(unknown)}: expected All or ${WMTS_SECTIONS.join(', ')}`);
  if (names.includes('All')) return ok({ request: 'GetCapabilities' });
  return ok({ request: 'GetCapabilities', sections: new Set(names as WmtsSection[]) });
}

/** The value a request sent for a parameter named by a sample dimension's identifier (any letter case), if any. */
export type DimensionValues = (identifier: string) => string | undefined;

/** The dimension values of KVP parameters. */
export const kvpDimensionValues =
  (params: KvpParams): DimensionValues =>
  (identifier) =>
    params.get(identifier.toLowerCase());

/**
 * The layers as a GetCapabilities that names a value of a sample dimension (`TIME=2024-01-01T06:00:00Z`, a vendor
 * parameter) describes them: every layer offering that value has it as its Default. A client that requests every
 * tile at the Default, as GDAL's WMTS driver does (it substitutes the Default for `{Time}` and has no option to
 * choose another), reads the layer at that value from this document. A value no layer with that dimension offers is
 * InvalidParameterValue; a parameter naming no dimension of these layers, an empty value or `default` changes nothing.
 */
export function withRequestedDefaults(layers: readonly WmtsLayer[], values: DimensionValues): Outcome<WmtsLayer[]> {
  const out = [...layers];
  const identifiers = [...new Set(layers.flatMap((l) => (l.dimensions ?? []).map((d) => d.identifier)))];
  for (const identifier of identifiers) {
    const value = values(identifier);
    if (value === undefined || value === '' || value === DEFAULT_VALUE) continue;
    let offered = false;
    for (const [i, layer] of out.entries()) {
      const dims = layer.dimensions ?? [];
      if (!dims.some((d) => d.identifier === identifier && d.values.includes(value))) continue;
      offered = true;
      out[i] = { ...layer, dimensions: dims.map((d) => (d.identifier === identifier ? { ...d, default: value } : d)) };
    }
    if (!offered) return fail('InvalidParameterValue', identifier, `Invalid ${identifier} ${quote(value)}: no layer offers it`);
  }
  return ok(out);
}

/** The mandatory GetTile parameters after Service, Request and Version, in the order of 07-057r7 Table 29. */
const TILE_PARAMETERS = ['Layer', 'Style', 'Format', 'TileMatrixSet', 'TileMatrix', 'TileRow', 'TileCol'] as const;

function parseGetTile(params: KvpParams): Outcome<WmtsGetTile> {
  const version = params.get('version');
  if (!version) return fail('MissingParameterValue', 'Version', 'Missing parameter: Version');
  if (version !== WMTS_VERSION) return fail('InvalidParameterValue', 'Version', `Invalid Version ${quote(version)}: expected ${WMTS_VERSION}`);
  const values: Partial<Record<(typeof TILE_PARAMETERS)[number], string>> = {};
  for (const name of TILE_PARAMETERS) {
    const value = params.get(name.toLowerCase());
    if (!value) return fail('MissingParameterValue', name, `Missing parameter: ${name}`);
    values[name] = value;
  }
  const v = values as Record<(typeof TILE_PARAMETERS)[number], string>;
  return ok({
    request: 'GetTile',
    tile: {
      layer: v.Layer,
      style: v.Style,
      format: v.Format,
      tileMatrixSet: v.TileMatrixSet,
      tileMatrix: v.TileMatrix,
      tileRow: v.TileRow,
      tileCol: v.TileCol,
      dimension: (identifier) => params.get(identifier.toLowerCase()),
    },
  });
}

/** The path segments of a RESTful tile URL (07-057r7 §10.2.1), as matched: `ext` is the file extension. */
export interface WmtsRestTilePath {
  layer: string;
  style: string;
  tileMatrixSet: string;
  tileMatrix: string;
  tileRow: string;
  tileCol: string;
  ext: string;
  /** Sample dimension segments by identifier. */
  dimensions?: Readonly<Record<string, string>>;
}

/** Media type of a RESTful tile extension. */
const EXTENSION_MEDIA_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  pbf: 'application/vnd.mapbox-vector-tile',
  mvt: 'application/vnd.mapbox-vector-tile',
  basis: 'application/octet-stream',
};

/** Reads a RESTful tile path into the request a KVP GetTile would make; an empty segment is a missing parameter. */
export function parseWmtsRestTile(p: WmtsRestTilePath): Outcome<WmtsTileRequest> {
  const segments: [string, string][] = [
    ['Layer', p.layer],
    ['Style', p.style],
    ['TileMatrixSet', p.tileMatrixSet],
    ['TileMatrix', p.tileMatrix],
    ['TileRow', p.tileRow],
    ['TileCol', p.tileCol],
  ];
  for (const [identifier, value] of Object.entries(p.dimensions ?? {})) segments.push([identifier, value]);
  const missing = segments.find(([, value]) => value === '');
  if (missing) return fail('MissingParameterValue', missing[0], `Missing path segment: ${missing[0]}`);
  const format = Object.hasOwn(EXTENSION_MEDIA_TYPES, p.ext) ? EXTENSION_MEDIA_TYPES[p.ext] : undefined;
  if (!format) return fail('InvalidParameterValue', 'Format', `Invalid extension ${quote(p.ext)}: expected png, jpg, webp or pbf`);
  const dimensions = new Map(Object.entries(p.dimensions ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  return ok({
    layer: p.layer,
    style: p.style,
    format,
    tileMatrixSet: p.tileMatrixSet,
    tileMatrix: p.tileMatrix,
    tileRow: p.tileRow,
    tileCol: p.tileCol,
    dimension: (identifier) => dimensions.get(identifier.toLowerCase()),
  });
}

/** A tile request checked against its layer: the address, the format to answer in, each dimension's value. */
export interface WmtsTile {
  layer: WmtsLayer;
  z: number;
  /** TileCol */
  x: number;
  /** TileRow */
  y: number;
  format: TileFormat;
  /** Value of each sample dimension of the layer (its default when the request named none), by identifier. */
  dimensions: Record<string, string>;
  /** The identifiers of the dimensions whose value is the Default because the request named none (or `default`). */
  defaulted: string[];
  /** A tile of another grid than Web Mercator (z, x, y are then its matrix's index, column and row). */
  grid?: { grid: Grid; matrix: GridMatrix };
}

/** A dimension value that asks for the dimension's Default (as no value does). */
const DEFAULT_VALUE = 'default';

/** Raster media types a raster layer can be answered in (other than its own, by conversion). */
const RASTER_MEDIA_TYPES: Readonly<Record<string, TileFormat>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };
const RASTER: readonly TileFormat[] = ['png', 'jpg', 'webp'];

/** The format a FORMAT value asks of a layer: its advertised one, or another raster format of a raster layer. */
export function wmtsFormatFor(layer: WmtsLayer, mediaType: string): TileFormat | undefined {
  if (mediaType === mediaTypeOf(layer.format)) return layer.format;
  const raster = Object.hasOwn(RASTER_MEDIA_TYPES, mediaType) ? RASTER_MEDIA_TYPES[mediaType] : undefined;
  return raster && RASTER.includes(layer.format) ? raster : undefined;
}

// Digits only, no sign, no leading zero, at most 10 digits: rejects '1.5', '1e2', '-1', ' 3', '0x3'.
const NON_NEGATIVE_INT = /^(0|[1-9][0-9]{0,9})$/;

/**
 * Checks a tile request against its layer (undefined: no such layer): the style, the format, the tile matrix set,
 * the tile matrix (an identifier of the set), the row and column (inside the layer's TileMatrixSetLimits, else
 * TileOutOfRange) and the value of each sample dimension.
 */
/** The dimension values of a request for a layer (each the Default when not named), or the exception. */
function dimensionValues(layer: WmtsLayer, t: WmtsTileRequest): Outcome<{ dimensions: Record<string, string>; defaulted: string[] }> {
  const dimensions: Record<string, string> = {};
  const defaulted: string[] = [];
  for (const d of layer.dimensions ?? []) {
    const value = t.dimension(d.identifier);
    if (value === undefined || value === '' || value === DEFAULT_VALUE) {
      dimensions[d.identifier] = d.default;
      defaulted.push(d.identifier);
    } else if (d.values.includes(value)) {
      dimensions[d.identifier] = value;
    } else {
      return fail('InvalidParameterValue', d.identifier, `Invalid ${d.identifier} ${quote(value)} of layer ${layer.identifier}: expected one of its values (or ${DEFAULT_VALUE}), e.g. ${d.default}`);
    }
  }
  return ok({ dimensions, defaulted });
}

/** A GetTile in one of the layer's other grids: a raster format, a matrix of the grid, a tile inside it. */
function checkGridTile(layer: WmtsLayer, grid: Grid, t: WmtsTileRequest, format: TileFormat): Outcome<WmtsTile> {
  const index = grid.matrices.findIndex((m) => m.id === t.tileMatrix);
  if (index < 0) return fail('InvalidParameterValue', 'TileMatrix', `Unknown tile matrix ${quote(t.tileMatrix)} of ${grid.id}: expected ${grid.matrices[0].id} to ${grid.matrices[grid.matrices.length - 1].id}`);
  const matrix = grid.matrices[index];
  if (!NON_NEGATIVE_INT.test(t.tileRow)) return fail('InvalidParameterValue', 'TileRow', `Invalid TileRow ${quote(t.tileRow)}: expected a non-negative integer`);
  if (!NON_NEGATIVE_INT.test(t.tileCol)) return fail('InvalidParameterValue', 'TileCol', `Invalid TileCol ${quote(t.tileCol)}: expected a non-negative integer`);
  const y = Number(t.tileRow);
  const x = Number(t.tileCol);
  if (y >= matrix.matrixHeight) return fail('TileOutOfRange', 'TileRow', `TileRow ${y} is outside 0 to ${matrix.matrixHeight - 1} in tile matrix ${matrix.id} of ${grid.id}`);
  if (x >= matrix.matrixWidth) return fail('TileOutOfRange', 'TileCol', `TileCol ${x} is outside 0 to ${matrix.matrixWidth - 1} in tile matrix ${matrix.id} of ${grid.id}`);
  const dims = dimensionValues(layer, t);
  if (!dims.ok) return dims;
  return ok({ layer, z: index, x, y, format, ...dims.value, grid: { grid, matrix } });
}

export function checkWmtsTile(layer: WmtsLayer | undefined, t: WmtsTileRequest): Outcome<WmtsTile> {
  if (!layer) return fail('InvalidParameterValue', 'Layer', `Unknown layer ${quote(t.layer)}`);
  if (t.style !== WMTS_STYLE) return fail('InvalidParameterValue', 'Style', `Unknown style ${quote(t.style)} of layer ${layer.identifier}: expected ${WMTS_STYLE}`);
  const format = wmtsFormatFor(layer, t.format);
  if (!format) return fail('InvalidParameterValue', 'Format', `Format ${quote(t.format)} is not offered for layer ${layer.identifier}: expected ${mediaTypeOf(layer.format)}`);
  const set = wmtsTileMatrixSetOf(layer);
  const grid = layer.grids?.find((g) => g.id === t.tileMatrixSet);
  if (grid) return checkGridTile(layer, grid, t, format);
  if (t.tileMatrixSet !== set) return fail('InvalidParameterValue', 'TileMatrixSet', `Unknown tile matrix set ${quote(t.tileMatrixSet)} of layer ${layer.identifier}: expected ${[set, ...(layer.grids ?? []).map((g) => g.id)].join(', ')}`);
  // The set's matrices are named by their zoom, minzoom to maxzoom (a leading zero names none).
  const z = NON_NEGATIVE_INT.test(t.tileMatrix) ? Number(t.tileMatrix) : -1;
  if (z < layer.minzoom || z > layer.maxzoom) return fail('InvalidParameterValue', 'TileMatrix', `Unknown tile matrix ${quote(t.tileMatrix)} of ${set}: expected ${layer.minzoom} to ${layer.maxzoom}`);
  if (!NON_NEGATIVE_INT.test(t.tileRow)) return fail('InvalidParameterValue', 'TileRow', `Invalid TileRow ${quote(t.tileRow)}: expected a non-negative integer`);
  if (!NON_NEGATIVE_INT.test(t.tileCol)) return fail('InvalidParameterValue', 'TileCol', `Invalid TileCol ${quote(t.tileCol)}: expected a non-negative integer`);
  const y = Number(t.tileRow);
  const x = Number(t.tileCol);
  // The TileMatrixSetLimits of that matrix, as the capabilities advertise them (wmtsLimitsOf: the same range).
  const r = tileRange(layer.bounds, z);
  if (y < r.minY || y > r.maxY) return fail('TileOutOfRange', 'TileRow', `TileRow ${y} is outside ${r.minY} to ${r.maxY} in tile matrix ${z} of layer ${layer.identifier}`);
  if (x < r.minX || x > r.maxX) return fail('TileOutOfRange', 'TileCol', `TileCol ${x} is outside ${r.minX} to ${r.maxX} in tile matrix ${z} of layer ${layer.identifier}`);
  const dims = dimensionValues(layer, t);
  if (!dims.ok) return dims;
  return ok({ layer, z, x, y, format, ...dims.value });
}
