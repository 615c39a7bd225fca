// The verify and publish steps: a staged store is published only when it verifies, by one rename onto the
// published path (store/publish.ts), so readers never see a half-written store and a store that fails
// verification leaves the published one untouched, its problems the run's. A tile store is verified against
// its plan (SQLite's integrity check, every planned tile stored or recorded empty, nothing else).

import type { PyramidPlan } from '../../geo/tile-bands';
import { publishStaging, verifyStaging } from '../../store/publish';
import type { StagingStore } from '../../store/staging';
import type { Run } from './begin-end';
import { published } from './result';

/** Verifies a tile store's staging against its plan and publishes it; true when published (the staging store is then closed). */
export function publishTiles(run: Run, staging: StagingStore, plans: PyramidPlan[]): boolean {
  const v = verifyStaging(staging, plans);
  if (!v.ok) {
    run.result.problems.push(...v.problems);
    return false;
  }
  publishStaging(staging, run.paths.published);
  published(run.result, run.paths.published);
  return true;
}
