// The `mirror`, `plan` and `status` commands: argument parsing, signals, progress and summary output. The work
// itself is runMirror / planReport / runJob; this file only turns flags into options and results into text and
// an exit code. With `--config FILE` the arguments of `mirror` and `plan` are job names of the config file.

import { Command, InvalidArgumentError, Option } from 'commander';
import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config/load';
import type { Config } from '../config/schema';
import type { Bounds } from '../geo/bounds';
import { isDocumentKind, type TileFormat } from '../store/types';
import { parseResource, type ResourceRef } from './discoverers';
import { configuredJobs, jobMirrorOptions, selectJobs, type MirrorJob } from './jobs-config';
import { readAreaFile, type PolygonArea } from './area';
import { parseBBox, parseZoomRange } from './plan';
import { UsageError } from './errors';
import { sourceBase, splitSourceKey, type GenericSource } from './sources';
import { formatBytes, formatDuration } from '../store/units';
import { ProgressPrinter, tileRate } from './progress';
import { createRedactor } from './redact';
import { planReport, runMirror, type MirrorOptions, type MirrorResult, type PlanReport } from './run';
import { nextRunOf, runJob } from './schedule';
import { readStatusFile, StatusStore, type JobView, type RunRecord } from '../store/job-state';
import { jobViews } from './job-status';

export const EXIT = { published: 0, failed: 1, usage: 2, interrupted: 3 } as const;

interface Flags {
  config?: string;
  upstream?: string;
  data: string;
  zoom?: [number, number];
  bbox: Bounds[];
  concurrency: number;
  rate?: number;
  key?: string;
  timeout: number;
  failureBudget: number;
  maxAge?: number;
  sample?: number;
  withDependencies?: boolean;
  scale?: number[];
  format?: TileFormat[];
  area: PolygonArea[];
  sourceTilejson?: string;
  sourceWmts?: string;
  layer?: string;
  matrixSet?: string;
  id?: string;
  /** Set from --source-tilejson / --source-wmts (key-free). */
  source?: GenericSource;
}

const wrap = <T>(fn: (v: string) => T) => (v: string): T => {
  try {
    return fn(v);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
};

function positiveInt(max: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < 1 || n > max) throw new InvalidArgumentError(`an integer 1-${max}`);
    return n;
  };
}

function positiveNumber(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a positive number');
  return n;
}

function addSharedOptions(cmd: Command): Command {
  return cmd
    .argument('[resources...]', 'tiles/ID, maps/ID, images/ID, fonts/FONTSTACK, sprites/ID, data/ID, weather or ogc; with --config: job names (default: every job)')
    .option('-C, --config <file>', 'run the jobs of this configuration file (mirror.jobs) instead of RESOURCE arguments')
    .option('-u, --upstream <url>', 'base URL of the upstream API (MapTiler Cloud or another tilemirror)')
    .option('-d, --data <dir>', 'data directory holding the stores (default: mirror, or the config file\'s)', 'mirror')
    .option('-z, --zoom <min-max>', 'zoom range, e.g. 0-8 (default: the upstream\'s)', wrap(parseZoomRange))
    .option('-b, --bbox <w,s,e,n>', 'area in degrees; repeat for several (default: the upstream\'s bounds)', (v: string, acc: Bounds[]) => [...acc, wrap(parseBBox)(v)], [] as Bounds[])
    .option('-a, --area <file.geojson>', 'area: a GeoJSON Polygon or MultiPolygon (or Feature/FeatureCollection of them) in lon/lat; repeat for several, with --bbox too', (v: string, acc: PolygonArea[]) => [...acc, wrap(readAreaFile)(v)], [] as PolygonArea[])
    .option('--source-tilejson <url>', 'mirror any TileJSON URL (a key=... in it is the key) into tiles/ID given by --id')
    .option('--source-wmts <url>', 'mirror a layer (--layer) of any WMTS capabilities URL into tiles/ID given by --id')
    .option('--layer <id>', 'with --source-wmts: the layer identifier')
    .option('--matrix-set <id>', "with --source-wmts: the TileMatrixSet (default: the layer's first Web Mercator one)")
    .option('--id <id>', 'with --source-tilejson/--source-wmts: the tileset id the source is mirrored into (tiles/ID)')
    .option('-c, --concurrency <n>', 'requests in flight', positiveInt(256), 8)
    .option('-r, --rate <req/s>', 'requests per second sent to the upstream (default: unlimited)', positiveNumber)
    .addOption(new Option('-k, --key <key>', 'upstream key (default: $TILEMIRROR_UPSTREAM_KEY)').env('TILEMIRROR_UPSTREAM_KEY'))
    .option('--timeout <seconds>', 'per-request timeout', positiveNumber, 30)
    .option('--failure-budget <n>', 'failed tiles tolerated before the run stops', (v: string) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('a non-negative integer');
      return Number(v);
    }, 100)
    .option('--max-age <seconds>', 'stored tiles older than this are revalidated with conditional requests (0: all; default 7 days)', (v: string) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('a non-negative integer');
      return Number(v);
    })
    .option('--with-dependencies', "maps: also mirror the fonts and the sprite the map's style uses")
    .option('--scale <list>', 'maps: pixel ratios to mirror, e.g. 1,2 adds @2x pyramids (default 1)', wrap(parseScales))
    .option('--format <list>', "maps: tile formats to mirror, e.g. png,webp (default: the upstream's)", wrap(parseFormats))
    .exitOverride((err) => {
      // Usage errors exit with 2 (help and version with 0), as documented for `mirror`.
      process.exit(err.exitCode === 0 ? 0 : EXIT.usage);
    });
}

function parseScales(v: string): number[] {
  const list = v.split(',').map((s) => Number(s.trim()));
  if (list.length === 0 || list.some((n) => n !== 1 && n !== 2)) throw new Error('a comma-separated list of 1 and 2');
  return list;
}

function parseFormats(v: string): TileFormat[] {
  const list = v.split(',').map((s) => s.trim().toLowerCase().replace(/^jpeg$/, 'jpg'));
  if (list.length === 0 || list.some((f) => f !== 'png' && f !== 'jpg' && f !== 'webp')) throw new Error('a comma-separated list of png, jpg and webp');
  return list as TileFormat[];
}

function mirrorOptions(flags: Flags, resource: ResourceRef, log: (l: string) => void): MirrorOptions {
  return {
    upstream: flags.upstream!,
    dataDir: resolve(flags.data),
    resource,
    key: flags.key,
    zoom: flags.zoom,
    bboxes: flags.bbox,
    areas: flags.area,
    source: flags.source,
    concurrency: flags.concurrency,
    rate: flags.rate,
    timeoutMs: flags.timeout * 1000,
    failureBudget: flags.failureBudget,
    maxAge: flags.maxAge,
    withDependencies: flags.withDependencies,
    scales: flags.scale,
    formats: flags.format,
    log,
  };
}

function parseResources(list: string[]): ResourceRef[] {
  return list.map(parseResource);
}

export function formatSummary(r: MirrorResult): string[] {
  const secs = r.elapsedMs / 1000;
  const rate = tileRate({ resource: r.resource, total: r.planned, done: 0, fetched: r.fetched, skipped: r.skipped, failed: r.failed, bytes: r.bytes, retries: r.retries, elapsedMs: r.elapsedMs });
  const lines = [
    `${r.resource}: ${r.status}${r.published ? ` -> ${r.published}` : ''}`,
    `  ${r.planned} ${isDocumentKind(r.resource.split('/')[0]) ? 'documents' : 'tiles'} planned: ${r.stored} fetched and stored, ${r.empty} empty, ${r.skipped} already stored, ${r.failed} failed`,
    `  ${r.requests} requests (${r.retries} retries), ${formatBytes(r.bytes)} in ${formatDuration(secs)} (${rate.toFixed(0)} tiles/s)`,
  ];
  if (r.revalidated > 0) lines.push(`  ${r.revalidated} stored tiles revalidated: ${r.unchanged} unchanged (${r.notModified} answered 304), ${r.writes} tile rows written`);
  for (const f of r.failures) lines.push(`  failed: ${f}`);
  for (const p of r.problems) lines.push(`  problem: ${p}`);
  for (const n of r.notes) lines.push(`  note: ${n}`);
  return lines;
}

export function formatPlan(p: PlanReport, rate?: number): string[] {
  const lines = [`${p.resource}: ${p.total} tiles`];
  for (const py of p.pyramids) {
    lines.push(`  pyramid ${py.pyramid} (${py.format}, ${py.tileSize} px): ${py.tiles} tiles`);
    for (const z of py.zooms) lines.push(`    z${String(z.z).padStart(2)}  ${String(z.tiles).padStart(12)}${z.estimatedBytes !== undefined ? `  ~${formatBytes(z.estimatedBytes)}` : ''}`);
  }
  if (p.estimatedBytes !== undefined) lines.push(`  estimated size: ~${formatBytes(p.estimatedBytes)} (from ${p.sampled} sampled tiles)`);
  lines.push(p.seconds !== undefined ? `  time at ${rate} req/s: ${formatDuration(p.seconds)}` : '  time: no rate limit set (--rate); bounded by the upstream and --concurrency');
  for (const n of p.notes) lines.push(`  note: ${n}`);
  return lines;
}

/** `--config` mode: the configuration (with `--data` applied when given) and the selected jobs; exits 2 on errors. */
function loadJobs(flags: Flags, names: string[], cmd: Command): { config: Config; jobs: MirrorJob[] } {
  // The job's own fields decide these; a flag that would be ignored is refused instead.
  const ignored = ['upstream', 'zoom', 'bbox', 'concurrency', 'rate', 'timeout', 'failureBudget', 'withDependencies', 'scale', 'format', 'area', 'sourceTilejson', 'sourceWmts', 'layer', 'matrixSet', 'id'].filter((o) => cmd.getOptionValueSource(o) === 'cli');
  if (ignored.length > 0) {
    process.stderr.write(`error: with --config the jobs' fields apply; set ${ignored.map((o) => `--${o.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')} in the file (mirror or mirror.jobs[])\n`);
    process.exit(EXIT.usage);
  }
  try {
    const config = loadConfig(flags.config!);
    if (cmd.getOptionValueSource('data') === 'cli') config.data = resolve(flags.data);
    // `--key` on the command line wins; otherwise each job's keyEnv variable, then mirror.key.
    const keyOverride = cmd.getOptionValueSource('key') === 'cli' ? flags.key : undefined;
    const all = configuredJobs(config, process.env, keyOverride);
    if (all.length === 0) throw new UsageError(`no jobs in ${flags.config} (mirror.jobs)`);
    return { config, jobs: selectJobs(all, names) };
  } catch (e) {
    if (!(e instanceof ConfigError || e instanceof UsageError)) throw e;
    process.stderr.write(`${createRedactor(flags.key)(`error: ${e.message}`)}\n`);
    process.exit(EXIT.usage);
  }
}

/**
 * `--source-tilejson URL` / `--source-wmts URL --layer ID [--matrix-set ID]` with `--id ID`: the resource is
 * `tiles/ID`, the upstream is the URL's origin and a `key=` in the URL is the key (it wins over --key and the
 * environment). Returns the secrets to redact; undefined without a source flag. Exits 2 on misuse.
 */
function adHocSource(flags: Flags, resources: string[]): { ref: ResourceRef; secrets: (string | undefined)[] } | undefined {
  if (!flags.sourceTilejson && !flags.sourceWmts) {
    if (flags.layer || flags.matrixSet || flags.id) usage('--layer, --matrix-set and --id go with --source-tilejson or --source-wmts');
    return undefined;
  }
  if (flags.sourceTilejson && flags.sourceWmts) usage('give either --source-tilejson or --source-wmts, not both');
  if (resources.length > 0) usage(`with a source, no RESOURCE arguments: it is mirrored into tiles/ID given by --id (got ${resources.join(' ')})`);
  if (!flags.id) usage('a source needs --id ID: it is mirrored into tiles/ID');
  if (flags.sourceWmts && !flags.layer) usage('--source-wmts needs --layer ID');
  if (flags.sourceTilejson && (flags.layer || flags.matrixSet)) usage('--layer and --matrix-set go with --source-wmts');
  let ref: ResourceRef;
  try {
    ref = parseResource(`tiles/${flags.id}`);
  } catch (e) {
    return usage((e as Error).message);
  }
  const raw: GenericSource = flags.sourceTilejson ? { type: 'tilejson', url: flags.sourceTilejson } : { type: 'wmts', url: flags.sourceWmts!, layer: flags.layer!, ...(flags.matrixSet && { matrixSet: flags.matrixSet }) };
  const { source, key } = splitSourceKey(raw);
  const secrets = [flags.key, key];
  try {
    flags.upstream = sourceBase(source);
  } catch (e) {
    return usage(createRedactor(...secrets)((e as Error).message));
  }
  flags.source = source;
  flags.key = key ?? flags.key;
  return { ref, secrets };
}

function usage(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(EXIT.usage);
}

/** Ad-hoc mode needs --upstream and at least one resource. */
function requireAdHoc(flags: Flags, resources: string[]): void {
  const problem = !flags.upstream ? "required option '-u, --upstream <url>' not specified (or use --config FILE)" : resources.length === 0 ? 'missing RESOURCE arguments (or use --config FILE)' : undefined;
  if (problem) {
    process.stderr.write(`error: ${problem}\n`);
    process.exit(EXIT.usage);
  }
}

/** Stops the run on the first SIGINT/SIGTERM (progress is kept); a second one quits at once. */
function interruptible(err: (l: string) => void): AbortController {
  const stop = new AbortController();
  let signals = 0;
  const onSignal = (sig: string): void => {
    signals++;
    if (signals === 1) {
      err(`${sig}: finishing the requests in flight and saving progress (again to quit at once)`);
      stop.abort();
    } else process.exit(EXIT.interrupted);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return stop;
}

export function formatJobSummary(name: string, r: RunRecord): string {
  const secs = (Date.parse(r.endedAt) - Date.parse(r.startedAt)) / 1000;
  return `job ${name}: ${r.result}: ${r.resources.length} resource${r.resources.length === 1 ? '' : 's'}, ${r.tiles.planned} tiles planned, ${r.tiles.fetched} fetched, ${r.tiles.stored} stored, ${r.tiles.failed} failed, ${r.errors} errors, ${formatBytes(r.bytes)} in ${formatDuration(secs)}`;
}

/** `mirror --config FILE [JOB...]`: the jobs one after another, each recorded in the job state file. */
async function mirrorJobs(names: string[], flags: Flags, cmd: Command): Promise<void> {
  const { config, jobs } = loadJobs(flags, names, cmd);
  const redact = createRedactor(flags.key, ...jobs.map((j) => j.key));
  const err = (l: string): void => void process.stderr.write(`${redact(l)}\n`);
  const status = new StatusStore(config.data, (e) => err(`warning: cannot write the job state ${config.data}: ${e.message}`));
  const stop = interruptible(err);
  let code: number = EXIT.published;
  for (const job of jobs) {
    if (stop.signal.aborted) break;
    err(`job ${job.name}: ${job.resources.map((r) => `${r.kind}/${r.id}`).join(', ')} from ${redact(job.upstream)}${job.key ? ` (key from ${job.keySource})` : ' (no upstream key)'}`);
    const startedAt = new Date();
    status.update(job.name, (st) => {
      st.running = { trigger: 'manual', startedAt: startedAt.toISOString(), pid: process.pid };
    });
    let printer = new ProgressPrinter(process.stderr, 1000, Date.now, job.name);
    let persisted = Date.now();
    const run = await runJob(job, config.data, 'manual', {
      signal: stop.signal,
      log: (l) => {
        printer.finish();
        err(l);
      },
      onResource: () => {
        printer.finish();
        printer = new ProgressPrinter(process.stderr, 1000, Date.now, job.name);
      },
      onProgress: (p, raw) => {
        printer.update(raw);
        // Now and then into the state file, so `status` and a server's /admin/ show this run's progress.
        if (Date.now() - persisted >= 5000) {
          persisted = Date.now();
          status.update(job.name, (st) => {
            if (st.running) st.running.progress = p;
          });
        }
      },
      onResult: (r) => {
        printer.finish();
        for (const l of formatSummary(r)) process.stdout.write(`${redact(l)}\n`);
      },
    });
    printer.finish();
    const record = run.record;
    status.update(job.name, (st) => {
      delete st.running;
      st.lastRun = record;
      st.runs++;
      if (record.result === 'published') st.lastSuccessAt = record.endedAt;
      else if (record.result === 'failed') st.failures++;
    });
    process.stdout.write(`${redact(formatJobSummary(job.name, record))}\n`);
    if (record.lastError && record.result !== 'published') process.stdout.write(`  last error: ${redact(record.lastError)}\n`);
    code = Math.max(code, record.result === 'interrupted' ? EXIT.interrupted : run.usageError ? EXIT.usage : record.exitCode);
    if (record.result === 'interrupted') break;
  }
  process.exitCode = code;
}

/** `plan --config FILE [JOB...]`. */
async function planJobs(names: string[], flags: Flags, cmd: Command): Promise<void> {
  const { config, jobs } = loadJobs(flags, names, cmd);
  const redact = createRedactor(flags.key, ...jobs.map((j) => j.key));
  for (const job of jobs) {
    process.stdout.write(`job ${job.name}:\n`);
    let total = 0;
    for (const ref of job.resources) {
      try {
        const p = await planReport({ ...jobMirrorOptions(job, ref, config.data), log: (l) => void process.stderr.write(`${redact(l)}\n`), sample: flags.sample });
        total += p.total;
        for (const l of formatPlan(p, job.rate)) process.stdout.write(`${redact(`  ${l}`)}\n`);
      } catch (e) {
        process.stderr.write(`${redact(`error: job ${job.name}: ${(e as Error).message}`)}\n`);
        process.exit(e instanceof UsageError ? EXIT.usage : EXIT.failed);
      }
    }
    process.stdout.write(`  job total: ${total} tiles${job.rate ? `, ${formatDuration(total / job.rate)} at ${job.rate} req/s` : ''}\n`);
  }
}

const cell = (iso: string | undefined): string => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-');

/** The rows `tilemirror status` prints: one line per job, then its last error and skipped firings indented. */
export function formatStatusTable(views: JobView[]): string[] {
  const header = ['JOB', 'SCHEDULE', 'STATE', 'LAST RUN (END)', 'RESULT', 'FETCHED', 'STORED', 'FAILED', 'ERRORS', 'NEXT RUN'];
  const rows = views.map((v) => {
    const r = v.lastRun;
    const p = v.running?.progress;
    const state = v.running ? `running${p ? ` ${p.done}/${p.total}` : ''}` : 'idle';
    return [
      v.name + (v.unconfigured ? ' (not configured)' : ''),
      v.schedule ? `${v.schedule} (${v.timezone})` : 'on demand',
      state,
      cell(r?.endedAt),
      r?.result ?? 'never run',
      String(r?.tiles.fetched ?? '-'),
      String(r?.tiles.stored ?? '-'),
      String(r?.tiles.failed ?? '-'),
      String(r?.errors ?? '-'),
      cell(v.nextRun),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cols: string[]): string => cols.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  const out = [line(header)];
  views.forEach((v, i) => {
    out.push(line(rows[i]));
    if (v.lastRun?.lastError) out.push(`  last error: ${v.lastRun.lastError}`);
    if (v.skipped) out.push(`  ${v.skipped} firing${v.skipped === 1 ? '' : 's'} skipped (${v.lastSkipped?.reason}), last at ${cell(v.lastSkipped?.at)}`);
  });
  return out;
}

/** The job state for `status`: next runs from a running server's record, else computed from the cron expressions. */
export function statusViews(config: Config): JobView[] {
  const state = readStatusFile(config.data);
  return jobViews(config, state, (name) => {
    const saved = state.jobs[name]?.nextRun;
    if (saved && Date.parse(saved) > Date.now()) return saved;
    const job = config.mirror.jobs.find((j) => j.name === name);
    return job?.schedule ? nextRunOf(job.schedule, job.timezone ?? config.mirror.timezone)?.toISOString() : undefined;
  });
}

/** Registers `mirror`, `plan` and `status` on the program. */
export function registerMirrorCommands(program: Command): void {
  addSharedOptions(program.command('mirror').description('mirror resources of an upstream into the data directory (staged, verified, published atomically)')).action(
    async (resources: string[], flags: Flags, cmd: Command) => {
      if (flags.config) return mirrorJobs(resources, flags, cmd);
      const generic = adHocSource(flags, resources);
      if (!generic) requireAdHoc(flags, resources);
      const redact = createRedactor(flags.key, ...(generic?.secrets ?? []));
      const err = (l: string): void => void process.stderr.write(`${redact(l)}\n`);
      let refs: ResourceRef[];
      try {
        refs = generic ? [generic.ref] : parseResources(resources);
      } catch (e) {
        err(`error: ${(e as Error).message}`);
        process.exit(EXIT.usage);
      }
      const stop = interruptible(err);
      let code: number = EXIT.published;
      for (const ref of refs) {
        const printer = new ProgressPrinter(process.stderr);
        let result: MirrorResult;
        try {
          result = await runMirror({
            ...mirrorOptions(flags, ref, (l) => {
              printer.finish();
              err(l);
            }),
            signal: stop.signal,
            onProgress: (p) => printer.update(p),
          });
        } catch (e) {
          printer.finish();
          // Never let an unexpected error reach the generic handler: its stack is printed unredacted.
          err(`error: ${(e as Error).message}`);
          process.exit(e instanceof UsageError ? EXIT.usage : EXIT.failed);
        }
        printer.finish();
        for (const l of formatSummary(result)) process.stdout.write(`${redact(l)}\n`);
        code = Math.max(code, result.exitCode === 3 ? 3 : result.exitCode);
        if (result.status === 'interrupted') break;
      }
      process.exitCode = code;
    },
  );

  addSharedOptions(program.command('plan').description('print what `mirror` would fetch: tiles per zoom, total, time at the rate, estimated size'))
    .option('-s, --sample <n>', 'tiles fetched to estimate the size (0: none)', (v: string) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('a non-negative integer');
      return Number(v);
    }, 20)
    .action(async (resources: string[], flags: Flags, cmd: Command) => {
      if (flags.config) return planJobs(resources, flags, cmd);
      const generic = adHocSource(flags, resources);
      if (!generic) requireAdHoc(flags, resources);
      const redact = createRedactor(flags.key, ...(generic?.secrets ?? []));
      let refs: ResourceRef[];
      try {
        refs = generic ? [generic.ref] : parseResources(resources);
      } catch (e) {
        process.stderr.write(`error: ${(e as Error).message}\n`);
        process.exit(EXIT.usage);
      }
      let total = 0;
      for (const ref of refs) {
        try {
          const p = await planReport({ ...mirrorOptions(flags, ref, (l) => void process.stderr.write(`${redact(l)}\n`)), sample: flags.sample });
          total += p.total;
          for (const l of formatPlan(p, flags.rate)) process.stdout.write(`${redact(l)}\n`);
        } catch (e) {
          process.stderr.write(`${redact(`error: ${(e as Error).message}`)}\n`);
          process.exit(e instanceof UsageError ? EXIT.usage : EXIT.failed);
        }
      }
      if (refs.length > 1) process.stdout.write(`total: ${total} tiles${flags.rate ? `, ${formatDuration(total / flags.rate)} at ${flags.rate} req/s` : ''}\n`);
    });

  program
    .command('status')
    .description('print the state of the configured mirror jobs: last run, result, tiles, errors, next run')
    .requiredOption('-c, --config <file>', 'configuration file (YAML or JSON) with mirror.jobs')
    .option('-d, --data <dir>', 'data directory (default: the config file\'s)')
    .option('--json', 'machine-readable output')
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : EXIT.usage))
    .action((flags: { config: string; data?: string; json?: boolean }) => {
      let config: Config;
      try {
        config = loadConfig(flags.config);
      } catch (e) {
        process.stderr.write(`error: ${(e as Error).message}\n`);
        process.exit(EXIT.usage);
      }
      if (flags.data) config.data = resolve(flags.data);
      const views = statusViews(config);
      // The state holds no key, but redact anyway: a message could quote one an upstream echoed.
      const keys = configuredJobs(config).map((j) => j.key);
      const redact = createRedactor(...keys);
      if (flags.json) process.stdout.write(`${redact(JSON.stringify({ data: config.data, jobs: views }, null, 2))}\n`);
      else if (views.length === 0) process.stdout.write(`no mirror jobs configured in ${flags.config} (mirror.jobs)\n`);
      else for (const l of formatStatusTable(views)) process.stdout.write(`${redact(l)}\n`);
    });
}
