// WMS capabilities (1.1.1 WMT_MS_Capabilities and 1.3.0 WMS_Capabilities) read into what a mirror needs: the
// GetMap formats, and for every named layer its bounds in degrees, CRSs, scale range and attribution, with what
// layers inherit from their parents (bounds, scale range and attribution replace, CRSs add up). Pure.

import type { Bounds } from '../../../geo/bounds';
import { MAX_LAT, scaleDenominator, STANDARD_PIXEL_SIZE } from '../../../geo/mercator';
import { UpstreamError } from '../../errors';
import { arr, parseXml, txt, type XmlNode } from './xml';

type Node = XmlNode;

export interface WmsLayer {
  name: string;
  title?: string;
  abstract?: string;
  /** In degrees, clipped to Web Mercator's latitudes; undefined when the capabilities give none. */
  bounds?: Bounds;
  crs: string[];
  /** Scale denominators between which the layer is drawn (1.3.0 Min/MaxScaleDenominator; 1.1.1 ScaleHint converted). */
  minScale?: number;
  maxScale?: number;
  attribution?: string;
}

export interface WmsCapabilities {
  version: string;
  title?: string;
  /** GetMap output formats, as offered. */
  formats: string[];
  layers: Map<string, WmsLayer>;
}

const ARRAYS = new Set(['Layer', 'Format', 'SRS', 'CRS', 'Style', 'BoundingBox', 'ServiceException']);

/** An element's text, undefined when empty. */
const text = (v: unknown): string | undefined => txt(v) || undefined;

const num = (v: unknown): number | undefined => {
  const s = text(v);
  const n = s === undefined ? NaN : Number(s);
  return Number.isFinite(n) ? n : undefined;
};

function clip(w: number, s: number, e: number, n: number): Bounds | undefined {
  const b: Bounds = [Math.max(-180, w), Math.max(-MAX_LAT, s), Math.min(180, e), Math.min(MAX_LAT, n)];
  return b[0] < b[2] && b[1] < b[3] ? b : undefined;
}

function ownBounds(layer: Node): Bounds | undefined {
  const ex = layer.EX_GeographicBoundingBox as Node | undefined;
  if (ex) {
    const [w, e, s, n] = ['westBoundLongitude', 'eastBoundLongitude', 'southBoundLatitude', 'northBoundLatitude'].map((k) => num(ex[k]));
    if (w !== undefined && e !== undefined && s !== undefined && n !== undefined) return clip(w, s, e, n);
  }
  const ll = layer.LatLonBoundingBox as Node | undefined;
  if (ll) {
    const [w, s, e, n] = ['@_minx', '@_miny', '@_maxx', '@_maxy'].map((k) => num(ll[k]));
    if (w !== undefined && e !== undefined && s !== undefined && n !== undefined) return clip(w, s, e, n);
  }
  return undefined;
}

/**
 * The layer's scale range. 1.1.1's ScaleHint gives the ground size of a pixel's diagonal in metres, which is
 * the scale denominator times 0.28 mm times √2.
 */
function ownScales(layer: Node): { minScale?: number; maxScale?: number } | undefined {
  const min = num(layer.MinScaleDenominator);
  const max = num(layer.MaxScaleDenominator);
  if (min !== undefined || max !== undefined) return { minScale: min, maxScale: max };
  const hint = layer.ScaleHint as Node | undefined;
  if (!hint) return undefined;
  const toScale = (d: number | undefined): number | undefined => (d === undefined || d <= 0 ? undefined : d / Math.SQRT2 / STANDARD_PIXEL_SIZE);
  const lo = toScale(num(hint['@_min']));
  const hi = num(hint['@_max']);
  return { minScale: lo, maxScale: hi === undefined || !Number.isFinite(hi) || hi <= 0 ? undefined : toScale(hi) };
}

export function parseWmsCapabilities(xml: string): WmsCapabilities {
  let doc: Node;
  try {
    doc = parseXml(xml, ARRAYS);
  } catch (err) {
    throw new UpstreamError(`the WMS capabilities are not XML: ${(err as Error).message}`);
  }
  const report = doc.ServiceExceptionReport as Node | undefined;
  if (report) throw new UpstreamError(`the WMS answered GetCapabilities with an exception: ${arr(report.ServiceException).map(text).filter(Boolean).join('; ') || '(no text)'}`);
  const caps = (doc.WMS_Capabilities ?? doc.WMT_MS_Capabilities) as Node | undefined;
  if (!caps || typeof caps !== 'object') throw new UpstreamError('not WMS capabilities (no WMS_Capabilities or WMT_MS_Capabilities element)');
  const capability = (caps.Capability ?? {}) as Node;
  const getMap = ((capability.Request ?? {}) as Node).GetMap as Node | undefined;
  const formats = arr(getMap?.Format).map(text).filter((f): f is string => !!f);
  const layers = new Map<string, WmsLayer>();
  interface Inherited {
    bounds?: Bounds;
    crs: string[];
    scales?: { minScale?: number; maxScale?: number };
    attribution?: string;
  }
  const walk = (node: Node, up: Inherited): void => {
    const crs = [...up.crs, ...arr(node.CRS).map(text), ...arr(node.SRS).flatMap((s) => (text(s) ?? '').split(/\s+/))].filter((c): c is string => !!c);
    const here: Inherited = {
      bounds: ownBounds(node) ?? up.bounds,
      crs: [...new Set(crs.map((c) => c.toUpperCase()))],
      scales: ownScales(node) ?? up.scales,
      attribution: text((node.Attribution as Node | undefined)?.Title) ?? up.attribution,
    };
    const name = text(node.Name);
    if (name && !layers.has(name)) {
      layers.set(name, { name, title: text(node.Title), abstract: text(node.Abstract), bounds: here.bounds, crs: here.crs, ...here.scales, attribution: here.attribution });
    }
    for (const child of arr(node.Layer) as Node[]) walk(child, here);
  };
  for (const top of arr(capability.Layer) as Node[]) walk(top, { crs: [] });
  return { version: String(caps['@_version'] ?? ''), title: text((caps.Service as Node | undefined)?.Title), formats, layers };
}

/** The Web Mercator code the layer is offered in (EPSG:3857, else the older EPSG:900913), or undefined. */
export function webMercatorCode(crs: string[]): string | undefined {
  return ['EPSG:3857', 'EPSG:900913'].find((c) => crs.includes(c));
}

/**
 * The zooms at which a scale range draws the layer (tiles of `tileSize` px, 0.28 mm pixels, scales as at the
 * equator, as WMS servers compute them for EPSG:3857): MinScaleDenominator <= scale <= MaxScaleDenominator, with
 * a relative slack of 1e-6 for rounded values. Each end undefined when the range leaves it open; `empty` when
 * no zoom falls inside it.
 */
export function zoomsOfScaleRange(minScale: number | undefined, maxScale: number | undefined, tileSize: number, maxZoom = 30): { minzoom: number; maxzoom?: number } | 'empty' {
  const z0 = scaleDenominator(0, tileSize);
  const eps = 1e-6;
  const lo = maxScale === undefined ? 0 : Math.max(0, Math.ceil(Math.log2(z0 / maxScale) - eps));
  const hi = minScale === undefined || minScale <= 0 ? undefined : Math.min(maxZoom, Math.floor(Math.log2(z0 / minScale) + eps));
  if (hi !== undefined && (hi < lo || hi < 0)) return 'empty';
  return { minzoom: lo, maxzoom: hi };
}
