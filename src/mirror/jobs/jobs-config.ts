// The configured mirror jobs (`mirror.jobs` in the config file) turned into what a run needs: the upstream,
// the key (from the environment by default, never printed), resources, zooms, areas and limits.

import { ConfigError } from '../../config/basics';
import type { Config } from '../../config/schema';
import type { Bounds } from '../../geo/bounds';
import type { TileFormat } from '../../store/types';
import type { RenderFormat } from '../../store/renders/render-store';
import { parseResource, type ResourceRef } from '../resource';
import { readAreaFile, type PolygonArea } from '../area';
import { UsageError } from '../errors';
import { sourceBase, splitSourceKey, type GenericSource } from '../discovery/sources';
import type { MirrorOptions, RasterMode } from '../engine/options';
import { monthlyBudgetOf, warnOnLedgerError, RequestBudget, upstreamOrigin } from '../upstream/request-budget';
import { RequestLedger } from '../../store/data-dir/request-ledger';

export interface MirrorJob {
  name: string;
  resources: ResourceRef[];
  upstream: string;
  /** The upstream key, or undefined when none is configured (an open upstream). Never log this object. */
  key?: string;
  /** Where the key came from, for messages (`$TILEMIRROR_UPSTREAM_KEY`, `config`, `--key`). */
  keySource?: string;
  zoom?: [number, number];
  bboxes: Bounds[];
  /** GeoJSON polygon areas, read from the job's `areas` files. */
  areas: PolygonArea[];
  /** A generic source (TileJSON, WMTS, XYZ or WMS) mirrored into the job's one `tiles/ID`; `upstream` is its origin. */
  source?: GenericSource;
  concurrency: number;
  http2: boolean;
  rate?: number;
  timeoutMs: number;
  failureBudget: number;
  /** Most upstream requests a run may send (undefined: no cap of its own). */
  maxRequests?: number;
  /** The monthly request budget of the job's upstream (null: none). */
  requestsPerMonth: number | null;
  withDependencies: boolean;
  /** Applies to the job's maps (the others mirror as they are). */
  raster?: RasterMode;
  scales?: number[];
  formats?: TileFormat[];
  maxAge?: number;
  schedule?: string;
  timezone?: string;
}

/**
 * Resolves the configured jobs. The key is taken, in order, from `keyOverride` (`--key`), the job's or the
 * section's `keyEnv` variable, then `mirror.key`. Throws ConfigError naming the field of a bad resource.
 */
export function configuredJobs(config: Config, env: NodeJS.ProcessEnv = process.env, keyOverride?: string): MirrorJob[] {
  const m = config.mirror;
  return m.jobs.flatMap((j, i) => {
    if (j.kind === 'render') return [];
    const resources = j.resources.map((r, k) => {
      try {
        return parseResource(r);
      } catch (err) {
        throw new ConfigError(`invalid configuration: mirror.jobs[${i}].resources[${k}]: ${(err as Error).message}`);
      }
    });
    const keyEnv = j.keyEnv ?? m.keyEnv;
    let key: string | undefined;
    let keySource: string | undefined;
    if (keyOverride) [key, keySource] = [keyOverride, '--key'];
    else if (env[keyEnv]) [key, keySource] = [env[keyEnv], `$${keyEnv}`];
    else if (m.key) [key, keySource] = [m.key, 'config mirror.key'];
    const areas = j.areas.map((file, k) => {
      try {
        return readAreaFile(file);
      } catch (err) {
        throw new ConfigError(`invalid configuration: mirror.jobs[${i}].areas[${k}]: ${(err as Error).message}`);
      }
    });
    if (j.raster === 'render' && !resources.some((r) => r.kind === 'maps')) {
      throw new ConfigError(`invalid configuration: mirror.jobs[${i}].raster: render applies to maps resources, and the job has none (${j.resources.join(', ')})`);
    }
    let source: GenericSource | undefined;
    let upstream = j.upstream ?? m.upstream;
    if (j.source) {
      const split = splitSourceKey(configuredSource(j.source));
      source = split.source;
      try {
        upstream = sourceBase(source);
      } catch (err) {
        throw new ConfigError(`invalid configuration: mirror.jobs[${i}].source: ${(err as Error).message}`);
      }
      // The key in the source's URL is the source's own; it wins over the upstream key.
      if (split.key) [key, keySource] = [split.key, `mirror.jobs[${i}].source URL`];
    }
    return {
      name: j.name,
      resources,
      upstream: upstream!,
      key,
      keySource,
      zoom: j.zoom,
      bboxes: j.bboxes,
      areas,
      ...(source && { source }),
      concurrency: j.concurrency ?? m.concurrency,
      http2: j.http2 ?? m.http2,
      rate: j.rate ?? m.rate,
      timeoutMs: (j.timeout ?? m.timeout) * 1000,
      failureBudget: j.failureBudget ?? m.failureBudget,
      ...(j.maxRequests !== undefined && { maxRequests: j.maxRequests }),
      requestsPerMonth: monthlyBudgetOf(m.requestsPerMonth, upstream!),
      withDependencies: j.withDependencies,
      ...(j.raster && { raster: j.raster }),
      scales: j.scales,
      formats: j.formats,
      maxAge: j.maxAge,
      schedule: j.schedule,
      timezone: j.timezone ?? m.timezone,
    };
  });
}

/** A configured job of `kind: render`: pre-renders its maps' raster tiles (prerender.ts) into their render stores. */
export interface RenderJob {
  kind: 'render';
  name: string;
  resources: ResourceRef[];
  /** Zooms of the 512 px tiles. */
  zoom: [number, number];
  bboxes: Bounds[];
  sizes: (256 | 512)[];
  scales: (1 | 2)[];
  formats: RenderFormat[];
  /** Grids besides Web Mercator whose tiles the job draws and keeps too (identifiers of the `grids` section). */
  grids: string[];
  schedule?: string;
  timezone?: string;
}

/** Any configured job: the scheduler and the admin API run both kinds. */
export type ConfiguredJob = MirrorJob | RenderJob;

export const isRenderJob = (job: ConfiguredJob): job is RenderJob => 'kind' in job && job.kind === 'render';

/** The configured render jobs (the schema checked their fields: maps only, a zoom, nothing of an upstream). */
export function configuredRenderJobs(config: Config): RenderJob[] {
  const m = config.mirror;
  return m.jobs.flatMap((j): RenderJob[] =>
    j.kind === 'render'
      ? [
          {
            kind: 'render',
            name: j.name,
            resources: j.resources.map(parseResource),
            zoom: j.zoom!,
            bboxes: j.bboxes,
            sizes: j.sizes ?? [512, 256],
            scales: j.scales ?? [1],
            formats: j.formats ?? ['png'],
            grids: j.grids ?? [],
            schedule: j.schedule,
            timezone: j.timezone ?? m.timezone,
          },
        ]
      : [],
  );
}

/** Every configured job, in config order. */
export function allConfiguredJobs(config: Config, env: NodeJS.ProcessEnv = process.env, keyOverride?: string): ConfiguredJob[] {
  const mirror = configuredJobs(config, env, keyOverride);
  const render = configuredRenderJobs(config);
  return config.mirror.jobs.map((j) => (j.kind === 'render' ? render : mirror).find((c) => c.name === j.name)!);
}

type JobSource = NonNullable<Config['mirror']['jobs'][number]['source']>;

/** A job's `source:` as a GenericSource (lists of layers and styles joined as WMS wants them). */
export function configuredSource(s: JobSource): GenericSource {
  const joined = (v: string | string[]): string => (Array.isArray(v) ? v.join(',') : v);
  if ('tilejson' in s) return { type: 'tilejson', url: s.tilejson };
  if ('wmts' in s) return { type: 'wmts', url: s.wmts, layer: s.layer, ...(s.matrixSet && { matrixSet: s.matrixSet }) };
  if ('xyz' in s) return { type: 'xyz', url: s.xyz, ...(s.subdomains && { subdomains: s.subdomains }), ...(s.scheme && { scheme: s.scheme }) };
  return {
    type: 'wms',
    url: s.wms,
    layers: joined(s.layers),
    ...(s.styles !== undefined && { styles: joined(s.styles) }),
    ...(s.format && { format: s.format }),
    ...(s.version && { version: s.version }),
    ...(s.tileSize && { tileSize: s.tileSize }),
  };
}

/** The named jobs in the order given (all, in config order, when none is named); unknown names are a UsageError. */
export function selectJobs<J extends { name: string }>(jobs: J[], names: string[]): J[] {
  if (names.length === 0) return jobs;
  const unknown = names.filter((n) => !jobs.some((j) => j.name === n));
  if (unknown.length > 0) {
    const known = jobs.map((j) => j.name).join(', ') || 'none configured';
    throw new UsageError(`unknown job${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (configured: ${known})`);
  }
  return names.map((n) => jobs.find((j) => j.name === n)!);
}

/** The key-free origins of the configured jobs' upstreams, in config order, each once (nothing is read but the config). */
export function jobUpstreams(config: Config): string[] {
  const m = config.mirror;
  const urls = m.jobs.filter((j) => j.kind !== 'render').map((j) => (j.source ? sourceBase(splitSourceKey(configuredSource(j.source)).source) : (j.upstream ?? m.upstream!)));
  return [...new Set(urls.map(upstreamOrigin))];
}

/**
 * The request budget of one run of the job: its maxRequests and its upstream's month, counted in the data
 * directory's ledger. A plan takes it without the run's cap (its own requests are not the run's).
 */
export function jobBudget(job: MirrorJob, dataDir: string, withRunCap = true, warn?: (line: string) => void): RequestBudget {
  return new RequestBudget({
    upstream: upstreamOrigin(job.upstream),
    maxRequests: withRunCap ? job.maxRequests : undefined,
    perMonth: job.requestsPerMonth,
    ledger: new RequestLedger(dataDir),
    onLedgerError: warnOnLedgerError(dataDir, warn),
  });
}

/** The runMirror options of one resource of a job. */
export function jobMirrorOptions(job: MirrorJob, resource: ResourceRef, dataDir: string): MirrorOptions {
  return {
    upstream: job.upstream,
    dataDir,
    resource,
    key: job.key,
    zoom: job.zoom,
    bboxes: job.bboxes,
    areas: job.areas,
    source: job.source,
    concurrency: job.concurrency,
    http2: job.http2,
    rate: job.rate,
    timeoutMs: job.timeoutMs,
    failureBudget: job.failureBudget,
    withDependencies: job.withDependencies,
    // The job's other kinds mirror as they are.
    ...(resource.kind === 'maps' && job.raster && { raster: job.raster }),
    scales: job.scales,
    formats: job.formats,
    maxAge: job.maxAge,
  };
}
