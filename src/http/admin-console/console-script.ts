import { formatBytes, formatDuration } from '../../store/units';
import { COVERAGE_COLOURS } from './console-style';

// The console's script, served as /admin/console.js: an ES module the browser runs under the page's CSP. It keeps
// the admin key in sessionStorage (typed into the form, or taken once from ?key= and then removed from the address
// bar), sends it as `Authorization: Bearer` to /admin/api/*, and builds every element with textContent (nothing
// the API answers is ever parsed as markup). MapLibre comes from this server's /assets, as in the viewer pages.
// Relative URLs (the API, MapLibre) resolve against the script's own URL, so a server published under a path
// prefix works unchanged. The byte and duration formats are the CLI's own functions (store/units.ts), inlined.

const SCRIPT = String.raw`
import { Map, NavigationControl } from '../assets/maplibre-gl/maplibre-gl.mjs';

const COLOURS = ${JSON.stringify(COVERAGE_COLOURS)};
${formatBytes.toString()}
${formatDuration.toString()}

const API = new URL('api/', import.meta.url);
const KEY_ITEM = 'tilemirror.console.adminKey';
const MAP_KEY_ITEM = 'tilemirror.console.mapKey';
/** How often the jobs are read (the progress bars), the stores, and an idle job's run history. */
const JOBS_MS = 1500;
const STORES_MS = 15000;
const HISTORY_MS = 10000;

const $ = (selector) => document.querySelector(selector);

/** An element with attributes and children; strings become text nodes, never markup. */
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('data-')) e.setAttribute(k, String(v));
    else e[k] = v;
  }
  for (const c of children) if (c !== undefined && c !== null) e.append(c instanceof Node ? c : String(c));
  return e;
}

const count = (n) => (typeof n === 'number' ? n.toLocaleString('en') : '–');
const when = (iso) => (iso ? String(iso).replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '–');
const seconds = (s) => (typeof s === 'number' ? formatDuration(s) : '–');
const bytes = (n) => (typeof n === 'number' ? formatBytes(n) : '–');

// ------------------------------------------------------------------------------------------------
// The key and the API
// ------------------------------------------------------------------------------------------------

/** A key in the address (?key=) is taken once into sessionStorage and removed from the address bar and history. */
function takeKeyFromAddress() {
  const url = new URL(location.href);
  if (!url.searchParams.has('key')) return;
  const key = url.searchParams.get('key');
  url.searchParams.delete('key');
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  if (key) sessionStorage.setItem(KEY_ITEM, key);
}

class Refused extends Error {}

async function api(path, method) {
  const key = sessionStorage.getItem(KEY_ITEM);
  if (!key) throw new Refused('');
  const res = await fetch(new URL(path, API), {
    method: method || 'GET',
    headers: { Authorization: 'Bearer ' + key, Accept: 'application/json' },
    cache: 'no-store',
    credentials: 'omit',
  });
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (res.status === 401 || res.status === 403) throw new Refused((body && body.error) || 'The admin key was refused.');
  if (!res.ok) {
    const err = new Error((body && (body.message || body.error)) || 'HTTP ' + res.status);
    err.status = res.status;
    throw err;
  }
  return body;
}

function say(text, kind) {
  const m = $('#message');
  m.textContent = text || '';
  m.className = kind || '';
  m.hidden = !text;
}

// ------------------------------------------------------------------------------------------------
// Stores
// ------------------------------------------------------------------------------------------------

let stores = [];
let selected = null;

function origin(o) {
  if (!o) return '–';
  return o.type === 'upstream' ? o.url : o.type;
}

function renderStores() {
  const body = $('#stores tbody');
  body.replaceChildren(
    ...stores.map((s) => {
      const b = Array.isArray(s.bounds) ? s.bounds.map((v) => Number(v).toFixed(2)).join(', ') : '–';
      const published = s.publishedAt ? when(s.publishedAt) + (s.version ? ' (' + s.version + ')' : '') : 'not published';
      const row = el(
        'tr',
        { 'data-store': s.id, class: s.id === selected ? 'selected' : '' },
        el('td', {}, el('b', {}, s.id)),
        el('td', {}, s.kind),
        el('td', {}, s.format + (s.storage ? ' (' + s.storage + ')' : '')),
        el('td', { class: 'num' }, s.tileSize || '–'),
        el('td', {}, s.minzoom !== undefined ? s.minzoom + '–' + s.maxzoom : '–'),
        el('td', {}, b),
        el('td', { class: 'num' }, count(s.tiles)),
        el('td', { class: 'num' }, bytes(s.bytes)),
        el('td', {}, published),
        el('td', {}, origin(s.origin)),
        el('td', {}, s.job || '–'),
      );
      row.addEventListener('click', () => selectStore(s.id));
      return row;
    }),
  );
  if (stores.length === 0) body.append(el('tr', {}, el('td', { colSpan: 11 }, 'No stores in the data directory yet.')));
  const select = $('#coverage-store');
  const drawable = stores.filter((s) => s.minzoom !== undefined && s.maxzoom !== undefined);
  select.replaceChildren(...drawable.map((s) => el('option', { value: s.id, selected: s.id === selected }, s.id)));
}

async function loadStores() {
  const doc = await api('stores');
  stores = doc.stores || [];
  // The versions the histories show come from the stores.
  for (const [name, c] of cards) if (c.history) renderHistory(name, c, c.history);
  if (selected === null || !stores.some((s) => s.id === selected)) {
    const first = stores.find((s) => s.tiles > 0 && s.minzoom !== undefined) || stores[0];
    selected = first ? first.id : null;
    renderStores();
    if (selected) await selectStore(selected);
  } else {
    renderStores();
  }
}

// ------------------------------------------------------------------------------------------------
// The coverage map
// ------------------------------------------------------------------------------------------------

let map = null;
let coverageWanted = null;
const EMPTY = { type: 'FeatureCollection', features: [] };

const COVERAGE_LAYERS = [
  { id: 'coverage-mirrored', type: 'fill', source: 'coverage', filter: ['==', ['get', 'type'], 'mirrored'], paint: { 'fill-color': COLOURS.mirrored, 'fill-opacity': 0.25 } },
  { id: 'coverage-mirrored-line', type: 'line', source: 'coverage', filter: ['==', ['get', 'type'], 'mirrored'], paint: { 'line-color': COLOURS.mirrored, 'line-width': 2 } },
  { id: 'coverage-tiles', type: 'fill', source: 'coverage', filter: ['==', ['get', 'type'], 'tile'], paint: { 'fill-color': COLOURS.tile, 'fill-opacity': 0.75, 'fill-antialias': false } },
  { id: 'coverage-tiles-line', type: 'line', source: 'coverage', filter: ['==', ['get', 'type'], 'tile'], paint: { 'line-color': '#ffffff', 'line-width': 0.5, 'line-opacity': 0.6 } },
];
const PLAIN_STYLE = { version: 8, sources: {}, layers: [{ id: 'background', type: 'background', paint: { 'background-color': COLOURS.background } }] };

/** The base map: the style of the first map store, read with the API key given for it; without one, none. */
function baseStyle() {
  const mapKey = sessionStorage.getItem(MAP_KEY_ITEM);
  const m = stores.find((s) => s.id.startsWith('maps/'));
  if (!mapKey || !m) return PLAIN_STYLE;
  return new URL('../' + m.id.split('/').map(encodeURIComponent).join('/') + '/style.json?key=' + encodeURIComponent(mapKey), import.meta.url).href;
}

function addCoverage() {
  if (!map.getSource('coverage')) map.addSource('coverage', { type: 'geojson', data: EMPTY, tolerance: 0 });
  for (const layer of COVERAGE_LAYERS) if (!map.getLayer(layer.id)) map.addLayer(layer);
  if (coverageWanted) applyCoverage(coverageWanted);
}

function initMap() {
  if (map) return;
  map = new Map({ container: 'map', style: baseStyle(), center: [0, 20], zoom: 0.6, attributionControl: false, renderWorldCopies: false });
  map.addControl(new NavigationControl({ showCompass: false }));
  let loaded = false;
  map.on('load', () => {
    loaded = true;
    addCoverage();
  });
  map.on('error', (e) => {
    // A base map that cannot be read (a refused key): the coverage alone, on a plain background.
    if (!loaded) {
      loaded = true;
      say('The base map could not be loaded (' + ((e.error && e.error.message) || 'error') + '): showing the coverage alone.');
      map.setStyle(PLAIN_STYLE);
      map.once('styledata', addCoverage);
    }
  });
  window.map = map;
}

function applyCoverage(c) {
  const source = map && map.getSource('coverage');
  if (!source) return;
  source.setData(c.doc);
  $('#map').dataset.coverage = c.id + '@' + c.doc.z;
}

/** Shows a store's coverage at zoom z (the API's default zoom when undefined). */
async function showCoverage(id, z) {
  const path = 'stores/' + encodeURIComponent(id) + '/coverage' + (z === undefined ? '' : '?z=' + z);
  const doc = await api(path);
  if (id !== selected) return;
  const store = stores.find((s) => s.id === id);
  const zoom = $('#coverage-zoom');
  const options = [];
  for (let i = store.minzoom; i <= store.maxzoom; i++) options.push(el('option', { value: String(i), selected: i === doc.z }, String(i)));
  zoom.replaceChildren(...options);
  $('#coverage-count').textContent =
    'zoom ' + doc.z + ': ' + count(doc.tiles) + ' of ' + count(doc.expected) + ' tiles present' + (doc.truncated ? ' (the first 20,000 drawn)' : '');
  coverageWanted = { id, doc };
  applyCoverage(coverageWanted);
}

async function selectStore(id) {
  selected = id;
  for (const row of document.querySelectorAll('#stores tbody tr')) row.classList.toggle('selected', row.dataset.store === id);
  $('#coverage-store').value = id;
  const store = stores.find((s) => s.id === id);
  if (map && store && Array.isArray(store.bounds)) {
    const [w, s, e, n] = store.bounds;
    map.fitBounds([[Math.max(w, -180), Math.max(s, -85)], [Math.min(e, 180), Math.min(n, 85)]], { padding: 20, animate: false });
  }
  try {
    await showCoverage(id, undefined);
  } catch (err) {
    failed(err);
  }
}

// ------------------------------------------------------------------------------------------------
// Jobs
// ------------------------------------------------------------------------------------------------

const cards = new globalThis.Map();
let instance = '';

function jobCard(name) {
  const run = el('button', { type: 'button', class: 'run' }, 'Run now');
  const cancel = el('button', { type: 'button', class: 'cancel' }, 'Cancel');
  run.addEventListener('click', () => command(name, 'run', run));
  cancel.addEventListener('click', () => command(name, 'cancel', cancel));
  const card = el(
    'div',
    { class: 'job', 'data-job': name },
    el('div', { class: 'job-head' }, el('span', { class: 'name' }, name), el('span', { class: 'schedule' }), el('span', { class: 'actions' }, run, cancel)),
    el('div', { class: 'resources' }),
    el('div', { class: 'state' }, el('span', { class: 'status' }), ' ', el('span', { class: 'where' })),
    el('progress', { max: 1, value: 0, hidden: true }),
    el('div', { class: 'figures' }),
    el('table', { class: 'history' },
      el('thead', {}, el('tr', {}, ...['started', 'duration', 'fetched', 'stored', 'failed', 'outcome', 'version'].map((h) => el('th', {}, h)))),
      el('tbody', {})),
  );
  return { card, run, cancel, pending: false, history: null, historyAt: 0, lastEnded: undefined, wasRunning: false };
}

function runningOn(j) {
  if (j.runningOn) return j.runningOn;
  return j.running ? (j.running.host ? j.running.host + ':' : '') + j.running.pid : null;
}

function updateCard(c, j) {
  const q = (s) => c.card.querySelector(s);
  q('.schedule').textContent = j.schedule ? j.schedule + ' (' + (j.timezone || 'local time') + ')' + (j.nextRun ? ', next ' + when(j.nextRun) : '') : 'on demand';
  q('.resources').textContent = (j.resources || []).join(', ') + (j.unconfigured ? ' (no longer configured)' : '');
  const r = j.running;
  const p = r && r.progress;
  c.card.dataset.state = r ? 'running' : 'idle';
  if (j.lastRun) c.card.dataset.lastResult = j.lastRun.result;
  const last = j.lastRun ? 'last run ' + j.lastRun.result + ' at ' + when(j.lastRun.endedAt) : 'never run';
  q('.status').textContent = r
    ? 'running (' + r.trigger + ') since ' + when(r.startedAt) + (p ? ': ' + p.resource + ' [' + p.resourceIndex + '/' + p.resources + ']' : ', planning')
    : 'idle; ' + last;
  const on = runningOn(j);
  q('.where').textContent = on ? 'on ' + on + (on === instance ? ' (this instance)' : '') : '';
  const bar = q('progress');
  bar.hidden = !r;
  if (p) {
    bar.max = Math.max(1, p.total);
    bar.value = p.done;
  } else {
    bar.removeAttribute('value');
  }
  q('.figures').replaceChildren(
    ...(p
      ? [
          el('span', { 'data-field': 'done' }, count(p.done)), ' / ', el('span', { 'data-field': 'total' }, count(p.total)), ' tiles (',
          (p.total ? Math.min(100, (100 * p.done) / p.total) : 100).toFixed(1), ' %), ',
          el('span', { 'data-field': 'rate' }, String(p.tilesPerSecond)), ' tiles/s, ',
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
function publishedVersion(name, h, newestPublished) {
  const own = h.version || (h.resources || []).map((r) => r.version).filter(Boolean).join(', ');
  if (own) return own;
  if (h !== newestPublished) return '–';
  return stores.filter((s) => s.job === name && s.version).map((s) => s.version).join(', ') || '–';
}

function renderHistory(name, c, history) {
  const newestPublished = history.find((h) => h.result === 'published');
  c.card.querySelector('.history tbody').replaceChildren(
    ...history.map((h) => {
      const ms = Date.parse(h.endedAt) - Date.parse(h.startedAt);
      const t = h.tiles || {};
      return el('tr', { 'data-result': h.result },
        el('td', {}, when(h.startedAt)),
        el('td', {}, seconds(ms / 1000)),
        el('td', { class: 'num' }, count(t.fetched)),
        el('td', { class: 'num' }, count(t.stored)),
        el('td', { class: 'num' }, count(t.failed)),
        el('td', { class: h.result }, h.result),
        el('td', {}, publishedVersion(name, h, newestPublished)));
    }),
  );
}

async function loadHistory(name, c) {
  c.historyAt = Date.now();
  const doc = await api('jobs/' + encodeURIComponent(name));
  c.history = doc.history || [];
  renderHistory(name, c, c.history);
}

function renderJobs(doc) {
  instance = doc.instance || '';
  $('#instance').textContent = instance ? 'instance ' + instance + (doc.scheduler ? ', runs the schedules' : '') : '';
  $('#jobs-summary').textContent = doc.jobs.length
    ? (doc.scheduler ? 'Schedules run in this server.' : 'No schedules run in this server process.') + ' Updated ' + when(doc.generatedAt) + '.'
    : 'No jobs configured (mirror.jobs).';
  const box = $('#jobs');
  const names = new Set();
  const finished = [];
  for (const j of doc.jobs) {
    names.add(j.name);
    let c = cards.get(j.name);
    if (!c) {
      c = jobCard(j.name);
      cards.set(j.name, c);
      box.append(c.card);
    }
    updateCard(c, j);
    const ended = j.lastRun && j.lastRun.endedAt;
    // A run ended since the last look: its history, and the stores (what it published).
    if ((c.wasRunning && !j.running) || (c.historyAt > 0 && c.lastEnded !== ended)) finished.push([j.name, c]);
    else if (c.wasRunning !== !!j.running || Date.now() - c.historyAt > HISTORY_MS) loadHistory(j.name, c).catch(failed);
    c.lastEnded = ended;
    c.wasRunning = !!j.running;
  }
  for (const [name, c] of cards) {
    if (!names.has(name)) {
      c.card.remove();
      cards.delete(name);
    }
  }
  if (finished.length > 0) {
    for (const [name, c] of finished) loadHistory(name, c).catch(failed);
    // Again a little later: the server's catalog may take a moment to see a store published in a new folder.
    loadStores().catch(failed);
    setTimeout(() => loadStores().catch(failed), 2500);
  }
}

async function command(name, what, button) {
  const c = cards.get(name);
  c.pending = true;
  button.disabled = true;
  try {
    const r = await api('jobs/' + encodeURIComponent(name) + '/' + what, 'POST');
    say(what === 'run' ? 'Run of ' + name + ' started' + (r && r.instance ? ' on ' + r.instance : '') + '.' : 'Cancelling ' + name + '.', 'info');
  } catch (err) {
    failed(err);
  } finally {
    c.pending = false;
    jobsPoll.now();
  }
}

// ------------------------------------------------------------------------------------------------
// Polling, sign-in, sign-out
// ------------------------------------------------------------------------------------------------

/** Calls load now and then every ms milliseconds until stopped or a key is refused; other errors are shown. */
function every(ms, load) {
  let timer = null;
  let running = false;
  const tick = async () => {
    clearTimeout(timer);
    try {
      await load();
    } catch (err) {
      failed(err);
      if (err instanceof Refused) return;
    }
    if (running) timer = setTimeout(tick, ms);
  };
  return {
    now() {
      running = true;
      clearTimeout(timer);
      timer = setTimeout(tick, 0);
    },
    stop() {
      running = false;
      clearTimeout(timer);
    },
  };
}

const jobsPoll = every(JOBS_MS, async () => renderJobs(await api('jobs')));
const storesPoll = every(STORES_MS, loadStores);

function stop() {
  jobsPoll.stop();
  storesPoll.stop();
}

function failed(err) {
  if (err instanceof Refused) {
    sessionStorage.removeItem(KEY_ITEM);
    signIn(err.message);
  } else {
    say(err && err.message ? err.message : String(err));
  }
}

function signIn(message) {
  stop();
  $('#console').hidden = true;
  $('#sign-out').hidden = true;
  $('#sign-in').hidden = false;
  say(message);
  $('#admin-key').focus();
}

async function open() {
  $('#sign-in').hidden = true;
  $('#console').hidden = false;
  $('#sign-out').hidden = false;
  say('');
  try {
    const doc = await api('stores');
    stores = doc.stores || [];
  } catch (err) {
    failed(err);
    return;
  }
  initMap();
  selected = null;
  storesPoll.now();
  jobsPoll.now();
}

$('#sign-in').addEventListener('submit', (e) => {
  e.preventDefault();
  const key = $('#admin-key').value.trim();
  const mapKey = $('#map-key').value.trim();
  $('#admin-key').value = '';
  $('#map-key').value = '';
  if (!key) return;
  sessionStorage.setItem(KEY_ITEM, key);
  if (mapKey) sessionStorage.setItem(MAP_KEY_ITEM, mapKey);
  else sessionStorage.removeItem(MAP_KEY_ITEM);
  open();
});
$('#sign-out').addEventListener('click', () => {
  sessionStorage.removeItem(KEY_ITEM);
  sessionStorage.removeItem(MAP_KEY_ITEM);
  location.reload();
});
$('#coverage-store').addEventListener('change', (e) => selectStore(e.target.value));
$('#coverage-zoom').addEventListener('change', (e) => showCoverage(selected, Number(e.target.value)).catch(failed));

takeKeyFromAddress();
if (sessionStorage.getItem(KEY_ITEM)) open();
else signIn('');
`;

/** The console's script (an ES module). */
export const CONSOLE_JS: string = SCRIPT;
