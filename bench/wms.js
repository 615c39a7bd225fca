'use strict';
// `npm run bench -- wms`: WMS GetMap, tilemirror against MapProxy, in one run over the same MBTiles file.
//   tilemirror  the built CLI (dist/), `serve --workers N` over a data directory holding the sample map;
//   MapProxy    Debian's python3-mapproxy under gunicorn (N sync workers), a WMS layer whose cache is the same
//               .mbtiles file read in place (no source, nothing written), 512 px GLOBAL_WEBMERCATOR grid, its own
//               reprojection, the same kernel (bilinear unless --resampling);
// then
//   check       every request once on both servers: 200, a 1024 x 768 PNG, mostly opaque (a blank image would
//               be cheap and wrong);
//   accuracy    the first request of each CRS against gdalwarp of the same 512 px tiles at the level each server
//               read (tilemirror names it in X-Tilemirror-Source; MapProxy's own grid code gives its own), same
//               kernel, -et 0.125: mean absolute difference per channel;
//   load        wrk (one thread, a random request of the fixed list each time) at each concurrency, the two
//               servers one after the other at each point: requests/s, p50/p99, server CPU, load average.
// Every child is stopped at the end; the temporary folder is removed.

const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { ROOT } = require('./lib/store');
const { startServer, waitReady, stop, freePort, measure, waitIdle } = require('./lib/processes');
const { runWrk } = require('./lib/wrk');
const { mapproxyWmsFiles, ensureGunicornMapproxy, gunicornArgs, mapproxyLevels } = require('./lib/mapproxy-wms');
const { gdalwarpOracle, meanAbsDiff } = require('./lib/wms-oracle');
const { table, markdownTable, fmt, writeResults } = require('./lib/report');

const CLI = path.join(ROOT, 'dist', 'cli.js');
const SAMPLE = path.join(ROOT, 'mirror', 'maps', 'sample.mbtiles');
const KEY = 'demo';
const TARGET_RATIO = 3; // tilemirror >= 3x MapProxy's requests/s at equal or better accuracy

const options = {
  duration: { default: 5, help: 'seconds of each measured wrk run' },
  warmup: { default: 2, help: 'seconds of wrk warm-up before each measured run (random requests: every worker builds its PROJ pipelines)' },
  connections: { default: '2,4,8', help: 'wrk concurrencies (comma-separated)' },
  workers: { default: 2, help: 'worker processes of each server (tilemirror --workers, gunicorn --workers)' },
  resampling: { default: 'bilinear', help: 'kernel of both servers and of gdalwarp: nearest, bilinear or cubic' },
  'idle-wait': { default: 15, help: 'seconds to wait at most, before each measured point, for other processes to use < 0.3 core' },
  install: { default: true, help: 'apt-get install gunicorn, wrk, gdal-bin when missing' },
};

const WIDTH = 1024;
const HEIGHT = 768;
// [x0, y0, x1, y1] easting or longitude first (gdalwarp's -te); 4:3 like the image. The first of each CRS is the
// accuracy case.
const REQUESTS = [
  { crs: 'EPSG:2056', name: 'Switzerland', te: [2420000, 1030000, 2900000, 1390000] },
  { crs: 'EPSG:2056', name: 'western Switzerland', te: [2480000, 1080000, 2720000, 1260000] },
  { crs: 'EPSG:2056', name: 'eastern Switzerland', te: [2640000, 1150000, 2880000, 1330000] },
  { crs: 'EPSG:4326', name: 'Europe', te: [-12, 34, 32, 67] },
  { crs: 'EPSG:4326', name: 'western Europe', te: [-10, 40, 14, 58] },
  { crs: 'EPSG:4326', name: 'central Europe', te: [5, 42, 29, 60] },
];

/** The WMS 1.3.0 BBOX: EPSG:4326 is latitude first; EPSG:2056 easting first (its own axis order). */
const bbox130 = (r) => (r.crs === 'EPSG:4326' ? [r.te[1], r.te[0], r.te[3], r.te[2]] : r.te).join(',');

function getMap(r, layer) {
  const q = new URLSearchParams({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.3.0', LAYERS: layer, STYLES: '', CRS: r.crs, BBOX: bbox130(r), WIDTH: String(WIDTH), HEIGHT: String(HEIGHT), FORMAT: 'image/png', TRANSPARENT: 'TRUE' });
  return q.toString();
}

const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** One GET on a connection of its own (a new connection may reach another worker): status, headers, body. */
function get(url) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, timeout: 60000 }, (res) => {
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout: ${url}`)));
    req.on('error', reject);
  });
}

/** Fails unless `body` is a WIDTH x HEIGHT PNG with most pixels opaque; returns its opaque share and bytes. */
async function checkImage(server, r, res) {
  const sharp = require('sharp');
  if (res.status !== 200) throw new Error(`${server} ${r.crs} ${r.name}: HTTP ${res.status} ${res.body.toString('utf8', 0, 300)}`);
  const { data, info } = await sharp(res.body).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== WIDTH || info.height !== HEIGHT) throw new Error(`${server} ${r.crs} ${r.name}: ${info.width}x${info.height}, not ${WIDTH}x${HEIGHT}`);
  let opaque = 0;
  for (let i = 3; i < data.length; i += 4) if (data[i] === 255) opaque++;
  const share = opaque / (WIDTH * HEIGHT);
  if (share < 0.9) throw new Error(`${server} ${r.crs} ${r.name}: only ${fmt(share * 100, 0)} % of the image is opaque`);
  return { opaque: share, bytes: res.body.length };
}

/** Waits (at most 15 s) until the server's processes use less than 0.1 of a core. */
async function serverIdle(pid) {
  const t0 = Date.now();
  let last = measure(pid).cpuSeconds;
  while (Date.now() - t0 < 15000) {
    await new Promise((r) => setTimeout(r, 300));
    const now = measure(pid).cpuSeconds;
    if (now - last < 0.03) return;
    last = now;
  }
}

async function run(opts) {
  if (!['nearest', 'bilinear', 'cubic'].includes(opts.resampling)) throw new Error('--resampling: nearest, bilinear or cubic');
  if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: build first (npx tsc -p tsconfig.json)');
  if (!fs.existsSync(SAMPLE)) throw new Error('mirror/maps/sample.mbtiles is missing: run `npm run sample` first');
  const mp = ensureGunicornMapproxy({ install: opts.install });
  if (mp.reason) throw new Error(`MapProxy under gunicorn is not available: ${mp.reason}`);
  const connections = String(opts.connections).split(',').map(Number);
  const workers = Number(opts.workers);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tilemirror-bench-wms-'));
  process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  // One file for both servers: the data directory's maps/sample.mbtiles is MapProxy's cache too.
  const dataDir = path.join(tmp, 'data');
  fs.mkdirSync(path.join(dataDir, 'maps'), { recursive: true });
  const mbtiles = path.join(dataDir, 'maps', 'sample.mbtiles');
  fs.copyFileSync(SAMPLE, mbtiles);
  const maxzoom = Number(require(path.join(ROOT, 'node_modules', 'better-sqlite3'))(mbtiles, { readonly: true }).prepare("SELECT value FROM metadata WHERE name = 'maxzoom'").pluck().get());

  const tmPort = await freePort();
  const mpPort = await freePort();
  const tmConfig = path.join(tmp, 'tilemirror.yaml');
  fs.writeFileSync(
    tmConfig,
    ['# written by bench/wms.js', 'server:', '  host: 127.0.0.1', `  port: ${tmPort}`, '  requestLog: false', `data: ${JSON.stringify(dataDir)}`, 'keys:', `  - key: ${KEY}`, '    plan: paid', 'logLevel: warn', 'wms:', `  resampling: ${opts.resampling}`, ''].join('\n'),
  );
  const mpFiles = mapproxyWmsFiles(path.join(tmp, 'mapproxy'), { layer: 'sample', mbtiles, maxzoom, crs: ['EPSG:3857', ...new Set(REQUESTS.map((r) => r.crs))], resampling: opts.resampling });
  const tmOrigin = `http://127.0.0.1:${tmPort}`;
  const mpOrigin = `http://127.0.0.1:${mpPort}`;
  const servers = [
    { name: 'tilemirror', origin: tmOrigin, path: (r) => `/wms?key=${KEY}&${getMap(r, 'maps/sample')}` },
    { name: 'mapproxy', origin: mpOrigin, path: (r) => `/service?${getMap(r, 'sample')}` },
  ];

  const result = {
    name: 'wms',
    date: new Date().toISOString(),
    machine: `${os.cpus().length} x ${os.cpus()[0]?.model.trim()}, Node ${process.version}`,
    store: `mirror/maps/sample.mbtiles (512 px png, z0-${maxzoom})`,
    image: `${WIDTH}x${HEIGHT} image/png, WMS 1.3.0`,
    resampling: opts.resampling,
    workers,
    mapproxy: mp.version,
    requests: REQUESTS.map((r) => ({ ...r, bbox130: bbox130(r) })),
    loadavgStart: loadavg(),
  };
  console.error(`wms: ${result.store}, ${REQUESTS.length} GetMaps of ${WIDTH}x${HEIGHT}, ${workers} workers each; load average ${result.loadavgStart}`);

  const tm = startServer('tilemirror', process.execPath, [CLI, 'serve', '--config', tmConfig, '--data', dataDir, '--port', String(tmPort), '--host', '127.0.0.1', '--workers', String(workers)], { cwd: tmp });
  const mpChild = startServer('mapproxy', mp.gunicorn, gunicornArgs(mpFiles, { port: mpPort, workers }), { cwd: mpFiles.dir });
  servers[0].child = tm;
  servers[1].child = mpChild;
  try {
    await waitReady(tm, `${tmOrigin}/wms?key=${KEY}&SERVICE=WMS&REQUEST=GetCapabilities`);
    await waitReady(mpChild, `${mpOrigin}/service?SERVICE=WMS&REQUEST=GetCapabilities`);

    // Check: every request once on each server (this also builds PROJ's pipelines in each worker it reaches).
    result.check = [];
    const answers = new Map();
    for (const s of servers) {
      for (const r of REQUESTS) {
        const res = await get(s.origin + s.path(r));
        const c = await checkImage(s.name, r, res);
        answers.set(`${s.name} ${r.crs} ${r.name}`, res);
        result.check.push({ server: s.name, crs: r.crs, name: r.name, bytes: c.bytes, opaque: c.opaque, source: res.headers['x-tilemirror-source'] });
      }
    }
    console.error(`  check: ${result.check.length} images, all ${WIDTH}x${HEIGHT} PNG, >= 90 % opaque`);
    // Warm: each request 2 x workers times in a row, one at a time, so that every worker has built its PROJ
    // pipelines before it is measured (node's cluster hands connections round-robin; gunicorn's workers race for
    // them, so there it is likely rather than sure). Building one costs ~0.8 s of a core.
    const tWarm = performance.now();
    for (const s of servers) for (const r of REQUESTS) for (let i = 0; i < 2 * workers; i++) await get(s.origin + s.path(r));
    console.error(`  warm: each request ${2 * workers} times on each server (${fmt((performance.now() - tWarm) / 1000, 1)} s)`);

    // Accuracy: the first request of each CRS against gdalwarp at each server's level.
    const firsts = REQUESTS.filter((r, i) => REQUESTS.findIndex((q) => q.crs === r.crs) === i);
    const mpLevels = mapproxyLevels(mpFiles, firsts.map((r) => [r.crs, r.te, WIDTH, HEIGHT]));
    result.accuracy = [];
    const oracleDir = path.join(tmp, 'oracle');
    for (const [i, r] of firsts.entries()) {
      const tmSource = answers.get(`tilemirror ${r.crs} ${r.name}`).headers['x-tilemirror-source'];
      const m = /^maps\/sample (\S+) (\d+)$/.exec(String(tmSource));
      if (!m || m[1] !== '512') throw new Error(`tilemirror's X-Tilemirror-Source is ${tmSource}, expected maps/sample 512 <z>`);
      for (const [server, z] of [['tilemirror', Number(m[2])], ['mapproxy', mpLevels[i]]]) {
        const oracle = gdalwarpOracle({ dir: oracleDir, tileUrl: `${tmOrigin}/maps/sample/\${z}/\${x}/\${y}.png?key=${KEY}`, z, crs: r.crs, te: r.te, width: WIDTH, height: HEIGHT, resampling: opts.resampling });
        const d = await meanAbsDiff(answers.get(`${server} ${r.crs} ${r.name}`).body, oracle.file);
        result.accuracy.push({ server, crs: r.crs, name: r.name, level: z, ...d, gdal: oracle.gdal });
        result.gdal = oracle.gdal;
        console.error(`  accuracy ${server} ${r.crs} ${r.name} (z${z}): mean absolute difference R ${fmt(d.r, 2)} G ${fmt(d.g, 2)} B ${fmt(d.b, 2)} over ${fmt((d.pixels / d.ofPixels) * 100, 1)} % of the pixels`);
      }
    }

    // Load: both servers at each concurrency, one after the other.
    result.load = [];
    for (const c of connections) {
      for (const s of servers) {
        const others = await waitIdle(Number(opts['idle-wait']));
        const before = loadavg();
        let cpu0 = 0;
        let t0 = 0;
        const load = { origin: s.origin, paths: REQUESTS.map(s.path), connections: c, warmup: 0 };
        // Warm-up, then the images its connections left behind are finished (neither server stops drawing an image
        // whose client went away) before the measured run starts: they would count in its CPU, not in its requests.
        if (Number(opts.warmup) > 0) await runWrk({ ...load, duration: Number(opts.warmup) });
        await serverIdle(s.child.pid);
        const w = await runWrk({ ...load, duration: Number(opts.duration) }, {
          onPhase: () => {
            cpu0 = measure(s.child.pid).cpuSeconds;
            t0 = performance.now();
          },
        });
        const cores = (measure(s.child.pid).cpuSeconds - cpu0) / ((performance.now() - t0) / 1000);
        if (s.child.exitCode !== null || s.child.signalCode !== null) throw new Error(`${s.name} exited during the run:\n${s.child.stderrTail}`);
        const row = { server: s.name, connections: c, requestsPerSec: w.requestsPerSecMean, cpuMsPerImage: (cores * 1000) / w.requestsPerSecMean, p50Ms: w.latencyMs.p50, p99Ms: w.latencyMs.p99, requests: w.totalRequests, non2xx: w.non2xx, errors: w.errors + w.timeouts, bytesPerResponse: w.bytesPerResponse, serverCores: cores, othersCoresBefore: others, loadavgBefore: before, loadavgAfter: loadavg() };
        result.load.push(row);
        console.error(`  ${s.name} c${c}: ${fmt(row.requestsPerSec, 1)} req/s, p50 ${fmt(row.p50Ms, 0)} ms, p99 ${fmt(row.p99Ms, 0)} ms, server ${fmt(cores, 2)} cores (${fmt(row.cpuMsPerImage, 0)} CPU ms/image), load ${before} -> ${row.loadavgAfter}`);
        if (row.non2xx || row.errors) throw new Error(`${s.name} c${c}: ${row.non2xx} non-2xx, ${row.errors} errors`);
      }
    }
  } finally {
    await stop(tm);
    await stop(mpChild);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  result.loadavgEnd = loadavg();

  // Ratio and target: at each concurrency, then the best of each.
  const at = (server, c) => result.load.find((r) => r.server === server && r.connections === c);
  result.ratios = connections.map((c) => ({ connections: c, ratio: at('tilemirror', c).requestsPerSec / at('mapproxy', c).requestsPerSec }));
  const best = (server) => Math.max(...result.load.filter((r) => r.server === server).map((r) => r.requestsPerSec));
  result.bestRatio = best('tilemirror') / best('mapproxy');
  // On a shared machine the CPU each image costs is steadier than requests/s: MapProxy's CPU ms per image over
  // tilemirror's, the median over the concurrencies.
  const cpuMs = (server) => result.load.filter((r) => r.server === server).map((r) => r.cpuMsPerImage).sort((a, b) => a - b);
  const median = (xs) => xs[Math.floor(xs.length / 2)];
  result.cpuRatio = median(cpuMs('mapproxy')) / median(cpuMs('tilemirror'));
  const acc = (server) => result.accuracy.filter((a) => a.server === server);
  const accurate = result.accuracy.filter((a) => a.server === 'tilemirror').every((a) => a.mean <= acc('mapproxy').find((b) => b.crs === a.crs).mean);
  result.checks = [
    { target: `tilemirror >= ${TARGET_RATIO}x MapProxy's requests/s (best of each)`, value: result.bestRatio, pass: result.bestRatio >= TARGET_RATIO ? 'pass' : 'FAIL' },
    { target: "tilemirror's mean absolute difference to gdalwarp <= MapProxy's, every CRS", value: accurate, pass: accurate ? 'pass' : 'FAIL' },
  ];

  const head = ['server', 'c', 'req/s', 'p50 ms', 'p99 ms', 'server cores', 'CPU ms/image', 'KB/image', 'others\' cores before', 'load avg before'];
  const rows = result.load.map((r) => [r.server, r.connections, fmt(r.requestsPerSec, 1), fmt(r.p50Ms, 0), fmt(r.p99Ms, 0), fmt(r.serverCores, 2), fmt(r.cpuMsPerImage, 0), fmt(r.bytesPerResponse / 1024, 0), fmt(r.othersCoresBefore, 2), r.loadavgBefore]);
  const accHead = ['server', 'CRS', 'level', 'MAD R', 'MAD G', 'MAD B', 'MAD mean', 'pixels compared'];
  const accRows = result.accuracy.map((a) => [a.server, `${a.crs} ${a.name}`, `z${a.level}`, fmt(a.r, 2), fmt(a.g, 2), fmt(a.b, 2), fmt(a.mean, 2), `${fmt((a.pixels / a.ofPixels) * 100, 1)} %`]);
  console.log(`\nwms benchmark: ${result.image}, ${REQUESTS.length} requests (EPSG:2056 and EPSG:4326), ${result.store}, -r ${opts.resampling}`);
  console.log(`machine: ${result.machine}; ${result.mapproxy}; ${result.gdal}; ${workers} workers each; load average ${result.loadavgStart} -> ${result.loadavgEnd}\n`);
  console.log(table(head, rows));
  console.log(`\ntilemirror / MapProxy: ${result.ratios.map((r) => `c${r.connections} ${fmt(r.ratio, 2)}x`).join(', ')}; best of each ${fmt(result.bestRatio, 2)}x; CPU per image (MapProxy's / tilemirror's, median) ${fmt(result.cpuRatio, 2)}x\n`);
  console.log(table(accHead, accRows));
  console.log('\ntargets:');
  for (const c of result.checks) console.log(`  ${c.pass.padEnd(4)}  ${c.target}: ${typeof c.value === 'number' ? fmt(c.value, 2) : c.value}`);
  console.log('\nmarkdown:\n');
  console.log(markdownTable(head, rows));
  console.log('');
  console.log(markdownTable(accHead, accRows));
  const file = writeResults('wms', result);
  console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
  return result;
}

module.exports = { description: 'WMS GetMap 1024x768 in EPSG:2056 and 4326: tilemirror vs MapProxy (gunicorn) over the same MBTiles, req/s, p50/p99, accuracy against gdalwarp', options, run };
