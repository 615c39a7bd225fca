// The stage step of a tile store's run: the staging store opened (a previous run's to resume, a copy of the
// published store, or a new file), the refresh cutoff fixed, the discovered documents written. The key is
// checked for first: nothing that holds it is ever written.

import { STATE, StagingStore } from '../../store/mbtiles/staging';
import { planSignature, plannedFingerprint, type Planned } from '../plan';
import { refreshCutoff } from '../refresh';
import { assertNoSecret } from '../rewrite';
import type { Run } from './begin-end';
import { spaceForRun } from './space';

/** A tile store's staging, ready for the fetch step. */
export interface StagedTiles {
  staging: StagingStore;
  /** Stored tiles the upstream vouched for after this time are current; older ones are revalidated. */
  cutoff: number;
  /** Tiles discovery already fetched (a format or size probe), by `pyramid/z/x/y`: stored when the plan reaches them, not fetched again. */
  prefetched: Map<string, Buffer>;
}

/** The key of a tile in `prefetched`. */
export const tileKey = (t: { pyramid: string; z: number; x: number; y: number }): string => `${t.pyramid}/${t.z}/${t.x}/${t.y}`;

/**
 * Before the staging file is opened: whether the data volume has room for the planned store. A run that cannot
 * fit fails here with one line naming both figures, and nothing is written; probed tiles join the prefetched ones.
 */
export async function roomForRun(run: Run, planned: Planned): Promise<boolean> {
  const { opts, result, resource } = run;
  const probed = (planned.discovered.prefetched ??= []);
  const space = await spaceForRun(run.client, planned, run.paths, opts.dataDir, opts.signal, (task, data) => probed.push({ task, data }));
  if (space.fits) return true;
  result.problems.push(space.message);
  run.log(`${resource}: ${space.message}`);
  return false;
}

export function stageTiles(run: Run, planned: Planned): StagedTiles {
  const { opts, resource, client } = run;
  const { discovered, plans, header } = planned;
  // The key must not reach the store: the documents were rewritten, this proves it.
  for (const d of discovered.documents) assertNoSecret(d.data, opts.key, `${resource} ${d.path}`);
  assertNoSecret(JSON.stringify(header), opts.key, `${resource} metadata`);

  const staging = StagingStore.open({
    paths: run.paths,
    header,
    fingerprint: plannedFingerprint(client.base, planned),
    upstream: client.base,
    plans,
    planSignature: planSignature(plans),
    batchSize: opts.batchSize,
    batchMs: opts.batchMs,
  });
  try {
    run.result.origin = staging.origin;
    if (staging.origin !== 'new') run.log(`${resource}: ${staging.origin === 'resumed' ? 'resuming the previous run' : 'starting from the published store'}`);
    const { maxAgeMs, cutoff } = refreshCutoff(run.started, opts.maxAge, staging.origin === 'resumed', staging.getState(STATE.refresh));
    staging.setState(STATE.refresh, JSON.stringify({ maxAgeMs, cutoff }));
    staging.writer.batch(() => {
      for (const d of discovered.documents) staging.putDocument(d.path, d.contentType, d.data);
    });
    const prefetched = new Map((discovered.prefetched ?? []).map((p) => [tileKey(p.task), p.data]));
    staging.flush();
    return { staging, cutoff, prefetched };
  } catch (err) {
    staging.close();
    throw err;
  }
}
