// Render jobs (mirror.jobs[] with kind: render): what the configuration accepts and refuses, what a job resolves
// to, and how the console's jobs panel shows one (its kind beside the name, progress in metatiles, the metatiles a
// run drew in its history), in jsdom as admin-console.jobs-view.test.ts does.

import { parseConfig } from '../../src/config/load';
import { allConfiguredJobs, configuredJobs, configuredRenderJobs, jobUpstreams } from '../../src/mirror/jobs/jobs-config';
import { jobViews } from '../../src/mirror/jobs/job-status';
import type { JobDoc, JobEntry } from '../../src/http/admin-console/console-types';
import { jobCard, renderHistory, updateCard } from '../../src/http/admin-console/browser/jobs-view';

const { JSDOM } = require('jsdom') as { JSDOM: new (html: string) => { window: Window & typeof globalThis } };
const { window } = new JSDOM('<!doctype html><body><div id="jobs"></div></body>');
globalThis.document = window.document;
globalThis.Node = window.Node;
afterAll(() => window.close());

const config = (jobs: unknown[], mirror: Record<string, unknown> = {}) => parseConfig({ data: '/tmp/none', mirror: { ...mirror, jobs } }, 'test', process.cwd(), {});
const RENDER = { name: 'tiles-nightly', kind: 'render', resources: ['maps/streets'], zoom: '0-6', schedule: '30 3 * * *' };

test('a render job needs no upstream; it resolves with its defaults, beside the mirror jobs in config order', () => {
  const c = config([{ name: 'vector', resources: ['tiles/v3'], upstream: 'https://api.example.test' }, RENDER]);
  expect(configuredRenderJobs(c)).toEqual([
    { kind: 'render', name: 'tiles-nightly', resources: [{ kind: 'maps', id: 'streets' }], zoom: [0, 6], bboxes: [], sizes: [512, 256], scales: [1], formats: ['png'], grids: [], schedule: '30 3 * * *', timezone: undefined },
  ]);
  expect(configuredJobs(c).map((j) => j.name)).toEqual(['vector']);
  expect(allConfiguredJobs(c).map((j) => j.name)).toEqual(['vector', 'tiles-nightly']);
  // A render job sends no upstream request: it has no upstream to count.
  expect(jobUpstreams(c)).toEqual(['https://api.example.test']);
  expect(jobViews(c, { version: 1, updatedAt: '', jobs: {} }).map((v) => [v.name, v.kind])).toEqual([['vector', undefined], ['tiles-nightly', 'render']]);
});

test.each([
  [{ ...RENDER, resources: ['tiles/v3'] }, 'every resource is maps/ID'],
  [{ ...RENDER, zoom: undefined }, 'needs its zoom range'],
  [{ ...RENDER, upstream: 'https://api.example.test' }, 'upstream does not apply'],
  [{ ...RENDER, raster: 'render' }, 'raster does not apply'],
  [{ ...RENDER, areas: ['a.geojson'] }, 'takes bboxes, not areas'],
  [{ name: 'm', resources: ['maps/streets'], upstream: 'https://api.example.test', sizes: [256] }, 'sizes apply to render jobs'],
  [{ ...RENDER, sizes: [] }, 'draws only its grids\' tiles: set grids, or sizes'],
  [{ name: 'm', resources: ['maps/streets'], upstream: 'https://api.example.test', grids: ['LV95'] }, 'grids apply to render jobs'],
])('the configuration refuses %j', (job, message) => {
  expect(() => config([job])).toThrow(message);
});

test('the console: the kind beside the name, progress in metatiles, the metatiles a run drew', () => {
  const entry: JobEntry = {
    name: 'tiles-nightly',
    kind: 'render',
    resources: ['maps/streets'],
    running: { trigger: 'manual', startedAt: '2026-11-28T03:30:00.000Z', pid: 7, progress: { resource: 'maps/streets', unit: 'metatiles', resourceIndex: 1, resources: 1, done: 5, total: 20, fetched: 5, failed: 0, bytes: 0, tilesPerSecond: 0.5, etaSeconds: 30, elapsedMs: 10_000 } },
  };
  const c = jobCard('tiles-nightly', () => undefined);
  document.getElementById('jobs')!.append(c.card);
  updateCard(c, entry, 'host:1');
  expect(c.card.querySelector('.kind')?.textContent).toBe('render');
  expect(c.card.dataset.kind).toBe('render');
  expect(c.card.querySelector('.figures')?.textContent).toContain('5 / 20 metatiles (25.0 %), 0.5 metatiles/s');
  const doc: JobDoc = {
    job: entry,
    history: [{ startedAt: '2026-11-28T03:30:00.000Z', endedAt: '2026-11-28T03:31:00.000Z', result: 'published', kind: 'render', metatiles: { planned: 20, drawn: 15 }, tiles: { fetched: 0, stored: 320, failed: 0 }, requests: 0 }],
  };
  renderHistory('tiles-nightly', c, doc.history!, []);
  const row = [...c.card.querySelectorAll('.history tbody td')].map((td) => td.textContent);
  expect(row.slice(2, 4)).toEqual(['15 metatiles', '320']);
  // A mirror job's card says mirror.
  const m = jobCard('vector', () => undefined);
  updateCard(m, { name: 'vector', resources: ['tiles/v3'] }, 'host:1');
  expect(m.card.querySelector('.kind')?.textContent).toBe('mirror');
});
