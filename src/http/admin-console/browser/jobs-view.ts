/// <reference lib="dom" />
// The jobs panel's elements from the admin API's answers: a card per job (its schedule, state, progress and run
// history) and the upstream requests of this month against their budget. Pure building from the data given:
// fetching, polling and the buttons' commands stay in console.ts.

import type { JobEntry, RequestBudget, RunRow, StoreRow } from '../console-types';
import { bytes, count, el, seconds, when } from './dom';

/** A job's card and what the console remembers of it between two reads. */
export interface JobCard {
  card: HTMLDivElement;
  run: HTMLButtonElement;
  cancel: HTMLButtonElement;
  /** A command was sent and has not been answered yet. */
  pending: boolean;
  history: RunRow[] | null;
  historyAt: number;
  lastEnded: string | undefined;
  wasRunning: boolean;
}

export const HISTORY_COLUMNS = ['started', 'duration', 'fetched', 'stored', 'failed', 'requests', 'outcome', 'version'] as const;

/** A new card for job `name`; `command` is called when Run now or Cancel is clicked. */
export function jobCard(name: string, command: (what: 'run' | 'cancel', button: HTMLButtonElement) => void): JobCard {
  const run = el('button', { type: 'button', class: 'run' }, 'Run now');
  const cancel = el('button', { type: 'button', class: 'cancel' }, 'Cancel');
  run.addEventListener('click', () => command('run', run));
  cancel.addEventListener('click', () => command('cancel', cancel));
  const card = el(
    'div',
    { class: 'job', 'data-job': name },
    el('div', { class: 'job-head' }, el('span', { class: 'name' }, name), el('span', { class: 'kind' }), el('span', { class: 'schedule' }), el('span', { class: 'actions' }, run, cancel)),
    el('div', { class: 'resources' }),
    el('div', { class: 'state' }, el('span', { class: 'status' }), ' ', el('span', { class: 'where' })),
    el('progress', { max: 1, value: 0, hidden: true }),
    el('div', { class: 'figures' }),
    el('table', { class: 'history' }, el('thead', {}, el('tr', {}, ...HISTORY_COLUMNS.map((h) => el('th', {}, h)))), el('tbody', {})),
  );
  return { card, run, cancel, pending: false, history: null, historyAt: 0, lastEnded: undefined, wasRunning: false };
}

function part<T extends Element>(c: JobCard, selector: string): T {
  const found = c.card.querySelector<T>(selector);
  if (!found) throw new Error(`a job card has no ${selector}`);
  return found;
}

/** Where the job runs now, `host:pid`, or null when it does not. */
function runningOn(j: JobEntry): string | null {
  if (j.runningOn) return j.runningOn;
  return j.running ? (j.running.host ? j.running.host + ':' : '') + j.running.pid : null;
}

/** Shows job `j` as the API answered it; `instance` is this server's name (a run here is marked so). */
export function updateCard(c: JobCard, j: JobEntry, instance: string): void {
  part(c, '.schedule').textContent = j.schedule ? j.schedule + ' (' + (j.timezone || 'local time') + ')' + (j.nextRun ? ', next ' + when(j.nextRun) : '') : 'on demand';
  // The kind beside the name: a render job draws its maps' tiles, a mirror job copies from the upstream.
  c.card.dataset.kind = j.kind || 'mirror';
  part(c, '.kind').textContent = j.kind === 'render' ? 'render' : 'mirror';
  part(c, '.resources').textContent = (j.resources || []).join(', ') + (j.unconfigured ? ' (no longer configured)' : '');
  const r = j.running;
  const p = r && r.progress;
  c.card.dataset.state = r ? 'running' : 'idle';
  if (j.lastRun) c.card.dataset.lastResult = j.lastRun.result;
  const last = j.lastRun ? 'last run ' + j.lastRun.result + ' at ' + when(j.lastRun.endedAt) : 'never run';
  part(c, '.status').textContent = r
    ? 'running (' + r.trigger + ') since ' + when(r.startedAt) + (p ? ': ' + p.resource + ' [' + p.resourceIndex + '/' + p.resources + ']' : ', planning')
    : 'idle; ' + last;
  const on = runningOn(j);
  part(c, '.where').textContent = on ? 'on ' + on + (on === instance ? ' (this instance)' : '') : '';
  const bar = part<HTMLProgressElement>(c, 'progress');
  bar.hidden = !r;
  if (p) {
    bar.max = Math.max(1, p.total);
    bar.value = p.done;
  } else {
    bar.removeAttribute('value');
  }
  part(c, '.figures').replaceChildren(
    ...(p
      ? [
          el('span', { 'data-field': 'done' }, count(p.done)), ' / ', el('span', { 'data-field': 'total' }, count(p.total)), (p.unit === 'metatiles' ? ' metatiles (' : ' tiles ('),
          (p.total ? Math.min(100, (100 * p.done) / p.total) : 100).toFixed(1), ' %), ',
          el('span', { 'data-field': 'rate' }, String(p.tilesPerSecond)), p.unit === 'metatiles' ? ' metatiles/s, ' : ' tiles/s, ',
          el('span', { 'data-field': 'bytes' }, bytes(p.bytes)), ', ',
          el('span', { 'data-field': 'errors' }, count(p.failed)), ' errors, ETA ',
          el('span', { 'data-field': 'eta' }, seconds(p.etaSeconds)),
        ]
      : []),
  );
  c.run.disabled = !!r || c.pending || !!j.unconfigured;
  c.cancel.disabled = !r || c.pending;
}

/**
 * The version a run published: the record's own when it names one, else for the job's newest published run the
 * version its stores hold now (what that run published, as no later run did).
 */
function publishedVersion(name: string, h: RunRow, newestPublished: RunRow | undefined, stores: readonly StoreRow[]): string {
  const own = h.version || (h.resources || []).map((r) => r.version).filter(Boolean).join(', ');
  if (own) return own;
  if (h !== newestPublished) return '–';
  return stores.filter((s) => s.job === name && s.version).map((s) => s.version).join(', ') || '–';
}

/** Fills the card's run history (newest first); `stores` name the versions the newest published run left. */
export function renderHistory(name: string, c: JobCard, history: readonly RunRow[], stores: readonly StoreRow[]): void {
  const newestPublished = history.find((h) => h.result === 'published');
  part(c, '.history tbody').replaceChildren(
    ...history.map((h) => {
      const ms = Date.parse(h.endedAt) - Date.parse(h.startedAt);
      const t = h.tiles || {};
      return el(
        'tr',
        { 'data-result': h.result },
        el('td', {}, when(h.startedAt)),
        el('td', {}, seconds(ms / 1000)),
        h.metatiles ? el('td', { class: 'num', title: 'metatiles drawn of ' + count(h.metatiles.planned) }, count(h.metatiles.drawn) + ' metatiles') : el('td', { class: 'num' }, count(t.fetched)),
        el('td', { class: 'num' }, count(t.stored)),
        el('td', { class: 'num' }, count(t.failed)),
        el('td', { class: 'num', 'data-field': 'requests' }, count(h.requests)),
        el('td', { class: h.result }, h.result),
        el('td', {}, publishedVersion(name, h, newestPublished, stores)),
      );
    }),
  );
}

/** One upstream's line: `Upstream requests this month: N of M (upstream)`, or `N (upstream, no monthly budget)`. */
export function budgetLine(u: RequestBudget['upstreams'][number]): string {
  const figure = u.perMonth === null ? count(u.spent) + ' (' + u.upstream + ', no monthly budget)' : count(u.spent) + ' of ' + count(u.perMonth) + ' (' + u.upstream + ')';
  return 'Upstream requests this month: ' + figure;
}

/** Fills `box` with a line per upstream of this month's requests; hidden when the server counts none. */
export function renderBudget(box: HTMLElement, budget: RequestBudget | undefined): void {
  const upstreams = budget ? budget.upstreams : [];
  box.hidden = upstreams.length === 0;
  if (budget) box.dataset.month = budget.month;
  box.replaceChildren(
    ...upstreams.map((u) =>
      el('div', { class: u.perMonth !== null && u.spent >= u.perMonth ? 'budget spent' : 'budget', 'data-upstream': u.upstream, title: budget ? 'month ' + budget.month : undefined }, budgetLine(u)),
    ),
  );
}
