// The console's jobs panel (src/http/admin-console/browser/jobs-view.ts) in jsdom: the admin API's JSON as a
// server sends it, parsed and rendered the way the script does, then read back from the DOM. This month's
// upstream requests against their budget (the `requestBudget` of /admin/api/jobs) and the requests of each run in
// a job's history; a server that sends neither leaves the line hidden and the column empty, never broken.

import type { JobDoc, JobsDoc } from '../../src/http/admin-console/console-types';
import { HISTORY_COLUMNS, jobCard, renderBudget, renderHistory, updateCard } from '../../src/http/admin-console/browser/jobs-view';

// jsdom ships without types here (no @types/jsdom); only its constructor and window are used.
const { JSDOM } = require('jsdom') as { JSDOM: new (html: string) => { window: Window & typeof globalThis } };
const { window } = new JSDOM('<!doctype html><body><div id="request-budget" hidden></div><div id="jobs"></div></body>');
globalThis.document = window.document;
globalThis.Node = window.Node;
afterAll(() => window.close());

const JOBS = `{
  "generatedAt": "2026-11-28T10:00:00.000Z",
  "scheduler": true,
  "instance": "host-a:4242",
  "jobs": [{ "name": "nightly", "resources": ["tiles/sample-vector"], "lastRun": { "startedAt": "2026-11-28T02:00:00.000Z", "endedAt": "2026-11-28T02:03:05.000Z", "result": "published" } }],
  "requestBudget": {
    "month": "2026-11",
    "upstreams": [
      { "upstream": "https://api.example.test/", "spent": 1234, "perMonth": 10000 },
      { "upstream": "http://wms.example.test/", "spent": 56, "perMonth": null },
      { "upstream": "https://tiles.example.test/", "spent": 50000, "perMonth": 50000 }
    ]
  }
}`;

const JOB = `{
  "job": { "name": "nightly" },
  "history": [
    { "startedAt": "2026-11-28T02:00:00.000Z", "endedAt": "2026-11-28T02:03:05.000Z", "result": "published", "tiles": { "fetched": 961, "stored": 958, "failed": 0 }, "requests": 2048, "version": "v3" },
    { "startedAt": "2026-11-27T02:00:00.000Z", "endedAt": "2026-11-27T02:00:40.000Z", "result": "interrupted", "tiles": { "fetched": 12, "stored": 12, "failed": 1 } }
  ]
}`;

const texts = (nodes: Iterable<Element>): string[] => [...nodes].map((n) => n.textContent ?? '');

test('the budget: a line per upstream, N of M with a budget, N without one; a spent budget is marked', () => {
  const doc = JSON.parse(JOBS) as JobsDoc;
  const box = document.getElementById('request-budget')!;
  renderBudget(box, doc.requestBudget);
  expect(box.hidden).toBe(false);
  expect(box.dataset.month).toBe('2026-11');
  expect(texts(box.children)).toEqual([
    'Upstream requests this month: 1,234 of 10,000 (https://api.example.test/)',
    'Upstream requests this month: 56 (http://wms.example.test/, no monthly budget)',
    'Upstream requests this month: 50,000 of 50,000 (https://tiles.example.test/)',
  ]);
  expect([...box.children].map((c) => c.classList.contains('spent'))).toEqual([false, false, true]);
  // Text, never markup: an upstream's name is shown as written.
  renderBudget(box, { month: '2026-11', upstreams: [{ upstream: '<b>x</b>', spent: 1, perMonth: null }] });
  expect(box.querySelector('b')).toBeNull();
  expect(box.textContent).toBe('Upstream requests this month: 1 (<b>x</b>, no monthly budget)');
});

test('a server without the budget: the line is hidden and empty', () => {
  const box = document.getElementById('request-budget')!;
  renderBudget(box, (JSON.parse(JOBS) as JobsDoc).requestBudget);
  const older = JSON.parse(JOBS) as JobsDoc;
  delete older.requestBudget;
  renderBudget(box, older.requestBudget);
  expect(box.hidden).toBe(true);
  expect(box.children).toHaveLength(0);
  renderBudget(box, { month: '2026-12', upstreams: [] });
  expect(box.hidden).toBe(true);
});

test("a job's history has a requests column: the run's count, or a dash for a run recorded without one", () => {
  const jobs = JSON.parse(JOBS) as JobsDoc;
  const job = JSON.parse(JOB) as JobDoc;
  const c = jobCard('nightly', () => undefined);
  document.getElementById('jobs')!.append(c.card);
  updateCard(c, jobs.jobs[0], jobs.instance ?? '');
  renderHistory('nightly', c, job.history ?? [], []);
  const head = texts(c.card.querySelectorAll('.history thead th'));
  expect(head).toEqual([...HISTORY_COLUMNS]);
  const requests = head.indexOf('requests');
  expect(requests).toBeGreaterThan(head.indexOf('failed'));
  const rows = [...c.card.querySelectorAll('.history tbody tr')].map((tr) => texts(tr.children));
  expect(rows).toEqual([
    ['2026-11-28 02:00:00Z', '3m05s', '961', '958', '0', '2,048', 'published', 'v3'],
    ['2026-11-27 02:00:00Z', '40s', '12', '12', '1', '–', 'interrupted', '–'],
  ]);
  expect(rows.map((r) => r[requests])).toEqual(['2,048', '–']);
  expect(c.card.querySelector('.status')?.textContent).toBe('idle; last run published at 2026-11-28 02:03:05Z');
});
