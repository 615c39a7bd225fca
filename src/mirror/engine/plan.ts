// The plan step: the resource discovered (kind discovery, or source discovery for a generic source); a tile
// store's pyramids narrowed to the zooms and areas asked for (../plan.ts), a document store's documents as
// discovery describes them. Nothing is written.

import { existsSync } from 'node:fs';
import { storedFormat, storePaths } from '../../store/mbtiles/staging';
import { discover } from '../discovery';
import { discoverKind } from '../discovery/kinds';
import type { Discovered } from '../discovery/types';
import { UsageError } from '../errors';
import { overzoomed, planDiscovered, renderRaster, type Planned } from '../plan';
import type { ResourceRef } from '../resource';
import type { UpstreamClient } from '../upstream/client';
import type { Run } from './begin-end';
import type { MirrorOptions, RasterMode } from './options';

/** The raster mode of a resource: `render` applies to maps only, and is a UsageError naming any other resource. */
export function rasterModeOf(ref: ResourceRef, raster: RasterMode | undefined): RasterMode {
  if (raster !== 'render') return 'mirror';
  if (ref.kind !== 'maps') throw new UsageError(`${ref.kind}/${ref.id}: raster render applies to maps/ID resources only (the server renders a map's raster tiles from its style)`);
  return 'render';
}

/** Discovers a tiled resource and plans it (no store is touched): what `plan` prints and `mirror` runs. */
export async function discoverAndPlan(
  client: UpstreamClient,
  ref: ResourceRef,
  opts: Pick<MirrorOptions, 'zoom' | 'bboxes' | 'areas' | 'source' | 'signal' | 'dataDir' | 'scales' | 'formats' | 'raster' | 'overzoom'>,
): Promise<Planned> {
  const render = rasterModeOf(ref, opts.raster) === 'render';
  const paths = storePaths(opts.dataDir, ref.kind, ref.id);
  const ctx = {
    client,
    signal: opts.signal,
    knownFormat: storedFormat([paths.staging, paths.published]),
    scales: opts.scales,
    formats: opts.formats,
    zoom: opts.zoom,
    bboxes: [...(opts.bboxes ?? []), ...(opts.areas ?? []).map((a) => a.bbox)],
  };
  const discovered = await discover(ref, ctx, opts.source);
  const zoom = opts.overzoom && opts.zoom ? overzoomed(opts.zoom, discovered) : opts.zoom;
  const planned = planDiscovered(discovered, zoom, opts.bboxes, opts.areas);
  if (zoom !== opts.zoom) planned.notes.push(`zooms ${opts.zoom!.join('-')} are above the source's: its deepest zoom ${zoom![0]} mirrored, for the renderer to overzoom`);
  return { ref, ...(render ? renderRaster(planned) : planned) };
}

/** The plan step of a tile store's run: the plan, with its notes in the result and the log. */
export async function planTiles(run: Run): Promise<Planned> {
  const { opts, result, resource, redact } = run;
  const planned = await discoverAndPlan(run.client, run.ref, opts);
  const { discovered, header } = planned;
  result.planned = planned.total;
  result.notes.push(...discovered.notes.map(redact), ...planned.notes);
  result.mirrored = header.pyramids.map((py) => ({ pyramid: py.name, minzoom: py.minzoom, maxzoom: py.maxzoom, bounds: py.bounds }));
  for (const n of result.notes) run.log(`${resource}: ${n}`);
  return planned;
}

/**
 * The plan step of a document store's run: its description (documents to store, documents to fetch, what must be
 * published first). Document stores are the upstream's own kinds, never a generic source's.
 */
export function discoverDocuments(run: Run): Promise<Discovered> {
  const { client, opts, paths } = run;
  return discoverKind(run.ref, { client, signal: opts.signal, published: existsSync(paths.published) ? paths.published : undefined });
}
