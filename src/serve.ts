// `tilemirror serve` wired: the HTTP server over the data directory, plus the mirror's scheduler when this
// process runs the schedules. The server reads the jobs' status through the JobStatusSource handed to it here
// (the live scheduler, or the persisted state), so http never imports mirror.

import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { DEFAULT_INDEX_DIR } from './config/load';
import type { Config } from './config/schema';
import { createLogger, startServer, type HttpServer } from './http/server';
import { persistedJobStatus } from './mirror/job-status';
import { Scheduler } from './mirror/schedule';
import { GeocodingService } from './services/geocoding/service';

export interface Tilemirror extends HttpServer {
  /** Runs the scheduled mirror jobs (absent when none has a `schedule`, and in cluster workers: the primary runs them). */
  scheduler?: Scheduler;
}

export interface ServeOptions {
  /** Run the configured jobs on their schedules (default: when any job has one, except in a cluster worker). */
  schedule?: boolean;
}

/** Serves the data directory; starts the scheduler (after the server listens) when this process runs the schedules. */
export async function startTilemirror(config: Config, log: Logger = createLogger(config), opts: ServeOptions = {}): Promise<Tilemirror> {
  // With `serve --workers N` the cluster's primary runs the schedules (it outlives restarted workers); the
  // workers only serve, and their status pages read the state the scheduler persists.
  const runs = (opts.schedule ?? !cluster.isWorker) && config.mirror.jobs.some((j) => j.schedule);
  const scheduler = runs ? new Scheduler({ config, log }) : undefined;
  // The gazetteer is opened on the first geocoding request (a read-only SQLite handle): startup stays fast.
  // Geolocation's `regionAt` option is `geocoding.regionAt` (GEOCODE.md RegionLookup).
  const geocoding = new GeocodingService({ indexDir: config.indexDir ?? DEFAULT_INDEX_DIR, log: (m) => log.warn(m) });
  const server = await startServer(config, log, { jobStatus: scheduler ?? persistedJobStatus(config), geocoding });
  try {
    scheduler?.start();
  } catch (err) {
    await server.close();
    geocoding.close();
    throw err;
  }
  return {
    ...server,
    scheduler,
    // The server stops accepting at once and drains while the scheduler winds down.
    close: async (graceMs?: number) => {
      const [, finished] = await Promise.all([scheduler?.stop(), server.close(graceMs)]);
      geocoding.close();
      return finished;
    },
  };
}
