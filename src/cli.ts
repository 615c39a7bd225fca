#!/usr/bin/env node
import { Command, InvalidArgumentError } from 'commander';
import cluster from 'node:cluster';
import { resolve } from 'node:path';
import { ConfigError, DEFAULT_INDEX_DIR, loadConfig, parseConfig } from './config/load';
import type { Config } from './config/schema';
import { createLogger } from './http/server';
import { aggregateWorkerMetrics } from './http/metrics-cluster';
import { Scheduler } from './mirror/schedule';
import { registerMirrorCommands } from './mirror/cli';
import { startTilemirror } from './serve';

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError('a port number 0-65535');
  return n;
}

/** Worker processes for `serve --workers`: a count, not a port. */
const MAX_WORKERS = 64;

function workerCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_WORKERS) throw new InvalidArgumentError(`a number of worker processes 1-${MAX_WORKERS}`);
  return n;
}

interface ServeOptions {
  config?: string;
  data?: string;
  port?: number;
  host?: string;
  workers?: number;
}

/** Config file (or defaults), then environment (PORT), then command-line flags: the later wins. */
export function resolveServeConfig(opts: ServeOptions, env: NodeJS.ProcessEnv = process.env): Config {
  const config = opts.config ? loadConfig(opts.config, env) : parseConfig({}, 'defaults', process.cwd(), env);
  if (env.PORT !== undefined && opts.port === undefined) config.server.port = port(env.PORT);
  if (opts.port !== undefined) config.server.port = opts.port;
  if (opts.host) config.server.host = opts.host;
  if (opts.data) config.data = resolve(opts.data);
  return config;
}

/**
 * Runs `stop` on the first SIGTERM or SIGINT. Later signals are ignored rather than killing the process mid-drain
 * (Ctrl-C reaches a cluster's workers both from the terminal and from the primary); the drain is bounded anyway.
 */
function onStopSignal(stop: (signal: NodeJS.Signals) => void): void {
  let stopped = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (stopped) return;
    stopped = true;
    stop(signal);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

const program = new Command('tilemirror').description('A cloud map API made available offline.');

program
  .command('serve')
  .description('serve the mirrored stores of the data directory')
  .option('-c, --config <file>', 'configuration file (YAML or JSON)')
  .option('-d, --data <dir>', 'data directory holding the stores (overrides the config)')
  .option('-p, --port <n>', 'port to listen on (default 8080, or $PORT)', port)
  .option('-H, --host <host>', 'address to bind (default 127.0.0.1)')
  .option('-w, --workers <n>', `worker processes sharing the port, 1-${MAX_WORKERS} (default 1; one per core is usual)`, workerCount)
  .action(async (opts: ServeOptions) => {
    const config = resolveServeConfig(opts);
    const workers = opts.workers ?? 1;
    if (workers > 1 && cluster.isPrimary) {
      // Each worker opens its own read-only catalog; the primary forks and restarts them and runs the mirror
      // schedules, so a restarted worker never takes a job's schedule with it.
      let stopping = false;
      // A scrape reaching any worker answers with the metrics of all of them, gathered here.
      if (config.metrics.enabled) aggregateWorkerMetrics();
      for (let i = 0; i < workers; i++) cluster.fork();
      cluster.on('exit', (worker, code, signal) => {
        if (!stopping && signal !== 'SIGTERM' && signal !== 'SIGINT' && code !== 0) cluster.fork();
      });
      const scheduler = config.mirror.jobs.some((j) => j.schedule) ? new Scheduler({ config, log: createLogger(config) }).start() : undefined;
      // Each worker drains on its own (the signal is forwarded); the primary exits once they all have, with a
      // safety net a little past their grace period for a worker that hangs.
      onStopSignal((signal) => {
        stopping = true;
        const live = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined && !w.isDead());
        const exited = live.map((w) => new Promise<void>((done) => w?.process.once('exit', () => done())));
        for (const w of live) w?.process.kill(signal);
        const net = setTimeout(() => live.forEach((w) => w?.process.kill('SIGKILL')), config.server.shutdownGraceSeconds * 1000 + 5000);
        void Promise.all([...exited, scheduler?.stop()]).then(() => {
          clearTimeout(net);
          process.exit(0);
        });
      });
      return;
    }
    if (config.keys.length === 0) console.error('warning: no API keys configured: every request will be answered 403');
    const server = await startTilemirror(config);
    onStopSignal(() => {
      server.close(config.server.shutdownGraceSeconds * 1000).then(
        () => process.exit(0),
        (err: unknown) => {
          console.error(err instanceof Error ? err.stack ?? err.message : String(err));
          process.exit(1);
        },
      );
    });
  });

program
  .command('sample')
  .description('build the bundled sample stores (deterministic, offline)')
  .option('-d, --data <dir>', 'data directory', 'mirror')
  .option('-f, --force', 'rebuild even when the stores are up to date')
  .action(async (opts: { data: string; force?: boolean }) => {
    // Loaded lazily: sharp and the Natural Earth data are only needed here.
    const { buildSample } = await import('./sample/index.js');
    await buildSample(resolve(opts.data), { force: opts.force, log: (m: string) => console.log(m) });
  });

// Derived indexes (SQLite files built from npm data), written to `indexDir`. Each service registers its builder
// here, one line each; a builder skips work when its file is current.
const INDEX_BUILDERS: { name: string; build: (dir: string, opts: { log: (m: string) => void; force?: boolean }) => Promise<unknown> }[] = [
  { name: 'coordinates', build: async (dir, opts) => (await import('./services/coordinates/registry-index.js')).buildCoordinatesIndex(dir, opts) },
  { name: 'gazetteer', build: async (dir, opts) => (await import('./services/geocoding/gazetteer-index.js')).buildGazetteerIndex(dir, opts.log, opts.force) },
];

program
  .command('build-indexes')
  .description(`build the derived search indexes (${INDEX_BUILDERS.map((b) => b.name).join(', ')}) into indexDir`)
  .option('-c, --config <file>', 'configuration file (for indexDir)')
  .option('-o, --out <dir>', 'directory to write to (overrides indexDir)')
  .option('-f, --force', 'rebuild even when an index is current')
  .action(async (opts: { config?: string; out?: string; force?: boolean }) => {
    const config = resolveServeConfig({ config: opts.config });
    const dir = opts.out ? resolve(opts.out) : config.indexDir ?? DEFAULT_INDEX_DIR;
    for (const b of INDEX_BUILDERS) await b.build(dir, { log: (m) => console.log(m), force: opts.force });
  });

// Issue 13, PMTiles and existing MBTiles (h13pmtiles): `export --format pmtiles` and `import --mbtiles`. The
// bundle export/import of the same commands (h13bundle) is merged around these branches.
async function interchange(run: (cli: typeof import('./interchange-cli.js')) => string[]): Promise<void> {
  const cli = await import('./interchange-cli.js');
  try {
    for (const line of run(cli)) console.log(line);
  } catch (err) {
    if (!(err instanceof cli.InterchangeError)) throw err;
    console.error(err.message);
    process.exitCode = 1;
  }
}

program
  .command('export')
  .description('write stores out of the data directory: --format pmtiles writes one store as a PMTiles v3 archive')
  .argument('[resources...]', 'the stores to write (tiles/ID, maps/ID, images/ID)')
  .option('-d, --data <dir>', 'data directory', 'mirror')
  .option('-o, --out <file>', 'file to write')
  .option('--format <format>', 'pmtiles: one store as a PMTiles v3 archive')
  .action((resources: string[], opts: { data: string; out?: string; format?: string }) =>
    interchange((cli) => {
      if (opts.format !== 'pmtiles') throw new cli.InterchangeError(`--format ${opts.format ?? '(none)'}: only pmtiles is known here`);
      if (resources.length !== 1 || !opts.out) throw new cli.InterchangeError('usage: export --format pmtiles RESOURCE --out FILE');
      return cli.exportPmtilesCommand({ data: opts.data, resource: resources[0], out: opts.out });
    }),
  );

program
  .command('import')
  .description('bring data into the data directory: --mbtiles FILE --as tiles/ID|maps/ID imports an MBTiles file made elsewhere')
  .option('-d, --data <dir>', 'data directory', 'mirror')
  .option('--mbtiles <file>', 'an MBTiles file (GDAL, OpenMapTiles, mbutil, tippecanoe ...) to import')
  .option('--as <resource>', 'the store it becomes: tiles/ID or maps/ID')
  .action((opts: { data: string; mbtiles?: string; as?: string }) =>
    interchange((cli) => {
      if (!opts.mbtiles || !opts.as) throw new cli.InterchangeError('usage: import --mbtiles FILE --as tiles/ID|maps/ID');
      return cli.importMbtilesCommand({ data: opts.data, file: opts.mbtiles, as: opts.as });
    }),
  );

registerMirrorCommands(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error(err instanceof Error ? err.stack ?? err.message : String(err));
  process.exit(err instanceof ConfigError ? 2 : 1);
});
