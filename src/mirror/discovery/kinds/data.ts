// `data/{id}`: a dataset's `/data/{id}/features.json` (a GeoJSON FeatureCollection) into `{data}/data/{id}.mbtiles`,
// document `features.json`, stored byte for byte as the upstream sent it (after undoing a transfer gzip).

import type { ResourceRef } from '../../resource';
import { fetchJsonDocument } from '../../upstream/documents';
import type { DiscoverContext, Discovered } from '../types';

/** Why a value is not a GeoJSON FeatureCollection, or undefined when it is one. */
export function checkFeatureCollection(v: unknown): string | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return 'features.json is not a JSON object';
  const fc = v as { type?: unknown; features?: unknown };
  if (fc.type !== 'FeatureCollection') return `features.json is a ${typeof fc.type === 'string' ? fc.type : 'JSON object'}, not a FeatureCollection`;
  if (!Array.isArray(fc.features)) return 'features.json has no features array';
  if (!fc.features.every((f) => !!f && typeof f === 'object' && (f as { type?: unknown }).type === 'Feature')) return 'features.json holds a member that is not a Feature';
  return undefined;
}

export async function discoverData(ref: ResourceRef, ctx: DiscoverContext): Promise<Discovered> {
  const path = `/data/${encodeURIComponent(ref.id)}/features.json`;
  const found = await fetchJsonDocument(ctx.client, path, checkFeatureCollection, ctx.signal);
  const out: Discovered = { kind: 'data', id: ref.id, header: { kind: 'data', name: ref.id, pyramids: [] }, pyramids: [], documents: [], notes: [] };
  if (!found) return { ...out, absent: 1, missing: `the upstream has no dataset "${ref.id}" (404)` };
  const count = (found.value as { features: unknown[] }).features.length;
  out.documents.push({ path: 'features.json', contentType: 'application/json', data: found.bytes });
  out.notes.push(`${count} features`);
  return out;
}
