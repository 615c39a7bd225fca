// `weather`: the catalog `/weather/latest.json` into `{data}/weather/latest.mbtiles` (document `latest.json`,
// upstream URLs rewritten to this server); every keyframe tileset it names is a prerequisite, `tiles/{keyframeId}`
// (tiles at `/tiles/{keyframeId}/{z}/{x}/{y}.png`, described by their tiles.json), mirrored with the run's zooms
// and areas and published before the catalog is, which is published only when all of them were: a served
// catalog never names a keyframe whose tiles are missing. Keyframes that vanished upstream keep their tilesets
// (a client may still hold an older catalog); they are reported as stale, for the operator to delete.

import { rewriteDocument } from '../../rewrite';
import { readPublishedDocument } from '../../../store/mbtiles/document-staging';
import type { ResourceRef } from '../../resource';
import { fetchJsonDocument } from '../../upstream/documents';
import type { DiscoverContext, Discovered } from '../types';

const ID = /^[^./\\\x00-\x1f][^/\\\x00-\x1f]*$/;

/** Why a value is not a weather catalog, or undefined. */
export function checkWeatherCatalog(v: unknown): string | undefined {
  const c = v as { variables?: unknown } | null;
  if (!c || typeof c !== 'object' || Array.isArray(c)) return 'latest.json is not a JSON object';
  if (!Array.isArray(c.variables)) return 'latest.json has no variables array';
  for (const [i, variable] of c.variables.entries()) {
    const kf = (variable as { keyframes?: unknown } | null)?.keyframes;
    if (!Array.isArray(kf)) return `variables[${i}] has no keyframes array`;
    for (const [k, f] of kf.entries()) {
      const id = (f as { id?: unknown } | null)?.id;
      if (typeof id !== 'string' || !ID.test(id)) return `variables[${i}].keyframes[${k}] has no usable id`;
    }
  }
  return undefined;
}

/** Keyframe ids of a catalog, in order, each once. */
export function keyframeIds(catalog: unknown): string[] {
  const ids: string[] = [];
  const vars = (catalog as { variables?: { keyframes?: { id?: unknown }[] }[] } | null)?.variables;
  for (const v of Array.isArray(vars) ? vars : []) {
    for (const f of Array.isArray(v?.keyframes) ? v.keyframes : []) if (typeof f?.id === 'string' && !ids.includes(f.id)) ids.push(f.id);
  }
  return ids;
}

export async function discoverWeather(ref: ResourceRef, ctx: DiscoverContext): Promise<Discovered> {
  const found = await fetchJsonDocument(ctx.client, '/weather/latest.json', checkWeatherCatalog, ctx.signal);
  const out: Discovered = { kind: 'weather', id: ref.id, header: { kind: 'weather', name: 'Weather catalog', pyramids: [] }, pyramids: [], documents: [], notes: [] };
  if (!found) return { ...out, absent: 1, missing: 'the upstream has no /weather/latest.json (404)' };
  const doc = rewriteDocument(found.value, ctx.client.base);
  const ids = keyframeIds(doc);
  out.documents.push({ path: 'latest.json', contentType: 'application/json', data: Buffer.from(JSON.stringify(doc)) });
  out.prerequisites = ids.map((id) => ({ kind: 'tiles', id }));
  const vars = (doc as { variables: unknown[] }).variables.length;
  out.notes.push(`${vars} variable${vars === 1 ? '' : 's'}, ${ids.length} keyframe tileset${ids.length === 1 ? '' : 's'}`);
  const previous = readPublishedDocument(ctx.published, 'latest.json');
  if (previous) {
    try {
      const stale = keyframeIds(JSON.parse(previous.toString('utf8'))).filter((id) => !ids.includes(id));
      if (stale.length) out.notes.push(`stale keyframe tilesets kept (no longer listed upstream; delete them when no client needs them): ${stale.map((id) => `tiles/${id}`).join(', ')}`);
    } catch {
      /* an unreadable previous catalog names nothing */
    }
  }
  return out;
}
