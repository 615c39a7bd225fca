// The operator's console (/admin/) in a real browser: headless Debian Chromium driven by playwright-core against the
// real server and its admin API, used as a person would: the key given once in the address (then gone from it),
// the stores read from the table, a store and a zoom chosen in the selectors, Run now and Cancel clicked.
//  - Stores and coverage: the sample's tile stores are rows of the table; at zoom 3 the map of tiles/sample-vector
//    (61 of the 64 tiles stored: three are missing) is checked pixel by pixel: the centre of a tile the store holds
//    has the coverage colour, the centre of one it lacks has not. Which tiles are stored is read from the MBTiles
//    file itself, not from the API.
//  - Another grid: over a copy of the sample with LV95 configured, three LV95 tiles requested through WMTS (so they
//    are kept); choosing LV95 in the grid select fills the map's coverage source with exactly those tiles (read
//    from MapLibre's source), draws them (rendered features of the tiles' layer, the coverage colour at each
//    tile's centre) and lists LV95's matrices in the zoom select.
//  - A job driven from the page: Run now against a local upstream (the simulator in front of a second tilemirror
//    serving the sample, the job rate-limited so the run lasts several seconds) shows its progress bar moving (two
//    different values read from the DOM), Cancel stops it (the job shows interrupted, its history too), and a later
//    Run now resumes (fewer tile requests than the plan) to a store with the same content as a straight mirror's.
// Every page stays on this machine, without a 4xx/5xx, a failed request, a page error or a console error (a CSP
// violation is a console error).
//
// Skipped with a message when /usr/bin/chromium is missing (`bash test/run.sh` installs Debian's `chromium`); a
// failure instead with CI=true or TILEMIRROR_REQUIRE_CLIENTS set. Screenshots go to a temporary directory, kept
// (and named on the console) with TILEMIRROR_KEEP_SCREENSHOTS=1 or when a test failed.
import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { runMirror } from '../../src/mirror/engine/run';
import { storePaths } from '../../src/store/mbtiles/staging';
import { snapshot } from '../fixtures/mirror-stores';
import { startSimulator, type UpstreamSimulator } from '../fixtures/upstream-simulator';
import { LV95 } from '../helpers/grids';
import { KEY, rawGet, SAMPLE_DIR, startServer, type TestServer } from '../helpers/server';
import { gatedTest } from '../helpers/clients';
import { CHROMIUM_CHECK, launchChromium, PageRecorder, waitForMapIdle } from './browser';
import { tempDirs } from '../helpers/temp-dirs';

/** Screenshots (kept when a test failed) apart from the data folders (always removed). */
const shots = tempDirs('tilemirror-console-');
const { tempDir, removeTempDirs } = tempDirs('tm-console-');

const ADMIN = 'admin-console-key-7c1d';
const VIEWPORT = { width: 1280, height: 1000 };
/** Time a page gets to load and reach an idle map (software WebGL on a busy 2-core machine: generous). */
const IDLE_TIMEOUT_MS = 45_000;
/** Time a run gets to finish (about 15 s of 961 tiles at the job's 60 requests/s; generous for a busy machine). */
const RUN_TIMEOUT_MS = 150_000;

const clientTest = gatedTest('Chromium (browser tests)', CHROMIUM_CHECK);

let browser: Browser | undefined;
let shotsDir = '';
let failures = 0;
const closers: (() => Promise<void> | void)[] = [];

beforeAll(() => {
  shotsDir = shots.tempDir();
});
afterAll(async () => {
  await browser?.close();
  for (const close of closers.reverse()) await close();
  if (failures > 0 || process.env.TILEMIRROR_KEEP_SCREENSHOTS) console.warn(`console screenshots kept in ${shotsDir}`); // eslint-disable-line no-console
  else shots.removeTempDirs();
});

/** A fresh browser context and page on the console, the admin key given once in the address. */
async function openConsole(server: TestServer): Promise<{ context: BrowserContext; page: Page; recorder: PageRecorder }> {
  browser ??= await launchChromium();
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const recorder = new PageRecorder(context, page);
  const base = server.url.replace(/\/+$/, '');
  const res = await page.goto(`${base}/admin/?key=${ADMIN}`, { waitUntil: 'load', timeout: IDLE_TIMEOUT_MS });
  expect(res?.status()).toBe(200);
  await page.waitForSelector('#console:not([hidden])', { timeout: IDLE_TIMEOUT_MS });
  return { context, page, recorder };
}

/** Runs `body`, counting a failure (which keeps the screenshots). */
async function recorded(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    failures++;
    throw err;
  }
}

/** The centre of tile z/x/y (XYZ numbering) in longitude and latitude: Web Mercator, computed here. */
function tileCentre(z: number, x: number, y: number): [number, number] {
  const n = 2 ** z;
  const lon = ((x + 0.5) / n) * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * (y + 0.5)) / n))) * 180) / Math.PI;
  return [lon, lat];
}

/** The tiles a store file holds at zoom z, as "x/y" (XYZ rows), read with SQLite. */
function storedTiles(file: string, z: number): Set<string> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT tile_column x, tile_row r FROM tiles WHERE zoom_level = ?').all(z) as { x: number; r: number }[];
    return new Set(rows.map(({ x, r }) => `${x}/${2 ** z - 1 - r}`));
  } finally {
    db.close();
  }
}

describe('the console in Chromium: stores and their coverage', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ config: { admin: { keys: [ADMIN] } } });
    closers.push(() => server.close());
  }, 30_000);

  clientTest('lists the sample\'s stores and draws which tiles tiles/sample-vector holds at zoom 3, gaps visible', async () => {
    await recorded(async () => {
      const { context, page, recorder } = await openConsole(server);
      try {
        // The key was taken from the address and removed from it.
        expect(new URL(page.url()).search).toBe('');

        // Every tile store of the sample directory is a row of the table.
        const files = ['maps', 'tiles', 'images'].flatMap((kind) =>
          readdirSync(path.join(SAMPLE_DIR, kind)).filter((f) => f.endsWith('.mbtiles')).map((f) => `${kind}/${f.replace(/\.mbtiles$/, '')}`),
        );
        await page.waitForSelector('#stores tbody tr[data-store="tiles/sample-vector"]', { timeout: IDLE_TIMEOUT_MS });
        const rows = await page.$$eval('#stores tbody tr', (trs) => trs.map((tr) => (tr as unknown as { dataset: { store: string } }).dataset.store));
        expect(rows).toEqual(expect.arrayContaining(files));
        const vectorFile = path.join(SAMPLE_DIR, 'tiles', 'sample-vector.mbtiles');
        const db = new Database(vectorFile, { readonly: true });
        const total = (db.prepare('SELECT count(*) n FROM tiles').get() as { n: number }).n;
        db.close();
        const vectorRow = await page.textContent('#stores tbody tr[data-store="tiles/sample-vector"]');
        expect(vectorRow).toContain(total.toLocaleString('en'));
        expect(vectorRow).toContain('0–5');

        // Choose the store and zoom 3, as a person would, and wait for the map to draw them.
        await page.selectOption('#coverage-store', 'tiles/sample-vector');
        await page.waitForSelector('#map[data-coverage^="tiles/sample-vector@"]', { timeout: IDLE_TIMEOUT_MS });
        await page.selectOption('#coverage-zoom', '3');
        await page.waitForSelector('#map[data-coverage="tiles/sample-vector@3"]', { timeout: IDLE_TIMEOUT_MS });
        await waitForMapIdle(page, IDLE_TIMEOUT_MS);

        const present = storedTiles(vectorFile, 3);
        expect(present.size).toBeGreaterThan(0);
        expect(present.size).toBeLessThan(64);
        expect(await page.textContent('#coverage-count')).toContain(`zoom 3: ${present.size} of`);

        const png = await page.locator('#map').screenshot({ path: path.join(shotsDir, 'console-coverage.png') });
        await page.screenshot({ path: path.join(shotsDir, 'console-page.png'), fullPage: true });
        const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
        const pixel = (px: number, py: number): [number, number, number] => {
          const i = (Math.round(py) * info.width + Math.round(px)) * 3;
          return [data[i], data[i + 1], data[i + 2]];
        };
        // Every tile of zoom 3 whose centre is on the map: where the map shows it and what colour is there.
        const all: { tile: string; stored: boolean; rgb: [number, number, number] }[] = [];
        for (let x = 0; x < 8; x++) {
          for (let y = 0; y < 8; y++) {
            const at = await page.evaluate(
              (lngLat) => (globalThis as unknown as { map: { project(l: [number, number]): { x: number; y: number } } }).map.project(lngLat),
              tileCentre(3, x, y),
            );
            if (at.x < 2 || at.y < 2 || at.x > info.width - 3 || at.y > info.height - 3) continue;
            all.push({ tile: `3/${x}/${y}`, stored: present.has(`${x}/${y}`), rgb: pixel(at.x, at.y) });
          }
        }
        // The coverage colour is a strong blue (#2166ac, 75 % opaque); the mirrored area around it is a pale orange.
        const blue = ([r, , b]: [number, number, number]): boolean => b - r > 60;
        const missing = all.filter((t) => !t.stored);
        expect(missing.length).toBeGreaterThan(0);
        expect(all.filter((t) => t.stored).length).toBeGreaterThan(30);
        expect(all.filter((t) => t.stored && !blue(t.rgb))).toEqual([]);
        expect(missing.filter((t) => blue(t.rgb))).toEqual([]);

        expect(recorder.problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }, 120_000);
});

describe('the console in Chromium: the tiles kept in another grid', () => {
  let server: TestServer;
  /** LV95 tiles (row, column) of matrix 16 (64 km tiles over Switzerland), requested through WMTS and so kept. */
  const KEPT = [
    [1, 2],
    [2, 2],
    [2, 3],
  ];
  beforeAll(async () => {
    const data = tempDir('tm-console-grid-');
    closers.push(removeTempDirs);
    mkdirSync(path.join(data, 'maps'));
    copyFileSync(path.join(SAMPLE_DIR, 'maps', 'sample.mbtiles'), path.join(data, 'maps', 'sample.mbtiles'));
    server = await startServer({ dataDir: data, config: { admin: { keys: [ADMIN] }, grids: [LV95], render: { enabled: false } } });
    closers.push(() => server.close());
    for (const [row, col] of KEPT) expect((await rawGet(`${server.url}/wmts/1.0.0/maps/sample/default/LV95/16/${row}/${col}.png?key=${KEY}`)).status).toBe(200);
  }, 60_000);

  clientTest('choosing LV95 in the grid select draws the kept LV95 tiles on the map', async () => {
    await recorded(async () => {
      const { context, page, recorder } = await openConsole(server);
      try {
        await page.waitForSelector('#map[data-coverage^="maps/sample@"]', { timeout: IDLE_TIMEOUT_MS });
        expect(await page.$$eval('#coverage-grid option', (os) => os.map((o) => [(o as unknown as { value: string }).value, o.textContent]))).toEqual([
          ['', 'Web Mercator'],
          ['LV95', 'LV95'],
        ]);
        await page.selectOption('#coverage-grid', 'LV95');
        // The deepest matrix with tiles kept.
        await page.waitForSelector('#map[data-coverage="maps/sample@LV95:16"]', { timeout: IDLE_TIMEOUT_MS });
        await waitForMapIdle(page, IDLE_TIMEOUT_MS);
        expect(await page.textContent('#coverage-count')).toBe('LV95, matrix 16: 3 of 40 tiles kept');
        expect(await page.$$eval('#coverage-zoom option', (os) => os.map((o) => (o as unknown as { value: string }).value))).toEqual(LV95.resolutions.map((_, i) => String(i)));
        expect(await page.$eval('#coverage-zoom', (s) => (s as unknown as { value: string }).value)).toBe('16');

        type Tile = { row: number; col: number; centre: [number, number] };
        // What MapLibre holds in the coverage source: the mirrored area and exactly the kept tiles.
        const held = await page.evaluate(async () => {
          type Data = { features: { properties: { type: string; matrix?: string; row?: number; col?: number }; geometry: { coordinates: number[][][] } }[] };
          const map = (globalThis as unknown as { map: { getSource(id: string): { getData(): Promise<Data> } } }).map;
          const data = await map.getSource('coverage').getData();
          return data.features.map((f) => {
            const ring = f.geometry.coordinates[0].slice(1);
            const centre = [ring.reduce((a, p) => a + p[0], 0) / ring.length, ring.reduce((a, p) => a + p[1], 0) / ring.length];
            return { ...f.properties, centre };
          });
        });
        expect(held.filter((f) => f.type === 'mirrored')).toHaveLength(1);
        const tiles = held.filter((f) => f.type === 'tile') as unknown as (Tile & { matrix: string })[];
        expect(held).toHaveLength(1 + tiles.length);
        expect(tiles.map((t) => `${t.matrix}/${t.row}/${t.col}`).sort()).toEqual(KEPT.map(([r, c]) => `16/${r}/${c}`).sort());
        // In Switzerland, every one.
        for (const t of tiles) expect(t.centre[0] > 5.9 && t.centre[0] < 10.6 && t.centre[1] > 45.8 && t.centre[1] < 47.9).toBe(true);

        // Drawn: the tiles' layer renders all three, and the coverage colour is at each tile's centre.
        const rendered = await page.evaluate(() => {
          const map = (globalThis as unknown as { map: { queryRenderedFeatures(o: { layers: string[] }): { properties: { row: number; col: number } }[] } }).map;
          return [...new Set(map.queryRenderedFeatures({ layers: ['coverage-tiles'] }).map((f) => `${f.properties.row}/${f.properties.col}`))].sort();
        });
        expect(rendered).toEqual(KEPT.map(([r, c]) => `${r}/${c}`).sort());
        const png = await page.locator('#map').screenshot({ path: path.join(shotsDir, 'console-coverage-lv95.png') });
        const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
        for (const t of tiles) {
          const at = await page.evaluate((lngLat) => (globalThis as unknown as { map: { project(l: [number, number]): { x: number; y: number } } }).map.project(lngLat), t.centre);
          expect(at.x > 2 && at.y > 2 && at.x < info.width - 3 && at.y < info.height - 3).toBe(true);
          const i = (Math.round(at.y) * info.width + Math.round(at.x)) * 3;
          // The coverage colour, a strong blue (#2166ac, 75 % opaque).
          expect({ tile: `${t.row}/${t.col}`, blue: data[i + 2] - data[i] > 60 }).toEqual({ tile: `${t.row}/${t.col}`, blue: true });
        }

        // Back to Web Mercator: the store's own tiles and zooms again.
        await page.selectOption('#coverage-grid', '');
        await page.waitForSelector('#map[data-coverage="maps/sample@5"]', { timeout: IDLE_TIMEOUT_MS });
        expect(await page.textContent('#coverage-count')).toMatch(/^Web Mercator, zoom 5: /);
        expect(recorder.problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }, 120_000);
});

describe('the console in Chromium: Run now, a moving progress bar, Cancel, and a run that resumes', () => {
  let upstream: TestServer;
  let sim: UpstreamSimulator;
  let server: TestServer;
  let data = '';
  let clean = '';

  beforeAll(async () => {
    upstream = await startServer();
    closers.push(() => upstream.close());
    sim = await startSimulator(upstream.url);
    closers.push(() => sim.close());
    data = tempDir('tm-console-data-');
    clean = tempDir('tm-console-clean-');
    closers.push(removeTempDirs);
    server = await startServer({
      dataDir: data,
      config: {
        admin: { keys: [ADMIN] },
        mirror: {
          upstream: sim.url,
          key: KEY,
          // 961 tiles at 60 requests/s: a run lasts about 15 s. The schedule (once a year) never fires during the test.
          jobs: [{ name: 'vector', resources: ['tiles/sample-vector'], zoom: '0-5', schedule: '0 0 1 1 *', timezone: 'UTC', rate: 60, concurrency: 2 }],
        },
      },
    });
    closers.push(() => server.close());
  }, 60_000);

  clientTest('Run now shows the progress moving, Cancel interrupts it, a later run resumes to a straight mirror\'s store', async () => {
    await recorded(async () => {
      // The reference: a straight mirror of the same plan from the same upstream, before the console's runs.
      const straight = await runMirror({ upstream: sim.url, key: KEY, dataDir: clean, resource: 'tiles/sample-vector', zoom: [0, 5], concurrency: 8 });
      expect(straight.status).toBe('published');
      const planned = sim.log.filter((l) => !l.path.endsWith('.json')).length;
      sim.reset();

      const { context, page, recorder } = await openConsole(server);
      try {
        const job = '[data-job="vector"]';
        await page.waitForSelector(`${job}[data-state="idle"] button.run:not([disabled])`, { timeout: IDLE_TIMEOUT_MS });
        expect(await page.isDisabled(`${job} button.cancel`)).toBe(true);

        await page.click(`${job} button.run`);
        // The bar moves: two different values read from the page, the figures beside it too.
        const progress = `${job}[data-state="running"] progress[value]`;
        const value = (): Promise<number> => page.$eval(progress, (p) => Number((p as unknown as { value: number }).value));
        await page.waitForFunction((sel) => Number((globalThis as unknown as { document: { querySelector(s: string): { value: number } | null } }).document.querySelector(sel)?.value ?? 0) > 0, progress, {
          timeout: IDLE_TIMEOUT_MS,
          polling: 100,
        });
        const first = await value();
        const firstDone = await page.textContent(`${job} [data-field="done"]`);
        await page.screenshot({ path: path.join(shotsDir, 'console-running-1.png'), fullPage: true });
        await page.waitForFunction(
          ({ sel, before }) => Number((globalThis as unknown as { document: { querySelector(s: string): { value: number } | null } }).document.querySelector(sel)?.value ?? 0) > before,
          { sel: progress, before: first },
          { timeout: IDLE_TIMEOUT_MS, polling: 100 },
        );
        const second = await value();
        const secondDone = await page.textContent(`${job} [data-field="done"]`);
        await page.screenshot({ path: path.join(shotsDir, 'console-running-2.png'), fullPage: true });
        expect(second).toBeGreaterThan(first);
        expect(secondDone).not.toBe(firstDone);
        expect(await page.textContent(`${job} [data-field="total"]`)).toBe(planned.toLocaleString('en'));
        expect(await page.isDisabled(`${job} button.run`)).toBe(true);

        // Cancel: the run stops and the job shows interrupted, in its state and at the top of its history.
        await page.click(`${job} button.cancel:not([disabled])`);
        await page.waitForSelector(`${job}[data-state="idle"][data-last-result="interrupted"]`, { timeout: RUN_TIMEOUT_MS });
        await page.waitForSelector(`${job} .history tbody tr[data-result="interrupted"]`, { timeout: IDLE_TIMEOUT_MS });
        await page.screenshot({ path: path.join(shotsDir, 'console-cancelled.png'), fullPage: true });
        const beforeResume = sim.log.filter((l) => !l.path.endsWith('.json')).length;
        expect(beforeResume).toBeGreaterThan(0);
        expect(beforeResume).toBeLessThan(planned);

        // A later run resumes: it asks the upstream only for what the cancelled run did not store.
        await page.click(`${job} button.run:not([disabled])`);
        await page.waitForSelector(`${job}[data-state="idle"][data-last-result="published"]`, { timeout: RUN_TIMEOUT_MS });
        // The page follows: the published store in the table, filled by the job, its coverage on the map, and the
        // two runs in the job's history, newest first.
        await page.waitForSelector('#stores tbody tr[data-store="tiles/sample-vector"]', { timeout: IDLE_TIMEOUT_MS });
        expect(await page.textContent('#stores tbody tr[data-store="tiles/sample-vector"] td:last-child')).toBe('vector');
        await page.waitForSelector('#map[data-coverage^="tiles/sample-vector@"]', { timeout: IDLE_TIMEOUT_MS });
        await waitForMapIdle(page, IDLE_TIMEOUT_MS);
        await page.waitForFunction(
          (sel) => (globalThis as unknown as { document: { querySelectorAll(s: string): { getAttribute(a: string): string | null }[] } }).document.querySelectorAll(sel).length >= 2,
          `${job} .history tbody tr[data-result]`,
          { timeout: IDLE_TIMEOUT_MS, polling: 100 },
        );
        expect(await page.$$eval(`${job} .history tbody tr[data-result]`, (trs) => trs.slice(0, 2).map((tr) => tr.getAttribute('data-result')))).toEqual(['published', 'interrupted']);
        await page.screenshot({ path: path.join(shotsDir, 'console-published.png'), fullPage: true });
        const afterResume = sim.log.filter((l) => !l.path.endsWith('.json')).length - beforeResume;
        expect(afterResume).toBeLessThan(planned);
        expect(snapshot(storePaths(data, 'tiles', 'sample-vector').published)).toEqual(snapshot(storePaths(clean, 'tiles', 'sample-vector').published));

        expect(recorder.problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }, 300_000);
});
