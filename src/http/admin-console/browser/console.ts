/// <reference lib="dom" />
// The console's script, served as /admin/console.js: an ES module the browser runs under the page's CSP. It keeps
// the admin key in sessionStorage (typed into the form, or taken once from ?key= and then removed from the address
// bar), sends it as `Authorization: Bearer` to /admin/api/*, and builds every element with textContent (nothing
// the API answers is ever parsed as markup). MapLibre comes from this server's /assets, as in the viewer pages.
// Relative URLs (the API, MapLibre) resolve against the script's own URL, so a server published under a path
// prefix works unchanged. Built by `npm run build` (tsconfig.console.json, then console-bundle.ts joins this file
// and the modules it imports into the one file served, and points `maplibre-gl` at the server's copy).

import { Map, NavigationControl } from 'maplibre-gl';
import type { GeoJSONSource, LayerSpecification, StyleSpecification } from 'maplibre-gl';
import type { FeatureCollection } from 'geojson';
import type { CoverageDoc, ErrorBody, JobDoc, JobsDoc, StoreRow, StoresDoc } from '../console-types';
import { COVERAGE_COLOURS } from '../coverage-colours';
import { $, bytes, count, el, when } from './dom';
import { jobCard, renderBudget, renderHistory, updateCard, type JobCard } from './jobs-view';

declare global {
  interface Window {
    /** The coverage map, for the browser tests. */
    map?: Map;
  }
}

const API = new URL('api/', import.meta.url);
const KEY_ITEM = 'tilemirror.console.adminKey';
const MAP_KEY_ITEM = 'tilemirror.console.mapKey';
/** How often the jobs are read (the progress bars), the stores, and an idle job's run history. */
const JOBS_MS = 1500;
const STORES_MS = 15000;
const HISTORY_MS = 10000;

// ------------------------------------------------------------------------------------------------
// The key and the API
// ------------------------------------------------------------------------------------------------

/** A key in the address (?key=) is taken once into sessionStorage and removed from the address bar and history. */
function takeKeyFromAddress(): void {
  const url = new URL(location.href);
  if (!url.searchParams.has('key')) return;
  const key = url.searchParams.get('key');
  url.searchParams.delete('key');
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
  if (key) sessionStorage.setItem(KEY_ITEM, key);
}

/** The admin key is missing or was refused: the console asks for it again. */
class Refused extends Error {}

/** The admin API answered another error. */
class ApiError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

async function api<T>(path: string, method = 'GET'): Promise<T> {
  const key = sessionStorage.getItem(KEY_ITEM);
  if (!key) throw new Refused('');
  const res = await fetch(new URL(path, API), {
    method,
    headers: { Authorization: 'Bearer ' + key, Accept: 'application/json' },
    cache: 'no-store',
    credentials: 'omit',
  });
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  const problem = (body ?? {}) as ErrorBody;
  if (res.status === 401 || res.status === 403) throw new Refused(problem.error || 'The admin key was refused.');
  if (!res.ok) throw new ApiError(problem.message || problem.error || 'HTTP ' + res.status, res.status);
  return body as T;
}

function say(text: string, kind = ''): void {
  const m = $('#message');
  m.textContent = text || '';
  m.className = kind;
  m.hidden = !text;
}

// ------------------------------------------------------------------------------------------------
// Stores
// ------------------------------------------------------------------------------------------------

let stores: StoreRow[] = [];
let selected: string | null = null;
/** The grid the coverage is drawn in: '' for Web Mercator (the store's own tiles), else a grid the store is offered in. */
let selectedGrid = '';

function origin(o: StoreRow['origin']): string {
  if (!o) return '–';
  return o.type === 'upstream' ? o.url : o.type;
}

/** The stores' table and selects; true when the grid shown was dropped (see renderGrids). */
function renderStores(): boolean {
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
      row.addEventListener('click', () => void selectStore(s.id));
      return row;
    }),
  );
  if (stores.length === 0) body.append(el('tr', {}, el('td', { colSpan: 11 }, 'No stores in the data directory yet.')));
  const select = $<HTMLSelectElement>('#coverage-store');
  const drawable = stores.filter((s) => s.minzoom !== undefined && s.maxzoom !== undefined);
  select.replaceChildren(...drawable.map((s) => el('option', { value: s.id, selected: s.id === selected }, s.id)));
  return renderGrids();
}

/**
 * The grid select: Web Mercator and the grids the selected store is offered in. A grid the store is no longer
 * offered in falls back to Web Mercator; true when it did (the coverage shown is then of the wrong grid).
 */
function renderGrids(): boolean {
  const grids = stores.find((s) => s.id === selected)?.grids ?? [];
  const dropped = selectedGrid !== '' && !grids.includes(selectedGrid);
  if (dropped) selectedGrid = '';
  $<HTMLSelectElement>('#coverage-grid').replaceChildren(
    el('option', { value: '', selected: selectedGrid === '' }, 'Web Mercator'),
    ...grids.map((g) => el('option', { value: g, selected: g === selectedGrid }, g)),
  );
  return dropped;
}

async function loadStores(): Promise<void> {
  const doc = await api<StoresDoc>('stores');
  stores = doc.stores || [];
  // The versions the histories show come from the stores.
  for (const [name, c] of cards) if (c.history) renderHistory(name, c, c.history, stores);
  if (selected === null || !stores.some((s) => s.id === selected)) {
    const first = stores.find((s) => (s.tiles ?? 0) > 0 && s.minzoom !== undefined) || stores[0];
    selected = first ? first.id : null;
    renderStores();
    if (selected) await selectStore(selected);
  } else {
    // A grid the store is no longer offered in (republished with other bounds): its Web Mercator coverage instead.
    if (renderStores()) await showCoverage(selected, '', undefined);
  }
}

// ------------------------------------------------------------------------------------------------
// The coverage map
// ------------------------------------------------------------------------------------------------

let map: Map | null = null;
let coverageWanted: { id: string; doc: CoverageDoc } | null = null;
const EMPTY: FeatureCollection = { type: 'FeatureCollection', features: [] };

const COVERAGE_LAYERS: LayerSpecification[] = [
  { id: 'coverage-mirrored', type: 'fill', source: 'coverage', filter: ['==', ['get', 'type'], 'mirrored'], paint: { 'fill-color': COVERAGE_COLOURS.mirrored, 'fill-opacity': 0.25 } },
  { id: 'coverage-mirrored-line', type: 'line', source: 'coverage', filter: ['==', ['get', 'type'], 'mirrored'], paint: { 'line-color': COVERAGE_COLOURS.mirrored, 'line-width': 2 } },
  { id: 'coverage-tiles', type: 'fill', source: 'coverage', filter: ['==', ['get', 'type'], 'tile'], paint: { 'fill-color': COVERAGE_COLOURS.tile, 'fill-opacity': 0.75, 'fill-antialias': false } },
  { id: 'coverage-tiles-line', type: 'line', source: 'coverage', filter: ['==', ['get', 'type'], 'tile'], paint: { 'line-color': '#ffffff', 'line-width': 0.5, 'line-opacity': 0.6 } },
];
const PLAIN_STYLE: StyleSpecification = { version: 8, sources: {}, layers: [{ id: 'background', type: 'background', paint: { 'background-color': COVERAGE_COLOURS.background } }] };

/** The base map: the style of the first map store, read with the API key given for it; without one, none. */
function baseStyle(): StyleSpecification | string {
  const mapKey = sessionStorage.getItem(MAP_KEY_ITEM);
  const m = stores.find((s) => s.id.startsWith('maps/'));
  if (!mapKey || !m) return PLAIN_STYLE;
  return new URL('../' + m.id.split('/').map(encodeURIComponent).join('/') + '/style.json?key=' + encodeURIComponent(mapKey), import.meta.url).href;
}

function addCoverage(): void {
  if (!map) return;
  if (!map.getSource('coverage')) map.addSource('coverage', { type: 'geojson', data: EMPTY, tolerance: 0 });
  for (const layer of COVERAGE_LAYERS) if (!map.getLayer(layer.id)) map.addLayer(layer);
  if (coverageWanted) applyCoverage(coverageWanted);
}

function initMap(): void {
  if (map) return;
  const m = new Map({ container: 'map', style: baseStyle(), center: [0, 20], zoom: 0.6, attributionControl: false, renderWorldCopies: false });
  map = m;
  m.addControl(new NavigationControl({ showCompass: false }));
  let loaded = false;
  m.on('load', () => {
    loaded = true;
    addCoverage();
  });
  m.on('error', (e) => {
    // A base map that cannot be read (a refused key): the coverage alone, on a plain background.
    if (!loaded) {
      loaded = true;
      say('The base map could not be loaded (' + ((e.error && e.error.message) || 'error') + '): showing the coverage alone.');
      m.setStyle(PLAIN_STYLE);
      m.once('styledata', addCoverage);
    }
  });
  window.map = m;
}

function applyCoverage(c: { id: string; doc: CoverageDoc }): void {
  const source = map && map.getSource<GeoJSONSource>('coverage');
  if (!source) return;
  source.setData(c.doc);
  // What the map shows, for the browser tests: `store@z`, or `store@grid:matrix` in a grid besides Web Mercator.
  $('#map').dataset.coverage = c.id + '@' + (c.doc.grid ? c.doc.grid + ':' : '') + c.doc.z;
}

/** The lon/lat box of a coverage's tiles, or undefined when it has none. */
function tilesBox(doc: CoverageDoc): [[number, number], [number, number]] | undefined {
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const f of doc.features) {
    if (f.properties.type !== 'tile') continue;
    const polygons = f.geometry.type === 'Polygon' ? [f.geometry.coordinates] : f.geometry.coordinates;
    for (const polygon of polygons) {
      for (const [lon, lat] of polygon[0]) [w, s, e, n] = [Math.min(w, lon), Math.min(s, lat), Math.max(e, lon), Math.max(n, lat)];
    }
  }
  return w <= e && s <= n ? [[w, s], [e, n]] : undefined;
}

/**
 * Shows a store's coverage in `grid` ('' for Web Mercator) at zoom (or matrix) z, the API's default when undefined;
 * `fit`: the map is fitted to the tiles drawn (a grid just chosen: its tiles may be a small part of the store).
 */
async function showCoverage(id: string, grid: string, z: number | undefined, fit = false): Promise<void> {
  const query = [grid ? 'grid=' + encodeURIComponent(grid) : '', z === undefined ? '' : 'z=' + z].filter(Boolean).join('&');
  const doc = await api<CoverageDoc>('stores/' + encodeURIComponent(id) + '/coverage' + (query ? '?' + query : ''));
  // Another store or grid was chosen while this one was read.
  if (id !== selected || grid !== selectedGrid) return;
  const store = stores.find((s) => s.id === id);
  const levels: string[] = [];
  if (doc.matrices) levels.push(...doc.matrices);
  else if (store && store.minzoom !== undefined && store.maxzoom !== undefined) for (let i = store.minzoom; i <= store.maxzoom; i++) levels.push(String(i));
  $<HTMLSelectElement>('#coverage-zoom').replaceChildren(...levels.map((l) => el('option', { value: l, selected: Number(l) === doc.z }, l)));
  $('#coverage-count').textContent = doc.grid
    ? doc.grid + ', matrix ' + doc.z + ': ' + count(doc.tiles) + ' of ' + count(doc.expected) + ' tiles kept' + (doc.truncated ? ' (the first 20,000 drawn)' : '')
    : 'Web Mercator, zoom ' + doc.z + ': ' + count(doc.tiles) + ' of ' + count(doc.expected) + ' tiles present' + (doc.truncated ? ' (the first 20,000 drawn)' : '');
  $('#legend-tile').textContent = doc.grid ? 'tile kept' : 'tile present';
  coverageWanted = { id, doc };
  applyCoverage(coverageWanted);
  const box = fit ? tilesBox(doc) : undefined;
  if (map && box) map.fitBounds(box, { padding: 40, animate: false, maxZoom: 10 });
}

async function selectStore(id: string): Promise<void> {
  selected = id;
  for (const row of document.querySelectorAll<HTMLElement>('#stores tbody tr')) row.classList.toggle('selected', row.dataset.store === id);
  $<HTMLSelectElement>('#coverage-store').value = id;
  renderGrids();
  const store = stores.find((s) => s.id === id);
  if (map && store && Array.isArray(store.bounds)) {
    const [w, s, e, n] = store.bounds;
    map.fitBounds([[Math.max(w, -180), Math.max(s, -85)], [Math.min(e, 180), Math.min(n, 85)]], { padding: 20, animate: false });
  }
  try {
    await showCoverage(id, selectedGrid, undefined, selectedGrid !== '');
  } catch (err) {
    failed(err);
  }
}

// ------------------------------------------------------------------------------------------------
// Jobs
// ------------------------------------------------------------------------------------------------

const cards = new globalThis.Map<string, JobCard>();
let instance = '';

async function loadHistory(name: string, c: JobCard): Promise<void> {
  c.historyAt = Date.now();
  const doc = await api<JobDoc>('jobs/' + encodeURIComponent(name));
  c.history = doc.history || [];
  renderHistory(name, c, c.history, stores);
}

function renderJobs(doc: JobsDoc): void {
  instance = doc.instance || '';
  $('#instance').textContent = instance ? 'instance ' + instance + (doc.scheduler ? ', runs the schedules' : '') : '';
  $('#jobs-summary').textContent = doc.jobs.length
    ? (doc.scheduler ? 'Schedules run in this server.' : 'No schedules run in this server process.') + ' Updated ' + when(doc.generatedAt) + '.'
    : 'No jobs configured (mirror.jobs).';
  renderBudget($('#request-budget'), doc.requestBudget);
  const box = $('#jobs');
  const names = new Set<string>();
  const finished: [string, JobCard][] = [];
  for (const j of doc.jobs) {
    names.add(j.name);
    let c = cards.get(j.name);
    if (!c) {
      c = jobCard(j.name, (what, button) => void command(j.name, what, button));
      cards.set(j.name, c);
      box.append(c.card);
    }
    updateCard(c, j, instance);
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

async function command(name: string, what: 'run' | 'cancel', button: HTMLButtonElement): Promise<void> {
  const c = cards.get(name);
  if (!c) return;
  c.pending = true;
  button.disabled = true;
  try {
    const r = await api<{ instance?: string } | null>('jobs/' + encodeURIComponent(name) + '/' + what, 'POST');
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
function every(ms: number, load: () => Promise<void>): { now(): void; stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  const tick = async (): Promise<void> => {
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

const jobsPoll = every(JOBS_MS, async () => renderJobs(await api<JobsDoc>('jobs')));
const storesPoll = every(STORES_MS, loadStores);

function stop(): void {
  jobsPoll.stop();
  storesPoll.stop();
}

function failed(err: unknown): void {
  if (err instanceof Refused) {
    sessionStorage.removeItem(KEY_ITEM);
    signIn(err.message);
  } else {
    say(err instanceof Error && err.message ? err.message : String(err));
  }
}

function signIn(message: string): void {
  stop();
  $('#console').hidden = true;
  $('#sign-out').hidden = true;
  $('#sign-in').hidden = false;
  say(message);
  $('#admin-key').focus();
}

async function open(): Promise<void> {
  $('#sign-in').hidden = true;
  $('#console').hidden = false;
  $('#sign-out').hidden = false;
  say('');
  try {
    const doc = await api<StoresDoc>('stores');
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
  const keyField = $<HTMLInputElement>('#admin-key');
  const mapKeyField = $<HTMLInputElement>('#map-key');
  const key = keyField.value.trim();
  const mapKey = mapKeyField.value.trim();
  keyField.value = '';
  mapKeyField.value = '';
  if (!key) return;
  sessionStorage.setItem(KEY_ITEM, key);
  if (mapKey) sessionStorage.setItem(MAP_KEY_ITEM, mapKey);
  else sessionStorage.removeItem(MAP_KEY_ITEM);
  void open();
});
$('#sign-out').addEventListener('click', () => {
  sessionStorage.removeItem(KEY_ITEM);
  sessionStorage.removeItem(MAP_KEY_ITEM);
  location.reload();
});
$<HTMLSelectElement>('#coverage-store').addEventListener('change', (e) => void selectStore((e.target as HTMLSelectElement).value));
$<HTMLSelectElement>('#coverage-grid').addEventListener('change', (e) => {
  selectedGrid = (e.target as HTMLSelectElement).value;
  if (selected !== null) showCoverage(selected, selectedGrid, undefined, selectedGrid !== '').catch(failed);
});
$<HTMLSelectElement>('#coverage-zoom').addEventListener('change', (e) => {
  if (selected !== null) showCoverage(selected, selectedGrid, Number((e.target as HTMLSelectElement).value)).catch(failed);
});

takeKeyFromAddress();
if (sessionStorage.getItem(KEY_ITEM)) void open();
else signIn('');
