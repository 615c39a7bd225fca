// A WMS source: one GetMap per tile in Web Mercator (EPSG:3857, else EPSG:900913; 1.3.0 asks with CRS=, whose
// axis order for 3857 is x,y as in 1.1.1's SRS=), 256 or 512 px. The capabilities say which layers exist, which
// formats GetMap offers, the layers' bounds (the plan's extent), their scale range (the zooms they are drawn
// at) and an attribution. Requests go to the URL given (capabilities often name an internal host), with its
// other query parameters (MAP=, a vendor's) kept.

import { WORLD_BOUNDS } from '../../../geo/mercator';
import type { Bounds } from '../../../geo/bounds';
import { stripKey } from '../../upstream/client';
import { UpstreamError, UsageError } from '../../errors';
import type { DiscoverContext, Discovered } from '../types';
import { fetchXml } from './fetch-xml';
import { parseWmsCapabilities, webMercatorCode, zoomsOfScaleRange, type WmsCapabilities, type WmsLayer } from './wms-capabilities';
import { mediaTypeFormat } from './wmts';

export type WmsVersion = '1.1.1' | '1.3.0';

export interface WmsSource {
  type: 'wms';
  /** The service URL (key-free once split); its WMS parameters are replaced, others kept. */
  url: string;
  /** Comma-separated layer names, drawn in that order. */
  layers: string;
  /** Comma-separated styles (default: the layers' default styles). */
  styles?: string;
  /** GetMap output format (default image/png). */
  format?: string;
  version?: WmsVersion;
  tileSize?: 256 | 512;
}

/** Parameters the mirror sets itself: removed from the URL given (any case). */
const OWN_PARAMS = new Set(['service', 'request', 'version', 'layers', 'styles', 'format', 'srs', 'crs', 'bbox', 'width', 'height', 'transparent']);

/** The service URL without the WMS parameters the mirror sets, ending in `?` or `&` ready for more. */
export function wmsBase(url: string): string {
  const [path, query = ''] = url.split('#')[0].split('?');
  const kept = query.split('&').filter((p) => p && !OWN_PARAMS.has(p.split('=')[0].toLowerCase()));
  return kept.length ? `${path}?${kept.join('&')}&` : `${path}?`;
}

export function capabilitiesUrl(source: Pick<WmsSource, 'url' | 'version'>): string {
  return `${wmsBase(source.url)}SERVICE=WMS&REQUEST=GetCapabilities&VERSION=${source.version ?? '1.3.0'}`;
}

/** The GetMap template of every tile: {bbox-epsg-3857} is the tile's box in metres. */
export function getMapTemplate(o: { url: string; version: WmsVersion; layers: string[]; styles: string; format: string; crs: string; tileSize: number }): string {
  const srs = o.version === '1.3.0' ? 'CRS' : 'SRS';
  const transparent = /png|gif|webp/i.test(o.format) ? '&TRANSPARENT=TRUE' : '';
  return (
    `${wmsBase(o.url)}SERVICE=WMS&VERSION=${o.version}&REQUEST=GetMap&LAYERS=${o.layers.map(encodeURIComponent).join(',')}` +
    `&STYLES=${o.styles.split(',').map(encodeURIComponent).join(',')}&${srs}=${o.crs}&BBOX={bbox-epsg-3857}` +
    `&WIDTH=${o.tileSize}&HEIGHT=${o.tileSize}&FORMAT=${encodeURIComponent(o.format)}${transparent}`
  );
}

const list = (s: string | undefined): string[] => (s ?? '').split(',').map((x) => x.trim()).filter(Boolean);

const fmtScale = (s: number | undefined): string => (s === undefined ? 'open' : `1:${Math.round(s)}`);

export interface WmsOffer {
  layers: WmsLayer[];
  format: string;
  crs: string;
  bounds: Bounds;
  minzoom: number;
  maxzoom: number;
  attribution?: string;
  notes: string[];
}

/**
 * What the WMS offers for the layers asked, from its parsed capabilities (pure). UsageError for what the request asks that the
 * service does not have: a layer, a format, Web Mercator, a zoom inside the layers' scale range.
 */
export function wmsOffer(caps: WmsCapabilities, source: WmsSource, zoom: [number, number] | undefined): WmsOffer {
  const names = list(source.layers);
  if (names.length === 0) throw new UsageError('a WMS source needs --layers NAME[,NAME...]');
  const missing = names.filter((n) => !caps.layers.has(n));
  if (missing.length > 0) {
    const known = [...caps.layers.keys()];
    throw new UsageError(`the WMS has no layer ${missing.map((m) => `"${m}"`).join(', ')} (its layers: ${known.slice(0, 30).join(', ') || 'none'}${known.length > 30 ? ', ...' : ''})`);
  }
  const layers = names.map((n) => caps.layers.get(n)!);
  const format = source.format ?? 'image/png';
  const offered = caps.formats.find((f) => f.toLowerCase() === format.toLowerCase());
  if (!offered) throw new UsageError(`the WMS does not offer --format ${format} for GetMap (offered: ${caps.formats.join(', ') || 'none'})`);
  if (!mediaTypeFormat(offered)) throw new UsageError(`--format ${format}: tiles are stored as png, jpeg or webp (the WMS offers: ${caps.formats.filter((f) => mediaTypeFormat(f)).join(', ') || 'none of these'})`);
  const codes = layers.map((l) => webMercatorCode(l.crs));
  const crs = codes.every((c) => c === 'EPSG:3857') ? 'EPSG:3857' : codes.every((c) => c) ? 'EPSG:900913' : undefined;
  if (!crs) {
    const without = layers.filter((_, i) => !codes[i]).map((l) => l.name);
    throw new UsageError(`the WMS does not offer layer ${without.join(', ')} in Web Mercator (EPSG:3857 or EPSG:900913): tiles cannot be requested`);
  }
  const tileSize = source.tileSize ?? 256;
  const notes: string[] = [];

  // Zooms: the union of the layers' scale ranges, then the request's.
  let lo = Infinity;
  let hi: number | undefined = -Infinity;
  for (const l of layers) {
    const r = zoomsOfScaleRange(l.minScale, l.maxScale, tileSize);
    if (r === 'empty') {
      notes.push(`layer ${l.name}: its scale range (${fmtScale(l.minScale)} to ${fmtScale(l.maxScale)}) holds no zoom level: it is drawn at none`);
      continue;
    }
    lo = Math.min(lo, r.minzoom);
    hi = hi === undefined || r.maxzoom === undefined ? undefined : Math.max(hi, r.maxzoom);
  }
  if (lo === Infinity) throw new UsageError(`the WMS draws ${names.join(', ')} at no zoom level (scale ranges: ${layers.map((l) => `${l.name} ${fmtScale(l.minScale)} to ${fmtScale(l.maxScale)}`).join(', ')})`);
  const ranged = layers.some((l) => l.minScale !== undefined || l.maxScale !== undefined);
  if (hi === undefined && !zoom) throw new UsageError(`the WMS layer${names.length > 1 ? 's' : ''} ${names.join(', ')} ${ranged ? 'have no smallest scale' : 'have no scale range'}: give --zoom MIN-MAX (a job: zoom: [MIN, MAX])`);
  // The source's zooms: its scale range, an open end closed by the request (planDiscovered narrows to the request, and says so).
  const minzoom = lo;
  const maxzoom = hi ?? zoom![1];
  if (ranged) {
    const range = layers.map((l) => `${l.name} ${fmtScale(l.minScale)} to ${fmtScale(l.maxScale)}`).join(', ');
    if (zoom && (zoom[1] < minzoom || zoom[0] > maxzoom)) throw new UsageError(`zooms ${zoom[0]}-${zoom[1]} requested, but the WMS draws ${names.join(', ')} only at z${lo}-${hi ?? ''} (scale range ${range}, ${tileSize} px tiles)`);
    notes.push(`the layers' scale range (${range}) draws them at z${lo}-${hi ?? ''} (${tileSize} px tiles)${zoom ? '' : `: mirrored z${minzoom}-${maxzoom}`}`);
  }

  // Bounds: the union of the layers' (the world when one has none).
  let bounds: Bounds | undefined;
  for (const l of layers) {
    if (!l.bounds) {
      bounds = WORLD_BOUNDS;
      break;
    }
    bounds = bounds ? [Math.min(bounds[0], l.bounds[0]), Math.min(bounds[1], l.bounds[1]), Math.max(bounds[2], l.bounds[2]), Math.max(bounds[3], l.bounds[3])] : l.bounds;
  }
  const attribution = layers.map((l) => l.attribution).find(Boolean);
  return { layers, format: offered, crs, bounds: bounds ?? WORLD_BOUNDS, minzoom, maxzoom, ...(attribution && { attribution }), notes };
}

export async function discoverWmsSource(id: string, source: WmsSource, ctx: DiscoverContext): Promise<Discovered> {
  const asked = source.version ?? '1.3.0';
  const { xml, url: capsUrl } = await fetchXml(ctx.client, capabilitiesUrl({ ...source, version: asked }), ctx.signal);
  let caps: WmsCapabilities;
  try {
    caps = parseWmsCapabilities(xml);
  } catch (err) {
    throw new UpstreamError(`${stripKey(capsUrl)}: ${(err as Error).message}`);
  }
  const notes: string[] = [];
  let version: WmsVersion = asked;
  if (caps.version !== asked && (caps.version === '1.1.1' || caps.version === '1.3.0')) {
    notes.push(`WMS ${asked} asked, the server answered ${caps.version}: GetMap ${caps.version} is used`);
    version = caps.version;
  }
  const offer = wmsOffer(caps, source, ctx.zoom);
  const tileSize = source.tileSize ?? 256;
  const format = mediaTypeFormat(offer.format)!;
  const names = offer.layers.map((l) => l.name);
  const template = getMapTemplate({ url: source.url, version, layers: names, styles: source.styles ?? '', format: offer.format, crs: offer.crs, tileSize });
  const pyramid = { name: 'main', tileSize, scale: 1, format, minzoom: offer.minzoom, maxzoom: offer.maxzoom, bounds: offer.bounds };
  const [w, s, e, n] = offer.bounds;
  notes.unshift(`mirrored from WMS ${version} ${stripKey(wmsBase(source.url)).replace(/[?&]$/, '')} layers ${names.join(',')} (GetMap ${offer.format}, ${offer.crs}, ${tileSize} px)`, ...offer.notes);
  const provenance = { type: 'wms', url: stripKey(source.url), version, layers: names, styles: source.styles ?? '', format: offer.format, crs: offer.crs, tileSize, template: stripKey(template) };
  return {
    kind: 'tiles',
    id,
    header: {
      kind: 'tiles',
      name: names.length === 1 ? (offer.layers[0].title ?? names[0]) : (caps.title ?? id),
      description: names.length === 1 ? offer.layers[0].abstract : undefined,
      attribution: offer.attribution,
      type: 'baselayer',
      center: [(w + e) / 2, (s + n) / 2, offer.minzoom],
      pyramids: [pyramid],
    },
    pyramids: [{ pyramid, template: stripKey(template) }],
    documents: [{ path: 'source.json', contentType: 'application/json', data: JSON.stringify(provenance) }],
    notes,
  };
}
