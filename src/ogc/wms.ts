// WMS 1.3.0 (OGC 06-042) and 1.1.1 (OGC 01-068r3): the layers the server offers and the capabilities document.
// Pure: descriptions and URLs in, XML text out. Requests are read in ./wms-requests.ts.
//
// A layer is one raster resource, named as its WMTS layer is: `maps/{id}` (its 512 px pyramid, or the renders of a
// map drawn here), `tiles/{id}` (a raster tile set), `images/{id}`. Every layer is offered in every CRS of the root
// layer (inherited, §7.2.4.8); a GetMap in any other EPSG CRS PROJ reaches is answered too.

import { XMLBuilder } from 'fast-xml-parser';
import type { Bounds, TilesetInfo } from '../store/types';
import { WMS_FORMATS } from './wms-requests';
import type { WmsVersion } from './wms-exception';
import { weatherAbstract, weatherLayerId } from './weather-layers';
import { latestKeyframe, type WeatherVariable } from './weather-variables';
import { wmtsLayersFor } from './wmts';

export interface WmsLayer {
  /** The WMS layer Name (the WMTS layer identifier). */
  name: string;
  kind: TilesetInfo['kind'];
  id: string;
  /** The pyramid a GetMap draws from first (the map's 512 px one; the main one of a tile set or image). */
  pyramidName: string;
  title: string;
  abstract: string;
  bounds: Bounds;
  /** Whether the tiles have no transparent pixel (jpeg): the layer is `opaque`. */
  opaque: boolean;
  /** A weather variable's TIME dimension: its keyframes' times (ISO 8601, UTC), the latest the default. */
  time?: { values: string[]; default: string; variable: WeatherVariable };
}

/** A weather variable's layer (`weather/{name}`): each TIME value draws that keyframe's tile set. */
export function weatherWmsLayer(v: WeatherVariable): WmsLayer {
  const latest = latestKeyframe(v);
  return {
    name: weatherLayerId(v),
    kind: 'tiles',
    id: latest.tilesetId,
    pyramidName: v.pyramid.name,
    title: v.unit ? `${v.title} (${v.unit})` : v.title,
    abstract: weatherAbstract(v),
    bounds: v.pyramid.bounds,
    opaque: v.pyramid.format === 'jpg',
    time: { values: v.keyframes.map((k) => k.time), default: latest.time, variable: v },
  };
}

/** The keyframe tile set of a weather layer at `time` (TIME as sent; absent: the default), or undefined for a time it does not have. */
export function weatherTileset(layer: WmsLayer, time: string | undefined): string | undefined {
  if (!layer.time) return layer.id;
  if (time === undefined || time === '' || /^(current|default)$/i.test(time)) return latestKeyframe(layer.time.variable).tilesetId;
  const at = Date.parse(time);
  if (!Number.isFinite(at)) return undefined;
  return layer.time.variable.keyframes.find((k) => Date.parse(k.time) === at)?.tilesetId;
}

/** The WMS layers of a resource: one for a raster resource, none for vector tiles. */
export function wmsLayersFor(info: TilesetInfo): WmsLayer[] {
  const layer = wmtsLayersFor(info).find((l) => ['png', 'jpg', 'webp'].includes(l.format) && !(info.kind === 'maps' && l.tileSize === 256));
  if (!layer) return [];
  return [{ name: layer.identifier, kind: info.kind, id: info.id, pyramidName: layer.pyramidName, title: layer.title, abstract: layer.abstract, bounds: layer.bounds, opaque: layer.format === 'jpg' }];
}

/** The CRS the root layer advertises (every layer inherits them): Web Mercator, WGS 84, ETRS89, LAEA Europe, UTM. */
export function advertisedCrs(extra: readonly number[]): string[] {
  const utm = [...Array.from({ length: 60 }, (_, i) => 32601 + i), ...Array.from({ length: 60 }, (_, i) => 32701 + i), ...Array.from({ length: 11 }, (_, i) => 25828 + i)];
  const codes = [3857, 4326, 4258, 3035, ...utm, ...extra];
  return ['CRS:84', ...[...new Set(codes)].map((c) => `EPSG:${c}`)];
}

export interface WmsServiceMetadata {
  title: string;
  abstract?: string;
  keywords?: readonly string[];
  fees?: string;
  accessConstraints?: string;
}

export interface WmsCapabilitiesInput {
  version: WmsVersion;
  /** The URL requests are sent to, with the requester's key (`…/wms?key=…`). */
  serviceUrl: string;
  /** The provider's site (Service OnlineResource). */
  site: string;
  service: WmsServiceMetadata;
  layers: readonly WmsLayer[];
  crs: readonly string[];
  maxWidth: number;
  maxHeight: number;
}

const R = 6378137;
const MAX_LAT = 85.0511287798066;

/** Web Mercator metres of lon/lat bounds (latitudes clamped to the projection's square). */
export function mercatorBounds(b: Bounds): [number, number, number, number] {
  const x = (lon: number): number => (R * lon * Math.PI) / 180;
  const y = (lat: number): number => R * Math.log(Math.tan(Math.PI / 4 + (Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * Math.PI) / 360));
  return [x(b[0]), y(b[1]), x(b[2]), y(b[3])];
}

const num = (v: number): string => String(Math.round(v * 1e7) / 1e7);

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@', textNodeName: '#text', format: true, suppressEmptyNode: true });

type Node = Record<string, unknown>;

/** An OnlineResource's attributes; xlink declared on the element itself (the 1.1.1 DTD fixes it there; 1.3.0 allows it). */
function href(url: string): Node {
  return { '@xmlns:xlink': 'http://www.w3.org/1999/xlink', '@xlink:type': 'simple', '@xlink:href': url };
}

/** The request URL of the operations: the service URL ready for more parameters (ends with `&`). */
function operationUrl(serviceUrl: string): string {
  return serviceUrl.includes('?') ? `${serviceUrl}&` : `${serviceUrl}?`;
}

function dcp(serviceUrl: string): Node {
  return { DCPType: { HTTP: { Get: { OnlineResource: href(operationUrl(serviceUrl)) } } } };
}

function layerNode(l: WmsLayer, version: WmsVersion): Node {
  const [w, s, e, n] = l.bounds;
  const merc = mercatorBounds(l.bounds);
  const style = { Style: { Name: 'default', Title: 'default' } };
  const t = l.time;
  // 1.3.0: the values inside Dimension (06-042 Annex C); 1.1.1: an empty Dimension and the values in Extent.
  const dimension130 = t ? { Dimension: { '@name': 'time', '@units': 'ISO8601', '@default': t.default, '#text': t.values.join(',') } } : {};
  const dimension111 = t ? { Dimension: { '@name': 'time', '@units': 'ISO8601' }, Extent: { '@name': 'time', '@default': t.default, '#text': t.values.join(',') } } : {};
  const common = { '@queryable': '0', '@opaque': l.opaque ? '1' : '0', Name: l.name, Title: l.title || l.name, ...(l.abstract && { Abstract: l.abstract }) };
  if (version === '1.1.1') {
    return {
      ...common,
      LatLonBoundingBox: { '@minx': num(w), '@miny': num(s), '@maxx': num(e), '@maxy': num(n) },
      BoundingBox: [
        { '@SRS': 'EPSG:4326', '@minx': num(w), '@miny': num(s), '@maxx': num(e), '@maxy': num(n) },
        { '@SRS': 'EPSG:3857', '@minx': num(merc[0]), '@miny': num(merc[1]), '@maxx': num(merc[2]), '@maxy': num(merc[3]) },
      ],
      ...dimension111,
      ...style,
    };
  }
  return {
    ...common,
    EX_GeographicBoundingBox: { westBoundLongitude: num(w), eastBoundLongitude: num(e), southBoundLatitude: num(s), northBoundLatitude: num(n) },
    BoundingBox: [
      { '@CRS': 'CRS:84', '@minx': num(w), '@miny': num(s), '@maxx': num(e), '@maxy': num(n) },
      // EPSG:4326 in its own axis order: latitude first (06-042 §6.7.4).
      { '@CRS': 'EPSG:4326', '@minx': num(s), '@miny': num(w), '@maxx': num(n), '@maxy': num(e) },
      { '@CRS': 'EPSG:3857', '@minx': num(merc[0]), '@miny': num(merc[1]), '@maxx': num(merc[2]), '@maxy': num(merc[3]) },
    ],
    ...dimension130,
    ...style,
  };
}

/** The union of the layers' bounds (the world when there is none). */
function unionBounds(layers: readonly WmsLayer[]): Bounds {
  if (layers.length === 0) return [-180, -85.0511287798066, 180, 85.0511287798066];
  return [Math.min(...layers.map((l) => l.bounds[0])), Math.min(...layers.map((l) => l.bounds[1])), Math.max(...layers.map((l) => l.bounds[2])), Math.max(...layers.map((l) => l.bounds[3]))];
}

/** The capabilities document of `input.version`: 1.3.0 valid against capabilities_1_3_0.xsd, 1.1.1 against WMS_MS_Capabilities.dtd. */
export function buildWmsCapabilities(input: WmsCapabilitiesInput): string {
  const { version, service } = input;
  const formats = Object.keys(WMS_FORMATS);
  const root = unionBounds(input.layers);
  const rootLayer: Node = {
    Title: service.title,
    ...(version === '1.3.0' ? { CRS: input.crs } : { SRS: input.crs }),
    ...(version === '1.3.0'
      ? { EX_GeographicBoundingBox: { westBoundLongitude: num(root[0]), eastBoundLongitude: num(root[2]), southBoundLatitude: num(root[1]), northBoundLatitude: num(root[3]) } }
      : { LatLonBoundingBox: { '@minx': num(root[0]), '@miny': num(root[1]), '@maxx': num(root[2]), '@maxy': num(root[3]) } }),
    Layer: input.layers.map((l) => layerNode(l, version)),
  };
  const serviceNode: Node = {
    Name: version === '1.3.0' ? 'WMS' : 'OGC:WMS',
    Title: service.title,
    ...(service.abstract && { Abstract: service.abstract }),
    ...(service.keywords?.length && { KeywordList: { Keyword: [...service.keywords] } }),
    OnlineResource: href(input.site),
    Fees: service.fees ?? 'none',
    AccessConstraints: service.accessConstraints ?? 'none',
    ...(version === '1.3.0' && { MaxWidth: input.maxWidth, MaxHeight: input.maxHeight }),
  };
  const capability: Node = {
    Request: {
      GetCapabilities: { Format: version === '1.3.0' ? 'text/xml' : 'application/vnd.ogc.wms_xml', ...dcp(input.serviceUrl) },
      GetMap: { Format: formats, ...dcp(input.serviceUrl) },
    },
    Exception: { Format: version === '1.3.0' ? ['XML', 'INIMAGE', 'BLANK'] : ['application/vnd.ogc.se_xml', 'application/vnd.ogc.se_inimage', 'application/vnd.ogc.se_blank'] },
    Layer: rootLayer,
  };
  if (version === '1.1.1') {
    return (
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      '<!DOCTYPE WMT_MS_Capabilities SYSTEM "http://schemas.opengis.net/wms/1.1.1/WMS_MS_Capabilities.dtd">\n' +
      builder.build({ WMT_MS_Capabilities: { '@version': '1.1.1', Service: serviceNode, Capability: capability } })
    );
  }
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    builder.build({
      WMS_Capabilities: {
        '@version': '1.3.0',
        '@xmlns': 'http://www.opengis.net/wms',
        '@xmlns:xlink': 'http://www.w3.org/1999/xlink',
        '@xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance',
        '@xsi:schemaLocation': 'http://www.opengis.net/wms http://schemas.opengis.net/wms/1.3.0/capabilities_1_3_0.xsd',
        Service: serviceNode,
        Capability: capability,
      },
    })
  );
}
