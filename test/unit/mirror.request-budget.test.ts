// The request budget: a run's own cap, the month's reserved a block at a time from a ledger, what a plan expects to
// spend and whether it fits; and the ledger itself, shared by processes of one data directory.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseConfig } from '../../src/config/load';
import { configuredJobs } from '../../src/mirror/jobs/jobs-config';
import { RequestLedger } from '../../src/store/data-dir/request-ledger';
import { checkMonth, expectedRequests, monthlyBudgetOf, monthOf, renewalOf, RequestBudget, RequestBudgetReached, upstreamOrigin, type MonthLedger } from '../../src/mirror/upstream/request-budget';
import { built } from '../helpers/dist';

const UP = 'https://api.example.com';

/** A ledger in memory that records its calls. */
function memoryLedger(): MonthLedger & { months: Map<string, number>; reserves: number[] } {
  const months = new Map<string, number>();
  const reserves: number[] = [];
  return {
    months,
    reserves,
    reserve(month, upstream, wanted, perMonth) {
      const k = `${month} ${upstream}`;
      const spent = months.get(k) ?? 0;
      const granted = Math.max(0, Math.min(wanted, perMonth === null ? wanted : perMonth - spent));
      months.set(k, spent + granted);
      reserves.push(granted);
      return granted;
    },
    release(month, upstream, unsent) {
      const k = `${month} ${upstream}`;
      months.set(k, (months.get(k) ?? 0) - unsent);
    },
    spent(month) {
      return new Map([...months].filter(([k]) => k.startsWith(`${month} `)).map(([k, v]) => [k.slice(month.length + 1), v]));
    },
    lastRun: () => undefined,
    recordRun: () => undefined,
    close: () => undefined,
  };
}

const spendAll = (b: RequestBudget, n: number): RequestBudgetReached | undefined => {
  for (let i = 0; i < n; i++) {
    try {
      b.spend();
    } catch (err) {
      if (err instanceof RequestBudgetReached) return err;
      throw err;
    }
  }
  return undefined;
};

describe('months and upstreams', () => {
  test('a month is the UTC calendar month; it renews on the first of the next', () => {
    expect(monthOf(Date.UTC(2026, 10, 30, 23, 59, 59))).toBe('2026-11');
    expect(monthOf(Date.UTC(2026, 11, 1, 0, 0, 0))).toBe('2026-12');
    expect(renewalOf('2026-11')).toBe('2026-12-01');
    expect(renewalOf('2026-12')).toBe('2027-01-01');
  });

  test('an upstream is counted under its key-free origin', () => {
    expect(upstreamOrigin('https://API.example.com/maps/x/style.json?key=secret')).toBe('https://api.example.com');
    expect(upstreamOrigin('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080');
  });

  test('requestsPerMonth: a number is every upstream\'s, a map names upstreams by origin', () => {
    expect(monthlyBudgetOf(undefined, UP)).toBeNull();
    expect(monthlyBudgetOf(5000, UP)).toBe(5000);
    expect(monthlyBudgetOf({ 'https://api.example.com/': 100, 'https://other.example.com': 7 }, `${UP}/tiles`)).toBe(100);
    expect(monthlyBudgetOf({ 'https://other.example.com': 7 }, UP)).toBeNull();
  });
});

describe('RequestBudget', () => {
  test("a run's cap: exactly maxRequests requests, then it throws (and keeps throwing)", () => {
    const b = new RequestBudget({ upstream: UP, maxRequests: 5 });
    const err = spendAll(b, 10);
    expect(b.spent).toBe(5);
    expect(err?.scope).toBe('run');
    expect(err?.message).toMatch(/request budget is reached \(5 upstream requests/);
    expect(() => b.spend()).toThrow(RequestBudgetReached);
  });

  test("the month's budget: reserved in blocks, never beyond it; what was not sent is given back", () => {
    let now = Date.UTC(2026, 10, 15);
    const ledger = memoryLedger();
    const b = new RequestBudget({ upstream: UP, perMonth: 100, ledger, now: () => now });
    expect(spendAll(b, 40)).toBeUndefined();
    // Blocks, not one reservation a request: the ledger is written a few times a second at most.
    expect(ledger.reserves.length).toBeLessThan(40 / 4);
    expect(ledger.months.get(`2026-11 ${UP}`)).toBeGreaterThanOrEqual(40);
    expect(b.monthLeft()).toBe(60);
    b.close();
    expect(ledger.months.get(`2026-11 ${UP}`)).toBe(40);

    // A second run finds 60 left, spends them and stops.
    now += 10_000;
    const c = new RequestBudget({ upstream: UP, perMonth: 100, ledger, now: () => now });
    const err = spendAll(c, 100);
    expect(c.spent).toBe(60);
    expect(err?.scope).toBe('month');
    expect(err?.message).toBe(`the month's request budget of ${UP} is spent (100 requests in 2026-11, mirror.requestsPerMonth; it renews on 2026-12-01 UTC)`);
    c.close();
    expect(ledger.months.get(`2026-11 ${UP}`)).toBe(100);
  });

  test('the run cap bounds what is reserved; without a monthly budget the month is counted all the same', () => {
    const ledger = memoryLedger();
    const b = new RequestBudget({ upstream: UP, maxRequests: 3, ledger });
    spendAll(b, 10);
    expect(ledger.reserves).toEqual([3]);
    b.close();
    expect([...ledger.spent(monthOf(Date.now())).values()]).toEqual([3]);
    expect(b.monthLeft()).toBeNull();
  });

  test('a ledger that cannot be written does not stop the run: told once, the requests go uncounted', () => {
    const failing: MonthLedger = {
      ...memoryLedger(),
      reserve: () => {
        throw new Error('attempt to write a readonly database');
      },
    };
    const told: string[] = [];
    const b = new RequestBudget({ upstream: UP, perMonth: 10, maxRequests: 100, ledger: failing, onLedgerError: (e) => told.push(e.message) });
    expect(spendAll(b, 100)).toBeUndefined();
    expect(b.spent).toBe(100);
    expect(told).toEqual(['attempt to write a readonly database']);
  });
});

describe('what a plan expects', () => {
  test('retries at the last run\'s rate (retries per first attempt), rounded up', () => {
    expect(expectedRequests(170, 2)).toEqual({ tiles: 170, documents: 2, retries: 0, total: 172 });
    // 110 requests, 10 of them retries: 10 retries per 100 first attempts.
    expect(expectedRequests(170, 2, { requests: 110, retries: 10 })).toEqual({ tiles: 170, documents: 2, retries: 18, total: 190 });
  });

  test('a run fits when what it needs (at most its own cap) is left of the month', () => {
    expect(checkMonth('x', 500, undefined, UP, '2026-11', null, null)).toMatchObject({ fits: true, needed: 500 });
    expect(checkMonth('x', 500, undefined, UP, '2026-11', 499, 1000)).toMatchObject({ fits: false, needed: 500 });
    expect(checkMonth('x', 500, undefined, UP, '2026-11', 499, 1000).message).toBe(`not enough upstream requests left this month: x needs ~500, but only 499 of the 1000 of 2026-11 are left for ${UP} (mirror.requestsPerMonth; renewed on 2026-12-01 UTC)`);
    expect(checkMonth('x', 500, 100, UP, '2026-11', 499, 1000)).toMatchObject({ fits: true, needed: 100 });
    expect(checkMonth('x', 500, undefined, UP, '2026-11', 500, 1000)).toMatchObject({ fits: true });
  });
});

describe('RequestLedger', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tm-ledger-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('reads as nothing spent before anything is written; keeps months and upstreams apart', () => {
    const l = new RequestLedger(dir);
    expect(l.spent('2026-11').size).toBe(0);
    expect(l.lastRun(UP)).toBeUndefined();
    expect(l.reserve('2026-11', UP, 10, 15)).toBe(10);
    expect(l.reserve('2026-11', UP, 10, 15)).toBe(5);
    expect(l.reserve('2026-11', UP, 10, 15)).toBe(0);
    expect(l.reserve('2026-12', UP, 10, 15)).toBe(10);
    expect(l.reserve('2026-11', 'http://b', 4, null)).toBe(4);
    l.release('2026-11', UP, 3);
    l.recordRun(UP, { requests: 50, retries: 5 });
    l.close();
    const again = new RequestLedger(dir);
    expect([...again.spent('2026-11')].sort()).toEqual([['http://b', 4], [UP, 12]]);
    expect(again.lastRun(UP)).toEqual({ requests: 50, retries: 5 });
    again.close();
  });

  test('processes reserving at once never grant more than the budget together', async () => {
    const exec = promisify(execFile);
    const ledgerModule = built('store/data-dir/request-ledger.js');
    // Each process reserves 7 requests at a time (a run reserves a block every so often: a pause of 2 ms between)
    // until the month says no, and prints how many it got; 300 is no multiple of 7, so the last grant is cut short.
    const script = `const { RequestLedger } = require(${JSON.stringify(ledgerModule)}); const l = new RequestLedger(${JSON.stringify(dir)}); const pause = new Int32Array(new SharedArrayBuffer(4)); let n = 0, g; while ((g = l.reserve('2026-11', 'u', 7, 300)) > 0) { n += g; Atomics.wait(pause, 0, 0, 2); } l.close(); process.stdout.write(String(n));`;
    const outs = await Promise.all([0, 1, 2].map(() => exec(process.execPath, ['-e', script])));
    const got = outs.map((o) => Number(o.stdout));
    expect(got.reduce((a, b) => a + b, 0)).toBe(300);
    const l = new RequestLedger(dir);
    expect(l.spent('2026-11').get('u')).toBe(300);
    l.close();
  }, 30_000);
});

describe('configuration', () => {
  const config = (mirror: Record<string, unknown>) => parseConfig({ data: tmpdir(), mirror: { upstream: UP, ...mirror } }, 'test.yaml', tmpdir(), {});

  test("a job's maxRequests and the section's requestsPerMonth reach the job", () => {
    const jobs = configuredJobs(config({ requestsPerMonth: { [`${UP}/`]: 1000 }, jobs: [{ name: 'a', resources: ['tiles/x'], maxRequests: 50 }, { name: 'b', resources: ['tiles/y'], upstream: 'https://other.example.com' }] }), {});
    expect(jobs.map((j) => [j.maxRequests, j.requestsPerMonth])).toEqual([[50, 1000], [undefined, null]]);
  });

  test('bad values are refused, naming the field', () => {
    expect(() => config({ jobs: [{ name: 'a', resources: ['tiles/x'], maxRequests: 0 }] })).toThrow(/maxRequests/);
    expect(() => config({ requestsPerMonth: { 'not a url': 5 } })).toThrow(/requestsPerMonth/);
    expect(() => config({ requestsPerMonth: -1 })).toThrow(/requestsPerMonth/);
  });
});
