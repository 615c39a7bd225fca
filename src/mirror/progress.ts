// Progress of a run as plain numbers, and the text the CLI prints from them: a line on stderr at most once a
// second when stderr is not a terminal (logs, CI), a cli-progress bar when it is. Formatting is pure.

import type { SingleBar } from 'cli-progress';
import { formatBytes, formatDuration } from '../store/units';

export interface ProgressSnapshot {
  resource: string;
  /** Tiles in the plan. */
  total: number;
  /** Tiles accounted for: stored, empty, skipped (already in the staging store) or failed. */
  done: number;
  /** Tiles fetched by this run (stored or empty). */
  fetched: number;
  skipped: number;
  failed: number;
  /** Bytes received from the upstream. */
  bytes: number;
  retries: number;
  elapsedMs: number;
}

/** Fetched tiles per second over the run so far. */
export function tileRate(p: ProgressSnapshot): number {
  return p.elapsedMs > 0 ? (p.fetched / p.elapsedMs) * 1000 : 0;
}

export function formatProgress(p: ProgressSnapshot): string {
  const pct = p.total ? ((p.done / p.total) * 100).toFixed(1) : '100.0';
  const rate = tileRate(p);
  const remaining = p.total - p.done;
  const eta = remaining === 0 ? '0s' : rate > 0 ? formatDuration(remaining / rate) : '?';
  const skipped = p.skipped ? `, ${p.skipped} already stored` : '';
  return `${p.resource} ${p.done}/${p.total} tiles (${pct}%)${skipped}, ${rate.toFixed(0)} tiles/s, ${formatBytes(p.bytes)}, ${p.failed} errors, ${p.retries} retries, ETA ${eta}`;
}

/** A textual progress bar for terminals. */
export function formatBar(p: ProgressSnapshot, width = 24): string {
  const frac = p.total ? Math.min(1, p.done / p.total) : 1;
  const full = Math.round(frac * width);
  return `[${'#'.repeat(full)}${'-'.repeat(width - full)}] ${formatProgress(p)}`;
}

export interface ProgressSink {
  isTTY?: boolean;
  write(s: string): unknown;
  columns?: number;
}

/** The values the bar's format names, beside cli-progress' own {bar}, {percentage}, {value} and {total}. */
export function barPayload(p: ProgressSnapshot, label = p.resource): Record<string, string> {
  const rate = tileRate(p);
  const remaining = p.total - p.done;
  return {
    label,
    rate: rate.toFixed(0),
    bytes: formatBytes(p.bytes),
    errors: String(p.failed),
    retries: String(p.retries),
    remaining: remaining === 0 ? '0s' : rate > 0 ? formatDuration(remaining / rate) : '?',
  };
}

export const BAR_FORMAT = '{label} [{bar}] {percentage}% | {value}/{total} tiles | {rate} tiles/s | {bytes} | {errors} errors | ETA {remaining}';

/**
 * Prints snapshots: a cli-progress bar on a terminal (tiles done/total, tiles/s, bytes, ETA, errors), one line
 * per `intervalMs` otherwise. `finish` ends the bar so log lines and the summary start on their own line.
 */
export class ProgressPrinter {
  private last = 0;
  private bar?: SingleBar;

  constructor(
    private readonly out: ProgressSink,
    private readonly intervalMs = 1000,
    private readonly now: () => number = Date.now,
    /** Shown before the resource, e.g. the job's name. */
    private readonly prefix?: string,
  ) {}

  update(p: ProgressSnapshot, force = false): void {
    if (this.out.isTTY) {
      const payload = barPayload(p, this.prefix ? `${this.prefix} ${p.resource}` : p.resource);
      if (!this.bar) {
        // Required here: only a terminal shows the bar, and a server never does (decision 0021).
        const { SingleBar: Bar } = require('cli-progress') as typeof import('cli-progress');
        this.bar = new Bar({
          stream: this.out as NodeJS.WritableStream,
          format: BAR_FORMAT,
          barsize: 24,
          fps: 5,
          hideCursor: false,
          linewrap: false,
          clearOnComplete: false,
          stopOnComplete: false,
          barCompleteChar: '#',
          barIncompleteChar: '-',
        });
        this.bar.start(Math.max(p.total, 1), p.done, payload);
      } else {
        this.bar.setTotal(Math.max(p.total, 1));
        this.bar.update(p.done, payload);
      }
      if (force) this.bar.render();
      return;
    }
    const t = this.now();
    if (!force && t - this.last < this.intervalMs) return;
    this.last = t;
    this.out.write(`${this.prefix ? `${this.prefix}: ` : ''}${formatProgress(p)}\n`);
  }

  /** Ends the bar (drawn at its last values) so the summary starts on its own line. */
  finish(): void {
    if (this.bar) {
      this.bar.stop();
      this.bar = undefined;
    }
  }
}
