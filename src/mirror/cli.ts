// The `mirror`, `plan` and `status` commands: argument parsing, signals, progress and summary output. The work
// itself is runMirror / planReport / runJob; this file only turns flags into options and results into text and
// an exit code. With `--config FILE` the arguments of `mirror` and `plan` are job names of the config file.

import { Command } from 'commander';
import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config/basics';
import type { Config } from '../config/schema';
import { listStores } from '../store/bundle/content';
import { storeVersions } from '../store/bundle/content-version';
import { JobStateFile } from '../store/data-dir/job-state';
import { formatDuration } from '../store/units';
import { addSharedOptions, EXIT, flagsBudget, mirrorOptions, nonNegativeInt, type Flags } from './cli-options';
import { parseResource, type ResourceRef } from './resource';
import { UsageError } from './errors';
import { progressPersister, recordRunEnd, recordRunStart, statusViews } from './jobs/job-status';
import { configuredJobs, jobBudget, jobMirrorOptions, selectJobs, type MirrorJob } from './jobs/jobs-config';
import { planReport, type PlanReport } from './plan-report';
import { ProgressPrinter } from './progress';
import { createRedactor } from './upstream/redact';
import { formatJobSummary, formatPlan, formatStatusTable, formatSummary } from './report';
import { runMirror } from './engine/run';
import { rasterModeOf } from './engine/plan';
import { totalOf, type MirrorResult } from './engine/result';
import { sourceFromFlags } from './source-flags';
import { sourceBase, splitSourceKey, type GenericSource } from './discovery/sources';

function parseResources(list: string[]): ResourceRef[] {
  return list.map(parseResource);
}

/** The resources, when `--raster` applies to each of them (render: maps only); before any of them is run. Throws UsageError. */
function rasterChecked(refs: ResourceRef[], flags: Flags): ResourceRef[] {
  for (const ref of refs) rasterModeOf(ref, flags.raster);
  return refs;
}

/** `--config` mode: the configuration (with `--data` applied when given) and the selected jobs; exits 2 on errors. */
function loadJobs(flags: Flags, names: string[], cmd: Command): { config: Config; jobs: MirrorJob[] } {
  // The job's own fields decide these; a flag that would be ignored is refused instead.
  const ignored = ['upstream', 'zoom', 'bbox', 'concurrency', 'http2', 'rate', 'timeout', 'failureBudget', 'maxRequests', 'requestsPerMonth', 'withDependencies', 'raster', 'scale', 'format', 'area', 'sourceTilejson', 'sourceWmts', 'sourceXyz', 'sourceWms', 'layer', 'layers', 'styles', 'matrixSet', 'subdomains', 'scheme', 'wmsVersion', 'tileSize', 'id'].filter((o) => cmd.getOptionValueSource(o) === 'cli');
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
    // Render jobs run with a renderer, which `tilemirror render` brings; `mirror` without names runs the mirror jobs.
    const render = config.mirror.jobs.filter((j) => j.kind === 'render' && names.includes(j.name)).map((j) => j.name);
    if (render.length > 0) throw new UsageError(`${render.join(', ')}: render job${render.length > 1 ? 's' : ''}; run with tilemirror render --config ${flags.config} ${render.join(' ')}`);
    if (all.length === 0) throw new UsageError(`no mirror jobs in ${flags.config} (mirror.jobs)`);
    return { config, jobs: selectJobs(all, names) };
  } catch (e) {
    if (!(e instanceof ConfigError || e instanceof UsageError)) throw e;
    process.stderr.write(`${createRedactor(flags.key)(`error: ${e.message}`)}\n`);
    process.exit(EXIT.usage);
  }
}

/**
 * `--source-tilejson URL`, `--source-wmts URL --layer ID`, `--source-xyz TEMPLATE` or `--source-wms URL --layers L`
 * with `--id ID`: the resource is `tiles/ID`, the upstream is the URL's origin and a `key=` in the URL is the key
 * (it wins over --key and the environment). Returns the secrets to redact; undefined without a source flag.
 * Exits 2 on misuse.
 */
function adHocSource(flags: Flags, resources: string[], cmd: Command): { ref: ResourceRef; secrets: (string | undefined)[] } | undefined {
  let raw: GenericSource | undefined;
  try {
    raw = sourceFromFlags(flags, (name) => cmd.getOptionValueSource(name) === 'cli');
  } catch (e) {
    return usage(createRedactor(flags.key)((e as Error).message));
  }
  if (!raw) return undefined;
  if (resources.length > 0) usage(`with a source, no RESOURCE arguments: it is mirrored into tiles/ID given by --id (got ${resources.join(' ')})`);
  if (!flags.id) usage('a source needs --id ID: it is mirrored into tiles/ID');
  let ref: ResourceRef;
  try {
    ref = parseResource(`tiles/${flags.id}`);
  } catch (e) {
    return usage((e as Error).message);
  }
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

/**
 * The plan's size against the data volume's free space, and its requests against what is left of the month's
 * budget: a line each; a plan that cannot fit either makes `plan` exit 1.
 */
function spaceLine(p: PlanReport, indent: string): void {
  for (const check of [p.space, p.month]) {
    if (!check) continue;
    process.stdout.write(`${indent}${check.fits ? 'fits' : 'does not fit'}: ${check.message}\n`);
    if (!check.fits) process.exitCode = EXIT.failed;
  }
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

/** `mirror --config FILE [JOB...]`: the jobs one after another, each recorded in the job state file. */
async function mirrorJobs(names: string[], flags: Flags, cmd: Command): Promise<void> {
  const { config, jobs } = loadJobs(flags, names, cmd);
  const redact = createRedactor(flags.key, ...jobs.map((j) => j.key));
  const err = (l: string): void => void process.stderr.write(`${redact(l)}\n`);
  const state = new JobStateFile(config.data, (e) => err(`warning: cannot write the job state ${config.data}: ${e.message}`));
  const stop = interruptible(err);
  let code: number = EXIT.published;
  for (const job of jobs) {
    if (stop.signal.aborted) break;
    err(`job ${job.name}: ${job.resources.map((r) => `${r.kind}/${r.id}`).join(', ')} from ${redact(job.upstream)}${job.key ? ` (key from ${job.keySource})` : ' (no upstream key)'}`);
    const startedAt = new Date();
    recordRunStart(state, job.name, 'manual', startedAt);
    let printer = new ProgressPrinter(process.stderr, 1000, Date.now, job.name);
    // Now and then into the state file, so `status` and a server's /admin/ show this run's progress.
    const persist = progressPersister(state, job.name);
    // Loaded here: the scheduler's module brings Redis and cron, which a plain `mirror` run does not need.
    const { runJob } = require('./jobs/schedule') as typeof import('./jobs/schedule');
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
        persist(p);
      },
      onResult: (r) => {
        printer.finish();
        for (const l of formatSummary(r)) process.stdout.write(`${redact(l)}\n`);
      },
    });
    printer.finish();
    const record = run.record;
    recordRunEnd(state, job.name, record);
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
    const budget = jobBudget(job, config.data, false, (l) => void process.stderr.write(`${redact(l)}\n`));
    for (const ref of job.resources) {
      try {
        const p = await planReport({ ...jobMirrorOptions(job, ref, config.data), budget, maxRequests: job.maxRequests, log: (l) => void process.stderr.write(`${redact(l)}\n`), sample: flags.sample });
        total += p.total;
        for (const l of formatPlan(p, job.rate)) process.stdout.write(`${redact(`  ${l}`)}\n`);
        spaceLine(p, '  ');
      } catch (e) {
        process.stderr.write(`${redact(`error: job ${job.name}: ${(e as Error).message}`)}\n`);
        process.exit(e instanceof UsageError ? EXIT.usage : EXIT.failed);
      }
    }
    budget.close();
    process.stdout.write(`  job total: ${total} tiles${job.rate ? `, ${formatDuration(total / job.rate)} at ${job.rate} req/s` : ''}\n`);
  }
}

/** Registers `mirror`, `plan` and `status` on the program. */
export function registerMirrorCommands(program: Command): void {
  addSharedOptions(program.command('mirror').description('mirror resources of an upstream into the data directory (staged, verified, published atomically)')).action(
    async (resources: string[], flags: Flags, cmd: Command) => {
      if (flags.config) return mirrorJobs(resources, flags, cmd);
      const generic = adHocSource(flags, resources, cmd);
      if (!generic) requireAdHoc(flags, resources);
      const redact = createRedactor(flags.key, ...(generic?.secrets ?? []));
      const err = (l: string): void => void process.stderr.write(`${redact(l)}\n`);
      let refs: ResourceRef[];
      try {
        refs = rasterChecked(generic ? [generic.ref] : parseResources(resources), flags);
      } catch (e) {
        err(`error: ${(e as Error).message}`);
        process.exit(EXIT.usage);
      }
      const stop = interruptible(err);
      let code: number = EXIT.published;
      // One budget for the whole command: --max-requests caps all its resources together.
      const budget = flagsBudget(flags, err);
      let retries = 0;
      for (const ref of refs) {
        const printer = new ProgressPrinter(process.stderr);
        let result: MirrorResult;
        try {
          result = await runMirror({
            ...mirrorOptions(flags, ref, (l) => {
              printer.finish();
              err(l);
            }),
            budget,
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
        retries += totalOf(result, 'retries');
        code = Math.max(code, result.exitCode === 3 ? 3 : result.exitCode);
        if (result.status === 'interrupted') break;
      }
      budget.close(retries);
      process.exitCode = code;
    },
  );

  addSharedOptions(program.command('plan').description('print what `mirror` would fetch: tiles per zoom, total, time at the rate, estimated size'))
    .option('-s, --sample <n>', 'tiles fetched to estimate the size (0: none)', nonNegativeInt, 20)
    .action(async (resources: string[], flags: Flags, cmd: Command) => {
      if (flags.config) return planJobs(resources, flags, cmd);
      const generic = adHocSource(flags, resources, cmd);
      if (!generic) requireAdHoc(flags, resources);
      const redact = createRedactor(flags.key, ...(generic?.secrets ?? []));
      let refs: ResourceRef[];
      try {
        refs = rasterChecked(generic ? [generic.ref] : parseResources(resources), flags);
      } catch (e) {
        process.stderr.write(`error: ${(e as Error).message}\n`);
        process.exit(EXIT.usage);
      }
      let total = 0;
      const budget = flagsBudget(flags, (l) => void process.stderr.write(`${redact(l)}\n`), false);
      for (const ref of refs) {
        try {
          const p = await planReport({ ...mirrorOptions(flags, ref, (l) => void process.stderr.write(`${redact(l)}\n`)), budget, maxRequests: flags.maxRequests, sample: flags.sample });
          total += p.total;
          for (const l of formatPlan(p, flags.rate)) process.stdout.write(`${redact(l)}\n`);
          spaceLine(p, '');
        } catch (e) {
          process.stderr.write(`${redact(`error: ${(e as Error).message}`)}\n`);
          process.exit(e instanceof UsageError ? EXIT.usage : EXIT.failed);
        }
      }
      budget.close();
      if (refs.length > 1) process.stdout.write(`total: ${total} tiles${flags.rate ? `, ${formatDuration(total / flags.rate)} at ${flags.rate} req/s` : ''}\n`);
    });

  program
    .command('status')
    .description('print the state of the configured mirror jobs: last run, result, tiles, errors, next run; or, with --versions, the content version of every store (JSON, for export --since on the other side of an air gap)')
    .option('-c, --config <file>', 'configuration file (YAML or JSON) with mirror.jobs')
    .option('-d, --data <dir>', 'data directory (default: the config file\'s)')
    .option('--json', 'machine-readable output')
    .option('--versions', 'print the content version of every store of the data directory as JSON (status --versions > versions.json)')
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : EXIT.usage))
    .action((flags: { config?: string; data?: string; json?: boolean; versions?: boolean }) => {
      if (flags.versions) return printVersions(flags);
      if (!flags.config) {
        process.stderr.write('error: status needs --config FILE (the mirror jobs), or --versions with --data DIR\n');
        process.exit(EXIT.usage);
      }
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

/** `status --versions`: one JSON document on stdout; stores that cannot be read are named on stderr (exit 1). */
function printVersions(flags: { config?: string; data?: string }): void {
  let dataDir: string;
  try {
    dataDir = flags.data ? resolve(flags.data) : flags.config ? loadConfig(flags.config).data : '';
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    process.exit(EXIT.usage);
  }
  if (!dataDir) {
    process.stderr.write('error: status --versions needs --data DIR (or --config FILE)\n');
    process.exit(EXIT.usage);
  }
  let failed = false;
  const doc = storeVersions(dataDir, listStores(dataDir), (ref, err) => {
    failed = true;
    process.stderr.write(`error: ${ref.kind}/${ref.id}: ${err.message}\n`);
  });
  process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  if (failed) process.exitCode = EXIT.failed;
}
