// Running configured jobs: `runJob` mirrors a job's resources one after another (the CLI's `mirror --config`
// and the scheduler both use it); `Scheduler` fires jobs on their cron schedules with node-cron inside
// `tilemirror serve`, one run per job at a time (a firing during a run is skipped and recorded), keeps the
// job state file up to date and logs every run's start and end (pino, redacted). With `scheduler.redis` several
// servers share the schedules: each firing runs on the instance that claims it first (coordination.ts); the
// others record it as skipped.

import { hostname } from 'node:os';
import { createTask, type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import type { Config } from '../../config/schema';
import { allConfiguredJobs, isRenderJob, jobBudget, jobMirrorOptions, type ConfiguredJob, type MirrorJob } from './jobs-config';
import { planRenderJob, renderUnavailable, runRenderJob, type RenderHost } from './render-job';
import { UsageError } from '../errors';
import { tileRate, type ProgressSnapshot } from '../progress';
import { createRedactor, type Redactor } from '../upstream/redact';
import { RedisCoordinator, type Claim, type Coordinator } from './coordination';
import { runMirror } from '../engine/run';
import { totalOf, type MirrorResult } from '../engine/result';
import { monthOf, renewalOf, RequestBudgetReached } from '../upstream/request-budget';
import {
  instanceName,
  runningOn,
  type CancelRequest,
  type JobControl,
  type JobPlan,
  type JobProgress,
  type JobStatusReader,
  type JobView,
  type RunRecord,
  type RunRequest,
  type Trigger,
  type RequestBudgetView,
} from '../../job-contracts';
import { JobStateFile } from '../../store/data-dir/job-state';
import { pidAlive } from '../../store/data-dir/pid';
import { jobHistory, jobViews, progressPersister, recordRunEnd, recordRunStart, requestBudgetView, runRecord } from './job-status';
import { PlanError, planJob } from './job-plan';

export const SKIPPED_STILL_RUNNING = 'skipped: still running';
export const SKIPPED_ELSEWHERE = 'skipped: running on another instance';
export const SKIPPED_NO_COORDINATION = 'skipped: the lock service (redis) cannot be reached';

export interface JobRunHooks {
  signal?: AbortSignal;
  /** Lines from the engine (already redacted), with the resource they concern. */
  log?: (line: string, resource: string) => void;
  onProgress?: (p: JobProgress, raw: ProgressSnapshot) => void;
  /** Called before each resource starts (index is 0-based). */
  onResource?: (resource: string, index: number) => void;
  onResult?: (r: MirrorResult) => void;
  /** The engine; replaceable in tests. */
  run?: typeof runMirror;
}

export interface JobRun {
  record: RunRecord;
  results: MirrorResult[];
  /** A resource was refused as a usage error (e.g. zooms outside the upstream's); the CLI exits 2 for it. */
  usageError: boolean;
}

export function jobProgress(p: ProgressSnapshot, index: number, count: number): JobProgress {
  const rate = tileRate(p);
  const left = p.total - p.done;
  return {
    resource: p.resource,
    resourceIndex: index + 1,
    resources: count,
    done: p.done,
    total: p.total,
    fetched: p.fetched,
    failed: p.failed,
    bytes: p.bytes,
    tilesPerSecond: Math.round(rate * 10) / 10,
    ...(left === 0 ? { etaSeconds: 0 } : rate > 0 ? { etaSeconds: Math.round(left / rate) } : {}),
    elapsedMs: p.elapsedMs,
  };
}

/**
 * Mirrors every resource of a job, one after another, under one request budget (the job's maxRequests, its
 * upstream's month); stops early when interrupted or the budget is spent. Never throws.
 */
export async function runJob(job: MirrorJob, dataDir: string, trigger: Trigger, hooks: JobRunHooks = {}): Promise<JobRun> {
  const redact = createRedactor(job.key);
  const run = hooks.run ?? runMirror;
  const started = new Date();
  const results: MirrorResult[] = [];
  const extra: string[] = [];
  let usageError = false;
  let resource = '';
  const budget = jobBudget(job, dataDir, true, (line) => hooks.log?.(redact(line), resource));
  try {
    for (const [i, ref] of job.resources.entries()) {
      if (hooks.signal?.aborted) break;
      resource = `${ref.kind}/${ref.id}`;
      hooks.onResource?.(resource, i);
      try {
        const r = await run({
          ...jobMirrorOptions(job, ref, dataDir),
          budget,
          signal: hooks.signal,
          log: (line) => hooks.log?.(redact(line), resource),
          onProgress: (p) => hooks.onProgress?.({ ...jobProgress(p, i, job.resources.length), requests: budget.spent }, p),
        });
        results.push(r);
        hooks.onResult?.(r);
        if (r.status === 'interrupted') break;
      } catch (err) {
        // UsageError (a zoom range the upstream does not offer, ...) or a bug: the job fails, the next resource runs.
        if (err instanceof UsageError) usageError = true;
        const msg = `${resource}: ${redact(err instanceof Error ? err.message : String(err))}`;
        extra.push(msg);
        hooks.log?.(`error: ${msg}`, resource);
      }
    }
  } finally {
    budget.close(results.reduce((n, r) => n + totalOf(r, 'retries'), 0));
  }
  let record = runRecord(trigger, started, new Date(), results, extra);
  if (hooks.signal?.aborted && record.result !== 'interrupted') record = { ...record, result: 'interrupted', exitCode: 3 };
  return { record, results, usageError };
}

/** The firing of a scheduled job: what happens when the cron expression matches. */
export type FireOutcome = 'started' | 'skipped' | 'stopped' | 'unknown';

/** No overlap: a job already running is not started again; a stopping scheduler starts nothing. */
export function decideFiring(state: { running: boolean; stopping: boolean; known: boolean }): FireOutcome {
  if (!state.known) return 'unknown';
  if (state.stopping) return 'stopped';
  return state.running ? 'skipped' : 'started';
}

export type JobRunner = (job: MirrorJob, dataDir: string, trigger: Trigger, hooks: JobRunHooks) => Promise<JobRun>;

export interface SchedulerOptions {
  config: Config;
  log: Logger;
  env?: NodeJS.ProcessEnv;
  /** Replaces runJob (tests). */
  runJob?: JobRunner;
  /** Engine hooks passed through to runJob (tests slow a run down with `run`). */
  hooks?: Pick<JobRunHooks, 'run'>;
  /** The renderer render jobs use: the server's, once it is up (`serve` wires it; absent: render jobs fail, saying so). */
  render?: () => RenderHost | undefined;
}

/** The Redis URL of `scheduler` (given, or read from `redisEnv`), if any. */
export function coordinationUrl(config: Config, env: NodeJS.ProcessEnv): string | undefined {
  const s = config.scheduler;
  return s.redis ?? (s.redisEnv ? env[s.redisEnv] || undefined : undefined);
}

/** The URL's password, raw and decoded, for the redactor. */
export function urlSecrets(url: string | undefined): string[] {
  if (!url) return [];
  try {
    const u = new URL(url);
    return [u.password, decodeURIComponent(u.password), u.username && u.password ? u.username : ''].filter(Boolean);
  } catch {
    return [url];
  }
}

interface Active {
  trigger: Trigger;
  startedAt: Date;
  abort: AbortController;
  done: Promise<void>;
  progress?: JobProgress;
}

/** How a run's start was decided: started here, held by another instance, or the lock service could not answer. */
type StartOutcome = 'started' | 'elsewhere' | 'unavailable';

/**
 * Fires the configured jobs that have a `schedule`, and runs any configured job on request (the admin API's Run
 * now, through the same lock as a firing). A run's state is kept in memory (progress for the status endpoint) and
 * in `{data}/.tilemirror-jobs.json` (last runs, result, counts, next run, skipped firings).
 */
export class Scheduler implements JobStatusReader, JobControl {
  readonly jobs: ConfiguredJob[];
  /** `host:pid` of this process, as the status names the instance that runs a job. */
  readonly instance = instanceName(hostname(), process.pid);
  /** The job state file. */
  readonly state: JobStateFile;
  private readonly tasks = new Map<string, ScheduledTask>();
  private readonly active = new Map<string, Active>();
  private stopping = false;
  private readonly runner: JobRunner;
  private readonly redact: Redactor;
  private readonly redisUrl?: string;
  private coordinator?: Coordinator;

  constructor(private readonly opts: SchedulerOptions) {
    const env = opts.env ?? process.env;
    this.jobs = allConfiguredJobs(opts.config, env);
    this.redisUrl = coordinationUrl(opts.config, env);
    this.redact = createRedactor(...this.jobs.map((j) => (isRenderJob(j) ? undefined : j.key)), ...urlSecrets(this.redisUrl));
    this.state = new JobStateFile(opts.config.data, (err) => opts.log.warn({ err: this.redact(err.message) }, 'cannot write the mirror job state'), !!this.redisUrl);
    this.runner = opts.runJob ?? runJob;
  }

  /** Jobs with a schedule. */
  get scheduled(): ConfiguredJob[] {
    return this.jobs.filter((j) => j.schedule);
  }

  /** This process runs schedules: the status it gives is live. */
  get live(): boolean {
    return this.scheduled.length > 0;
  }

  /** Starts a node-cron task per scheduled job; records each job's next run. */
  start(): this {
    const cronLog = this.opts.log.child({ component: 'node-cron' });
    if (this.redisUrl && this.jobs.length > 0) {
      const { lockTtlSeconds, keyPrefix } = this.opts.config.scheduler;
      this.coordinator = new RedisCoordinator({ url: this.redisUrl, ttlMs: lockTtlSeconds * 1000, prefix: keyPrefix, log: this.opts.log, redact: this.redact });
    }
    const coordination = this.coordinator ? { coordination: 'redis', redis: this.redact(this.redisUrl!) } : {};
    for (const job of this.scheduled) {
      // ctx.date is the scheduled time of the firing (whole seconds), the same on every instance.
      const task = createTask(job.schedule!, (ctx) => void this.fire(job.name, 'schedule', ctx.date), {
        name: `tilemirror:${job.name}`,
        timezone: job.timezone,
        logger: {
          info: (m) => cronLog.debug(this.redact(String(m))),
          warn: (m) => cronLog.warn(this.redact(String(m))),
          error: (m) => cronLog.error(this.redact(String(m instanceof Error ? m.message : m))),
          debug: (m) => cronLog.debug(this.redact(String(m instanceof Error ? m.message : m))),
        },
      });
      this.tasks.set(job.name, task);
      void task.start();
      const next = this.nextRun(job.name);
      this.state.update(job.name, (st) => {
        // A run recorded by a process that is gone (this server before a restart): no longer running. Coordinated,
        // another live instance's run is left alone.
        if (st.running && st.running.pid !== process.pid && (!this.coordinator || ((st.running.host ?? hostname()) === hostname() && !pidAlive(st.running.pid)))) delete st.running;
        if (next) st.nextRun = next.toISOString();
      });
      this.opts.log.info({ job: job.name, schedule: job.schedule, timezone: job.timezone ?? 'system', nextRun: next?.toISOString(), ...coordination }, 'mirror job scheduled');
    }
    return this;
  }

  nextRun(name: string): Date | undefined {
    return this.tasks.get(name)?.getNextRun() ?? undefined;
  }

  isRunning(name: string): boolean {
    return this.active.has(name);
  }

  /**
   * Starts a run of the job unless one is running (then the firing is skipped and recorded). Returns at once;
   * `whenIdle` waits for the run. With Redis coordination 'started' means this instance tries to claim the firing
   * (`slot`, its scheduled time): the run starts once claimed, else the firing is recorded as skipped.
   */
  fire(name: string, trigger: Trigger = 'manual', slot?: Date): FireOutcome {
    const job = this.jobs.find((j) => j.name === name);
    const outcome = decideFiring({ known: !!job, running: this.active.has(name), stopping: this.stopping });
    if (outcome === 'skipped') this.recordSkip(name, trigger, SKIPPED_STILL_RUNNING, { runningSince: this.active.get(name)!.startedAt.toISOString(), ...(slot && { firing: slot.toISOString() }) });
    if (outcome !== 'started') return outcome;
    void this.begin(job!, trigger, slot);
    return outcome;
  }

  private recordSkip(name: string, trigger: Trigger, reason: string, fields: Record<string, unknown>): void {
    const at = new Date().toISOString();
    const next = this.nextRun(name)?.toISOString();
    this.state.update(name, (st) => {
      st.skipped++;
      st.lastSkipped = { at, reason };
      if (next) st.nextRun = next;
    });
    this.opts.log.warn({ job: name, trigger, ...fields }, `mirror job ${reason}`);
  }

  /** Resolves when the job's current run (if any) has ended. */
  async whenIdle(name?: string): Promise<void> {
    const runs = name ? [this.active.get(name)] : [...this.active.values()];
    await Promise.all(runs.map((a) => a?.done));
  }

  /**
   * Claims the firing in Redis; 'elsewhere' or 'unavailable' when it is not this instance's. A scheduled firing
   * that is not records its skip; a run asked for (Run now) is refused to the asker instead.
   */
  private async claim(job: ConfiguredJob, trigger: Trigger, slot: Date | undefined): Promise<Claim | Exclude<StartOutcome, 'started'>> {
    if (!this.coordinator) throw new Error('claim() needs a coordinator');
    const firing = slot && { firing: slot.toISOString() };
    const asked = trigger === 'manual' && !slot;
    try {
      const claim = await this.coordinator.claim(job.name, slot);
      if (claim) return claim;
      if (!asked) this.recordSkip(job.name, trigger, SKIPPED_ELSEWHERE, { ...firing });
      return 'elsewhere';
    } catch (err) {
      const message = this.redact(err instanceof Error ? err.message : String(err));
      if (asked) this.opts.log.warn({ job: job.name, err: message }, 'mirror job not started: the lock service (redis) cannot be reached');
      else this.recordSkip(job.name, trigger, SKIPPED_NO_COORDINATION, { ...firing, err: message });
      return 'unavailable';
    }
  }

  /** Starts the run; resolves once it is decided whether it runs here (at once without coordination). */
  private begin(job: ConfiguredJob, trigger: Trigger, slot?: Date): Promise<StartOutcome> {
    const log = this.opts.log.child({ job: job.name });
    const abort = new AbortController();
    const active: Active = { trigger, startedAt: new Date(), abort, done: Promise.resolve() };
    this.active.set(job.name, active);
    if (!this.coordinator) {
      // This process alone decides: the run starts now.
      active.done = this.execute(job, trigger, active, log, slot).finally(() => this.active.delete(job.name));
      return Promise.resolve('started');
    }
    let decided: (o: StartOutcome) => void = () => undefined;
    const decision = new Promise<StartOutcome>((r) => (decided = r));
    // Held while the claim is decided, so a second firing meanwhile is skipped as still running.
    active.done = (async () => {
      const claim = await this.claim(job, trigger, slot);
      if (typeof claim === 'string' || abort.signal.aborted) {
        this.active.delete(job.name);
        decided(typeof claim === 'string' ? claim : 'elsewhere');
        if (typeof claim !== 'string') await claim.release();
        return;
      }
      decided('started');
      claim.signal.addEventListener('abort', () => abort.abort(claim.signal.reason));
      try {
        await this.execute(job, trigger, active, log, slot);
      } finally {
        // Released before the job counts as idle here, so this instance's next firing finds the lock free.
        await claim.release();
        this.active.delete(job.name);
      }
    })();
    return decision;
  }

  private async execute(job: ConfiguredJob, trigger: Trigger, active: Active, log: Logger, slot: Date | undefined): Promise<void> {
    const { abort } = active;
    const startedAt = (active.startedAt = new Date());
    recordRunStart(this.state, job.name, trigger, startedAt);
    const resources = job.resources.map((r) => `${r.kind}/${r.id}`);
    const persist = progressPersister(this.state, job.name);
    const onProgress = (p: JobProgress): void => {
      active.progress = p;
      persist(p);
    };
    let run: JobRun | undefined;
    if (isRenderJob(job)) {
      log.info({ trigger, ...(slot && { firing: slot.toISOString() }), resources, kind: 'render', zoom: job.zoom }, 'render job started');
      const record = await runRenderJob(job, this.opts.render?.(), trigger, { signal: abort.signal, log: (line, resource) => log.info({ resource }, line), onProgress });
      run = { record, results: [], usageError: false };
    } else log.info({ trigger, ...(slot && { firing: slot.toISOString() }), resources, upstream: this.redact(job.upstream) }, 'mirror job started');
    try {
      if (!isRenderJob(job)) run = await this.runner(job, this.opts.config.data, trigger, {
        ...this.opts.hooks,
        signal: abort.signal,
        log: (line, resource) => (line.startsWith('retrying ') ? log.debug({ resource }, this.redact(line)) : log.info({ resource }, this.redact(line))),
        onProgress,
        onResult: (r) =>
          log.info(
            { resource: r.resource, status: r.status, planned: r.planned, fetched: r.fetched, stored: r.stored, empty: r.empty, skipped: r.skipped, failed: r.failed, bytes: r.bytes, ms: r.elapsedMs, problems: r.problems.map(this.redact) },
            'mirror resource finished',
          ),
      });
    } catch (err) {
      // runJob never throws; a replacement runner might.
      const message = this.redact(err instanceof Error ? err.message : String(err));
      run = { record: runRecord(trigger, startedAt, new Date(), [], [message]), results: [], usageError: false };
    }
    const record = run!.record;
    const next = this.nextRun(job.name)?.toISOString();
    recordRunEnd(this.state, job.name, record, { nextRun: next });
    const fields = { trigger, result: record.result, tiles: record.tiles, bytes: record.bytes, errors: record.errors, ms: Date.parse(record.endedAt) - Date.parse(record.startedAt), nextRun: next };
    const finished = isRenderJob(job) ? 'render job finished' : 'mirror job finished';
    if (record.metatiles) Object.assign(fields, { metatiles: record.metatiles.planned, drawn: record.metatiles.drawn });
    if (record.result === 'published') log.info(fields, finished);
    else log.warn({ ...fields, lastError: record.lastError && this.redact(record.lastError) }, finished);
  }

  /** The configured jobs with their state, live progress of running ones and the next run of scheduled ones. */
  views(): JobView[] {
    const state = this.state.read();
    return jobViews(this.opts.config, state, (name) => this.nextRun(name)?.toISOString()).map((v) => {
      const a = this.active.get(v.name);
      if (!a) {
        // Only this process runs its scheduled jobs; another's `running` record is shown as it is persisted.
        return v;
      }
      return { ...v, running: { trigger: a.trigger, startedAt: a.startedAt.toISOString(), pid: process.pid, host: hostname(), ...(a.progress && { progress: a.progress }) } };
    });
  }

  history(name: string): RunRecord[] {
    return jobHistory(this.state.read(), name);
  }

  requestBudget(): RequestBudgetView {
    return requestBudgetView(this.opts.config);
  }

  /** Where the job runs now, by the state file (several instances share it): `host:pid`, or null. */
  private runningOn(name: string): string | null {
    const view = this.views().find((v) => v.name === name);
    return view ? runningOn(view, hostname()) : null;
  }

  async plan(name: string, signal?: AbortSignal): Promise<JobPlan | undefined> {
    const job = this.jobs.find((j) => j.name === name);
    if (!job) return undefined;
    if (isRenderJob(job)) return planRenderJob(job, this.opts.render?.(), this.opts.config.data);
    return planJob(job, this.opts.config.data, this.state.job(name).lastRun, signal);
  }

  /**
   * Run now: refused when the job is unknown, runs here or (with Redis) on another instance, or its plan does
   * not fit on the data volume; otherwise started through the same lock a firing takes, so it runs once.
   */
  async runNow(name: string, signal?: AbortSignal): Promise<RunRequest> {
    const job = this.jobs.find((j) => j.name === name);
    if (!job) return { accepted: false, reason: 'unknown', message: `no job ${name}` };
    const busy = (): RunRequest | undefined => {
      if (this.stopping) return { accepted: false, reason: 'unavailable', message: 'the server is shutting down' };
      if (this.active.has(name)) return { accepted: false, reason: 'running', message: `job ${name} is already running on ${this.instance}`, runningOn: this.instance };
      return undefined;
    };
    const early = busy();
    if (early) return early;
    let plan: JobPlan;
    if (isRenderJob(job)) {
      const unavailable = renderUnavailable(this.opts.render?.());
      if (unavailable) return { accepted: false, reason: 'unavailable', message: `cannot run job ${name}: ${unavailable}` };
    }
    try {
      plan = isRenderJob(job) ? planRenderJob(job, this.opts.render?.(), this.opts.config.data) : await planJob(job, this.opts.config.data, this.state.job(name).lastRun, signal);
    } catch (err) {
      const message = this.redact(err instanceof Error ? err.message : String(err));
      // The plan's own discovery found the month's budget spent: no run can start.
      if (err instanceof PlanError && err.cause instanceof RequestBudgetReached) return { accepted: false, reason: 'no-requests', message: `cannot plan job ${name}: ${message}`, renewsAt: renewalOf(monthOf(Date.now())) };
      return { accepted: false, reason: 'unavailable', message: `cannot plan job ${name}: ${message}` };
    }
    if (!plan.fits) return { accepted: false, reason: 'no-space', message: plan.message, plan };
    if (!plan.requests.fits) return { accepted: false, reason: 'no-requests', message: plan.requests.message, plan, renewsAt: renewalOf(plan.requests.month) };
    const late = busy();
    if (late) return late;
    const outcome = await this.begin(job, 'manual');
    if (outcome === 'started') return { accepted: true, instance: this.instance };
    if (outcome === 'unavailable') return { accepted: false, reason: 'unavailable', message: 'the lock service (redis) cannot be reached: not started' };
    const on = this.runningOn(name);
    return { accepted: false, reason: 'running', message: `job ${name} is already running on ${on ?? 'another instance'}`, ...(on && { runningOn: on }) };
  }

  cancel(name: string): CancelRequest {
    if (!this.jobs.some((j) => j.name === name)) return { cancelling: false, reason: 'unknown', message: `no job ${name}` };
    const a = this.active.get(name);
    if (!a) {
      const on = this.runningOn(name);
      return { cancelling: false, reason: 'not-running', message: on ? `job ${name} runs on ${on}, not on this instance (${this.instance})` : `job ${name} is not running`, ...(on && { runningOn: on }) };
    }
    this.opts.log.info({ job: name }, 'mirror job cancelled: finishing the requests in flight, progress is kept');
    a.abort.abort();
    return { cancelling: true, instance: this.instance };
  }

  /** Stops firing, interrupts running jobs (their progress is checkpointed) and waits for them to end. */
  async stop(timeoutMs = 60_000): Promise<void> {
    this.stopping = true;
    for (const task of this.tasks.values()) await task.destroy();
    this.tasks.clear();
    for (const a of this.active.values()) a.abort.abort();
    if (this.active.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.whenIdle(), new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
      clearTimeout(timer);
    }
    await this.coordinator?.close();
  }
}
