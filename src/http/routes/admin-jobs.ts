// The admin API's jobs: the list (with live progress and the instance each runs on, and this month's upstream
// requests against their budgets), one job with its last runs, its plan (tiles, estimated size and time, the data
// volume's free space, the upstream requests expected), and the two writes: run now and cancel. Reads through the job status reader, writes through the job control `serve` wires (the scheduler of
// this process): http never imports mirror.

import { hostname } from 'node:os';
import { z } from 'zod';
import { ServiceError } from '../../errors';
import { instanceName, runningOn, type CancelRequest, type JobView, type RunRequest } from '../../job-contracts';
import type { Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { adminAccepted, adminJson, auditedWrite, checkAdminRead } from './admin-auth';
import { statusDocument } from './status';

export const jobParams = z.object({ name: z.string().min(1).max(200).meta({ description: 'The job name (mirror.jobs[].name)' }) });
type JobParams = z.output<typeof jobParams>;

const host = hostname();

/** This process, as the API names instances. */
function thisInstance(ctx: RequestContext): string {
  return ctx.services.jobControl?.instance ?? instanceName(host, process.pid);
}

const withInstance = (v: JobView): JobView & { runningOn: string | null } => ({ ...v, runningOn: runningOn(v, host) });

function findJob(ctx: RequestContext, name: string): JobView {
  const job = ctx.services.jobStatus?.views().find((v) => v.name === name);
  if (!job) throw new ServiceError('not-found', `No job ${name}`);
  return job;
}

/** The job control, or `unavailable` when this process runs no jobs (a cluster worker, a server started without them). */
function control(ctx: RequestContext): NonNullable<RequestContext['services']['jobControl']> {
  const c = ctx.services.jobControl;
  if (!c) throw new ServiceError('unavailable', 'This server process runs no mirror jobs (a cluster worker, or no job could be set up): run them from the instance that does');
  return c;
}

export function adminJobs(ctx: RequestContext): Reply {
  checkAdminRead(ctx);
  const doc = statusDocument(ctx);
  const requestBudget = ctx.services.jobStatus?.requestBudget?.() ?? null;
  return adminJson({ generatedAt: doc.generatedAt, scheduler: doc.scheduler, instance: thisInstance(ctx), requestBudget, jobs: doc.jobs.map(withInstance) });
}

export function adminJob(ctx: RequestContext, { name }: JobParams): Reply {
  checkAdminRead(ctx);
  const job = findJob(ctx, name);
  const history = ctx.services.jobStatus?.history?.(name) ?? (job.lastRun ? [job.lastRun] : []);
  return adminJson({ job: withInstance(job), history });
}

export async function adminJobPlan(ctx: RequestContext, { name }: JobParams): Promise<Reply> {
  checkAdminRead(ctx);
  findJob(ctx, name);
  let plan;
  try {
    plan = await control(ctx).plan(name, ctx.signal);
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    throw new ServiceError('unavailable', `Cannot plan job ${name}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!plan) throw new ServiceError('not-found', `No job ${name}`);
  return adminJson(plan);
}

/** What a refused write means, as a kind: the job control's reason, and the facts the answer gives beside it. */
const REFUSED = {
  unknown: 'not-found',
  running: 'conflict',
  'not-running': 'conflict',
  'no-space': 'no-space',
  'no-requests': 'over-quota',
  unavailable: 'unavailable',
} as const;

type Refused = Extract<RunRequest, { accepted: false }> | Extract<CancelRequest, { cancelling: false }>;

function refusal(r: Refused): ServiceError {
  const kind = REFUSED[r.reason];
  if (kind === 'conflict') return new ServiceError(kind, r.message, undefined, { runningOn: r.runningOn ?? null });
  // The console reads the message, and the plan that does not fit, from the answer.
  if (kind === 'no-space') return new ServiceError(kind, r.message, undefined, { message: r.message, plan: 'plan' in r ? r.plan : undefined });
  if (kind === 'over-quota') {
    // The month's upstream requests cannot carry the run: asking again helps once the budget renews.
    const renewsAt = 'renewsAt' in r ? r.renewsAt : undefined;
    const seconds = renewsAt ? Math.max(1, Math.ceil((Date.parse(`${renewsAt}T00:00:00Z`) - Date.now()) / 1000)) : undefined;
    return new ServiceError(kind, r.message, seconds, { message: r.message, ...('plan' in r && r.plan && { plan: r.plan }), renewsAt: renewsAt ?? null });
  }
  return new ServiceError(kind, r.message);
}

export function adminJobRun(ctx: RequestContext, { name }: JobParams): Promise<Reply> {
  return auditedWrite(ctx, `run job ${name}`, async () => {
    findJob(ctx, name);
    const r = await control(ctx).runNow(name);
    if (r.accepted) return adminAccepted({ accepted: true, instance: r.instance });
    throw refusal(r);
  });
}

export function adminJobCancel(ctx: RequestContext, { name }: JobParams): Promise<Reply> {
  return auditedWrite(ctx, `cancel job ${name}`, () => {
    findJob(ctx, name);
    const r = control(ctx).cancel(name);
    if (r.cancelling) return adminAccepted({ cancelling: true, instance: r.instance });
    throw refusal(r);
  });
}
