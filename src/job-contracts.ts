// What http and the mirror tell each other of the mirror jobs, without importing each other: the records of runs
// and jobs (as the job state file keeps them and the status shows them), the reader the status pages read the jobs
// through, and the control the admin API drives them through. The mirror implements the interfaces; `serve.ts`
// wires them into the server. Like errors.ts, this module imports nothing, so every layer may import it.

export type Trigger = 'schedule' | 'manual';
/** How a run of one resource, or of a whole job, ended. */
export type RunOutcome = 'published' | 'failed' | 'interrupted';

export interface TileCounts {
  planned: number;
  /** Requested by this run (stored or recorded empty). */
  fetched: number;
  stored: number;
  empty: number;
  /** Already stored before this run (resumed or unchanged). */
  skipped: number;
  failed: number;
}

/** One resource of a finished run, as the status shows it: its tile counts plus what else happened. */
export interface ResourceRecord extends TileCounts {
  resource: string;
  status: RunOutcome;
  bytes: number;
  /** Upstream requests it sent (its dependencies' included). */
  requests?: number;
  elapsedMs: number;
  problems: string[];
  /** The version the run published, as the server names it (the admin API's store `version`); absent when none. */
  version?: string;
  /** A render job's map: the metatiles of its plan and those this run drew (the rest were there: a resumed run). */
  metatiles?: MetatileCounts;
}

/** A render run's metatiles: planned, and drawn by this run (here, and by other instances: `elsewhere`). */
export interface MetatileCounts {
  planned: number;
  drawn: number;
  /** Of `drawn`, those other instances drew (a run shared through Redis); absent when none. */
  elsewhere?: number;
}

/** What a job does: mirror resources from the upstream, or render maps' raster tiles (`kind: render`). */
export type JobKind = 'mirror' | 'render';

export interface RunRecord {
  trigger: Trigger;
  startedAt: string;
  endedAt: string;
  result: RunOutcome;
  exitCode: number;
  tiles: TileCounts;
  bytes: number;
  /** Upstream requests the run sent (absent from records written before they were counted). */
  requests?: number;
  /** Failed tiles plus problems that stopped or spoiled a resource. */
  errors: number;
  lastError?: string;
  resources: ResourceRecord[];
  /** A render job's run (absent: a mirror run). Its `tiles.stored` are the tiles of the published render stores. */
  kind?: 'render';
  /** A render run's metatiles over all its maps. */
  metatiles?: MetatileCounts;
}

/** Live progress of a running job (in memory; also persisted every few seconds for other processes). */
export interface JobProgress {
  resource: string;
  /** What done and total count: tiles (absent) or a render job's metatiles. */
  unit?: 'metatiles';
  /** 1-based position of the resource in the job, and how many it has. */
  resourceIndex: number;
  resources: number;
  done: number;
  total: number;
  fetched: number;
  failed: number;
  bytes: number;
  /** Upstream requests the run has sent so far (all its resources). */
  requests?: number;
  tilesPerSecond: number;
  /** Seconds left at the current rate, when known. */
  etaSeconds?: number;
  elapsedMs: number;
}

export interface RunningRecord {
  trigger: Trigger;
  startedAt: string;
  pid: number;
  /** Host of the running process (several servers may share the data directory). */
  host?: string;
  progress?: JobProgress;
}

export interface JobState {
  lastRun?: RunRecord;
  /** End of the last run that published every resource. */
  lastSuccessAt?: string;
  running?: RunningRecord;
  /** Next scheduled firing, as computed by the scheduler of a running server. */
  nextRun?: string;
  runs: number;
  failures: number;
  /** Runs interrupted (shutdown); absent from a state file that does not count them. */
  interrupted?: number;
  /** Upstream requests of every finished run (absent: none counted yet). */
  requestsTotal?: number;
  /** Firings skipped because the previous run was still going. */
  skipped: number;
  lastSkipped?: { at: string; reason: string };
  /** The last runs (at most HISTORY_RUNS of the job state file), newest first; absent from a state file that does not keep them. */
  history?: RunRecord[];
}

/** What the status endpoint and `tilemirror status` show for one configured job (its history is asked for apart). */
export interface JobView extends Omit<JobState, 'history'> {
  name: string;
  /** `render` for a render job (absent: a mirror job, as before kinds). */
  kind?: Exclude<JobKind, 'mirror'>;
  resources: string[];
  schedule?: string;
  timezone?: string;
  /** The job is in the state file but no longer in the configuration. */
  unconfigured?: boolean;
}

/**
 * Where the status pages read the mirror jobs from: the scheduler of this process (live progress) or the
 * persisted state (a cluster worker, a server without schedules). The mirror implements it; `cli` wires it into
 * the server, so http never imports mirror.
 */
export interface JobStatusReader {
  /** The configured jobs with their state (and, when live, the progress of running ones). */
  views(): JobView[];
  /** True when this process runs the schedules. */
  readonly live: boolean;
  /** The job's last runs, newest first (empty for an unknown job; absent: the reader keeps none). */
  history?(name: string): RunRecord[];
  /** This month's upstream requests against each upstream's budget (absent: the reader does not know). */
  requestBudget?(): RequestBudgetView;
}

/** `host:pid` of a process: how the status names the instance that runs a job. */
export const instanceName = (host: string, pid: number): string => `${host}:${pid}`;

/** What a job's next run needs, worked out before it starts: tiles, size, time and the room on the data volume. */
export interface JobPlan {
  tiles: number;
  estimatedBytes: number;
  /** What the estimate rests on: tiles already stored, tiles probed from the upstream, or nothing. */
  estimateBasis: 'stored' | 'probed' | 'none';
  /** Seconds at the last run's rate (null: no run to measure). */
  estimatedSeconds: number | null;
  freeBytes: number;
  /** The estimate (less what is already staged) plus the margin. */
  requiredBytes: number;
  fits: boolean;
  /** One line naming both figures. */
  message: string;
  /** The upstream requests the run is expected to make, against what is left of the month's budget. */
  requests: JobPlanRequests;
  /**
   * Per resource of the job (`requests`: its expected upstream requests; `savedByRender`: the raster tiles of a map
   * mirrored with `raster: render` that are not fetched, 0 for any other resource).
   */
  resources: { resource: string; tiles: number; estimatedBytes: number; estimateBasis: JobPlan['estimateBasis']; requiredBytes: number; requests: number; savedByRender: number }[];
}

/** A job plan's upstream requests: expected (tiles and documents not yet current, retries) and the month's budget. */
export interface JobPlanRequests {
  expected: number;
  /** Tiles not yet current (fetched or revalidated). */
  tiles: number;
  /** Documents (discovery's, and document stores'). */
  documents: number;
  /** Retries expected at the last run's rate against the upstream. */
  retries: number;
  /** Upstream requests the job's `raster: render` saves: its maps' raster tiles, not fetched (0 without). */
  savedByRender: number;
  /** Key-free origin of the upstream. */
  upstream: string;
  /** `YYYY-MM` (UTC). */
  month: string;
  /** Requests the run would need: expected, at most the job's maxRequests. */
  needed: number;
  /** Left of the month's budget (null: no monthly budget). */
  left: number | null;
  perMonth: number | null;
  fits: boolean;
  message: string;
}
/** This month's requests of one upstream against its budget, as the admin API and /metrics show them. */
export interface UpstreamMonth {
  /** Key-free origin, e.g. https://api.maptiler.com */
  upstream: string;
  spent: number;
  /** The monthly budget (null: none configured). */
  perMonth: number | null;
}

/** The month's requests per upstream: `/admin/api/jobs`'s `requestBudget`. */
export interface RequestBudgetView {
  /** UTC calendar month, `YYYY-MM`. */
  month: string;
  upstreams: UpstreamMonth[];
}


/** The answer to a request to run a job now. */
export type RunRequest =
  | { accepted: true; instance: string }
  | { accepted: false; reason: 'unknown' | 'running' | 'no-space' | 'no-requests' | 'unavailable'; message: string; runningOn?: string; plan?: JobPlan; renewsAt?: string };

/** The answer to a request to cancel a job's run. */
export type CancelRequest = { cancelling: true; instance: string } | { cancelling: false; reason: 'unknown' | 'not-running'; message: string; runningOn?: string };

/**
 * What the admin API drives the mirror jobs through: plan, run now, cancel. The mirror implements it (the
 * scheduler of this process); `serve` wires it into the server, so http never imports mirror.
 */
export interface JobControl {
  /** `host:pid` of this process. */
  readonly instance: string;
  plan(name: string, signal?: AbortSignal): Promise<JobPlan | undefined>;
  /** Starts a run now (through the same lock as a scheduled firing), unless it runs already or does not fit. */
  runNow(name: string, signal?: AbortSignal): Promise<RunRequest>;
  /** Stops the job's run in this process as an interrupt does: requests in flight finish, progress is kept. */
  cancel(name: string): CancelRequest;
}

/** `host:pid` of the process a view says runs the job, or null. */
export function runningOn(view: Pick<JobView, 'running'>, localHost: string): string | null {
  return view.running ? instanceName(view.running.host ?? localHost, view.running.pid) : null;
}

