'use strict';
// Benchmark `render`: raster tiles drawn by the map renderer (services/renderer: MapLibre GL JS in headless
// Chromium) from the bundled sample map's style, in this process (the renderer is a service, not a public route).
// For each browser (the bundled @sparticuz/chromium, Debian's /usr/bin/chromium) and metatile edge:
//   cold: the first 256 px tile of a fresh server (browser start, page, style, glyphs, sprite, tiles);
//   tiles/s: every 256 px tile of a 16 × 16 block at z5 over Europe and Africa, one metatile after another on each
//     of the browsers (renderMetatile, the render job's unit), png;
//   readback: one 1280² frame read back by gl.readPixels through evaluate, by toDataURL, by a CDP screenshot;
//   memory: the browser processes with their helpers (renderer, network...), summed after the run: RSS, and PSS
//     (shared pages counted once: what the machine really gives them).

const fs = require('node:fs');
const path = require('node:path');
const { table, writeResults, fmt } = require('./lib/report');

const ROOT = path.resolve(__dirname, '..');
const dist = (p) => require(path.join(ROOT, 'dist', p));

const options = {
  browsers: { default: 2, help: 'browser processes' },
  metatiles: { default: '1,4', help: 'metatile edges to compare (comma-separated)' },
  chromium: { default: 'bundled,/usr/bin/chromium', help: 'render.browser values to compare (comma-separated; missing ones are skipped)' },
  zoom: { default: 5, help: 'zoom of the 256 px tiles rendered' },
  block: { default: 16, help: 'edge of the block of tiles rendered (tiles)' },
  readback: { default: 3, help: 'frames of 1280² read back each way (0: skip): readPixels through evaluate vs a CDP screenshot' },
};

/**
 * The readback choices on one warm page of the render page (bundled Chromium): the drawn canvas read by
 * gl.readPixels and returned through evaluate (base64 by FileReader), by canvas.toDataURL, and by a CDP screenshot
 * (PNG, optimizeForSpeed) decoded with sharp. Medians in ms.
 */
async function readback(frames) {
  const { parseConfig } = dist('config/load.js');
  const { startTilemirror } = dist('serve.js');
  const { BROWSER_ARGS, executableOf } = dist('services/renderer/browser.js');
  const { chromium } = require('playwright-core');
  const sharp = require('sharp');
  const config = parseConfig({ server: { host: '127.0.0.1', port: 0, requestLog: false }, data: path.join(ROOT, 'mirror'), keys: [{ key: 'demo', plan: 'paid' }], logLevel: 'warn' }, 'bench', ROOT, {});
  const srv = await startTilemirror(config);
  const browser = await chromium.launch({ executablePath: await executableOf('bundled'), headless: true, chromiumSandbox: false, args: BROWSER_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1280 } });
    await page.goto(`${srv.url}/assets/renderer.html`);
    await page.waitForFunction(() => globalThis.tilemirrorReady === true);
    const cdp = await page.context().newCDPSession(page);
    const times = { readPixels: [], toDataURL: [], screenshot: [] };
    for (let i = 0; i < frames; i++) {
      const view = { width: 1280, height: 1280, pixelRatio: 1, center: [10 + i, 45], zoom: 3, clip: { x: 0, y: 0, width: 1280, height: 1280 } };
      await page.evaluate(([u, v]) => globalThis.tilemirrorDraw(u, v), [`${srv.url}/maps/sample/style.json?key=demo`, view]);
      let t = performance.now();
      const b64 = await page.evaluate(() => {
        const canvas = document.querySelector('canvas');
        const gl = canvas.getContext('webgl2');
        const px = new Uint8Array(canvas.width * canvas.height * 4);
        gl.readPixels(0, 0, canvas.width, canvas.height, gl.RGBA, gl.UNSIGNED_BYTE, px);
        return new Promise((resolve) => {
          const fr = new FileReader();
          fr.onload = () => resolve(fr.result.slice(fr.result.indexOf(',') + 1));
          fr.readAsDataURL(new Blob([px]));
        });
      });
      Buffer.from(b64, 'base64');
      times.readPixels.push(performance.now() - t);
      t = performance.now();
      const url = await page.evaluate(() => document.querySelector('canvas').toDataURL('image/png'));
      await sharp(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')).raw().toBuffer();
      times.toDataURL.push(performance.now() - t);
      t = performance.now();
      const shot = await cdp.send('Page.captureScreenshot', { format: 'png', clip: { x: 0, y: 0, width: 1280, height: 1280, scale: 1 }, optimizeForSpeed: true, fromSurface: true });
      await sharp(Buffer.from(shot.data, 'base64')).raw().toBuffer();
      times.screenshot.push(performance.now() - t);
    }
    const median = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
    return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  } finally {
    await browser.close();
    await srv.close();
  }
}

/** Pids of the renderer browsers started by this process (their flag is the renderer's own). */
function rendererPids() {
  return procs()
    .filter((p) => p.ppid === process.pid)
    .filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0').includes('--use-angle=swiftshader');
      } catch {
        return false;
      }
    })
    .map((p) => p.pid);
}

function procs() {
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .flatMap((e) => {
      try {
        const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return [{ pid: Number(e), ppid: Number(f[1]), rss: Number(f[21]) * 4096 }];
      } catch {
        return [];
      }
    });
}

/** `pid` and every process under it. */
function tree(pid) {
  const all = procs();
  const out = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop();
    const found = all.find((q) => q.pid === p);
    if (found) out.push(found);
    stack.push(...all.filter((q) => q.ppid === p).map((q) => q.pid));
  }
  return out;
}

/** Resident set size (bytes) of `pid` and its descendants: shared pages counted in each. */
const treeRss = (pid) => tree(pid).reduce((s, p) => s + p.rss, 0);

/** Proportional set size (bytes) of `pid` and its descendants: shared pages counted once across them (smaps_rollup). */
function treePss(pid) {
  return tree(pid).reduce((s, p) => {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${p.pid}/smaps_rollup`, 'utf8'));
      return s + (m ? Number(m[1]) * 1024 : 0);
    } catch {
      return s;
    }
  }, 0);
}

async function one(browser, metatile, opts) {
  const { parseConfig } = dist('config/load.js');
  const { startTilemirror } = dist('serve.js');
  const config = parseConfig(
    {
      server: { host: '127.0.0.1', port: 0, requestLog: false },
      data: path.join(ROOT, 'mirror'),
      keys: [{ key: 'demo', plan: 'paid' }],
      logLevel: 'warn',
      render: { browser, browsers: opts.browsers, metatile, queue: 1000, deadlineSeconds: 120 },
    },
    'bench',
    ROOT,
    {},
  );
  const srv = await startTilemirror(config);
  try {
    const renderer = srv.services.renderer;
    if (!renderer.state().enabled) return { browser, metatile, skipped: renderer.state().reason };
    const styleVersion = srv.catalog.get('maps', 'sample').info.version;
    const base = { mapId: 'sample', styleVersion, tileSize: 256, scale: 1 };
    const z = opts.zoom;
    const side = 2 ** z;
    const x0 = Math.floor(side / 2 - opts.block / 2);
    const y0 = Math.floor(side / 2 - opts.block / 2) - Math.floor(opts.block / 4);
    let t = performance.now();
    await renderer.render({ ...base, z, x: x0 + opts.block, y: y0, format: 'png' });
    const coldMs = performance.now() - t;
    // The other browsers started and warm (each draws a tile outside the block), so the run measures drawing.
    await Promise.all(Array.from({ length: opts.browsers }, (_, i) => renderer.render({ ...base, z, x: x0 + opts.block, y: y0 + 4 + i * 4, format: 'png' })));
    const blocks = [];
    for (let y = y0; y < y0 + opts.block; y += metatile) for (let x = x0; x < x0 + opts.block; x += metatile) blocks.push([x, y]);
    t = performance.now();
    let tiles = 0;
    await Promise.all(
      Array.from({ length: opts.browsers }, async () => {
        while (blocks.length) {
          const [x, y] = blocks.shift();
          // Awaited before the sum: `tiles += await ...` would read `tiles` before the other browsers added theirs.
          const got = await renderer.renderMetatile({ ...base, z, x0: x, y0: y, n: metatile, formats: ['png'] });
          tiles += got.length;
        }
      }),
    );
    const seconds = (performance.now() - t) / 1000;
    const pids = rendererPids();
    const rssMb = pids.reduce((s, p) => s + treeRss(p), 0) / 1e6;
    const pssMb = pids.reduce((s, p) => s + treePss(p), 0) / 1e6;
    return { browser, metatile, coldMs, tiles, seconds, tilesPerSecond: tiles / seconds, processes: pids.length, rssMb, pssMb, state: renderer.state() };
  } finally {
    await srv.close();
  }
}

async function run(opts) {
  if (opts.readback > 0) {
    const r = await readback(opts.readback);
    console.log(`readback of a 1280² frame, median ms (decoded to raw pixels): readPixels + evaluate ${fmt(r.readPixels, 0)}, toDataURL ${fmt(r.toDataURL, 0)}, CDP screenshot ${fmt(r.screenshot, 0)}`);
  }
  const results = [];
  for (const browser of String(opts.chromium).split(',')) {
    for (const metatile of String(opts.metatiles).split(',').map(Number)) {
      const r = await one(browser, metatile, opts);
      results.push(r);
      console.log(r.skipped ? `${browser} metatile ${metatile}: skipped (${r.skipped})` : `${browser} metatile ${metatile}: ${fmt(r.tilesPerSecond, 2)} tiles/s, cold ${fmt(r.coldMs, 0)} ms, RSS ${fmt(r.rssMb, 0)} MB, PSS ${fmt(r.pssMb, 0)} MB`);
    }
  }
  console.log(
    table(
      ['browser', 'metatile', 'cold tile ms', 'tiles', 's', 'tiles/s', 'browsers', 'RSS MB (sum)', 'PSS MB (sum)'],
      results.filter((r) => !r.skipped).map((r) => [r.browser, r.metatile, fmt(r.coldMs, 0), r.tiles, fmt(r.seconds, 1), fmt(r.tilesPerSecond, 2), r.processes, fmt(r.rssMb, 0), fmt(r.pssMb, 0)]),
    ),
  );
  writeResults('render', { options: opts, results });
}

module.exports = { description: 'map renderer: 256 px tiles/s of the sample map, metatile 1 vs 4, bundled vs Debian Chromium, cold tile, browser RSS', options, run };
