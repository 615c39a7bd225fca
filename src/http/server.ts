import pino, { type Logger } from 'pino';
import type { Config } from '../config/schema';
import { Catalog } from '../store/catalog';
import { listen, type RunningServer } from './app';

export interface Tilemirror extends RunningServer {
  catalog: Catalog;
}

/** JSON logs to stdout, written asynchronously (under load sonic-boom coalesces lines into fewer writes). */
export function createLogger(config: Config): Logger {
  const destination = pino.destination({ dest: 1, sync: false });
  // Flush what is buffered when the process ends normally.
  process.once('beforeExit', () => destination.flushSync());
  return pino({ level: config.logLevel, base: undefined }, destination);
}

/** Opens the catalog of the data directory and serves it until `close()`. */
export async function startServer(config: Config, log: Logger = createLogger(config)): Promise<Tilemirror> {
  const catalog = new Catalog(config.data, {
    onError: (file, err) => log.warn({ file, err: err.message }, 'store skipped'),
    tileCacheBytes: config.cache.memoryMb * 1024 * 1024,
  }).watch();
  const running = await listen(config, catalog, log);
  log.info({ url: running.url, data: config.data, stores: catalog.list().length }, 'tilemirror serving');
  return {
    ...running,
    catalog,
    close: async () => {
      await running.close();
      catalog.close();
      log.flush();
    },
  };
}
