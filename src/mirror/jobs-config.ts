// The configured mirror jobs (`mirror.jobs` in the config file) turned into what a run needs: the upstream,
// the key (from the environment by default, never printed), resources, zooms, areas and limits.

import { ConfigError } from '../config/load';
import type { Config } from '../config/schema';
import type { Bounds } from '../store/types';
import { parseResource, type ResourceRef } from './jobs';
import { UsageError } from './plan';
import type { MirrorOptions } from './run';

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
  concurrency: number;
  rate?: number;
  timeoutMs: number;
  failureBudget: number;
  schedule?: string;
  timezone?: string;
}

/**
 * Resolves the configured jobs. The key is taken, in order, from `keyOverride` (`--key`), the job's or the
 * section's `keyEnv` variable, then `mirror.key`. Throws ConfigError naming the field of a bad resource.
 */
export function configuredJobs(config: Config, env: NodeJS.ProcessEnv = process.env, keyOverride?: string): MirrorJob[] {
  const m = config.mirror;
  return m.jobs.map((j, i) => {
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
    return {
      name: j.name,
      resources,
      upstream: (j.upstream ?? m.upstream)!,
      key,
      keySource,
      zoom: j.zoom,
      bboxes: j.bboxes,
      concurrency: j.concurrency ?? m.concurrency,
      rate: j.rate ?? m.rate,
      timeoutMs: (j.timeout ?? m.timeout) * 1000,
      failureBudget: j.failureBudget ?? m.failureBudget,
      schedule: j.schedule,
      timezone: j.timezone ?? m.timezone,
    };
  });
}

/** The named jobs in the order given (all, in config order, when none is named); unknown names are a UsageError. */
export function selectJobs(jobs: MirrorJob[], names: string[]): MirrorJob[] {
  if (names.length === 0) return jobs;
  const unknown = names.filter((n) => !jobs.some((j) => j.name === n));
  if (unknown.length > 0) {
    const known = jobs.map((j) => j.name).join(', ') || 'none configured';
    throw new UsageError(`unknown job${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (configured: ${known})`);
  }
  return names.map((n) => jobs.find((j) => j.name === n)!);
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
    concurrency: job.concurrency,
    rate: job.rate,
    timeoutMs: job.timeoutMs,
    failureBudget: job.failureBudget,
  };
}
