#!/usr/bin/env node
import { Command, InvalidArgumentError } from 'commander';
import cluster from 'node:cluster';
import { resolve } from 'node:path';
import { ConfigError, DEFAULT_INDEX_DIR, loadConfig, parseConfig } from './config/basics';
import type { Config } from './config/schema';
import type { Scheduler } from './mirror/jobs/schedule';
import type { SampleStore } from './sample';
import { registerMirrorCommands } from './mirror/cli';

// The server, its metrics and the scheduler are loaded by the commands that use them, when they run: loading all of
// them took ~0.5 s of CPU at every start, a tenth of a 12,000-tile mirror run. (require, not import(): this is a
// CommonJS module, and import() would not run under ts-jest.)

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

function startScheduler(config: Config): Scheduler {
  const { Scheduler } = require('./mirror/jobs/schedule') as typeof import('./mirror/jobs/schedule');
  const { createLogger } = require('./http/server') as typeof import('./http/server');
  return new Scheduler({ config, log: createLogger(config) }).start();
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
      if (config.metrics.enabled) (require('./http/metrics-cluster') as typeof import('./http/metrics-cluster')).aggregateWorkerMetrics();
      for (let i = 0; i < workers; i++) cluster.fork();
      cluster.on('exit', (worker, code, signal) => {
        if (!stopping && signal !== 'SIGTERM' && signal !== 'SIGINT' && code !== 0) cluster.fork();
      });
      const scheduled = config.mirror.jobs.some((j) => j.schedule);
      const scheduler = scheduled ? startScheduler(config) : undefined;
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
    const { startTilemirror } = require('./serve') as typeof import('./serve');
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
  .option('--only <stores>', 'build only these stores, comma-separated (map, vector, terrain, …)')
  .action(async (opts: { data: string; force?: boolean; only?: string }) => {
    // Loaded lazily: sharp and the Natural Earth data are only needed here.
    const { buildSample, SAMPLE_STORES } = await import('./sample/index.js');
    const keys = Object.keys(SAMPLE_STORES);
    const only = opts.only?.split(',').map((s) => s.trim());
    const unknown = only?.filter((k) => !keys.includes(k)) ?? [];
    if (unknown.length) program.error(`--only: no sample store ${unknown.join(', ')} (the stores: ${keys.join(', ')})`);
    await buildSample(resolve(opts.data), { force: opts.force, only: only as SampleStore[] | undefined, log: (m: string) => console.log(m) });
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

// Data in and out. `export`/`import` carry bundles across an air gap (src/bundle/); `export --format
// pmtiles` writes one store as a PMTiles archive, `export --format gpkg` one raster pyramid as a GeoPackage, and
// `import --mbtiles` brings in an MBTiles file made elsewhere (src/interchange-cli.ts). Thin: parse, call, report;
// a known error is one clear line and exit 1.
async function interchange(run: (cli: typeof import('./interchange-cli.js')) => string[] | Promise<string[]>): Promise<void> {
  const cli = await import('./interchange-cli.js');
  await reportingKnown(cli.InterchangeError, async () => {
    for (const line of await run(cli)) console.log(line);
  });
}

/**
 * Runs a command whose expected failures are `known` errors: such an error is one line on stderr (`error: …`,
 * no stack) and exit status 1 at once (nothing a failed import or export left running, a worker say, may keep
 * the process alive; stderr is synchronous for files and pipes on Linux); anything else keeps its stack (the
 * program's catch-all).
 */
async function reportingKnown(known: new (...args: never[]) => Error, run: () => Promise<void> | void): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (!(err instanceof known)) throw err;
    console.error(`error: ${err.message}`);
    process.exit(1);
  }
}

registerMirrorCommands(program);

// Air gap: bundles out of one data directory and into another (src/bundle/). Thin: parse, call, report.
// A bundle error (bad input, a damaged or untrusted bundle, a base version that does not match) is one clear
// line and exit 1; anything else keeps its stack.
async function bundleAction(run: () => Promise<void> | void): Promise<void> {
  const { BundleError } = await import('./bundle/manifest.js');
  await reportingKnown(BundleError, run);
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

program
  .command('render')
  .description('pre-render a map\'s raster tiles from its style (MapLibre in headless Chromium) into its render store, so serving never waits for them: resumable (Ctrl-C keeps what was drawn), published atomically; with --config FILE NAME, runs the render job NAME of the file')
  .argument('<target>', 'the map, as maps/ID; or, with --config, the name of a render job (mirror.jobs[] with kind: render)')
  .option('-z, --zoom <range>', 'zooms of the 512 px tiles, MIN-MAX (256 px tiles: one zoom more, the same area); required with maps/ID')
  .option('--bbox <W,S,E,N>', 'area in degrees (repeatable; default the map\'s bounds)', collect, [])
  .option('-c, --config <file>', 'YAML config file (its data directory, render section and render jobs)')
  .option('-d, --data <dir>', 'data directory holding the stores')
  .option('--sizes <list>', 'tile sizes to render: 512, 256', '512,256')
  .option('--scales <list>', 'pixel ratios to render: 1, 2', '1')
  .option('--formats <list>', 'formats to keep: png, jpg, webp', 'png')
  .option('--grid <name>', 'draw and keep the tiles of a configured grid besides Web Mercator (grids:) instead: the target may be maps/ID, tiles/ID or images/ID, --zoom names the grid\'s matrices (default: its first to the one as fine as the resource\'s deepest tiles)')
  .action(async (target: string, opts: { zoom?: string; bbox: string[]; config?: string; data?: string; sizes: string; scales: string; formats: string; grid?: string }, cmd: Command) => {
    const cli = await import('./render-cli.js');
    try {
      const config = resolveServeConfig({ config: opts.config, data: opts.data });
      if (opts.grid !== undefined) {
        const ignored = ['sizes', 'scales'].filter((o) => cmd.getOptionValueSource(o) === 'cli');
        if (ignored.length > 0) throw new cli.RenderCommandError(`${ignored.map((o) => `--${o}`).join(', ')} do not apply to --grid (a grid has one tile size)`);
        const r = await cli.renderGridCommand(config, { resource: target, grid: opts.grid, zoom: opts.zoom, bbox: opts.bbox, formats: opts.formats }, (line) => console.error(line));
        if (r.stopped) process.exitCode = 130;
        return;
      }
      if (!target.startsWith('maps/') && opts.config) {
        // A job's own fields decide these: a flag that would be ignored is refused.
        const ignored = ['zoom', 'bbox', 'sizes', 'scales', 'formats'].filter((o) => cmd.getOptionValueSource(o) === 'cli');
        if (ignored.length > 0) throw new cli.RenderCommandError(`with a render job the job's fields apply: set ${ignored.map((o) => `--${o}`).join(', ')} in ${opts.config} (mirror.jobs[])`);
        const record = await cli.renderJobCommand(config, target, (line) => console.error(line));
        process.exitCode = record.result === 'interrupted' ? 130 : record.exitCode;
        return;
      }
      const r = await cli.renderCommand(config, { resource: target, ...opts }, (line) => console.error(line));
      if (r.stopped) process.exitCode = 130;
    } catch (err) {
      if (!(err instanceof cli.RenderCommandError) && !(err instanceof ConfigError)) throw err;
      console.error(`tilemirror render: ${err.message}`);
      process.exitCode = 1;
    }
  });

program
  .command('export')
  .description('write stores of the data directory into a bundle (a file, or a folder of parts) to carry across an air gap: whole, or only what changed since the versions the other side has; with --format pmtiles, one store as a PMTiles v3 archive; with --format gpkg, one raster tile set, map or image as an OGC GeoPackage 1.3 tile pyramid')
  .argument('[resources...]', 'stores to export, as kind/id (tiles/ID, maps/ID, fonts/NAME ...); default all')
  .option('-d, --data <dir>', 'data directory holding the stores', 'mirror')
  .requiredOption('-o, --out <path>', 'bundle to write (a file; a folder with --part-size), or the .pmtiles or .gpkg file')
  .option('--format <format>', 'pmtiles: write the one store named as a PMTiles v3 archive (clustered, de-duplicated) instead of a bundle; gpkg: one raster resource (maps/ID, maps/ID/256, tiles/ID, images/ID) as a GeoPackage')
  .option('-z, --zoom <range>', 'with --format gpkg: zooms to write, MIN-MAX (default all of the pyramid)')
  .option('--grid <name>', 'with --format gpkg: the tile matrix set: WebMercatorQuad (the stored tiles), or WorldCRS84Quad, EuropeanETRS89_LAEAQuad, UTM01WGS84Quad .. UTM60WGS84Quad (drawn from them)')
  .option('--since <versions>', 'versions the other side has: a file written there by `status --versions`, or KIND/ID=VERSION (repeatable)', collect, [])
  .option('--part-size <size>', 'write a folder of parts of this size (e.g. 100M, 4G) instead of one file')
  .option('--sign <keyfile>', 'sign the manifest with this Ed25519 private key (tilemirror keygen)')
  .action((resources: string[], opts: { data: string; out: string; since: string[]; partSize?: string; sign?: string; format?: string; zoom?: string; grid?: string }) => {
    if (opts.format !== undefined)
      return interchange((cli) => {
        if (opts.format === 'gpkg') {
          if (resources.length !== 1) throw new cli.InterchangeError('usage: export --format gpkg RESOURCE [--zoom A-B] [--grid NAME] --out FILE.gpkg');
          return cli.exportGpkgCommand({ data: opts.data, resource: resources[0], out: opts.out, zoom: opts.zoom, grid: opts.grid });
        }
        if (opts.format !== 'pmtiles') throw new cli.InterchangeError(`--format ${opts.format}: pmtiles and gpkg are known (without --format: a bundle)`);
        if (resources.length !== 1) throw new cli.InterchangeError('usage: export --format pmtiles RESOURCE --out FILE');
        if (opts.zoom !== undefined || opts.grid !== undefined) throw new cli.InterchangeError('--zoom and --grid go with --format gpkg');
        return cli.exportPmtilesCommand({ data: opts.data, resource: resources[0], out: opts.out });
      });
    if (opts.zoom !== undefined || opts.grid !== undefined)
      return interchange((cli) => {
        throw new cli.InterchangeError('--zoom and --grid go with --format gpkg');
      });
    return bundleAction(async () => {
      const { exportBundle } = await import('./bundle/export.js');
      const { parseSince } = await import('./bundle/since.js');
      const { parseSize } = await import('./bundle/parts.js');
      const { BundleError } = await import('./bundle/manifest.js');
      let partSize: number | null = null;
      try {
        partSize = opts.partSize === undefined ? null : parseSize(opts.partSize);
      } catch (err) {
        throw new BundleError(`--part-size: ${(err as Error).message}`);
      }
      const r = exportBundle({
        dataDir: resolve(opts.data),
        out: resolve(opts.out),
        resources,
        since: parseSince(opts.since),
        partSize,
        signKey: opts.sign,
        log: (l) => console.error(l),
      });
      const m = r.manifest;
      console.log(`${opts.out}: ${m.stores.length} stores (${r.unchanged.length} unchanged), ${m.payloadBytes} bytes in ${m.parts.length} part(s)${opts.sign ? ', signed' : ''}`);
    });
  });

program
  .command('import')
  .description('check a bundle (every part\'s SHA-256, the signature with --trust, the base versions) and publish its stores into the data directory; with --mbtiles FILE --as tiles/ID|maps/ID, import an MBTiles file made elsewhere; a running server picks them up without a restart')
  .argument('[bundle]', 'bundle file or folder (export --out)')
  .option('-d, --data <dir>', 'data directory to publish into', 'mirror')
  .option('--mbtiles <file>', 'an MBTiles file (GDAL, OpenMapTiles, mbutil, tippecanoe ...) to import instead of a bundle')
  .option('--as <resource>', 'with --mbtiles: the store it becomes, tiles/ID or maps/ID')
  .option('--trust <pubkey>', 'public key (PEM, tilemirror keygen) trusted to sign bundles; repeatable; also $TILEMIRROR_TRUST (comma-separated). With one, unsigned or otherwise signed bundles are refused', collect, [])
  .action((bundle: string | undefined, opts: { data: string; trust: string[]; mbtiles?: string; as?: string }) => {
    if (opts.mbtiles !== undefined || opts.as !== undefined)
      return interchange((cli) => {
        if (!opts.mbtiles || !opts.as || bundle) throw new cli.InterchangeError('usage: import --mbtiles FILE --as tiles/ID|maps/ID (and no BUNDLE)');
        return cli.importMbtilesCommand({ data: opts.data, file: opts.mbtiles, as: opts.as });
      });
    return bundleAction(async () => {
      const { importBundle } = await import('./bundle/import.js');
      const { BundleError } = await import('./bundle/manifest.js');
      if (!bundle) throw new BundleError('import needs a BUNDLE (a file or folder written by export)');
      const trust = [...opts.trust, ...(process.env.TILEMIRROR_TRUST ?? '').split(',').filter((s) => s.trim() !== '')];
      const r = await importBundle({ dataDir: resolve(opts.data), bundle: resolve(bundle), trust, log: (l) => console.error(l) });
      console.log(`${r.applied.length} stores published, ${r.skipped.length} already current`);
    });
  });

program
  .command('keygen')
  .description('make an Ed25519 key pair for signing bundles: NAME.key (private, mode 0600) and NAME.pub')
  .requiredOption('-o, --out <name>', 'path and name of the pair, without extension')
  .action((opts: { out: string }) =>
    bundleAction(async () => {
      const { generateKeyPair } = await import('./bundle/sign.js');
      const k = generateKeyPair(resolve(opts.out));
      console.log(`${k.privateFile} (keep it on the exporting side), ${k.publicFile} (give it to importers: --trust), key ${k.keyId}`);
    }),
  );

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(err.message);
  else console.error(err instanceof Error ? err.stack ?? err.message : String(err));
  process.exit(err instanceof ConfigError ? 2 : 1);
});
