// One mirror run of one resource: lock, plan, stage, fetch, verify, publish (one file per step beside this one).

import { isDocumentKind } from '../../store/types';
import { mirrorDocuments } from '../discovery/kinds';
import { UsageError } from '../errors';
import { refOf, type ResourceRef } from '../resource';
import { createRedactor } from '../upstream/redact';
import { beginRun, endRun, progressOf, recordRunError } from './begin-end';
import { fetchTiles } from './fetch-tiles';
import type { MirrorOptions } from './options';
import { planTiles } from './plan';
import { publishTiles } from './publish';
import { dependencyLine, type MirrorResult } from './result';
import { stageTiles, type StagedTiles } from './stage';

/** Mirrors one resource. Never throws for upstream or store trouble: the result says what happened. Throws UsageError. */
export async function runMirror(opts: MirrorOptions): Promise<MirrorResult> {
  const ref = refOf(opts.resource);
  // Document resources have no tile plan: the document engine stages, verifies and publishes them alike.
  if (isDocumentKind(ref.kind)) return mirrorDocuments({ ...ref, kind: ref.kind }, opts, { runMirror });
  const wanted: ResourceRef[] = [];
  const result = await runTiles(opts, ref, wanted);
  if (wanted.length && result.status !== 'interrupted' && !opts.signal?.aborted) {
    // A map's tile sets, fonts and sprite, each its own store, after the map (whose run named them). Tile sets
    // keep the map's zooms and areas (a style's vector source is usually far larger than the part wanted).
    result.dependencies = [];
    for (const d of wanted) {
      if (opts.signal?.aborted) break;
      const narrowing = d.kind === 'tiles' ? {} : { zoom: undefined, bboxes: undefined, areas: undefined };
      const r = await runMirror({ ...opts, resource: d, withDependencies: false, ...narrowing, source: undefined, scales: undefined, formats: undefined });
      result.dependencies.push(r);
      result.notes.push(`dependency ${dependencyLine(r)}`);
      opts.log?.(createRedactor(opts.key)(`${result.resource}: dependency ${dependencyLine(r)}`));
      if (r.status === 'interrupted') break;
    }
  }
  return result;
}

/** One run of a tiled resource (tiles, maps, images); `wanted` receives what to mirror after it (withDependencies). */
async function runTiles(opts: MirrorOptions, ref: ResourceRef, wanted: ResourceRef[]): Promise<MirrorResult> {
  const run = beginRun(opts, ref);
  if ('done' in run) return run.done;
  const { result } = run;
  let staged: StagedTiles | undefined;
  try {
    const planned = await planTiles(run);
    if (opts.withDependencies) wanted.push(...(planned.discovered.dependencies ?? []));
    staged = stageTiles(run, planned);
    if ((await fetchTiles(run, planned, staged)) && publishTiles(run, staged.staging, planned.plans)) staged = undefined;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    recordRunError(run, err);
  } finally {
    try {
      staged?.staging.close();
    } finally {
      endRun(run);
    }
    if (result.planned > 0) opts.onProgress?.(progressOf(run));
  }
  return result;
}
