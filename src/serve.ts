// `tilemirror serve` wired: the HTTP server over the data directory, plus the mirror's scheduler when this
// process runs the schedules. The server reads the jobs' status through the JobStatusSource handed to it here
// (the live scheduler, or the persisted state), so http never imports mirror.

import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { DEFAULT_INDEX_DIR } from './config/load';
import type { Config } from './config/schema';
import { createLogger, startServer, type HttpServer } from './http/server';
import { persistedJobStatus } from './mirror/job-status';
import { GeolocationService, type GeolocationHooks } from './services/geolocation/service';
import { Scheduler } from './mirror/schedule';
import { ElevationService } from './services/elevation';
import { CoordinatesService } from './services/coordinates';
import { GeocodingService } from './services/geocoding/service';

export interface Tilemirror extends HttpServer {
  /** Runs the scheduled mirror jobs (absent when none has a `schedule`, and in cluster workers: the primary runs them). */
  scheduler?: Scheduler;
}

export interface ServeOptions {
  /** Run the configured jobs on their schedules (default: when any job has one, except in a cluster worker). */
  schedule?: boolean;
  /**
   * What geolocation asks of other services: the ISO 3166-2 region at a position (the gazetteer) and the elevation
   * (the elevation service). Absent: region from the IP database's own names, no `region_code`, no `elevation`.
   */
  geolocation?: GeolocationHooks;
}

/** Serves the data directory; starts the scheduler (after the server listens) when this process runs the schedules. */
export async function startTilemirror(config: Config, log: Logger = createLogger(config), opts: ServeOptions = {}): Promise<Tilemirror> {
  // With `serve --workers N` the cluster's primary runs the schedules (it outlives restarted workers); the
  // workers only serve, and their status pages read the state the scheduler persists.
  const runs = (opts.schedule ?? !cluster.isWorker) && config.mirror.jobs.some((j) => j.schedule);
  const scheduler = runs ? new Scheduler({ config, log }) : undefined;
  const server = await startServer(config, log, {
    jobStatus: scheduler ?? persistedJobStatus(config),
    services: (catalog) => ({
      elevation: new ElevationService(catalog, {
        ...config.elevation,
        onBadTile: (tile, err) => log.error({ tile, err: err.message }, 'terrain tile cannot be decoded: read as absent'),
      }),
    }),
  });
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
      await coordinates?.close();
      geocoding.close();
      return finished;
    },
  };
}
