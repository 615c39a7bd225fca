import cluster from 'node:cluster';
import pino, { type Logger } from 'pino';
import type { Config } from '../config/schema';
import { Catalog } from '../store/catalog/catalog';
import type { MirroredLabels } from '../services/geocoding/labels-mirrored';
import { listen, type RunningServer } from './app';
import { BatchedDestination } from './log-destination';
import { registerPlainLogger } from './request-log';
import { createServerMetrics } from './metrics';
import { workerScrape } from './metrics-cluster';
import { limitConnections } from './connection-limit';
import { createServices, type ServiceOptions, type ServiceRoot, type Services } from './service-root';

export interface HttpServer extends RunningServer {
  catalog: Catalog;
  /** The services the routes use (service-root.ts). */
  services: Services;
  /** The labels of the served vector tile sets (indexed in the background as stores come and go): the geocoder's LabelFinder. */
  labels: MirroredLabels;
}

/** What the wiring (`serve`) hands the services: the jobs' status, readiness checks, geolocation hooks. The metrics are made here. */
export type ServerOptions = Omit<ServiceOptions, 'metrics'>;

/**
 * JSON logs to stdout, written asynchronously in batches of 16 KB (one write(2) per ~100 request lines instead of
 * one per line), and at least every 250 ms, so a quiet server's lines are never held longer than that. The
 * destination is our own (log-destination.ts says why not pino's). Each batch is a round trip through libuv's
 * thread pool (queue, wake a worker, write, wake the loop, run the callback): with 4 KB batches (~27 tile request
 * lines) that fixed part cost ~0.7 µs of every request in the serve benchmark's profile; 16 KB, a quarter of that.
 */
export function createLogger(config: Config): Logger {
  const destination = new BatchedDestination({ fd: 1, minBytes: 16 * 1024 });
  setInterval(() => destination.flush(), 250).unref();
  // Flush what is buffered when the process ends, normally or by process.exit() (after a SIGTERM drain).
  process.once('exit', () => destination.flushSync());
  const log = pino({ level: config.logLevel, base: undefined }, destination);
  registerPlainLogger(log, destination);
  return log;
}

/** Opens the catalog of the data directory, builds the services over it (service-root.ts) and serves them until `close()`. */
export async function startServer(config: Config, log: Logger = createLogger(config), opts: ServerOptions = {}): Promise<HttpServer> {
  // Before the catalog: its first scan already reports stores that cannot be opened.
  const metrics = config.metrics.enabled ? createServerMetrics() : undefined;
  // A `serve --workers` worker answers a scrape with every worker's metrics, gathered by the primary.
  if (metrics && cluster.isWorker) metrics.scrape = workerScrape(metrics.registry);
  const catalog = new Catalog(config.data, {
    onError: (file, err) => {
      metrics?.failures.storeOpen.inc();
      log.warn({ file, err: err.message }, 'store skipped');
    },
    onScanError: (dirs, err) => log.error({ dirs, err: err.message }, 'data folder cannot be listed: its open stores keep serving'),
    onDamagedTile: (file, tile, err) => {
      metrics?.failures.damagedTiles.inc();
      log.error({ file, tile, err: err.message }, 'damaged tile: answered 500');
    },
    tileCacheBytes: config.cache.memoryMb * 1024 * 1024,
  }).watch();
  let root: ServiceRoot;
  try {
    root = createServices(config, catalog, log, { ...opts, metrics });
  } catch (err) {
    catalog.close();
    throw err;
  }
  let running: RunningServer;
  try {
    running = await listen(config, catalog, log, root.services);
    limitConnections(running.server, config.server.maxConnections, log);
  } catch (err) {
    root.stop();
    catalog.close();
    await root.close();
    throw err;
  }
  log.info({ url: running.url, data: config.data, stores: catalog.list().length }, 'tilemirror serving');
  // After listening: the first reconciliation (and any build) runs in the background, never before readiness.
  root.start(running.url);
  return {
    ...running,
    catalog,
    services: root.services,
    labels: root.labels,
    close: async (graceMs?: number) => {
      root.stop();
      const finished = await running.close(graceMs);
      if (!finished) log.warn({ graceMs }, 'shutdown: connections still busy after the grace period were cut');
      catalog.close();
      log.flush();
      await root.close();
      return finished;
    },
  };
}
