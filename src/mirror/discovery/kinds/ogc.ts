// `ogc`: the upstream's `/ogc/conformance` declaration, kept as provenance in `{data}/ogc/conformance.mbtiles`
// (document `conformance.json`). It is not served: this server declares its own conformance classes. The run's
// notes name the classes the upstream declares (shown by `tilemirror mirror` and in the job's logs).

import { rewriteDocument } from '../../rewrite';
import { fetchJsonDocument, type CollectContext, type Collected } from '../../engine/document-run';
import type { ResourceRef } from '../../resource';

export function checkConformance(v: unknown): string | undefined {
  const c = v as { conformsTo?: unknown } | null;
  if (!c || typeof c !== 'object' || Array.isArray(c)) return 'conformance is not a JSON object';
  if (!Array.isArray(c.conformsTo) || !c.conformsTo.every((u) => typeof u === 'string')) return 'conformance has no conformsTo list of URIs';
  return undefined;
}

export async function collectOgc(ref: ResourceRef, ctx: CollectContext): Promise<Collected> {
  const found = await fetchJsonDocument(ctx, '/ogc/conformance', checkConformance);
  const out: Collected = { header: { kind: 'ogc', name: 'OGC conformance of the upstream', pyramids: [] }, documents: [], planned: 1, absent: 0, failures: [], notes: [] };
  if (!found) {
    out.absent = 1;
    out.missing = 'the upstream has no /ogc/conformance (404)';
    return out;
  }
  const doc = rewriteDocument(found.value, ctx.client.base) as { conformsTo: string[] };
  out.documents.push({ path: `${ref.id}.json`, contentType: 'application/json', data: Buffer.from(JSON.stringify(doc)) });
  out.notes.push(`the upstream declares ${doc.conformsTo.length} OGC conformance classes`);
  return out;
}
