// What a job's runs add up to: the record of one run (from its resources' results), the view of every configured
// job joined with its persisted state, and the status source the server reads when this process runs no schedules.

import type { Config } from '../config/schema';
import { emptyJobState, pidAlive, readStatusFile, type JobStatusSource, type JobView, type ResourceRecord, type RunOutcome, type RunRecord, type StatusFile, type TileCounts, type Trigger } from '../store/job-state';
import type { MirrorResult } from './run';

/** Sums a job's resource results into one record (the resources in the order they ran). */
export function runRecord(trigger: Trigger, startedAt: Date, endedAt: Date, results: MirrorResult[], extraProblems: string[] = []): RunRecord {
  const tiles: TileCounts = { planned: 0, fetched: 0, stored: 0, empty: 0, skipped: 0, failed: 0 };
  let bytes = 0;
  const resources: ResourceRecord[] = results.map((r) => {
    for (const k of Object.keys(tiles) as (keyof TileCounts)[]) tiles[k] += r[k];
    bytes += r.bytes;
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
      elapsedMs: r.elapsedMs,
      problems: r.problems.slice(0, 10),
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
    errors,
    ...(problems.length > 0 && { lastError: problems[problems.length - 1].slice(0, 500) }),
    resources,
  };
}

/**
 * Joins the configured jobs with their state: configured jobs first, in config order, then jobs only the file
 * still remembers. `nextRun` comes from `next` (a live scheduler or a computation from the cron expression).
 */
export function jobViews(config: Config, state: StatusFile, next: (name: string) => string | undefined = () => undefined): JobView[] {
  for (const st of Object.values(state.jobs)) if (st.running && !pidAlive(st.running.pid)) delete st.running;
  const out: JobView[] = config.mirror.jobs.map((j) => {
    const st = state.jobs[j.name] ?? emptyJobState();
    const nextRun = next(j.name) ?? (st.nextRun && Date.parse(st.nextRun) > Date.now() ? st.nextRun : undefined);
    const view: JobView = { name: j.name, resources: j.resources, ...st, nextRun };
    if (j.schedule) {
      view.schedule = j.schedule;
      view.timezone = j.timezone ?? config.mirror.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    }
    if (!nextRun) delete view.nextRun;
    return view;
  });
  for (const [name, st] of Object.entries(state.jobs)) {
    if (!config.mirror.jobs.some((j) => j.name === name)) out.push({ name, resources: [], ...st, unconfigured: true });
  }
  return out;
}

/** The persisted state of the configured jobs, read on every call (a server or worker that runs no schedules). */
export function persistedJobStatus(config: Config): JobStatusSource {
  return { live: false, views: () => jobViews(config, readStatusFile(config.data)) };
}
