import cluster from 'node:cluster';
import pino, { type Logger } from 'pino';
import type { Config } from '../config/schema';
import { attachScheduler, Scheduler } from '../mirror/schedule';
import { Catalog } from '../store/catalog';
import { listen, type RunningServer } from './app';

export interface Tilemirror extends RunningServer {
  catalog: Catalog;
  /** Runs the scheduled mirror jobs (absent when none has a `schedule`, and in cluster workers: the primary runs them). */
  scheduler?: Scheduler;
}

export interface ServeOptions {
  /** Run the configured jobs on their schedules (default: when any job has one). */
  schedule?: boolean;
}

/** JSON logs to stdout, written asynchronously (under load sonic-boom coalesces lines into fewer writes). */
export function createLogger(config: Config): Logger {
  const destination = pino.destination({ dest: 1, sync: false });
  // Flush what is buffered when the process ends normally.
  process.once('beforeExit', () => destination.flushSync());
  return pino({ level: config.logLevel, base: undefined }, destination);
}

/** Opens the catalog of the data directory and serves it until `close()`. */
export async function startServer(config: Config, log: Logger = createLogger(config), opts: ServeOptions = {}): Promise<Tilemirror> {
  const catalog = new Catalog(config.data, {
    onError: (file, err) => log.warn({ file, err: err.message }, 'store skipped'),
    tileCacheBytes: config.cache.memoryMb * 1024 * 1024,
  }).watch();
  const running = await listen(config, catalog, log);
  log.info({ url: running.url, data: config.data, stores: catalog.list().length }, 'tilemirror serving');
  // With `serve --workers N` the cluster's primary runs the schedules (it outlives restarted workers); the
  // workers only serve, and their status pages read the state the scheduler persists.
  let scheduler: Scheduler | undefined;
  if ((opts.schedule ?? !cluster.isWorker) && config.mirror.jobs.some((j) => j.schedule)) {
    try {
      scheduler = new Scheduler({ config, log }).start();
      attachScheduler(config, scheduler);
    } catch (err) {
      await running.close();
      catalog.close();
      throw err;
    }
  }
  return {
    ...running,
    catalog,
    scheduler,
    close: async () => {
      if (scheduler) {
        await scheduler.stop();
        attachScheduler(config, undefined);
      }
      await running.close();
      catalog.close();
      log.flush();
    },
  };
}
