// Progress of a run as plain numbers, and the text the CLI prints from them: a line on stderr at most once a
// second when stderr is not a terminal (logs, CI), one redrawn line when it is. Formatting is pure.

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

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[i]}`;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  if (seconds < 10) return `${seconds.toFixed(1)}s`;
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
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

/** Prints snapshots: throttled to one line per `intervalMs` off a terminal; a redrawn bar on one. */
export class ProgressPrinter {
  private last = 0;
  private drawn = false;

  constructor(private readonly out: ProgressSink, private readonly intervalMs = 1000, private readonly now: () => number = Date.now) {}

  update(p: ProgressSnapshot, force = false): void {
    const t = this.now();
    if (!force && t - this.last < (this.out.isTTY ? 200 : this.intervalMs)) return;
    this.last = t;
    if (this.out.isTTY) {
      const line = formatBar(p).slice(0, Math.max(20, (this.out.columns ?? 120) - 1));
      this.out.write(`\r\x1b[2K${line}`);
      this.drawn = true;
    } else {
      this.out.write(`${formatProgress(p)}\n`);
    }
  }

  /** Ends the redrawn line so the summary starts on its own. */
  finish(): void {
    if (this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}
