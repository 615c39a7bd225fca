// Reading an upstream TileJSON (the cloud's own, or a generic source's) into a Pyramid, a tile URL template and a
// store header; shared by kind discovery and source discovery.

import type { Bounds } from '../../geo/bounds';
import type { Pyramid, TileFormat, VectorLayer } from '../../store/types';
import { WORLD_BOUNDS } from '../../geo/mercator';
import { stripKey, type UpstreamClient } from '../upstream/client';
import { UpstreamError } from '../errors';
import { rewriteDocument } from '../rewrite';
import type { StoreHeader } from '../../store/mbtiles/writer';
import type { DocumentToStore } from './types';

/** The fields of an upstream TileJSON the mirror uses (MapTiler's and tilemirror's have these). */
export interface UpstreamTileJson {
  tiles?: unknown;
  name?: unknown;
  description?: unknown;
  attribution?: unknown;
  bounds?: unknown;
  center?: unknown;
  minzoom?: unknown;
  maxzoom?: unknown;
  format?: unknown;
  tileSize?: unknown;
  scale?: unknown;
  vector_layers?: unknown;
  encoding?: unknown;
  [k: string]: unknown;
}

const FORMATS: readonly TileFormat[] = ['png', 'jpg', 'webp', 'pbf', 'basis'];

export function toTileFormat(value: unknown, fallback: TileFormat = 'png'): TileFormat {
  if (typeof value !== 'string') return fallback;
  const v = value.toLowerCase();
  if (v === 'jpeg') return 'jpg';
  if (v === 'mvt') return 'pbf';
  return (FORMATS as readonly string[]).includes(v) ? (v as TileFormat) : fallback;
}

const int = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 30 ? v : fallback);

function bounds(v: unknown): Bounds {
  if (Array.isArray(v) && v.length === 4 && v.every((n) => typeof n === 'number' && Number.isFinite(n))) return v as Bounds;
  return WORLD_BOUNDS;
}

export function text(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function center(v: unknown): [number, number, number] | undefined {
  return Array.isArray(v) && v.length >= 2 && v.every((n) => typeof n === 'number')
    ? [v[0] as number, v[1] as number, (v[2] as number | undefined) ?? 0]
    : undefined;
}

/**
 * The absolute, key-free tile URL template of a TileJSON (its first `tiles` entry), resolved against the
 * document's own URL when relative. Braces are kept as they are (URL parsing would percent-encode them).
 */
export function tileTemplate(tj: UpstreamTileJson, docUrl: string): string {
  const t = Array.isArray(tj.tiles) ? tj.tiles[0] : undefined;
  if (typeof t !== 'string' || !t.includes('{z}') || !t.includes('{x}') || !(t.includes('{y}') || t.includes('{-y}'))) {
    throw new UpstreamError(`${stripKey(docUrl)}: TileJSON has no usable tiles template`);
  }
  if (/^https?:\/\//i.test(t)) return stripKey(t);
  const origin = /^(https?:\/\/[^/]+)/i.exec(docUrl)?.[1] ?? '';
  if (t.startsWith('//')) return stripKey(`${docUrl.split(':')[0]}:${t}`);
  if (t.startsWith('/')) return stripKey(origin + t);
  return stripKey(docUrl.replace(/[?#].*$/, '').replace(/[^/]*$/, '') + t);
}

export function pyramidFromTileJson(name: string, tj: UpstreamTileJson, defaultTileSize?: number): Pyramid {
  const format = toTileFormat(tj.format);
  const minzoom = int(tj.minzoom, 0);
  return {
    name,
    tileSize: typeof tj.tileSize === 'number' ? tj.tileSize : (defaultTileSize ?? (format === 'pbf' ? 512 : 256)),
    scale: typeof tj.scale === 'number' && tj.scale > 0 ? tj.scale : 1,
    format,
    minzoom,
    maxzoom: Math.max(minzoom, int(tj.maxzoom, 22)),
    bounds: bounds(tj.bounds),
  };
}

export function vectorLayers(tj: UpstreamTileJson): VectorLayer[] | undefined {
  return Array.isArray(tj.vector_layers) ? (tj.vector_layers as VectorLayer[]) : undefined;
}

/** The upstream TileJSON kept as provenance, its URLs rewritten to this server. */
export function tileJsonDoc(path: string, tj: UpstreamTileJson, base: string): DocumentToStore {
  return { path, contentType: 'application/json', data: JSON.stringify(rewriteDocument(tj, base)) };
}

export async function fetchTileJson(client: UpstreamClient, path: string, signal?: AbortSignal, optional = false): Promise<{ tj: UpstreamTileJson; url: string } | undefined> {
  const url = client.resolve(path);
  const tj = await client.getJson<UpstreamTileJson>(url, signal, optional);
  if (tj === undefined) return undefined;
  if (!tj || typeof tj !== 'object' || Array.isArray(tj)) throw new UpstreamError(`${url}: not a TileJSON object`);
  // The cloud's tiles live on other host names, each template carrying the key: those hosts get the key too.
  if (Array.isArray(tj.tiles)) for (const t of tj.tiles) if (typeof t === 'string') client.trustKeyIn(t);
  return { tj, url };
}

/** The store header of a one-pyramid tile set described by a TileJSON (the upstream's own, or a generic source's). */
export function tilesetHeader(id: string, tj: UpstreamTileJson, pyramid: Pyramid): StoreHeader {
  const extra: Record<string, string> = {};
  // Terrain tile sets name their RGB encoding; viewers and the elevation service need it.
  if (typeof tj.encoding === 'string') extra.encoding = tj.encoding;
  return {
    kind: 'tiles',
    name: text(tj.name) ?? id,
    description: text(tj.description),
    attribution: text(tj.attribution),
    center: center(tj.center),
    pyramids: [pyramid],
    vectorLayers: pyramid.format === 'pbf' ? (vectorLayers(tj) ?? []) : undefined,
    extraMetadata: extra,
  };
}
