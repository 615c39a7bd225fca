// An XYZ source: a tile URL template as people type it ({z}/{x}/{y}; {-y} or scheme "tms" for rows counted from
// the south; {s} with a list of subdomains). A template says nothing else: the zooms are the ones asked for
// (--zoom), the bounds the world (narrowed by --bbox); the format and tile size come from the bytes of a first
// tile, which is kept and stored, not fetched again.

import { WORLD_BOUNDS } from '../../../geo/mercator';
import type { Bounds } from '../../../geo/bounds';
import { stripKey } from '../../upstream/client';
import { UsageError } from '../../errors';
import type { DiscoverContext, Discovered } from '../types';
import { probeCandidates, probeFormat, tilePixels } from './tilejson';

export interface XyzSource {
  type: 'xyz';
  /** The template, key-free once split (see splitSourceKey). */
  url: string;
  /** What {s} stands for (e.g. a, b, c). */
  subdomains?: string[];
  /** "tms": rows counted from the south (as {-y}). */
  scheme?: 'xyz' | 'tms';
}

/**
 * The template checked and with its rows as the fetcher wants them ({-y} for TMS): a UsageError says what is
 * wrong with it (no {z}/{x}/{y}, {s} without subdomains or subdomains without {s}, {-y} and scheme tms together).
 */
export function xyzTemplate(source: XyzSource): string {
  const t = source.url;
  const shown = stripKey(t);
  if (!/^https?:\/\//i.test(t)) throw new UsageError(`the XYZ template must be an http(s) URL, got ${shown}`);
  if (!t.includes('{z}') || !t.includes('{x}') || !(t.includes('{y}') || t.includes('{-y}'))) throw new UsageError(`the XYZ template needs {z}, {x} and {y} (or {-y}): ${shown}`);
  const hasS = t.includes('{s}');
  const subs = source.subdomains ?? [];
  if (hasS && subs.length === 0) throw new UsageError(`the XYZ template has {s}: give its subdomains (--subdomains a,b,c): ${shown}`);
  if (!hasS && subs.length > 0) throw new UsageError(`subdomains given but the XYZ template has no {s}: ${shown}`);
  if (subs.some((s) => !/^[A-Za-z0-9.-]+$/.test(s))) throw new UsageError(`subdomains are host name parts (letters, digits, "-", "."): ${subs.join(',')}`);
  if (source.scheme === 'tms' && t.includes('{-y}')) throw new UsageError('give either {-y} in the template or scheme tms, not both (together they flip the rows twice)');
  return source.scheme === 'tms' ? t.replace('{y}', '{-y}') : t;
}

/** Every origin the template's tiles come from (one per subdomain): the key goes to these and nowhere else. */
export function xyzOrigins(source: XyzSource): string[] {
  const hosts = source.subdomains?.length ? source.subdomains.map((s) => source.url.replace('{s}', s)) : [source.url];
  return hosts.map((u) => /^(https?:\/\/[^/?#]+)/i.exec(u)?.[1]).filter((o): o is string => !!o);
}

export async function discoverXyzSource(id: string, source: XyzSource, ctx: DiscoverContext): Promise<Discovered> {
  const template = xyzTemplate(source);
  if (!ctx.zoom) throw new UsageError('an XYZ template does not say its zooms: give --zoom MIN-MAX (a job: zoom: [MIN, MAX])');
  const [minzoom, maxzoom] = ctx.zoom;
  const area: Bounds = ctx.bboxes?.[0] ?? WORLD_BOUNDS;
  const upstream = { template, ...(source.subdomains?.length && { subdomains: source.subdomains }) };
  const probed = await probeFormat(ctx.client, upstream, probeCandidates(area, minzoom, maxzoom), ctx.signal);
  const measured = probed.format !== 'pbf' && probed.prefetched[0] ? await tilePixels(probed.prefetched[0].data) : undefined;
  const tileSize = measured ?? (probed.format === 'pbf' ? 512 : 256);
  const pyramid = { name: 'main', tileSize, scale: 1, format: probed.format, minzoom, maxzoom, bounds: WORLD_BOUNDS };
  const shown = stripKey(source.url);
  const notes = [`mirrored from the XYZ template ${shown}${source.scheme === 'tms' ? ' (scheme tms)' : ''}: ${probed.format}${measured ? `, ${measured} px tiles (measured)` : ''}`];
  if (probed.format !== 'pbf' && !measured) notes.push(`the tile size could not be read from the first tile: mirrored as ${tileSize} px`);
  const provenance = { type: 'xyz', template: shown, ...(source.subdomains && { subdomains: source.subdomains }), scheme: source.scheme ?? 'xyz', tileSize };
  return {
    kind: 'tiles',
    id,
    header: { kind: 'tiles', name: id, type: 'baselayer', pyramids: [pyramid], vectorLayers: probed.format === 'pbf' ? [] : undefined },
    pyramids: [{ pyramid, ...upstream }],
    documents: [{ path: 'source.json', contentType: 'application/json', data: JSON.stringify(provenance) }],
    notes,
    prefetched: probed.prefetched,
  };
}
