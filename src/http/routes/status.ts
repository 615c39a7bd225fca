// `/admin/status.json`: the mirror jobs (schedule, live progress, last result, errors, next run) for operators
// and their tools. Behind the configured admin keys (`admin.keys`): another key gets 403; with no admin key
// configured it answers 404, as if it did not exist. The upstream key is never part of the state.

import type { Config } from '../../config/schema';
import type { JobView } from '../../store/job-state';
import { KeyRing } from '../auth';
import { HttpError, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

const rings = new WeakMap<Config, KeyRing>();

function adminRing(config: Config): KeyRing | undefined {
  if (config.admin.keys.length === 0) return undefined;
  let ring = rings.get(config);
  if (!ring) {
    ring = new KeyRing(config.admin.keys.map((key) => ({ key, allowedOrigins: [], plan: 'free' as const })));
    rings.set(config, ring);
  }
  return ring;
}

/** 404 without admin keys (the endpoints do not exist), 403 without a valid admin key. */
function checkAdmin(ctx: RequestContext): void {
  const ring = adminRing(ctx.config);
  if (!ring) throw new HttpError(404, 'Not found');
  const given = ctx.query.get('key');
  if (!given) throw new HttpError(403, 'Missing admin key');
  if (!ring.check(given, {}).ok) throw new HttpError(403, 'Not an admin key');
}

export interface StatusDocument {
  generatedAt: string;
  /** Whether this process runs the schedules (`tilemirror serve` with scheduled jobs). */
  scheduler: boolean;
  jobs: JobView[];
}

/** The status of every configured job, from the job status the server was started with (none: no jobs known). */
export function statusDocument(ctx: RequestContext): StatusDocument {
  const { jobStatus } = ctx.services;
  return { generatedAt: new Date().toISOString(), scheduler: jobStatus?.live ?? false, jobs: jobStatus?.views() ?? [] };
}

const PRIVATE = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

export function adminStatusJson(ctx: RequestContext): Reply {
  checkAdmin(ctx);
  return {
    status: 200,
    body: Buffer.from(JSON.stringify(statusDocument(ctx), null, 1)),
    type: 'application/json; charset=utf-8',
    compressible: true,
    cache: 'none',
    headers: PRIVATE,
  };
}

