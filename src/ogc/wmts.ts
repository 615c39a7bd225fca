// WMTS 1.0.0 (OGC 07-057r7): the layers the server offers and the capabilities document (ServiceMetadata).
// Pure: descriptions and URLs in, XML text out. Requests are read in ./wmts-requests.ts.
//
// Layer identifiers, unique across the server:
//   tiles/{id}          a tile set (its main pyramid)
//   maps/{id}           a map's 512 px pyramid (MapTiler names its WMTS layers the same way)
//   maps/{id}/256       a map's 256 px pyramid
//   images/{id}         an image
//   weather/{name}      a weather variable, with a Time dimension (./weather-layers.ts)
// Tile matrix sets: one per (tile size, zoom range) in use, GoogleMapsCompatible{256|512}-z{min}-{max}.
//
// RESTful tiles (07-057r7 §10.2), one template per layer, the layer identifier's segments in the path:
//   /wmts/1.0.0/{layer}/{Style}[/{Dimension}...]/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.{ext}
// A layer with sample dimensions (a Time, say) has one path segment per dimension after the style, in the order
// of its `dimensions`; the KVP GetTile names them as parameters.

import { XMLBuilder } from 'fast-xml-parser';
import type { Grid } from '../geo/grids';
import type { Bounds, Pyramid, ResourceKind, TileFormat, TilesetInfo } from '../store/types';
import { isSupportedTileSize, limits, webMercatorQuad, wmtsTmsIdFor, type TileMatrixLimits } from '../geo/tile-matrix-set';
import { mediaTypeOf, scaleOnePyramids, withKey } from './urls';

/**
 * A sample dimension of a layer (07-057r7 Table 9): a request picks one of its values (KVP: a parameter named by
 * the identifier; RESTful: the `{identifier}` segment), the default when it names none.
 */
export interface WmtsDimension {
  /** ows:Identifier, e.g. `Time`; also the KVP parameter name and the template variable. */
  identifier: string;
  title?: string;
  /** Unit of measure of the values (ows:UOM), e.g. `ISO8601`. */
  uom?: string;
  /** The value of a request that gives none. */
  default: string;
  /** Every value a request may ask for. */
  values: readonly string[];
}

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
  /** The pyramid itself. */
  pyramid: Pyramid;
  /** Sample dimensions (none for maps, tile sets and images). */
  dimensions?: readonly WmtsDimension[];
  /** Grids besides Web Mercator the layer is also offered in (its tiles drawn from the Web Mercator ones). */
  grids?: readonly Grid[];
}

/** Contact of the service provider (06-121r3 ServiceContact, ResponsiblePartySubsetType); every field optional. */
export interface OwsContact {
  /** IndividualName */
  name?: string;
  /** PositionName */
  position?: string;
  /** Role (a code, e.g. `pointOfContact`) */
  role?: string;
  phone?: string;
  fax?: string;
  email?: string;
  address?: { deliveryPoint?: string; city?: string; administrativeArea?: string; postalCode?: string; country?: string };
  /** HoursOfService */
  hours?: string;
  /** ContactInstructions */
  instructions?: string;
}

/** ServiceIdentification and ServiceProvider of a capabilities document (06-121r3 §7.4.3, §7.4.4). */
export interface OwsServiceMetadata {
  title: string;
  abstract?: string;
  keywords?: readonly string[];
  fees?: string;
  accessConstraints?: string;
  provider: {
    name: string;
    /** ProviderSite: the provider's web site. */
    site?: string;
    contact?: OwsContact;
  };
}

/** The sections a GetCapabilities request may ask for (06-121r3 Table 6, 07-057r7 Table 18), `All` aside. */
export const WMTS_SECTIONS = ['ServiceIdentification', 'ServiceProvider', 'OperationsMetadata', 'Contents', 'Themes'] as const;
export type WmtsSection = (typeof WMTS_SECTIONS)[number];

export interface WmtsCapabilitiesInput {
  /** Public base URL without trailing slash, e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  /** The requester's key; put into every URL. */
  key: string;
  service: OwsServiceMetadata;
  layers: WmtsLayer[];
  /** Absolute URL of this capabilities document as served (with its key): ServiceMetadataURL. */
  capabilitiesUrl: string;
  /** Only these sections (GetCapabilities `Sections`); absent: the complete document. */
  sections?: ReadonlySet<WmtsSection>;
}

export const WMTS_KVP_PATH = '/wmts';
/** Prefix of the RESTful resources: the service-wide capabilities and every tile. */
export const WMTS_REST_PATH = '/wmts/1.0.0';
export const WMTS_VERSION = '1.0.0';
/** The one style of every layer. */
export const WMTS_STYLE = 'default';
const WMS_CRS84_URN = 'urn:ogc:def:crs:OGC:2:84';
const EPSG_3857_URN = 'urn:ogc:def:crs:EPSG::3857';
/** The CRS of the GoogleMapsCompatible well-known scale set as 07-057r7 Annex E names it (NASA GIBS and others publish it too). */
const GOOGLE_WKSS_CRS_URN = 'urn:ogc:def:crs:EPSG:6.18:3:3857';
const WMTS_GOOGLE_WKSS = 'urn:ogc:def:wkss:OGC:1.0:GoogleMapsCompatible';

/** WMTS layer identifier of a pyramid of a resource (see header comment). */
export function wmtsLayerId(kind: ResourceKind, id: string, pyramid: Pyramid): string {
  if (kind === 'maps' && pyramid.tileSize === 256) return `maps/${id}/256`;
  return `${kind}/${id}`;
}

/** What a layer takes from the pyramid it offers: its name, bounds, format, tile size and zooms. */
export function pyramidLayerFields(p: Pyramid): Pick<WmtsLayer, 'pyramidName' | 'bounds' | 'format' | 'tileSize' | 'minzoom' | 'maxzoom' | 'pyramid'> {
  return { pyramidName: p.name, bounds: p.bounds, format: p.format, tileSize: p.tileSize, minzoom: p.minzoom, maxzoom: p.maxzoom, pyramid: p };
}

/** One layer per scale-1 pyramid of a resource, in the store's pyramid order. */
export function wmtsLayersFor(info: TilesetInfo): WmtsLayer[] {
  return scaleOnePyramids(info)
    .filter((p) => isSupportedTileSize(p.tileSize))
    .map((p) => ({
      kind: info.kind,
      id: info.id,
      identifier: wmtsLayerId(info.kind, info.id, p),
      title: info.kind === 'maps' && p.tileSize === 256 ? `${info.name} (256 px)` : info.name,
      abstract: info.description,
      ...pyramidLayerFields(p),
    }));
}

/** The WMTS TileMatrixSet identifier a layer is linked to. */
export function wmtsTileMatrixSetOf(layer: WmtsLayer): string {
  return wmtsTmsIdFor(layer.tileSize, layer.minzoom, layer.maxzoom);
}

/** The TileMatrixSetLimits of a layer: for each matrix, the rows and columns its bounds cover. */
export function wmtsLimitsOf(layer: WmtsLayer): TileMatrixLimits[] {
  return limits(webMercatorQuad(layer.tileSize, layer.minzoom, layer.maxzoom), layer.bounds, layer.minzoom, layer.maxzoom);
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

/** File extension of a tile format in RESTful tile URLs. */
export const WMTS_EXTENSIONS: Readonly<Record<TileFormat, string>> = { png: 'png', jpg: 'jpg', webp: 'webp', pbf: 'pbf', basis: 'basis' };

/** Absolute RESTful tile URL template of a layer (the header comment's form), with the key. */
export function wmtsTileTemplate(baseUrl: string, layer: WmtsLayer, key: string): string {
  const layerPath = layer.identifier.split('/').map(encodeURIComponent).join('/');
  const dims = (layer.dimensions ?? []).map((d) => `/{${d.identifier}}`).join('');
  const path = `${WMTS_REST_PATH}/${layerPath}/{Style}${dims}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.${WMTS_EXTENSIONS[layer.format]}`;
  return withKey(baseUrl, path, key);
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

/** The node without its absent (undefined or empty) children, so they are not written at all. */
function present(node: Record<string, XmlValue | undefined>): XmlNode {
  const out: XmlNode = {};
  for (const [k, v] of Object.entries(node)) {
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return out;
}

const userText = (s: string | undefined): string | undefined => (s === undefined ? undefined : text(s));

function serviceIdentification(service: OwsServiceMetadata, title: string): XmlNode {
  const keywords = (service.keywords ?? []).map(text).filter((k) => k !== '');
  return present({
    'ows:Title': text(title),
    'ows:Abstract': userText(service.abstract),
    'ows:Keywords': keywords.length ? { 'ows:Keyword': keywords } : undefined,
    'ows:ServiceType': 'OGC WMTS',
    'ows:ServiceTypeVersion': WMTS_VERSION,
    'ows:Fees': userText(service.fees),
    'ows:AccessConstraints': userText(service.accessConstraints),
  });
}

function serviceProvider(provider: OwsServiceMetadata['provider']): XmlNode {
  const c = provider.contact ?? {};
  const a = c.address ?? {};
  const contactInfo = present({
    'ows:Phone': present({ 'ows:Voice': userText(c.phone), 'ows:Facsimile': userText(c.fax) }),
    'ows:Address': present({
      'ows:DeliveryPoint': userText(a.deliveryPoint),
      'ows:City': userText(a.city),
      'ows:AdministrativeArea': userText(a.administrativeArea),
      'ows:PostalCode': userText(a.postalCode),
      'ows:Country': userText(a.country),
      'ows:ElectronicMailAddress': userText(c.email),
    }),
    'ows:HoursOfService': userText(c.hours),
    'ows:ContactInstructions': userText(c.instructions),
  });
  const contact = present({
    'ows:IndividualName': userText(c.name),
    'ows:PositionName': userText(c.position),
    'ows:ContactInfo': contactInfo,
    'ows:Role': userText(c.role),
  });
  const node = present({
    'ows:ProviderName': text(provider.name),
    'ows:ProviderSite': provider.site ? { '@_xlink:href': text(provider.site) } : undefined,
  });
  // Required, even when nothing is known of the contact (then empty).
  node['ows:ServiceContact'] = Object.keys(contact).length ? contact : '';
  return node;
}

function encodingConstraint(encoding: 'KVP' | 'RESTful'): XmlNode {
  return { '@_name': 'GetEncoding', 'ows:AllowedValues': { 'ows:Value': encoding } };
}

function operation(name: string, href: string): XmlNode {
  return { '@_name': name, 'ows:DCP': { 'ows:HTTP': { 'ows:Get': { '@_xlink:href': href, 'ows:Constraint': encodingConstraint('KVP') } } } };
}

function dimensionNode(d: WmtsDimension): XmlNode {
  return present({
    'ows:Title': userText(d.title),
    'ows:Identifier': text(d.identifier),
    'ows:UOM': userText(d.uom),
    Default: text(d.default),
    Value: d.values.map(text),
  });
}

function layerNode(layer: WmtsLayer, baseUrl: string, key: string): XmlNode {
  const [w, s, e, n] = layer.bounds;
  const mediaType = mediaTypeOf(layer.format);
  const node: XmlNode = { 'ows:Title': text(layer.title) };
  if (layer.abstract) node['ows:Abstract'] = text(layer.abstract);
  node['ows:WGS84BoundingBox'] = {
    '@_crs': WMS_CRS84_URN,
    'ows:LowerCorner': `${num(w)} ${num(s)}`,
    'ows:UpperCorner': `${num(e)} ${num(n)}`,
  };
  node['ows:Identifier'] = text(layer.identifier);
  node['Style'] = { '@_isDefault': 'true', 'ows:Identifier': WMTS_STYLE };
  node['Format'] = mediaType;
  if (layer.dimensions?.length) node['Dimension'] = layer.dimensions.map(dimensionNode);
  node['TileMatrixSetLink'] = {
    TileMatrixSet: wmtsTileMatrixSetOf(layer),
    TileMatrixSetLimits: {
      TileMatrixLimits: wmtsLimitsOf(layer).map((l) => ({
        TileMatrix: l.tileMatrix,
        MinTileRow: num(l.minTileRow),
        MaxTileRow: num(l.maxTileRow),
        MinTileCol: num(l.minTileCol),
        MaxTileCol: num(l.maxTileCol),
      })),
    },
  };
  // The other grids: no limits (optional in 07-057r7); a tile outside the layer's area is transparent.
  if (layer.grids?.length) node['TileMatrixSetLink'] = [node['TileMatrixSetLink'] as XmlNode, ...layer.grids.map((g) => ({ TileMatrixSet: g.id }))];
  node['ResourceURL'] = { '@_format': mediaType, '@_resourceType': 'tile', '@_template': wmtsTileTemplate(baseUrl, layer, key) };
  return node;
}

/** A grid's TileMatrixSet: TopLeftCorner in the CRS's own axis order (07-057r7 §6.1.1, northing first for EPSG:3035). */
function gridTileMatrixSetNode(grid: Grid): XmlNode {
  const corner = grid.northFirst ? `${num(grid.origin[1])} ${num(grid.origin[0])}` : `${num(grid.origin[0])} ${num(grid.origin[1])}`;
  const node: XmlNode = { 'ows:Title': text(grid.title), 'ows:Identifier': text(grid.id), 'ows:SupportedCRS': grid.crsUrn };
  if (grid.wellKnownScaleSet) node['WellKnownScaleSet'] = grid.wellKnownScaleSet.urn;
  node['TileMatrix'] = grid.matrices.map((m) => ({
    'ows:Identifier': m.id,
    ScaleDenominator: num(m.scaleDenominator),
    TopLeftCorner: corner,
    TileWidth: num(grid.tileSize),
    TileHeight: num(grid.tileSize),
    MatrixWidth: num(m.matrixWidth),
    MatrixHeight: num(m.matrixHeight),
  }));
  return node;
}

function tileMatrixSetNode(tileSize: number, minzoom: number, maxzoom: number): XmlNode {
  const tms = webMercatorQuad(tileSize, minzoom, maxzoom);
  // Scales of the 512 px set are not those of the GoogleMapsCompatible well-known scale set; a set that names it
  // gives the CRS as that scale set defines it (the OGC's test suite compares the two).
  const wellKnown = tileSize === 256;
  const node: XmlNode = { 'ows:Identifier': tms.wmtsId, 'ows:SupportedCRS': wellKnown ? GOOGLE_WKSS_CRS_URN : EPSG_3857_URN };
  if (wellKnown) node['WellKnownScaleSet'] = WMTS_GOOGLE_WKSS;
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

function contents(layers: readonly WmtsLayer[], baseUrl: string, key: string): XmlNode {
  const sets = new Map<string, [number, number, number]>();
  for (const l of layers) sets.set(wmtsTileMatrixSetOf(l), [l.tileSize, l.minzoom, l.maxzoom]);
  const grids = new Map<string, Grid>();
  for (const l of layers) for (const g of l.grids ?? []) grids.set(g.id, g);
  return {
    Layer: layers.map((l) => layerNode(l, baseUrl, key)),
    TileMatrixSet: [...[...sets.values()].map(([size, min, max]) => tileMatrixSetNode(size, min, max)), ...[...grids.values()].map(gridTileMatrixSetNode)],
  };
}

/**
 * The WMTS 1.0.0 capabilities XML, element order as in wmtsGetCapabilities_response.xsd. With `sections`, only
 * those that exist (no themes are defined: Themes is never written) and no ServiceMetadataURL, which is no section.
 */
export function buildWmtsCapabilities(input: WmtsCapabilitiesInput): string {
  const { baseUrl, key, layers, sections } = input;
  const wants = (s: WmtsSection): boolean => !sections || sections.has(s);
  const kvpUrl = `${withKey(baseUrl, WMTS_KVP_PATH, key)}&`;

  const capabilities: XmlNode = {
    '@_xmlns': 'http://www.opengis.net/wmts/1.0',
    '@_xmlns:ows': 'http://www.opengis.net/ows/1.1',
    '@_xmlns:xlink': 'http://www.w3.org/1999/xlink',
    '@_xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
    '@_xsi:schemaLocation': 'http://www.opengis.net/wmts/1.0 http://schemas.opengis.net/wmts/1.0/wmtsGetCapabilities_response.xsd',
    '@_version': WMTS_VERSION,
  };
  if (wants('ServiceIdentification')) capabilities['ows:ServiceIdentification'] = serviceIdentification(input.service, input.service.title);
  if (wants('ServiceProvider')) capabilities['ows:ServiceProvider'] = serviceProvider(input.service.provider);
  if (wants('OperationsMetadata')) {
    // One KVP href per operation: the RESTful capabilities are the ServiceMetadataURL (07-057r7 §10.1), the
    // RESTful tiles each layer's ResourceURL.
    capabilities['ows:OperationsMetadata'] = { 'ows:Operation': [operation('GetCapabilities', kvpUrl), operation('GetTile', kvpUrl)] };
  }
  if (wants('Contents')) capabilities['Contents'] = contents(layers, baseUrl, key);
  if (!sections) capabilities['ServiceMetadataURL'] = { '@_xlink:href': input.capabilitiesUrl };

  const builder = new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    format: true,
    suppressEmptyNode: true,
    // Otherwise an attribute whose value is "true" is written bare (isDefault) which is not XML.
    suppressBooleanAttributes: false,
  });
  return builder.build({ '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' }, Capabilities: capabilities }) as string;
}
