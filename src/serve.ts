// `tilemirror serve` wired: the HTTP server over the data directory (its services are built in
// http/service-root.ts), plus the mirror's scheduler when this process runs the schedules. The server reads the
// jobs' status through the JobStatusReader handed to it here (the live scheduler, or the persisted state), so
// http never imports mirror.

import cluster from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from './config/schema';
import { schedulerCheck, type SchedulerState } from './http/health';
import { createLogger, startServer, type HttpServer } from './http/server';
import { persistedJobStatus } from './mirror/jobs/job-status';
import type { RenderHost } from './mirror/jobs/render-job';
import { RedisCoordinator } from './mirror/jobs/coordination';
import { RenderShare } from './mirror/jobs/render-share';
import { coordinationUrl, Scheduler, urlSecrets } from './mirror/jobs/schedule';
import { createRedactor } from './mirror/upstream/redact';
import type { GeolocationHooks } from './services/geolocation/service';

export interface Tilemirror extends HttpServer {
  /**
   * Runs the scheduled mirror jobs and the runs the admin API asks for (absent when no job is configured, with
   * `schedule: false`, and in cluster workers: the primary runs them).
   */
  scheduler?: Scheduler;
}

export interface ServeOptions {
  /** Run the configured jobs on their schedules (default: when any job has one, except in a cluster worker). */
  schedule?: boolean;
  /**
   * What geolocation asks of other services, replacing the wired ones (tests): the ISO 3166-2 region at a position
   * (by default the gazetteer's) and the elevation (by default the elevation service's).
   */
  geolocation?: GeolocationHooks;
}

/** What a render job needs of a running server: its renderer, its render stores' keeper and its catalog's maps. */
export function renderHost(server: HttpServer, config: Config, share?: RenderShare): RenderHost {
  const { renderer, renderedTiles, gridTiles, keptGridTiles } = server.services;
  return {
    renderer,
    renderedTiles,
    grid: (id) => gridTiles.grid(id),
    keptGridTiles,
    map: (id) => server.catalog.get('maps', id),
    dataDir: server.catalog.dataDir,
    metatile: config.render.metatile,
    parallel: config.render.browsers,
    ...(share && { share: (name: string) => share.sharing(name) }),
  };
}

/** The render runs shared through `scheduler.redis` (`render.share`), when there is a Redis and a renderer. */
function renderShare(config: Config, log: Logger): RenderShare | undefined {
  const url = coordinationUrl(config, process.env);
  if (!url || !config.render.enabled || !config.render.share) return undefined;
  const { lockTtlSeconds, keyPrefix } = config.scheduler;
  const redact = createRedactor(...urlSecrets(url));
  const coordinator = new RedisCoordinator({ url, ttlMs: lockTtlSeconds * 1000, prefix: keyPrefix, log, redact });
  return new RenderShare({ coordinator, prefix: keyPrefix, ttlMs: lockTtlSeconds * 1000, log, redact });
}

/** Serves the data directory; starts the scheduler (after the server listens) when this process runs the schedules. */
export async function startTilemirror(config: Config, log: Logger = createLogger(config), opts: ServeOptions = {}): Promise<Tilemirror> {
  // With `serve --workers N` the cluster's primary runs the schedules (it outlives restarted workers); the
  // workers only serve, and their status pages read the state the scheduler persists.
  const inCharge = (opts.schedule ?? !cluster.isWorker) && config.mirror.jobs.length > 0;
  const runs = inCharge && config.mirror.jobs.some((j) => j.schedule);
  // A scheduler that cannot start (a job's area file missing, ...) does not stop serving what is published: the
  // server runs without schedules and says it is not ready (/health/ready), the log says why.
  let schedulerState: SchedulerState = runs ? 'running' : 'none';
  const schedulerFailed = (err: unknown): void => {
    schedulerState = 'failed';
    log.error({ err: err instanceof Error ? err.message : String(err) }, 'mirror scheduler failed to start: serving without schedules (not ready)');
  };
  let scheduler: Scheduler | undefined;
  // Render jobs draw with this server's renderer, known once the server is built (a job cannot fire before).
  let host: RenderHost | undefined;
  try {
    // Built for on-demand jobs too: the admin API's Run now goes through it.
    scheduler = inCharge ? new Scheduler({ config, log, render: () => host }) : undefined;
  } catch (err) {
    if (runs) schedulerFailed(err);
    else log.error({ err: err instanceof Error ? err.message : String(err) }, 'mirror jobs cannot be run from this server (the admin API refuses Run now)');
  }
  const server = await startServer(config, log, {
    jobStatus: scheduler ?? persistedJobStatus(config),
    jobControl: scheduler,
    checks: () => ({ scheduler: schedulerCheck(schedulerState) }),
    geolocation: opts.geolocation,
  });
  // Every server with a renderer draws bands of the render runs other instances offer (read-only ones too).
  const share = renderShare(config, log);
  host = renderHost(server, config, share);
  share?.help(host);
  try {
    scheduler?.start();
  } catch (err) {
    schedulerFailed(err);
    void scheduler?.stop();
    scheduler = undefined;
  }
  return {
    ...server,
    scheduler,
    // The server stops accepting at once and drains while the scheduler winds down.
    close: async (graceMs?: number) => {
      const [, finished] = await Promise.all([scheduler?.stop(), server.close(graceMs)]);
      await share?.close();
      return finished;
    },
  };
}
