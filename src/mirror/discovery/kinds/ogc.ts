// `ogc`: the upstream's `/ogc/conformance` declaration, kept as provenance in `{data}/ogc/conformance.mbtiles`
// (document `conformance.json`). It is not served: this server declares its own conformance classes. The run's
// notes name the classes the upstream declares (shown by `tilemirror mirror` and in the job's logs).

import { rewriteDocument } from '../../rewrite';
import type { ResourceRef } from '../../resource';
import { fetchJsonDocument } from '../../upstream/documents';
import type { DiscoverContext, Discovered } from '../types';

export function checkConformance(v: unknown): string | undefined {
  const c = v as { conformsTo?: unknown } | null;
  if (!c || typeof c !== 'object' || Array.isArray(c)) return 'conformance is not a JSON object';
  if (!Array.isArray(c.conformsTo) || !c.conformsTo.every((u) => typeof u === 'string')) return 'conformance has no conformsTo list of URIs';
  return undefined;
}

export async function discoverOgc(ref: ResourceRef, ctx: DiscoverContext): Promise<Discovered> {
  const found = await fetchJsonDocument(ctx.client, '/ogc/conformance', checkConformance, ctx.signal);
  const out: Discovered = { kind: 'ogc', id: ref.id, header: { kind: 'ogc', name: 'OGC conformance of the upstream', pyramids: [] }, pyramids: [], documents: [], notes: [] };
  if (!found) return { ...out, absent: 1, missing: 'the upstream has no /ogc/conformance (404)' };
  const doc = rewriteDocument(found.value, ctx.client.base) as { conformsTo: string[] };
  out.documents.push({ path: `${ref.id}.json`, contentType: 'application/json', data: Buffer.from(JSON.stringify(doc)) });
  out.notes.push(`the upstream declares ${doc.conformsTo.length} OGC conformance classes`);
  return out;
}
