'use strict';
// `npm run bench -- grid-tiles`: tiles of the grids besides Web Mercator, once kept, against the Web Mercator tiles
// of the same map, served by one tilemirror (`serve --workers N`, the built CLI) over a copy of the sample map.
//   prepare   the sample map's tiles in Swiss LV95 (an operator's grid, EPSG:2056, with 512 px tiles) and EuropeanETRS89_LAEAQuad
//             (EPSG:3035) drawn and kept by `tilemirror render maps/sample --grid NAME` (its default matrices: as
//             fine as the map's deepest tiles);
//   check     every path once: 200 image/png, the grid tiles answered from the kept GeoPackage
//             (X-Tilemirror-Source: kept);
//   load      wrk (one thread, a random path of the list per request) at each concurrency over the WMTS RESTful
//             tiles: every stored Web Mercator tile of the map (512 px) and those over Switzerland, every kept LV95
//             (here with 512 px tiles: like for like with those over Switzerland) and LAEA (256 px) tile;
//             requests/s, p50/p99, server cores. Target: kept grid tiles at >= 0.9 of the rate of the Web Mercator tiles of the same land.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ROOT } = require('./lib/store');
const { startServer, waitReady, stop, freePort, measure, waitIdle } = require('./lib/processes');
const { runWrk } = require('./lib/wrk');
const { table, markdownTable, fmt, writeResults } = require('./lib/report');

const CLI = path.join(ROOT, 'dist', 'cli.js');
const SAMPLE = path.join(ROOT, 'mirror', 'maps', 'sample.mbtiles');
const KEY = 'demo';
const TARGET = 0.9;
/** Swiss LV95 as swisstopo defines it: the tests' operator grid. */
const LV95 = require('../test/fixtures/grid-lv95.json');
/** LV95 with 512 px tiles: kept tiles of the size of the map's stored Web Mercator tiles, for a like-for-like rate. */
const LV95_512 = { ...LV95, id: 'LV95_512', tileSize: 512 };
const GRIDS = ['LV95_512', 'EuropeanETRS89_LAEAQuad'];

const options = {
  duration: { default: 5, help: 'seconds of each measured wrk run' },
  warmup: { default: 2, help: 'seconds of wrk warm-up before each measured run' },
  connections: { default: '8,32', help: 'wrk concurrencies (comma-separated)' },
  workers: { default: 2, help: 'worker processes of the server (serve --workers)' },
  rounds: { default: 3, help: 'rounds over every set and concurrency; each figure is the median of its rounds (one 5 s point on 2 shared cores moves by ±20 %)' },
  'idle-wait': { default: 15, help: 'seconds to wait at most, before each measured point, for other processes to use < 0.3 core' },
};

const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Lon/lat of Switzerland (EPSG:2056's area of use): the Web Mercator tiles over the same land as the LV95 ones. */
const SWITZERLAND = [5.96, 45.82, 10.49, 47.81];

/** Column or row of lon/lat at zoom z (Web Mercator). */
const tileX = (lon, z) => Math.floor(((lon + 180) / 360) * 2 ** z);
const tileY = (lat, z) => {
  const r = (lat * Math.PI) / 180;
  return Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * 2 ** z);
};

/**
 * Every tile of the sample's stored Web Mercator pyramid (512 px, the only one it holds) as WMTS RESTful paths; with
 * `area` (lon/lat), only the tiles over it.
 */
function mercatorPaths(mbtiles, area) {
  const db = require(path.join(ROOT, 'node_modules', 'better-sqlite3'))(mbtiles, { readonly: true });
  const meta = Object.fromEntries(db.prepare('SELECT name, value FROM metadata').all().map((r) => [r.name, r.value]));
  db.close();
  const [min, max] = [Number(meta.minzoom), Number(meta.maxzoom)];
  const set = `GoogleMapsCompatible512-z${min}-${max}`;
  const out = [];
  for (let z = min; z <= max; z++) {
    const [x0, x1, y0, y1] = area ? [tileX(area[0], z), tileX(area[2], z), tileY(area[3], z), tileY(area[1], z)] : [0, 2 ** z - 1, 0, 2 ** z - 1];
    for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) out.push(`/wmts/1.0.0/maps/sample/default/${set}/${z}/${y}/${x}.png?key=${KEY}`);
  }
  return out;
}

/** The kept tiles of a grid as WMTS RESTful paths, read from the GeoPackage the pre-render filled. */
function keptPaths(dataDir, grid) {
  const dir = path.join(dataDir, '.grids', 'maps', 'sample', grid);
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.gpkg'));
  const db = require(path.join(ROOT, 'node_modules', 'better-sqlite3'))(path.join(dir, file), { readonly: true });
  const rows = db.prepare('SELECT zoom_level AS z, tile_row AS r, tile_column AS c FROM tiles_map_png').all();
  db.close();
  return rows.map((t) => `/wmts/1.0.0/maps/sample/default/${grid}/${t.z}/${t.r}/${t.c}.png?key=${KEY}`);
}

async function run(opts) {
  if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: build first (npm run build)');
  const connections = String(opts.connections).split(',').map(Number);
  const workers = Number(opts.workers);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tilemirror-bench-grids-'));
  process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const dataDir = path.join(tmp, 'data');
  fs.mkdirSync(path.join(dataDir, 'maps'), { recursive: true });
  const mbtiles = path.join(dataDir, 'maps', 'sample.mbtiles');
  fs.copyFileSync(SAMPLE, mbtiles);
  const port = await freePort();
  const config = path.join(tmp, 'tilemirror.json');
  fs.writeFileSync(config, JSON.stringify({ server: { host: '127.0.0.1', port, requestLog: false }, data: dataDir, keys: [{ key: KEY, plan: 'paid' }], logLevel: 'warn', render: { enabled: false }, grids: [LV95_512, 'EuropeanETRS89_LAEAQuad'] }));

  const result = { name: 'grid-tiles', date: new Date().toISOString(), machine: `${os.cpus().length} x ${os.cpus()[0]?.model.trim()}, Node ${process.version}`, workers, loadavgStart: loadavg(), prepare: [] };
  for (const grid of GRIDS) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [CLI, 'render', 'maps/sample', '--grid', grid, '--config', config], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`render --grid ${grid} failed (${r.status}): ${r.stderr}`);
    const done = /done, (\d+) tiles drawn, (\d+) in the plan \(zooms (\d+)-(\d+)\)/.exec(r.stderr);
    result.prepare.push({ grid, tiles: Number(done?.[2]), zooms: done ? `${done[3]}-${done[4]}` : '', seconds: (performance.now() - t0) / 1000 });
    console.error(`grid-tiles: ${grid}: ${done?.[2]} tiles drawn and kept (matrices ${done?.[3]}-${done?.[4]}) in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  }
  const sets = [
    { name: 'Web Mercator 512 px', paths: mercatorPaths(mbtiles) },
    { name: 'Web Mercator 512 px over Switzerland', paths: mercatorPaths(mbtiles, SWITZERLAND) },
    ...GRIDS.map((g) => ({ name: `${g} kept`, grid: true, paths: keptPaths(dataDir, g) })),
  ];
  const origin = `http://127.0.0.1:${port}`;
  const server = startServer('tilemirror', process.execPath, [CLI, 'serve', '--config', config, '--workers', String(workers)], { cwd: tmp });
  result.load = [];
  try {
    await waitReady(server, `${origin}/health/live`);
    for (const s of sets) {
      for (const p of s.paths) {
        const res = await fetch(origin + p);
        const body = Buffer.from(await res.arrayBuffer());
        if (res.status !== 200 || res.headers.get('content-type') !== 'image/png' || body.length === 0) throw new Error(`${s.name} ${p}: ${res.status} ${res.headers.get('content-type')}`);
        if (s.grid && res.headers.get('x-tilemirror-source') !== 'kept') throw new Error(`${s.name} ${p}: not kept (${res.headers.get('x-tilemirror-source')})`);
      }
      console.error(`  check ${s.name}: ${s.paths.length} tiles, 200 image/png${s.grid ? ', every one kept' : ''}`);
    }
    for (let round = 1; round <= Number(opts.rounds); round++) {
      for (const c of connections) {
        for (const s of sets) {
          const others = await waitIdle(Number(opts['idle-wait']));
          let cpu0 = 0;
          let t0 = 0;
          const w = await runWrk(
            { origin, paths: s.paths, connections: c, duration: Number(opts.duration), warmup: Number(opts.warmup) },
            {
              onPhase: () => {
                cpu0 = measure(server.pid).cpuSeconds;
                t0 = performance.now();
              },
            },
          );
          const cores = (measure(server.pid).cpuSeconds - cpu0) / ((performance.now() - t0) / 1000);
          const row = { round, set: s.name, connections: c, tiles: s.paths.length, requestsPerSec: w.requestsPerSecMean, p50Ms: w.latencyMs.p50, p99Ms: w.latencyMs.p99, bytesPerResponse: w.bytesPerResponse, serverCores: cores, non2xx: w.non2xx, errors: w.errors + w.timeouts, othersCoresBefore: others, loadavg: loadavg() };
          result.load.push(row);
          console.error(`  ${s.name} c${c}: ${fmt(row.requestsPerSec, 0)} req/s, p50 ${fmt(row.p50Ms, 2)} ms, p99 ${fmt(row.p99Ms, 2)} ms, server ${fmt(cores, 2)} cores, load ${row.loadavg}`);
          if (row.non2xx || row.errors) throw new Error(`${s.name} c${c}: ${row.non2xx} non-2xx, ${row.errors} errors`);
        }
      }
    }
  } finally {
    await stop(server);
  }
  result.loadavgEnd = loadavg();
  // Each figure: the median over the rounds of that set and concurrency.
  const median = (values) => {
    const v = [...values].sort((a, b) => a - b);
    return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  };
  const rowsOf = (set, c) => result.load.filter((r) => r.set === set && r.connections === c);
  const rate = (set, c) => median(rowsOf(set, c).map((r) => r.requestsPerSec));
  // Like for like: each grid against the Web Mercator tiles of the same land and tile size where there is one
  // (LV95_512's 512 px tiles of Switzerland, whose PNGs weigh alike), else against the whole pyramid.
  const baseline = { LV95_512: 'Web Mercator 512 px over Switzerland', EuropeanETRS89_LAEAQuad: 'Web Mercator 512 px' };
  const roundRatios = (g, c) => rowsOf(`${g} kept`, c).map((r) => r.requestsPerSec / rowsOf(baseline[g], c).find((b) => b.round === r.round).requestsPerSec);
  result.ratios = connections.flatMap((c) => GRIDS.map((g) => ({ connections: c, grid: g, against: baseline[g], ratio: rate(`${g} kept`, c) / rate(baseline[g], c), rounds: roundRatios(g, c) })));
  const worst = Math.min(...result.ratios.map((r) => r.ratio));
  result.checks = [{ target: `kept grid tiles >= ${TARGET} of the rate of the Web Mercator tiles they are compared with, every grid and concurrency`, value: worst, pass: worst >= TARGET ? 'pass' : 'FAIL' }];

  const head = ['tiles', 'c', 'paths', 'req/s', 'p50 ms', 'p99 ms', 'KB/tile', 'server cores', 'CPU µs/tile', 'others\' cores before'];
  const rows = connections.flatMap((c) =>
    sets.map((s) => {
      const rs = rowsOf(s.name, c);
      const m = (f) => median(rs.map(f));
      return [s.name, c, s.paths.length, fmt(m((r) => r.requestsPerSec), 0), fmt(m((r) => r.p50Ms), 2), fmt(m((r) => r.p99Ms), 2), fmt(m((r) => r.bytesPerResponse) / 1024, 1), fmt(m((r) => r.serverCores), 2), fmt(m((r) => (r.serverCores / r.requestsPerSec) * 1e6), 1), fmt(Math.max(...rs.map((r) => r.othersCoresBefore)), 2)];
    }),
  );
  console.log(`\ngrid-tiles benchmark: the sample map's WMTS tiles, ${workers} workers; machine ${result.machine}; load average ${result.loadavgStart} -> ${result.loadavgEnd}\n`);
  console.log(table(head, rows));
  console.log(`\nkept / Web Mercator (medians of ${opts.rounds} rounds; each round's in brackets): ${result.ratios.map((r) => `${r.grid} c${r.connections} ${fmt(r.ratio, 2)} [${r.rounds.map((v) => fmt(v, 2)).join(', ')}] (of ${r.against})`).join('; ')}`);
  console.log('\ntargets:');
  for (const c of result.checks) console.log(`  ${c.pass.padEnd(4)}  ${c.target}: ${fmt(c.value, 2)}`);
  console.log('\nmarkdown:\n');
  console.log(markdownTable(head, rows));
  const file = writeResults('grid-tiles', result);
  console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
  return result;
}

module.exports = { description: 'tiles of other grids once kept (LV95, EuropeanETRS89_LAEAQuad) against the Web Mercator tiles of the same map: req/s, p50/p99 (target >= 0.9)', options, run };
