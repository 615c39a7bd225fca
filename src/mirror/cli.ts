// The `mirror` and `plan` commands: argument parsing, signals, progress and summary output. The work itself is
// runMirror / planReport; this file only turns flags into options and results into text and an exit code.

import { Command, InvalidArgumentError, Option } from 'commander';
import { resolve } from 'node:path';
import type { Bounds } from '../store/types';
import { parseResource, type ResourceRef } from './jobs';
import { parseBBox, parseZoomRange, UsageError } from './plan';
import { formatBytes, formatDuration, ProgressPrinter, tileRate } from './progress';
import { createRedactor } from './redact';
import { planReport, runMirror, type MirrorOptions, type MirrorResult, type PlanReport } from './run';

export const EXIT = { published: 0, failed: 1, usage: 2, interrupted: 3 } as const;

interface Flags {
  upstream: string;
  data: string;
  zoom?: [number, number];
  bbox: Bounds[];
  concurrency: number;
  rate?: number;
  key?: string;
  timeout: number;
  failureBudget: number;
  sample?: number;
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
    .argument('<resources...>', 'tiles/ID, maps/ID or images/ID')
    .requiredOption('-u, --upstream <url>', 'base URL of the upstream API (MapTiler Cloud or another tilemirror)')
    .option('-d, --data <dir>', 'data directory holding the stores', 'mirror')
    .option('-z, --zoom <min-max>', 'zoom range, e.g. 0-8 (default: the upstream\'s)', wrap(parseZoomRange))
    .option('-b, --bbox <w,s,e,n>', 'area in degrees; repeat for several (default: the upstream\'s bounds)', (v: string, acc: Bounds[]) => [...acc, wrap(parseBBox)(v)], [] as Bounds[])
    .option('-c, --concurrency <n>', 'requests in flight', positiveInt(256), 8)
    .option('-r, --rate <req/s>', 'requests per second sent to the upstream (default: unlimited)', positiveNumber)
    .addOption(new Option('-k, --key <key>', 'upstream key (default: $TILEMIRROR_UPSTREAM_KEY)').env('TILEMIRROR_UPSTREAM_KEY'))
    .option('--timeout <seconds>', 'per-request timeout', positiveNumber, 30)
    .option('--failure-budget <n>', 'failed tiles tolerated before the run stops', (v: string) => {
      if (!/^\d+$/.test(v)) throw new InvalidArgumentError('a non-negative integer');
      return Number(v);
    }, 100)
    .exitOverride((err) => {
      // Usage errors exit with 2 (help and version with 0), as documented for `mirror`.
      process.exit(err.exitCode === 0 ? 0 : EXIT.usage);
    });
}

function mirrorOptions(flags: Flags, resource: ResourceRef, log: (l: string) => void): MirrorOptions {
  return {
    upstream: flags.upstream,
    dataDir: resolve(flags.data),
    resource,
    key: flags.key,
    zoom: flags.zoom,
    bboxes: flags.bbox,
    concurrency: flags.concurrency,
    rate: flags.rate,
    timeoutMs: flags.timeout * 1000,
    failureBudget: flags.failureBudget,
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
    `  ${r.planned} tiles planned: ${r.stored} fetched and stored, ${r.empty} empty, ${r.skipped} already stored, ${r.failed} failed`,
    `  ${r.requests} requests (${r.retries} retries), ${formatBytes(r.bytes)} in ${formatDuration(secs)} (${rate.toFixed(0)} tiles/s)`,
  ];
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

/** Registers `mirror` and `plan` on the program. */
export function registerMirrorCommands(program: Command): void {
  addSharedOptions(program.command('mirror').description('mirror resources of an upstream into the data directory (staged, verified, published atomically)')).action(
    async (resources: string[], flags: Flags) => {
      const redact = createRedactor(flags.key);
      const err = (l: string): void => void process.stderr.write(`${redact(l)}\n`);
      let refs: ResourceRef[];
      try {
        refs = parseResources(resources);
      } catch (e) {
        err(`error: ${(e as Error).message}`);
        process.exit(EXIT.usage);
      }
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
    .action(async (resources: string[], flags: Flags) => {
      const redact = createRedactor(flags.key);
      let refs: ResourceRef[];
      try {
        refs = parseResources(resources);
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
}
