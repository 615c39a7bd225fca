// `/admin/status.json`: the mirror jobs (schedule, live progress, last result, errors, next run) for operators
// and their tools. Behind the configured admin keys (`admin.keys`, admin-auth.ts): another key is forbidden; with no
// admin key configured it is not found, as if it did not exist. The upstream key is never part of the state.

import type { JobView } from '../../job-contracts';
import type { Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { adminJson, checkAdminRead as checkAdmin } from './admin-auth';

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

export function adminStatusJson(ctx: RequestContext): Reply {
  checkAdmin(ctx);
  return adminJson(statusDocument(ctx));
}

