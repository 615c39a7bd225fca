// The engine: one run of a resource, its steps in order (one file per step beside this one), and the one queue
// every dependency goes through. A store's run: begin (lock), plan, stage, fetch, its prerequisites, verify and
// publish, end. A tile store is staged before it is fetched, tile by tile into its staging file; a document
// store is fetched first and written whole when it is published. A resource's dependencies are each a run of
// their own, mirrored by `mirrorDependencies`.

import { isDocumentKind } from '../../store/types';
import type { Discovered } from '../discovery/types';
import { UsageError } from '../errors';
import { refOf, storesOf, type ResourceRef } from '../resource';
import { createRedactor } from '../upstream/redact';
import { beginRun, endRun, progressOf, recordRunError, type Run } from './begin-end';
import { fetchDocuments } from './fetch-documents';
import { fetchTiles } from './fetch-tiles';
import { sumFontstack } from './fontstack';
import type { MirrorOptions } from './options';
import { discoverDocuments, planTiles, rasterModeOf } from './plan';
import { publishDocumentStore, publishTileStore } from './verify-and-publish';
import { dependencyLine, emptyResult, interrupted, type MirrorResult } from './result';
import { roomForRun, stageTiles, type StagedTiles } from './stage';
import { requestsForRun } from './requests';

/**
 * What a dependency is to the resource that needs it:
 * - `uses`: a map style's tile sets, fonts and sprite, mirrored after the map when the run asks for them;
 * - `requires`: a weather catalog's keyframe tile sets, always mirrored, and published before the catalog;
 * - `part`: a fontstack's fonts, which are all there is of it.
 */
type Relation = 'uses' | 'requires' | 'part';

/** Mirrors one resource. Never throws for upstream or store trouble: the result says what happened. Throws UsageError. */
export async function runMirror(opts: MirrorOptions): Promise<MirrorResult> {
  const ref = refOf(opts.resource);
  // A map whose raster tiles the server renders needs what its style draws with.
  const withDependencies = opts.withDependencies || rasterModeOf(ref, opts.raster) === 'render';
  const stores = storesOf(ref);
  if (stores.length > 1) return runFontstack(ref, stores, opts);
  const { result, dependencies } = await runStore(stores[0], opts);
  if (withDependencies && dependencies.length && result.status !== 'interrupted' && !opts.signal?.aborted) {
    result.dependencies = await mirrorDependencies(result, dependencies, opts, 'uses');
  }
  return result;
}

/** One run of one store; with the dependencies its discovery named, for the caller to mirror after it. */
async function runStore(ref: ResourceRef, opts: MirrorOptions): Promise<{ result: MirrorResult; dependencies: ResourceRef[] }> {
  const run = beginRun(opts, ref);
  if ('done' in run) return { result: run.done, dependencies: [] };
  const { result } = run;
  const documentStore = isDocumentKind(ref.kind);
  let dependencies: ResourceRef[] = [];
  let staged: StagedTiles | undefined;
  try {
    if (documentStore) {
      const discovered = await discoverDocuments(run);
      dependencies = discovered.dependencies ?? [];
      const documents = await fetchDocuments(run, discovered);
      if (documents && (await prerequisitesPublished(run, discovered))) publishDocumentStore(run, discovered, documents);
    } else {
      const planned = await planTiles(run);
      dependencies = planned.discovered.dependencies ?? [];
      if (!requestsForRun(run, planned) || !(await roomForRun(run, planned))) return { result, dependencies: [] };
      staged = stageTiles(run, planned);
      const fetched = await fetchTiles(run, planned, staged);
      if (fetched && (await prerequisitesPublished(run, planned.discovered)) && publishTileStore(run, staged.staging, planned.plans)) staged = undefined;
    }
  } catch (err) {
    // A tile store's own request the upstream cannot satisfy (zooms, areas) is the caller's usage error; a
    // document store records every error as its problem, a prerequisite's included.
    if (err instanceof UsageError && !documentStore) throw err;
    recordRunError(run, err);
  } finally {
    try {
      staged?.staging.close();
    } finally {
      endRun(run);
    }
    // A document run reports its end even when nothing was planned.
    if (result.planned > 0 || documentStore) opts.onProgress?.(progressOf(run));
  }
  return { result, dependencies };
}

/**
 * A store's prerequisites, mirrored before it is published: true when every one of them was published; otherwise
 * the result says why (interrupted, or which were not published: the store keeps its previous version).
 */
async function prerequisitesPublished(run: Run, discovered: Discovered): Promise<boolean> {
  const refs = discovered.prerequisites ?? [];
  if (refs.length === 0) return true;
  const { result, opts } = run;
  const runs = await mirrorDependencies(result, refs, opts, 'requires');
  if (runs.length) result.dependencies = runs;
  if (opts.signal?.aborted || runs.some((r) => r.status === 'interrupted')) {
    interrupted(result);
    return false;
  }
  const unpublished = runs.filter((r) => r.status !== 'published');
  if (unpublished.length) {
    result.problems.push(`${unpublished.map((r) => r.resource).join(', ')} not published: ${run.resource} keeps its previous version`);
    return false;
  }
  return true;
}

/** A fontstack: each font its own store, the stack's result their sum. */
async function runFontstack(ref: ResourceRef, fonts: ResourceRef[], opts: MirrorOptions): Promise<MirrorResult> {
  const started = Date.now();
  const result = emptyResult(`${ref.kind}/${ref.id}`);
  const runs = await mirrorDependencies(result, fonts, opts, 'part');
  sumFontstack(result, runs, !!opts.signal?.aborted);
  result.elapsedMs = Date.now() - started;
  return result;
}

/**
 * The one queue of dependencies: each mirrored in turn, a run of its own, its line added to the notes of the
 * resource that needs it (`dependency ...` for one it uses, told in the log too; a prerequisite is announced in
 * the log before its run). An interrupt stops the queue; a failure does not.
 */
async function mirrorDependencies(needer: MirrorResult, refs: ResourceRef[], opts: MirrorOptions, relation: Relation): Promise<MirrorResult[]> {
  const log = (line: string): void => opts.log?.(createRedactor(opts.key)(line));
  const runs: MirrorResult[] = [];
  for (const ref of refs) {
    if (opts.signal?.aborted) break;
    if (relation === 'requires') log(`${needer.resource}: mirroring ${ref.kind}/${ref.id}`);
    const r = await runMirror(dependencyOptions(opts, ref));
    runs.push(r);
    if (relation === 'uses') {
      needer.notes.push(`dependency ${dependencyLine(r)}`);
      log(`${needer.resource}: dependency ${dependencyLine(r)}`);
    } else {
      needer.notes.push(dependencyLine(r));
    }
    if (r.status === 'interrupted') break;
  }
  return runs;
}

/**
 * A dependency's options: the run's, less what belonged to the resource that needed it (its generic source, scales,
 * formats, raster mode and dependencies). A tile set keeps the zooms and areas asked for (a style's vector tiles are usually far
 * larger than the part wanted; a keyframe covers what the catalog's run covers); the other kinds have none.
 */
function dependencyOptions(opts: MirrorOptions, ref: ResourceRef): MirrorOptions {
  const narrowing = ref.kind === 'tiles' ? {} : { zoom: undefined, bboxes: undefined, areas: undefined };
  // The tile sets a rendered map draws from: the renderer overzooms their deepest tiles.
  const overzoom = ref.kind === 'tiles' && opts.raster === 'render' ? true : undefined;
  return { ...opts, resource: ref, withDependencies: false, ...narrowing, source: undefined, scales: undefined, formats: undefined, raster: undefined, overzoom };
}
