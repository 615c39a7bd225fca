// The admin API's jobs: the list (with live progress and the instance each runs on, and this month's upstream
// requests against their budgets), one job with its last runs, its plan (tiles, estimated size and time, the data
// volume's free space, the upstream requests expected), and the two writes: run now and cancel. Reads through the job status reader, writes through the job control `serve` wires (the scheduler of
// this process): http never imports mirror.

import { hostname } from 'node:os';
import { z } from 'zod';
import { instanceName, runningOn, type JobView } from '../../store/job-state';
import { HttpError, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { adminJson, auditedWrite, checkAdminRead } from './admin-auth';
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
  if (!job) throw new HttpError(404, `No job ${name}`);
  return job;
}

/** The job control, or 503 when this process runs no jobs (a cluster worker, a server started without them). */
function control(ctx: RequestContext): NonNullable<RequestContext['services']['jobControl']> {
  const c = ctx.services.jobControl;
  if (!c) throw new HttpError(503, 'This server process runs no mirror jobs (a cluster worker, or no job could be set up): run them from the instance that does');
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
    if (err instanceof HttpError) throw err;
    throw new HttpError(503, `Cannot plan job ${name}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!plan) throw new HttpError(404, `No job ${name}`);
  return adminJson(plan);
}

export function adminJobRun(ctx: RequestContext, { name }: JobParams): Promise<Reply> {
  return auditedWrite(ctx, `run job ${name}`, async () => {
    findJob(ctx, name);
    const r = await control(ctx).runNow(name);
    if (r.accepted) return adminJson({ accepted: true, instance: r.instance }, 202);
    if (r.reason === 'unknown') throw new HttpError(404, r.message);
    if (r.reason === 'running') return adminJson({ error: r.message, runningOn: r.runningOn ?? null }, 409);
    if (r.reason === 'no-space') return adminJson({ error: r.message, message: r.message, plan: r.plan }, 507);
    if (r.reason === 'no-requests') {
      // The month's upstream requests cannot carry the run: asking again helps once the budget renews.
      const reply = adminJson({ error: r.message, message: r.message, ...(r.plan && { plan: r.plan }), renewsAt: r.renewsAt ?? null }, 429);
      return r.renewsAt ? { ...reply, headers: { ...reply.headers, 'Retry-After': new Date(`${r.renewsAt}T00:00:00Z`).toUTCString() } } : reply;
    }
    throw new HttpError(503, r.message);
  });
}

export function adminJobCancel(ctx: RequestContext, { name }: JobParams): Promise<Reply> {
  return auditedWrite(ctx, `cancel job ${name}`, () => {
    findJob(ctx, name);
    const r = control(ctx).cancel(name);
    if (r.cancelling) return adminJson({ cancelling: true, instance: r.instance }, 202);
    if (r.reason === 'unknown') throw new HttpError(404, r.message);
    return adminJson({ error: r.message, runningOn: r.runningOn ?? null }, 409);
  });
}
