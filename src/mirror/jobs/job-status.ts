// What a job's runs add up to: the record of one run (from its resources' results), the view of every configured
// job joined with its persisted state, and the job status the server reads when this process runs no schedules.

import { hostname } from 'node:os';
import type { Config } from '../../config/schema';
import type { JobProgress, JobStatusReader, JobView, RequestBudgetView, ResourceRecord, RunOutcome, RunRecord, TileCounts, Trigger } from '../../job-contracts';
import { emptyJobState, HISTORY_RUNS, readJobStates, type JobStateFile, type JobStates } from '../../store/data-dir/job-state';
import { pidAlive } from '../../store/data-dir/pid';
import { RequestLedger } from '../../store/data-dir/request-ledger';
import { totalOf, type MirrorResult } from '../engine/result';
import { monthlyBudgetOf, monthOf } from '../upstream/request-budget';
import { jobUpstreams } from './jobs-config';
import { servedVersionOf } from '../../store/open';

/** Sums a job's resource results into one record (the resources in the order they ran). */
export function runRecord(trigger: Trigger, startedAt: Date, endedAt: Date, results: MirrorResult[], extraProblems: string[] = []): RunRecord {
  const tiles: TileCounts = { planned: 0, fetched: 0, stored: 0, empty: 0, skipped: 0, failed: 0 };
  let bytes = 0;
  let requests = 0;
  const resources: ResourceRecord[] = results.map((r) => {
    for (const k of Object.keys(tiles) as (keyof TileCounts)[]) tiles[k] += r[k];
    bytes += r.bytes;
    requests += totalOf(r, 'requests');
    return {
      resource: r.resource,
      status: r.status,
      planned: r.planned,
      fetched: r.fetched,
      stored: r.stored,
      empty: r.empty,
      skipped: r.skipped,
      failed: r.failed,
      bytes: r.bytes,
      requests: totalOf(r, 'requests'),
      elapsedMs: r.elapsedMs,
      problems: r.problems.slice(0, 10),
      ...(r.published && { version: servedVersionOf(r.published) }),
    };
  });
  const problems = [...results.flatMap((r) => [...r.problems.map((p) => `${r.resource}: ${p}`), ...r.failures.map((f) => `${r.resource}: ${f}`)]), ...extraProblems];
  const result: RunOutcome = results.some((r) => r.status === 'interrupted')
    ? 'interrupted'
    : extraProblems.length === 0 && results.length > 0 && results.every((r) => r.status === 'published')
      ? 'published'
      : 'failed';
  const exitCode = result === 'published' ? 0 : result === 'interrupted' ? 3 : 1;
  const errors = tiles.failed + results.reduce((n, r) => n + r.problems.length, 0) + extraProblems.length;
  return {
    trigger,
    startedAt: startedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    result,
    exitCode,
    tiles,
    bytes,
    requests,
    errors,
    ...(problems.length > 0 && { lastError: problems[problems.length - 1].slice(0, 500) }),
    resources,
  };
}

/**
 * Joins the configured jobs with their state: configured jobs first, in config order, then jobs only the file
 * still remembers. `nextRun` comes from `next` (a live scheduler or a computation from the cron expression).
 */
export function jobViews(config: Config, state: JobStates, next: (name: string) => string | undefined = () => undefined): JobView[] {
  for (const st of Object.values(state.jobs)) if (st.running && !pidAlive(st.running.pid)) delete st.running;
  const out: JobView[] = config.mirror.jobs.map((j) => {
    const { history: _history, ...st } = state.jobs[j.name] ?? emptyJobState();
    const nextRun = next(j.name) ?? (st.nextRun && Date.parse(st.nextRun) > Date.now() ? st.nextRun : undefined);
    const view: JobView = { name: j.name, ...(j.kind === 'render' && { kind: 'render' as const }), resources: j.resources, ...st, nextRun };
    if (j.schedule) {
      view.schedule = j.schedule;
      view.timezone = j.timezone ?? config.mirror.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    }
    if (!nextRun) delete view.nextRun;
    return view;
  });
  for (const [name, st] of Object.entries(state.jobs)) {
    const { history: _history, ...rest } = st;
    if (!config.mirror.jobs.some((j) => j.name === name)) out.push({ name, ...(rest.lastRun?.kind && { kind: rest.lastRun.kind }), resources: [], ...rest, unconfigured: true });
  }
  return out;
}

/** The persisted state of the configured jobs, read on every call (a server or worker that runs no schedules). */
export function persistedJobStatus(config: Config): JobStatusReader {
  return {
    live: false,
    views: () => jobViews(config, readJobStates(config.data)),
    history: (name) => jobHistory(readJobStates(config.data), name),
    requestBudget: () => requestBudgetView(config),
  };
}

/**
 * This month's upstream requests of the data directory against each upstream's budget: the configured jobs'
 * upstreams (in config order), then any other the ledger counted this month (a `tilemirror mirror` run's).
 */
export function requestBudgetView(config: Config, now = Date.now()): RequestBudgetView {
  const month = monthOf(now);
  const spent = new RequestLedger(config.data).spent(month);
  const upstreams = [...new Set([...jobUpstreams(config), ...spent.keys()])];
  return { month, upstreams: upstreams.map((upstream) => ({ upstream, spent: spent.get(upstream) ?? 0, perMonth: monthlyBudgetOf(config.mirror.requestsPerMonth, upstream) })) };
}

/** A job's last runs, newest first: its history, or its last run alone from a state file that kept no history. */
export function jobHistory(state: JobStates, name: string): RunRecord[] {
  const st = state.jobs[name];
  if (!st) return [];
  return st.history ?? (st.lastRun ? [st.lastRun] : []);
}

/** The job state for `status`: next runs from a running server's record, else computed from the cron expressions. */
export function statusViews(config: Config): JobView[] {
  const state = readJobStates(config.data);
  return jobViews(config, state, (name) => {
    const saved = state.jobs[name]?.nextRun;
    if (saved && Date.parse(saved) > Date.now()) return saved;
    const job = config.mirror.jobs.find((j) => j.name === name);
    return job?.schedule ? nextRunOf(job.schedule, job.timezone ?? config.mirror.timezone)?.toISOString() : undefined;
  });
}

/** The next time a cron expression fires after now, in its time zone (undefined: the system's). */
export function nextRunOf(expression: string, timezone?: string): Date | undefined {
  // Loaded here, not at the top: only `status` and the admin page ask, and every mirror run would load it (~20 ms).
  const { createTask } = require('node-cron') as typeof import('node-cron');
  const task = createTask(expression, () => undefined, { timezone });
  try {
    return task.getNextRuns(1)[0];
  } finally {
    void task.destroy();
  }
}

/** How often a running job's progress is written to the state file (for `tilemirror status` in another process). */
export const PERSIST_PROGRESS_MS = 5000;

/** Records in the state file that a run of the job started in this process. */
export function recordRunStart(state: JobStateFile, name: string, trigger: Trigger, startedAt: Date): void {
  state.update(name, (st) => {
    st.running = { trigger, startedAt: startedAt.toISOString(), pid: process.pid, host: hostname() };
  });
}

/** A progress callback that persists the running job's progress: the first report, then at most every PERSIST_PROGRESS_MS. */
export function progressPersister(state: JobStateFile, name: string, now: () => number = Date.now): (p: JobProgress) => void {
  let persisted = -Infinity;
  return (p) => {
    if (now() - persisted < PERSIST_PROGRESS_MS) return;
    persisted = now();
    state.update(name, (st) => {
      if (st.running) st.running.progress = p;
    });
  };
}

/**
 * Records a finished run: the last run, the run and failure counts, the last success. A scheduler also passes
 * the job's next firing (undefined: none any more); a one-off run leaves the recorded next run alone.
 */
export function recordRunEnd(state: JobStateFile, name: string, record: RunRecord, schedule?: { nextRun: string | undefined }): void {
  state.update(name, (st) => {
    delete st.running;
    st.lastRun = record;
    st.history = [record, ...(st.history ?? [])].slice(0, HISTORY_RUNS);
    st.runs++;
    st.requestsTotal = (st.requestsTotal ?? 0) + (record.requests ?? 0);
    if (record.result === 'published') st.lastSuccessAt = record.endedAt;
    else if (record.result === 'failed') st.failures++;
    else st.interrupted = (st.interrupted ?? 0) + 1;
    if (!schedule) return;
    if (schedule.nextRun) st.nextRun = schedule.nextRun;
    else delete st.nextRun;
  });
}
