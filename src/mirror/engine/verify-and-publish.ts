// The verify and publish steps: a staged store is published only when it verifies, by one rename onto the
// published path, so readers never see a half-written store, and a store that fails verification leaves the
// published one untouched, its problems the run's. A tile store is verified against its plan (SQLite's integrity
// check, every planned tile stored or recorded empty, nothing else: store/mbtiles/publish.ts); a document store is
// written fresh, then verified document by document as it reads back (store/mbtiles/document-staging.ts).

import type { PyramidPlan } from '../../geo/tile-bands';
import { publishDocuments } from '../../store/mbtiles/document-staging';
import { publishStaging, verifyStaging } from '../../store/mbtiles/publish';
import type { StagingStore } from '../../store/mbtiles/staging';
import type { Discovered, DocumentToStore } from '../discovery/types';
import { fingerprint } from '../plan';
import type { Run } from './begin-end';
import { published } from './result';

/** Verifies a tile store's staging against its plan and publishes it; true when published (the staging store is then closed). */
export function publishTileStore(run: Run, staging: StagingStore, plans: PyramidPlan[]): boolean {
  const v = verifyStaging(staging, plans);
  if (!v.ok) {
    run.result.problems.push(...v.problems);
    return false;
  }
  publishStaging(staging, run.paths.published);
  published(run.result, run.paths.published);
  return true;
}

/** Writes a document store's staging file, verifies it and publishes it; true when published. */
export function publishDocumentStore(run: Run, discovered: Discovered, documents: DocumentToStore[]): boolean {
  const { ref, client, result } = run;
  const problems = publishDocuments(
    run.paths,
    discovered.header,
    documents.map((d) => ({ ...d, data: typeof d.data === 'string' ? Buffer.from(d.data) : d.data })),
    { fingerprint: fingerprint([client.base, ref.kind, ref.id, ref.upstreamPath ?? null]), upstream: client.base },
  );
  if (problems.length) {
    result.problems.push(...problems);
    return false;
  }
  published(result, run.paths.published);
  result.writes = documents.length;
  return true;
}
