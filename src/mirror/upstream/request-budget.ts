// The upstream requests a run may spend: a cap of its own (`--max-requests`, a job's `maxRequests`) and the month's
// budget of its upstream (`mirror.requestsPerMonth`), which every run and plan of the data directory counts
// against through the request ledger (store/request-ledger.ts). The client spends one request of the budget before
// each request it sends (upstream/client.ts `send`); a spent budget throws RequestBudgetReached there, which the
// fetch steps take as a clean stop (engine/budget-stop.ts). Also here, pure: what a plan expects to spend and
// whether that fits in what is left of the month.

import { isDiskFull } from '../../store/data-dir/disk-space';
import type { LastRunRequests } from '../../store/data-dir/request-ledger';

/**
 * An onLedgerError that warns through `warn`; not for a full volume, which stops the run with its own line
 * (decision 0029).
 */
export function warnOnLedgerError(dataDir: string, warn: ((line: string) => void) | undefined): (err: Error) => void {
  return (err) => {
    if (!isDiskFull(err)) warn?.(`warning: the upstream requests cannot be counted in ${dataDir} (${err.message}): this run's go uncounted in the month`);
  };
}

/** A month, `YYYY-MM`: the UTC calendar month of `ms`. */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** The first day of the month after `month` (`YYYY-MM-DD`): when its budget renews. */
export function renewalOf(month: string): string {
  const [y, m] = month.split('-').map(Number);
  return new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 10);
}

/** The key-free origin an upstream's requests are counted under (scheme, host and port; never a path or key). */
export function upstreamOrigin(url: string): string {
  try {
    return new URL(url).origin.toLowerCase();
  } catch {
    return url.split(/[?#]/)[0].replace(/\/+$/, '').toLowerCase();
  }
}

/**
 * The monthly budget of an upstream from `mirror.requestsPerMonth`: a number is every upstream's (each counted on
 * its own), a map names upstreams by URL (only the origin counts); null: no budget.
 */
export function monthlyBudgetOf(setting: number | Record<string, number> | undefined, upstream: string): number | null {
  if (setting === undefined) return null;
  if (typeof setting === 'number') return setting;
  const origin = upstreamOrigin(upstream);
  for (const [url, n] of Object.entries(setting)) if (upstreamOrigin(url) === origin) return n;
  return null;
}

export type BudgetScope = 'run' | 'month';

/** A request the budget does not allow: the run stops cleanly, its progress kept. */
export class RequestBudgetReached extends Error {
  constructor(
    readonly scope: BudgetScope,
    message: string,
  ) {
    super(message);
  }
}

/** What the budget reserves requests of the month from (store/request-ledger.ts RequestLedger). */
export interface MonthLedger {
  reserve(month: string, upstream: string, wanted: number, perMonth: number | null): number;
  release(month: string, upstream: string, unsent: number): void;
  spent(month: string): Map<string, number>;
  lastRun(upstream: string): LastRunRequests | undefined;
  recordRun(upstream: string, run: LastRunRequests): void;
  close(): void;
}

export interface RequestBudgetOptions {
  /** The upstream's key-free origin (upstreamOrigin). */
  upstream: string;
  /** Most requests this run may send (undefined: no cap of its own). */
  maxRequests?: number;
  /** The upstream's monthly budget (null or undefined: none; the month's requests are counted all the same). */
  perMonth?: number | null;
  /** Where the month's requests are counted; without one only the run's own cap applies. */
  ledger?: MonthLedger;
  /**
   * Told (once) when the ledger cannot be read or written (a full or read-only volume): the run goes on, its
   * requests uncounted in the month, rather than fail for want of a counter; a full volume stops it anyway.
   */
  onLedgerError?: (err: Error) => void;
  now?: () => number;
}

/** Requests reserved from the ledger at a time: more while they go fast, so the ledger is written a few times a second. */
const MIN_BLOCK = 16;
const MAX_BLOCK = 1024;

/**
 * The request budget of one run (every store of it, its dependencies too: they share it). Requests are reserved
 * from the month's ledger a block at a time; what a run did not send is given back when it closes (a killed run's
 * block stays counted: the ledger errs high, by at most one block).
 */
export class RequestBudget {
  /** Requests this run has sent (each one spent before it went on the wire). */
  spent = 0;
  /** Why the budget stopped the run, once it has. */
  reached?: RequestBudgetReached;
  private reserved = 0;
  private reservedMonth = '';
  private block = MIN_BLOCK;
  private blockAt = 0;
  private readonly now: () => number;
  private ledgerFailed = false;

  constructor(readonly opts: RequestBudgetOptions) {
    this.now = opts.now ?? Date.now;
  }

  get maxRequests(): number | undefined {
    return this.opts.maxRequests;
  }

  get perMonth(): number | null {
    return this.opts.perMonth ?? null;
  }

  /** Spends one request, or throws RequestBudgetReached (and keeps throwing: the run is over). */
  spend(): void {
    if (this.reached) throw this.reached;
    const max = this.opts.maxRequests;
    if (max !== undefined && this.spent >= max) {
      throw (this.reached = new RequestBudgetReached('run', `the run's request budget is reached (${max} upstream requests, --max-requests or the job's maxRequests)`));
    }
    if (this.opts.ledger && this.reserved === 0) this.refill(max);
    if (this.opts.ledger) this.reserved--;
    this.spent++;
  }

  private refill(max: number | undefined): void {
    const ledger = this.opts.ledger!;
    const now = this.now();
    // A block that lasted under half a second: the next is twice as large; one that lasted over five, half.
    if (this.blockAt) this.block = now - this.blockAt < 500 ? Math.min(MAX_BLOCK, this.block * 2) : now - this.blockAt > 5000 ? Math.max(MIN_BLOCK, this.block / 2) : this.block;
    this.blockAt = now;
    const month = monthOf(now);
    const wanted = max === undefined ? this.block : Math.min(this.block, max - this.spent);
    this.reserved = this.ledgerCall(() => ledger.reserve(month, this.opts.upstream, wanted, this.perMonth), wanted);
    this.reservedMonth = month;
    if (this.reserved === 0) {
      throw (this.reached = new RequestBudgetReached('month', `the month's request budget of ${this.opts.upstream} is spent (${this.perMonth} requests in ${month}, mirror.requestsPerMonth; it renews on ${renewalOf(month)} UTC)`));
    }
  }

  /** Requests of the month still open to this run: the ledger's remainder plus its own unsent reservation (null: no monthly budget). */
  monthLeft(): number | null {
    if (this.perMonth === null || !this.opts.ledger) return null;
    const month = monthOf(this.now());
    const own = this.reservedMonth === month ? this.reserved : 0;
    const ledger = this.opts.ledger;
    const spent = this.ledgerCall(() => ledger.spent(month).get(this.opts.upstream) ?? 0, undefined);
    return spent === undefined ? null : Math.max(0, this.perMonth - spent) + own;
  }

  /** A call to the ledger; its failure told once and answered by `fallback`. */
  private ledgerCall<T>(call: () => T, fallback: T): T {
    try {
      return call();
    } catch (err) {
      if (!this.ledgerFailed) this.opts.onLedgerError?.(err instanceof Error ? err : new Error(String(err)));
      this.ledgerFailed = true;
      return fallback;
    }
  }

  /** The requests and retries of the last finished run against the upstream (what retries are expected from). */
  lastRun(): LastRunRequests | undefined {
    const ledger = this.opts.ledger;
    return ledger && this.ledgerCall(() => ledger.lastRun(this.opts.upstream), undefined);
  }

  /**
   * Gives back what was reserved and not sent; with the run's retries (it ended), records its rate for the next
   * plan. Call once, at the end.
   */
  close(retries?: number): void {
    const ledger = this.opts.ledger;
    if (!ledger) return;
    const unsent = this.reserved;
    this.reserved = 0;
    try {
      if (unsent > 0) this.ledgerCall(() => ledger.release(this.reservedMonth, this.opts.upstream, unsent), undefined);
      if (retries !== undefined) this.ledgerCall(() => ledger.recordRun(this.opts.upstream, { requests: this.spent, retries }), undefined);
    } finally {
      ledger.close();
    }
  }
}

/** The upstream requests a run is expected to make: tiles and documents not yet current, plus retries. */
export interface ExpectedRequests {
  /** Tiles of the plan not yet current (to fetch or revalidate). */
  tiles: number;
  /** Documents: discovery's (TileJSON, style, ...) and a document store's own. */
  documents: number;
  /** Retries expected at the last run's rate. */
  retries: number;
  total: number;
}

/** Tiles and documents plus retries at the rate of the last run against the upstream (retries per first attempt). */
export function expectedRequests(tiles: number, documents: number, last?: LastRunRequests): ExpectedRequests {
  const firstAttempts = last ? last.requests - last.retries : 0;
  const rate = last && firstAttempts > 0 ? last.retries / firstAttempts : 0;
  const retries = Math.ceil((tiles + documents) * rate);
  return { tiles, documents, retries, total: tiles + documents + retries };
}

/** A run's expected requests against what is left of the month's budget. */
export interface MonthCheck {
  month: string;
  upstream: string;
  /** Requests the run needs: its expected requests, at most its own cap. */
  needed: number;
  /** Requests left this month (null: no monthly budget). */
  left: number | null;
  perMonth: number | null;
  fits: boolean;
  /** One line naming both figures. */
  message: string;
}

/**
 * Whether `what`, expected to need `expected` requests (a run capped at `maxRequests` needs no more than that),
 * fits in what is left of the month: `left` of `perMonth` (null: no budget, it always fits).
 */
export function checkMonth(what: string, expected: number, maxRequests: number | undefined, upstream: string, month: string, left: number | null, perMonth: number | null): MonthCheck {
  const needed = maxRequests === undefined ? expected : Math.min(expected, maxRequests);
  const base = { month, upstream, needed, left, perMonth };
  if (left === null || perMonth === null) return { ...base, fits: true, message: `${what} needs ~${needed} upstream requests (no monthly budget for ${upstream})` };
  if (needed <= left) return { ...base, fits: true, message: `${what} needs ~${needed} upstream requests; ${left} of the ${perMonth} of ${month} are left for ${upstream}` };
  return {
    ...base,
    fits: false,
    message: `not enough upstream requests left this month: ${what} needs ~${needed}, but only ${left} of the ${perMonth} of ${month} are left for ${upstream} (mirror.requestsPerMonth; renewed on ${renewalOf(month)} UTC)`,
  };
}
