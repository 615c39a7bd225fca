// A WMTS source: one layer of any WMTS 1.0 capabilities document, mirrored into `tiles/{id}`.
// - Tile URLs: the layer's RESTful ResourceURL template (resourceType="tile"; {TileMatrix}, {TileRow}, {TileCol},
//   {TileMatrixSet}, {Style} and dimension placeholders filled), else KVP GetTile at the href OperationsMetadata
//   gives (a GetEncoding constraint of KVP, or none).
// - Only Web Mercator sets are mirrored: EPSG:3857 (or its aliases 900913, 3785, 102100, 102113), tiles of 256 or
//   512 px, every TileMatrix a quad level: its ScaleDenominator that of a zoom (0.28 mm pixels, 559082264.0287178
//   at z0 for 256 px, halved per zoom; 1% slack for rounded values), the top-left corner at the square's corner.
//   TileMatrix identifiers are mapped to zooms by their scale, so any naming works ("0", "EPSG:3857:5", "z5").
//   Other sets are refused with the reason.
// - TileMatrixSetLimits bound the plan per zoom; when a layer has them its zooms are those they list. Bounds from
//   the WGS84BoundingBox (else the limits, else the world).

import { MAX_LAT, ORIGIN_SHIFT, scaleDenominator, tileBoundsLonLat, WORLD_BOUNDS, type TileRange } from '../../../geo/mercator';
import type { Bounds } from '../../../geo/bounds';
import type { TileFormat } from '../../../store/types';
import { stripKey, type UpstreamClient } from '../../upstream/client';
import { fetchXml } from './fetch-xml';
import { arr, parseXml, txt, type XmlNode } from './xml';
import { UpstreamError } from '../../errors';
import type { DiscoverContext, Discovered, ZoomLimits } from '../types';

// ---------------------------------------------------------------------------------------------------------
// Parsing (pure)

type Node = XmlNode;

// TileMatrixSet is both a Contents element (array) and the link's child text: keep both as arrays, read the first.
const ARRAYS = new Set(['Layer', 'TileMatrixSet', 'TileMatrix', 'TileMatrixSetLink', 'TileMatrixLimits', 'ResourceURL', 'Style', 'Format', 'Operation', 'Get', 'Constraint', 'Value', 'Dimension', 'WGS84BoundingBox', 'BoundingBox']);

/** The capabilities as plain objects: namespaces dropped, attributes as `@_name`, every value a string. */
export function parseCapabilitiesXml(xml: string): Node {
  const doc = parseXml(xml, ARRAYS);
  const caps = doc.Capabilities as Node | undefined;
  if (!caps || typeof caps !== 'object') throw new UpstreamError('not a WMTS capabilities document (no Capabilities element)');
  return caps;
}

const nums = (s: string | undefined): number[] => (s ?? '').trim().split(/\s+/).filter(Boolean).map(Number);

/** One TileMatrix mapped onto the Web Mercator quad pyramid. */
export interface MatrixLevel {
  id: string;
  z: number;
  /** The matrix's own extent in tiles (MatrixWidth/Height), when smaller than the zoom's grid. */
  width: number;
  height: number;
}

export interface WebMercatorSet {
  id: string;
  tileSize: number;
  levels: MatrixLevel[];
}

const WEB_MERCATOR_CRS = /(?:EPSG|ESRI|OGC)[:/]+(?:[\d.]*[:/]+)*(3857|900913|3785|102100|102113)$|^(?:urn:ogc:def:crs:EPSG::|EPSG:)?(3857|900913)$/i;

export function isWebMercatorCrs(crs: string): boolean {
  return WEB_MERCATOR_CRS.test(crs.trim());
}

/** The set as Web Mercator quad levels, or the reason it is not one. */
export function webMercatorSet(set: Node): WebMercatorSet | { error: string } {
  const id = txt(set.Identifier) ?? '?';
  const crs = txt(set.SupportedCRS) ?? '';
  if (!isWebMercatorCrs(crs)) return { error: `${id}: its CRS ${crs || '(none)'} is not Web Mercator (EPSG:3857)` };
  const matrices = arr(set.TileMatrix) as Node[];
  if (matrices.length === 0) return { error: `${id}: no TileMatrix` };
  let tileSize: number | undefined;
  const levels: MatrixLevel[] = [];
  for (const m of matrices) {
    const mid = txt(m.Identifier) ?? '?';
    const w = Number(txt(m.TileWidth));
    const h = Number(txt(m.TileHeight));
    if (w !== h || (w !== 256 && w !== 512)) return { error: `${id}: TileMatrix ${mid} has ${w}x${h} px tiles (256 or 512 px square tiles only)` };
    if (tileSize !== undefined && w !== tileSize) return { error: `${id}: its TileMatrix tile sizes differ (${tileSize} and ${w} px)` };
    tileSize = w;
    const sd = Number(txt(m.ScaleDenominator));
    const zf = Math.log2(scaleDenominator(0, w) / sd);
    const z = Math.round(zf);
    if (!Number.isFinite(zf) || Math.abs(zf - z) > 0.015 || z < 0 || z > 30) {
      return { error: `${id}: TileMatrix ${mid} has ScaleDenominator ${txt(m.ScaleDenominator)}, not a Web Mercator zoom level for ${w} px tiles (z0 is ${scaleDenominator(0, w)}, halved per zoom, 0.28 mm pixels)` };
    }
    const [x0, y0] = nums(txt(m.TopLeftCorner));
    const corner = (a: number, b: number): boolean => Math.abs(a + ORIGIN_SHIFT) < 1 && Math.abs(b - ORIGIN_SHIFT) < 1;
    if (!(corner(x0, y0) || corner(y0, x0))) return { error: `${id}: TileMatrix ${mid} has its top-left corner at ${txt(m.TopLeftCorner)}, not at the Web Mercator square's (-20037508.34 20037508.34)` };
    if (levels.some((l) => l.z === z)) return { error: `${id}: two TileMatrix share zoom ${z}` };
    const n = 2 ** z;
    const mw = Number(txt(m.MatrixWidth));
    const mh = Number(txt(m.MatrixHeight));
    levels.push({ id: mid, z, width: Number.isFinite(mw) && mw > 0 ? Math.min(mw, n) : n, height: Number.isFinite(mh) && mh > 0 ? Math.min(mh, n) : n });
  }
  levels.sort((a, b) => a.z - b.z);
  return { id, tileSize: tileSize!, levels };
}

/** WMTS media types this mirror stores. */
export function mediaTypeFormat(mediaType: string | undefined): TileFormat | undefined {
  const t = (mediaType ?? '').split(';')[0].trim().toLowerCase();
  if (t === 'image/png' || t === 'image/png8' || t === 'image/png24' || t === 'image/png32') return 'png';
  if (t === 'image/jpeg' || t === 'image/jpg') return 'jpg';
  if (t === 'image/webp') return 'webp';
  if (t === 'application/vnd.mapbox-vector-tile' || t === 'application/x-protobuf' || t === 'application/x-protobuf;type=mapbox-vector' || t === 'application/vnd.mapbox-vector-tile') return 'pbf';
  return undefined;
}

/** How the layer's tiles are fetched: a template with {z} (the matrix id), {x} and {y}. */
export interface WmtsLayer {
  layer: string;
  title?: string;
  abstract?: string;
  set: WebMercatorSet;
  format: TileFormat;
  mediaType: string;
  /** Absolute, key-free template: {z} = TileMatrix identifier (see matrixIds), {x} = TileCol, {y} = TileRow. */
  template: string;
  encoding: 'RESTful' | 'KVP';
  /** z -> URL-encoded TileMatrix identifier. */
  matrixIds: Record<number, string>;
  minzoom: number;
  maxzoom: number;
  bounds: Bounds;
  limits: ZoomLimits;
}

function resolveUrl(href: string, docUrl: string): string {
  try {
    return new URL(href, docUrl).toString().replace(/%7B/gi, '{').replace(/%7D/gi, '}');
  } catch {
    return href;
  }
}

function layerBounds(layer: Node): Bounds | undefined {
  const boxes = arr(layer.WGS84BoundingBox) as Node[];
  let out: Bounds | undefined;
  for (const b of boxes) {
    const [w, s] = nums(txt(b.LowerCorner));
    const [e, n] = nums(txt(b.UpperCorner));
    if (![w, s, e, n].every(Number.isFinite)) continue;
    const box: Bounds = [Math.max(-180, w), Math.max(-MAX_LAT, s), Math.min(180, e), Math.min(MAX_LAT, n)];
    out = out ? [Math.min(out[0], box[0]), Math.min(out[1], box[1]), Math.max(out[2], box[2]), Math.max(out[3], box[3])] : box;
  }
  return out && out[0] < out[2] && out[1] < out[3] ? out : undefined;
}

const encodeId = (s: string): string => encodeURIComponent(s).replace(/%3A/gi, ':');

/**
 * Everything needed to mirror one layer, from parsed capabilities: pure, so every rule is tested without a
 * network. `docUrl` (key-free) resolves relative URLs. Throws UpstreamError with the reason a layer cannot be mirrored.
 */
export function wmtsLayer(caps: Node, docUrl: string, layerId: string, matrixSet?: string): WmtsLayer {
  const contents = (caps.Contents ?? {}) as Node;
  const layers = arr(contents.Layer) as Node[];
  const layer = layers.find((l) => txt(l.Identifier) === layerId);
  if (!layer) {
    const ids = layers.map((l) => txt(l.Identifier)).filter(Boolean);
    throw new UpstreamError(`the capabilities have no layer "${layerId}" (layers: ${ids.slice(0, 20).join(', ') || 'none'}${ids.length > 20 ? ', ...' : ''})`);
  }
  const sets = arr(contents.TileMatrixSet) as Node[];
  const links = arr(layer.TileMatrixSetLink) as Node[];
  const linked = links.map((l) => txt(l.TileMatrixSet)).filter((s): s is string => !!s);
  if (matrixSet && !linked.includes(matrixSet)) throw new UpstreamError(`layer ${layerId} is not offered in tile matrix set "${matrixSet}" (its sets: ${linked.join(', ') || 'none'})`);
  const reasons: string[] = [];
  let chosen: { set: WebMercatorSet; link: Node } | undefined;
  for (const link of links) {
    const sid = txt(link.TileMatrixSet);
    if (!sid || (matrixSet && sid !== matrixSet)) continue;
    const def = sets.find((s) => txt(s.Identifier) === sid);
    if (!def) {
      reasons.push(`${sid}: not defined in the capabilities`);
      continue;
    }
    const wm = webMercatorSet(def);
    if ('error' in wm) {
      reasons.push(wm.error);
      continue;
    }
    chosen = { set: wm, link };
    break;
  }
  if (!chosen) throw new UpstreamError(`layer ${layerId}: no Web Mercator (EPSG:3857, 256 or 512 px quad levels) tile matrix set to mirror: ${reasons.join('; ') || 'it links none'}`);
  const { set, link } = chosen;

  // Limits per zoom; with limits, the layer's zooms are those listed.
  const byId = new Map(set.levels.map((l) => [l.id, l]));
  const limitRows = (arr((link.TileMatrixSetLimits as Node | undefined)?.TileMatrixLimits) as Node[]).filter((l) => byId.has(txt(l.TileMatrix) ?? ''));
  const limits: ZoomLimits = {};
  let levels = set.levels;
  if (limitRows.length > 0) {
    const listed = new Set<number>();
    for (const l of limitRows) {
      const level = byId.get(txt(l.TileMatrix)!)!;
      const [minY, maxY, minX, maxX] = ['MinTileRow', 'MaxTileRow', 'MinTileCol', 'MaxTileCol'].map((k) => Number(txt(l[k])));
      listed.add(level.z);
      if ([minY, maxY, minX, maxX].every(Number.isInteger) && minX <= maxX && minY <= maxY) limits[level.z] = { minX, maxX, minY, maxY };
      else limits[level.z] = null;
    }
    levels = levels.filter((l) => listed.has(l.z));
  }
  if (levels.length === 0) throw new UpstreamError(`layer ${layerId}: its TileMatrixSetLimits name no TileMatrix of ${set.id}`);
  const minzoom = levels[0].z;
  const maxzoom = levels[levels.length - 1].z;
  const present = new Map(levels.map((l) => [l.z, l]));
  for (let z = minzoom; z <= maxzoom; z++) {
    const level = present.get(z);
    if (!level) {
      limits[z] = null;
      continue;
    }
    // A matrix narrower than the zoom's grid (MatrixWidth/Height) is a limit too.
    const n = 2 ** z;
    if (level.width < n || level.height < n) {
      const own: TileRange = { minX: 0, minY: 0, maxX: level.width - 1, maxY: level.height - 1 };
      const l = limits[z];
      limits[z] = l === null ? null : l ? { minX: l.minX, minY: l.minY, maxX: Math.min(l.maxX, own.maxX), maxY: Math.min(l.maxY, own.maxY) } : own;
    }
  }
  const matrixIds: Record<number, string> = {};
  for (const l of levels) if (l.id !== String(l.z)) matrixIds[l.z] = encodeId(l.id);

  let bounds = layerBounds(layer);
  if (!bounds && limitRows.length > 0) {
    // The limits' extent at the highest zoom.
    const top = limits[maxzoom];
    if (top) {
      const nw = tileBoundsLonLat(maxzoom, top.minX, top.minY);
      const se = tileBoundsLonLat(maxzoom, top.maxX, top.maxY);
      bounds = [nw[0], se[1], se[2], nw[3]];
    }
  }

  const styles = arr(layer.Style) as Node[];
  const style = txt((styles.find((s) => String(s['@_isDefault']).toLowerCase() === 'true') ?? styles[0])?.Identifier) ?? 'default';
  const dimensions = new Map((arr(layer.Dimension) as Node[]).map((d) => [(txt(d.Identifier) ?? '').toLowerCase(), txt(d.Default) ?? txt(d.Value)]));

  // RESTful first: the layer's own template.
  const tileUrls = (arr(layer.ResourceURL) as Node[]).filter((r) => String(r['@_resourceType'] ?? 'tile').toLowerCase() === 'tile' && typeof r['@_template'] === 'string');
  const rest = tileUrls.find((r) => mediaTypeFormat(String(r['@_format'])));
  if (rest) {
    const mediaType = String(rest['@_format']);
    const unknown: string[] = [];
    const template = stripKey(resolveUrl(String(rest['@_template']), docUrl)).replace(/\{([^{}]+)\}/g, (all, name: string) => {
      switch (name.toLowerCase()) {
        case 'tilematrix':
          return '{z}';
        case 'tilerow':
          return '{y}';
        case 'tilecol':
          return '{x}';
        case 'tilematrixset':
          return encodeId(set.id);
        case 'style':
          return encodeId(style);
        default: {
          const value = dimensions.get(name.toLowerCase());
          if (value === undefined) unknown.push(all);
          return value === undefined ? all : encodeURIComponent(value);
        }
      }
    });
    if (unknown.length) throw new UpstreamError(`layer ${layerId}: its ResourceURL template has placeholders without a default value: ${unknown.join(', ')}`);
    if (!template.includes('{z}') || !template.includes('{x}') || !template.includes('{y}')) throw new UpstreamError(`layer ${layerId}: its ResourceURL template lacks {TileMatrix}, {TileRow} or {TileCol}`);
    return { layer: layerId, title: txt(layer.Title), abstract: txt(layer.Abstract), set, format: mediaTypeFormat(mediaType)!, mediaType, template, encoding: 'RESTful', matrixIds, minzoom, maxzoom, bounds: bounds ?? WORLD_BOUNDS, limits };
  }

  // KVP GetTile.
  const ops = arr(((caps.OperationsMetadata ?? {}) as Node).Operation) as Node[];
  const getTile = ops.find((o) => String(o['@_name']) === 'GetTile');
  const gets = arr((((getTile?.DCP as Node | undefined)?.HTTP ?? {}) as Node).Get) as Node[];
  const kvp = gets.find((g) => {
    const values = (arr(g.Constraint) as Node[]).flatMap((c) => arr((c.AllowedValues as Node | undefined)?.Value).map((v) => txt(v)));
    return values.length === 0 || values.some((v) => v?.toUpperCase() === 'KVP');
  });
  const href = kvp?.['@_href'];
  const formats = (arr(layer.Format).map((f) => txt(f)) as string[]).filter((f) => mediaTypeFormat(f));
  if (typeof href !== 'string' || !href) {
    throw new UpstreamError(`layer ${layerId}: no tile URL in the capabilities (neither a ResourceURL template nor a KVP GetTile in OperationsMetadata)`);
  }
  if (formats.length === 0) throw new UpstreamError(`layer ${layerId}: none of its formats (${arr(layer.Format).map(txt).join(', ') || 'none'}) is png, jpeg, webp or a vector tile`);
  const mediaType = formats[0];
  let base = stripKey(resolveUrl(href, docUrl)).replace(/[?&]+$/, '');
  base += base.includes('?') ? '&' : '?';
  const dims = [...dimensions.entries()].filter(([, v]) => v !== undefined).map(([k, v]) => `&${encodeURIComponent(k.toUpperCase())}=${encodeURIComponent(v!)}`).join('');
  const template =
    `${base}SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=${encodeURIComponent(layerId)}&STYLE=${encodeURIComponent(style)}` +
    `&TILEMATRIXSET=${encodeURIComponent(set.id)}&TILEMATRIX={z}&TILEROW={y}&TILECOL={x}&FORMAT=${encodeURIComponent(mediaType)}${dims}`;
  for (const l of levels) if (l.id !== String(l.z)) matrixIds[l.z] = encodeURIComponent(l.id);
  return { layer: layerId, title: txt(layer.Title), abstract: txt(layer.Abstract), set, format: mediaTypeFormat(mediaType)!, mediaType, template, encoding: 'KVP', matrixIds, minzoom, maxzoom, bounds: bounds ?? WORLD_BOUNDS, limits };
}

// ---------------------------------------------------------------------------------------------------------
// Discovery

export async function fetchCapabilities(client: UpstreamClient, url: string, signal?: AbortSignal): Promise<{ caps: Node; url: string }> {
  const { xml, url: docUrl } = await fetchXml(client, url, signal);
  try {
    return { caps: parseCapabilitiesXml(xml), url: docUrl };
  } catch (err) {
    throw new UpstreamError(`${docUrl}: ${(err as Error).message}`);
  }
}

export async function discoverWmtsSource(id: string, source: { url: string; layer: string; matrixSet?: string }, ctx: DiscoverContext): Promise<Discovered> {
  const { caps, url } = await fetchCapabilities(ctx.client, source.url, ctx.signal);
  const layer = wmtsLayer(caps, url, source.layer, source.matrixSet);
  const pyramid = { name: 'main', tileSize: layer.set.tileSize, scale: 1, format: layer.format, minzoom: layer.minzoom, maxzoom: layer.maxzoom, bounds: layer.bounds };
  const [w, s, e, n] = layer.bounds;
  const provenance = { type: 'wmts', url, layer: layer.layer, tileMatrixSet: layer.set.id, encoding: layer.encoding, format: layer.mediaType, template: layer.template, matrixIds: layer.matrixIds };
  return {
    kind: 'tiles',
    id,
    header: {
      kind: 'tiles',
      name: layer.title || id,
      description: layer.abstract,
      type: 'baselayer',
      center: [(w + e) / 2, (s + n) / 2, layer.minzoom],
      pyramids: [pyramid],
      vectorLayers: layer.format === 'pbf' ? [] : undefined,
    },
    pyramids: [{ pyramid, template: layer.template, ...(Object.keys(layer.matrixIds).length > 0 && { matrixIds: layer.matrixIds }), limits: layer.limits }],
    documents: [{ path: 'source.json', contentType: 'application/json', data: JSON.stringify(provenance) }],
    notes: [`mirrored from WMTS layer ${layer.layer} (${layer.encoding}, tile matrix set ${layer.set.id}, ${layer.set.tileSize} px, z${layer.minzoom}-${layer.maxzoom})`],
  };
}
