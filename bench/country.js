'use strict';
// `npm run bench -- country`: a country of data. A synthetic OpenMapTiles-schema vector tile set the size of a
// country (lib/country-store.js: 250,000 z14 tiles and their parents, 5.3 M labels, ~5.5 GB at --scale 1,
// generated once and cached under .bench/country/), then:
//   labels    the label index built from it through its tile reader, alone in a child process: labels/s (wall
//             and per CPU second), peak RSS;
//   geocode   forward geocoding of known-answer queries (address, street, POI, place; the generator's record of
//             what it placed) and reverse geocoding of the addresses, in process, top-1 right and p50/p99;
//   serving   one `serve` over the country and the sample map: tile p99 at a paced load while the server builds
//             the label index in the background, and again once it is built (idle); then the full tile rate
//             (wrk) of random country tiles against random sample tiles, same server, same run;
//   plan      `tilemirror plan` of the world at z0-14 and a 60 s `tilemirror mirror` of the world at z0-12 from
//             bench/big-upstream.js: RSS over time, and the resume state (the staging file's mirror tables) per
//             million tiles.
// Every child is stopped at the end; temporary folders are removed; the generated country stays in the cache.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ROOT } = require('./lib/store');
const { startServer, waitReady, stop, freePort, measure } = require('./lib/processes');
const { runWrk } = require('./lib/wrk');
const { ensureCountry } = require('./lib/country-store');
const { table, markdownTable, fmt, writeResults } = require('./lib/report');

const CLI = path.join(ROOT, 'dist', 'cli.js');
const EXIT_STATS = path.join(__dirname, 'lib', 'exit-stats.js');
const KEY = 'demo';
const PARTS = ['labels', 'geocode', 'serving', 'plan'];

const TARGETS = {
  labelsPerSec: 50_000,
  buildRssMb: 400,
  buildP99VsIdle: 2,
  forwardP50Ms: 5,
  forwardP99Ms: 30,
  top1: 0.95,
  reverseP50Ms: 2,
  servingVsSample: 0.8,
  planRssMb: 300,
};

const options = {
  scale: { default: 1, help: 'size of the country: 1 is 250,000 z14 tiles (5.3 M labels, ~5.5 GB); 0.01 for development' },
  buildings: { default: 1100, help: 'filler buildings a tile (sets the tile weight: 1100 gives ~16 KB gzipped)' },
  towns: { default: 0, help: 'cut the country into this many towns (a square number) with the same street and POI names each: names recur as in a real country (0: every name unique)' },
  only: { default: PARTS.join(','), help: `parts to run (${PARTS.join(', ')})` },
  queries: { default: 200, help: 'known-answer queries of each kind (address, street, POI, place)' },
  duration: { default: 10, help: 'seconds of each wrk run' },
  rate: { default: 500, help: 'requests/s of the paced tile load during and after the label build' },
  'plan-seconds': { default: 60, help: 'seconds the z0-12 world mirror runs before SIGINT' },
};

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const uptime = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Runs a node child to its end; resolves with its stdout. */
function runChild(args, { env, timeoutMs = 3 * 3600_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}`));
      else resolve(out);
    });
  });
}

async function buildLabels(country, indexFile) {
  const out = await runChild([path.join(__dirname, 'lib', 'country-labels.js'), '--store', country.store, '--out', indexFile]);
  return JSON.parse(out.split('\n').find((l) => l.startsWith('COUNTRY_JSON ')).slice(13)).build;
}

async function geocode(country, indexFile) {
  const out = await runChild([path.join(__dirname, 'lib', 'country-labels.js'), '--out', indexFile, '--queries', path.join(country.dir, 'manifest.json')]);
  return JSON.parse(out.split('\n').find((l) => l.startsWith('COUNTRY_JSON ')).slice(13)).queries;
}

/** Random tile paths: country tiles at z12-14 (where the data is), sample tiles of its 512 px pyramid z0-5. */
function countryPaths(manifest, n) {
  const { area } = manifest;
  const out = [];
  let s = 12345;
  const r = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296);
  for (let i = 0; i < n; i++) {
    const z = i % 4 === 0 ? 12 + (i % 3) : 14;
    const d = 2 ** (14 - z);
    const x = Math.floor((area.x0 + r() * area.side) / d);
    const y = Math.floor((area.y0 + r() * area.side) / d);
    out.push(`/tiles/country/${z}/${x}/${y}.pbf?key=${KEY}`);
  }
  return out;
}

function samplePaths() {
  const out = [];
  for (let z = 0; z <= 5; z++) for (let x = 0; x < 2 ** z; x++) for (let y = 0; y < 2 ** z; y++) out.push(`/maps/sample/${z}/${x}/${y}.png?key=${KEY}`);
  return out;
}

async function startServe(tmp, dataDir) {
  const port = await freePort();
  const config = path.join(tmp, 'tilemirror.yaml');
  fs.writeFileSync(config, ['server:', '  host: 127.0.0.1', `  port: ${port}`, '  requestLog: true', `data: ${JSON.stringify(dataDir)}`, 'keys:', `  - key: ${KEY}`, 'logLevel: info', ''].join('\n'));
  const child = startServer('tilemirror', process.execPath, [CLI, 'serve', '--config', config]);
  const origin = `http://127.0.0.1:${port}`;
  await waitReady(child, `${origin}/health`);
  return { child, origin };
}

/** A data directory of the country and the sample map, hard links to the cached files (same bytes, no copy). */
function dataDirOf(tmp, country) {
  const data = path.join(path.dirname(country.store), '..', `.run-${process.pid}`);
  fs.rmSync(data, { recursive: true, force: true });
  fs.mkdirSync(path.join(data, 'tiles'), { recursive: true });
  fs.linkSync(country.store, path.join(data, 'tiles', 'country.mbtiles'));
  const sample = path.join(ROOT, 'mirror', 'maps', 'sample.mbtiles');
  if (!fs.existsSync(sample)) throw new Error('mirror/maps/sample.mbtiles is missing: npm run sample');
  fs.mkdirSync(path.join(data, 'maps'));
  fs.copyFileSync(sample, path.join(data, 'maps', 'sample.mbtiles'));
  process.once('exit', () => fs.rmSync(data, { recursive: true, force: true }));
  return data;
}

/** The tile cache's counters from /metrics (hits, misses, bytes held). */
async function tileCacheOf(origin) {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const value = (re) => Number(re.exec(text)?.[1] ?? NaN);
  return {
    hits: value(/^tilemirror_tile_cache_requests_total\{result="hit"\} (\S+)/m),
    misses: value(/^tilemirror_tile_cache_requests_total\{result="miss"\} (\S+)/m),
    bytes: value(/^tilemirror_tile_cache_bytes\{state="used"\} (\S+)/m),
  };
}

/** The page size of a store file (16 KB for stores our writer makes; 4 KB for older ones). */
function pageSizeOf(file) {
  const Database = require('better-sqlite3');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.pragma('page_size', { simple: true });
  } finally {
    db.close();
  }
}

async function serving(opts, tmp, country, builtIndex) {
  const data = dataDirOf(tmp, country);
  const paths = countryPaths(country.manifest, 20000);
  // Map clients (MapLibre, browsers) accept gzip: vector tiles go out as stored. Without it every country tile is
  // inflated per request, which the full-rate comparison also shows (`plain`).
  const GZIP = ['Accept-Encoding: gzip'];
  const wrk = (origin, p, extra) => runWrk({ origin, paths: p, connections: 8, duration: opts.duration, warmup: 1, headers: GZIP, ...extra });
  const out = { pageSize: { country: pageSizeOf(country.store), sample: pageSizeOf(path.join(data, 'maps', 'sample.mbtiles')) } };
  // (1) During the build: a fresh server on a data directory without the index builds it in the background.
  let srv = await startServe(tmp, data);
  try {
    await new Promise((r) => setTimeout(r, 2000));
    const during = await wrk(srv.origin, paths, { rate: opts.rate });
    const stillBuilding = !fs.existsSync(path.join(data, '.labels', 'country.sqlite'));
    out.duringBuild = { p50: during.latencyMs.p50, p99: during.latencyMs.p99, rps: during.requestsPerSecMean, non2xx: during.non2xx, stillBuilding, rssMb: measure(srv.child.pid).rssMb };
  } finally {
    await stop(srv.child);
  }
  // (2) Idle: the index already built (the child's, copied in), the same paced load. Without it (`--only serving`
  // before any labels run), a file where the index folder goes keeps the server from building one: its build
  // would otherwise take the other core for the whole full-rate comparison, away from wrk and the server.
  fs.rmSync(path.join(data, '.labels'), { recursive: true, force: true });
  const indexed = !!builtIndex && fs.existsSync(builtIndex);
  if (indexed) {
    fs.mkdirSync(path.join(data, '.labels'));
    fs.copyFileSync(builtIndex, path.join(data, '.labels', 'country.sqlite'));
  } else {
    fs.writeFileSync(path.join(data, '.labels'), 'no label index: the bench holds the build off\n');
  }
  srv = await startServe(tmp, data);
  try {
    await new Promise((r) => setTimeout(r, 2000));
    const idle = await wrk(srv.origin, paths, { rate: opts.rate });
    out.idle = { p50: idle.latencyMs.p50, p99: idle.latencyMs.p99, rps: idle.requestsPerSecMean, non2xx: idle.non2xx, indexed };
    // (3) Full rate, 64 connections: sample, country, sample, country (the best of each).
    const rates = { sample: [], country: [], plain: [] };
    for (const round of [0, 1]) {
      for (const [name, p, headers] of [['sample', samplePaths(), GZIP], ['country', paths, GZIP], ['plain', paths, []]]) {
        const c0 = await tileCacheOf(srv.origin);
        // The server's CPU time per answered tile over the measured run: on a shared machine the rate follows the
        // other processes' load, the CPU a tile costs much less so.
        let cpu0 = 0;
        const r = await runWrk({ origin: srv.origin, paths: p, connections: 64, duration: opts.duration, warmup: 2, headers }, { onPhase: () => (cpu0 = measure(srv.child.pid).cpuSeconds) });
        const cpuUs = ((measure(srv.child.pid).cpuSeconds - cpu0) / r.totalRequests) * 1e6;
        const c1 = await tileCacheOf(srv.origin);
        // Hits among this run's lookups (warm-up included; a plain tile looks up its stored and its inflated copy).
        const hitShare = (c1.hits - c0.hits) / (c1.hits - c0.hits + c1.misses - c0.misses);
        const mbps = (r.requestsPerSecMean * r.bytesPerResponse) / 1e6;
        rates[name].push({ rps: r.requestsPerSecMean, mbps, p99: r.latencyMs.p99, non2xx: r.non2xx, errors: r.errors, kb: r.bytesPerResponse / 1024, cpuUs, hitShare, cacheMb: c1.bytes / 1e6, load: uptime() });
        console.error(`- ${name} tiles, round ${round + 1}: ${fmt(r.requestsPerSecMean, 0)} req/s, ${fmt(mbps, 1)} MB/s, p99 ${fmt(r.latencyMs.p99, 2)} ms, ${fmt(r.bytesPerResponse / 1024, 1)} KB a response, ${fmt(cpuUs, 0)} µs of server CPU a tile, tile cache hits ${fmt(hitShare * 100, 0)} % (load ${uptime()})`);
      }
    }
    const best = (a) => a.reduce((m, r) => (r.rps > m.rps ? r : m));
    out.rates = { sample: best(rates.sample), country: best(rates.country), plain: best(rates.plain), rounds: rates };
    out.rssMb = measure(srv.child.pid).rssMb;
  } finally {
    await stop(srv.child);
  }
  return out;
}

/** Samples a child's RSS every 500 ms until it exits; SIGINT after `interruptMs`. */
function runSampled(args, { interruptMs, env } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    let err = '';
    const samples = [];
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
    const sampler = setInterval(() => {
      try {
        samples.push({ t: (Date.now() - t0) / 1000, rssMb: measure(child.pid).rssMb });
      } catch {
        /* exiting */
      }
    }, 500);
    const timer = interruptMs ? setTimeout(() => child.kill('SIGINT'), interruptMs) : undefined;
    const hard = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), (interruptMs ?? 600_000) + 120_000);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearInterval(sampler);
      clearTimeout(timer);
      clearTimeout(hard);
      resolve({ code: code ?? signal, out, err, samples, seconds: (Date.now() - t0) / 1000 });
    });
  });
}

/** Bytes of the staging file's mirror tables (the resume state: per-tile validators, empty tiles, state), by dbstat. */
function resumeStateBytes(file) {
  const Database = require('better-sqlite3');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare("SELECT name, SUM(pgsize) AS bytes FROM dbstat WHERE name LIKE 'tilemirror_mirror_%' OR name LIKE 'sqlite_autoindex_tilemirror_mirror_%' GROUP BY name").all();
    const tiles = db.prepare('SELECT count(*) FROM tiles').pluck().get();
    return { tables: Object.fromEntries(rows.map((r) => [r.name, r.bytes])), bytes: rows.reduce((a, r) => a + r.bytes, 0), tiles, fileBytes: fs.statSync(file).size };
  } finally {
    db.close();
  }
}

async function plan(opts, tmp) {
  const port = await freePort();
  const up = startServer('big upstream', process.execPath, [path.join(__dirname, 'big-upstream.js'), '--port', String(port), '--maxzoom', '14'], { cwd: tmp });
  const origin = `http://127.0.0.1:${port}`;
  const out = {};
  try {
    await waitReady(up, `${origin}/tiles/big/tiles.json`);
    const stats = path.join(tmp, 'plan.json');
    const p = await runSampled(['-r', EXIT_STATS, CLI, 'plan', '--upstream', origin, '--zoom', '0-14', '--key', KEY, 'tiles/big'], { env: { BENCH_EXIT_STATS: stats } });
    const m = /tiles\/big: (\d+) tiles/.exec(p.out);
    const st = JSON.parse(fs.readFileSync(stats, 'utf8'));
    out.planZ14 = { code: p.code, tiles: m ? Number(m[1]) : undefined, seconds: p.seconds, peakRssMb: st.maxRssKb / 1024 };
    console.error(`- plan of the world z0-14: ${out.planZ14.tiles} tiles in ${fmt(p.seconds, 2)} s, peak RSS ${fmt(out.planZ14.peakRssMb, 0)} MB`);
    const data = path.join(tmp, 'world');
    const stats2 = path.join(tmp, 'mirror.json');
    const r = await runSampled(['-r', EXIT_STATS, CLI, 'mirror', '--upstream', origin, '--data', data, '--zoom', '0-12', '--concurrency', '16', '--key', KEY, 'tiles/big'], {
      interruptMs: opts['plan-seconds'] * 1000,
      env: { BENCH_EXIT_STATS: stats2 },
    });
    const st2 = JSON.parse(fs.readFileSync(stats2, 'utf8'));
    const staging = path.join(data, 'tiles', '.big.mbtiles.staging');
    const state = fs.existsSync(staging) ? resumeStateBytes(staging) : undefined;
    const s = r.samples;
    const firstHalf = s.filter((x) => x.t < r.seconds / 2 && x.t > 5);
    const secondHalf = s.filter((x) => x.t >= r.seconds / 2);
    out.mirrorZ12 = {
      code: r.code,
      seconds: r.seconds,
      tiles: state?.tiles,
      tilesPerSec: state ? state.tiles / r.seconds : undefined,
      peakRssMb: st2.maxRssKb / 1024,
      rssFirstHalfMaxMb: Math.max(...firstHalf.map((x) => x.rssMb)),
      rssSecondHalfMaxMb: Math.max(...secondHalf.map((x) => x.rssMb)),
      resumeStateBytes: state?.bytes,
      resumeStateBytesPerMillion: state ? (state.bytes / state.tiles) * 1e6 : undefined,
      stagingFileBytes: state?.fileBytes,
      stateTables: state?.tables,
    };
    console.error(
      `- mirror of the world z0-12, SIGINT after ${opts['plan-seconds']} s (exit ${r.code}): ${state?.tiles} tiles, peak RSS ${fmt(out.mirrorZ12.peakRssMb, 0)} MB ` +
        `(max ${fmt(out.mirrorZ12.rssFirstHalfMaxMb, 0)} MB in the first half, ${fmt(out.mirrorZ12.rssSecondHalfMaxMb, 0)} MB in the second), resume state ${fmt(out.mirrorZ12.resumeStateBytesPerMillion / 1e6, 1)} MB per million tiles`,
    );
    fs.rmSync(data, { recursive: true, force: true });
  } finally {
    await stop(up);
  }
  return out;
}

async function run(opts) {
  const parts = String(opts.only).split(',').filter(Boolean);
  for (const p of parts) if (!PARTS.includes(p)) throw new Error(`unknown part ${p} (use ${PARTS.join(', ')})`);
  if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: npm run build');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tilemirror-bench-country-'));
  process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const results = { scale: opts.scale, cores: os.availableParallelism(), load: {} };
  console.error(`country: scale ${opts.scale} (load ${uptime()})`);
  const country = await ensureCountry({ scale: opts.scale, buildings: opts.buildings, towns: opts.towns, queries: opts.queries });
  const m = country.manifest;
  results.store = { dir: country.dir, cached: country.cached, tiles: m.tiles, z14Tiles: m.z14Tiles, gb: m.storeBytes / 1e9, meanTileKb: m.tileBytes / m.tiles / 1024, labels: m.labelsTotal, byType: m.labels, generateSeconds: m.generateSeconds };
  console.error(`- store: ${m.tiles} tiles (${m.z14Tiles} at z14), ${fmt(m.storeBytes / 1e9, 2)} GB, mean tile ${fmt(m.tileBytes / m.tiles / 1024, 1)} KB, ${m.labelsTotal} labels; generated in ${fmt(m.generateSeconds, 0)} s${country.cached ? ' (cached)' : ''}`);
  const indexFile = path.join(country.dir, `labels-${require('./lib/country-store').GENERATOR}.sqlite`);
  if (parts.includes('labels')) {
    results.load.labels = uptime();
    const b = await buildLabels(country, indexFile);
    results.labels = { ...b, labelsPerSec: b.labels / b.wallSeconds, labelsPerCpuSec: b.labels / b.cpuSeconds };
    console.error(
      `- label build: ${b.labels} labels from ${b.tiles} tiles in ${fmt(b.wallSeconds, 1)} s (${fmt(b.cpuSeconds, 1)} CPU s): ${fmt(b.labels / b.wallSeconds, 0)} labels/s, ` +
        `${fmt(b.labels / b.cpuSeconds, 0)} per CPU second; peak RSS ${fmt(b.peakRssMb, 0)} MB; index ${fmt(b.bytes / 1e6, 0)} MB (load ${uptime()})`,
    );
  }
  if (parts.includes('geocode')) {
    if (!fs.existsSync(indexFile)) throw new Error('geocode needs the label index: run the labels part first');
    results.load.geocode = uptime();
    results.geocode = await geocode(country, indexFile);
    for (const [kind, g] of Object.entries(results.geocode.forward)) {
      console.error(`- forward ${kind}: top-1 right ${g.right}/${g.n}, p50 ${fmt(g.p50, 2)} ms, p99 ${fmt(g.p99, 2)} ms${g.wrong.length ? `; wrong e.g. ${JSON.stringify(g.wrong[0])}` : ''}`);
    }
    const rv = results.geocode.reverse;
    console.error(`- reverse: right ${rv.right}/${rv.n}, p50 ${fmt(rv.p50, 2)} ms, p99 ${fmt(rv.p99, 2)} ms (load ${uptime()})`);
  }
  if (parts.includes('serving')) {
    results.load.serving = uptime();
    results.serving = await serving(opts, tmp, country, indexFile);
    const s = results.serving;
    console.error(
      `- tiles at ${opts.rate} req/s: p99 ${fmt(s.duringBuild.p99, 2)} ms while the index builds${s.duringBuild.stillBuilding ? '' : ' (WARNING: the build ended during the run)'}, ${fmt(s.idle?.p99, 2)} ms idle; ` +
        `full rate: country ${fmt(s.rates?.country.rps, 0)} req/s, sample ${fmt(s.rates?.sample.rps, 0)} req/s (${fmt((s.rates?.country.rps / s.rates?.sample.rps) * 100, 0)} %)`,
    );
  }
  if (parts.includes('plan')) {
    results.load.plan = uptime();
    results.plan = await plan(opts, tmp);
  }

  // ---- report ----
  const rows = [];
  const row = (what, figure, target, ok) => rows.push([what, figure, target, ok === undefined ? '' : ok ? 'pass' : 'FAIL']);
  if (results.labels) {
    const l = results.labels;
    row('label build, labels/s (wall)', fmt(l.labelsPerSec, 0), `>= ${TARGETS.labelsPerSec}`, l.labelsPerSec >= TARGETS.labelsPerSec);
    row('label build, labels per CPU second', fmt(l.labelsPerCpuSec, 0), '', undefined);
    row('label build, wall / peak RSS', `${fmt(l.wallSeconds, 0)} s / ${fmt(l.peakRssMb, 0)} MB`, `RSS <= ${TARGETS.buildRssMb} MB`, l.peakRssMb <= TARGETS.buildRssMb);
  }
  if (results.geocode) {
    for (const [kind, g] of Object.entries(results.geocode.forward)) {
      row(`forward ${kind}: top-1 right`, `${fmt((g.right / g.n) * 100, 1)} %`, `>= ${TARGETS.top1 * 100} %`, g.right / g.n >= TARGETS.top1);
      row(`forward ${kind}: p50 / p99`, `${fmt(g.p50, 2)} / ${fmt(g.p99, 2)} ms`, `<= ${TARGETS.forwardP50Ms} / ${TARGETS.forwardP99Ms} ms`, g.p50 <= TARGETS.forwardP50Ms && g.p99 <= TARGETS.forwardP99Ms);
    }
    const rv = results.geocode.reverse;
    row('reverse p50 (address right)', `${fmt(rv.p50, 2)} ms (${rv.right}/${rv.n})`, `<= ${TARGETS.reverseP50Ms} ms`, rv.p50 <= TARGETS.reverseP50Ms);
  }
  if (results.serving) {
    const s = results.serving;
    if (s.idle) row(`tile p99 during the build vs idle (${opts.rate} req/s)`, `${fmt(s.duringBuild.p99, 2)} / ${fmt(s.idle.p99, 2)} ms`, `<= ${TARGETS.buildP99VsIdle}x`, s.duringBuild.p99 <= TARGETS.buildP99VsIdle * s.idle.p99);
    if (s.rates) {
      row(
        `tiles/s, country vs sample (gzip accepted; pages ${s.pageSize.country / 1024} / ${s.pageSize.sample / 1024} KB)`,
        `${fmt(s.rates.country.rps, 0)} / ${fmt(s.rates.sample.rps, 0)} (${fmt((s.rates.country.rps / s.rates.sample.rps) * 100, 0)} %)`,
        `>= ${TARGETS.servingVsSample}`,
        s.rates.country.rps >= TARGETS.servingVsSample * s.rates.sample.rps,
      );
      const cpu = (a) => Math.min(...a.map((x) => x.cpuUs));
      row('server CPU a tile, country / sample (least of the rounds)', `${fmt(cpu(s.rates.rounds.country), 0)} / ${fmt(cpu(s.rates.rounds.sample), 0)} µs (sample / country ${fmt((cpu(s.rates.rounds.sample) / cpu(s.rates.rounds.country)) * 100, 0)} %)`, '', undefined);
      row('MB/s, country vs sample (KB a tile)', `${fmt(s.rates.country.mbps, 1)} / ${fmt(s.rates.sample.mbps, 1)} (${fmt(s.rates.country.kb, 1)} / ${fmt(s.rates.sample.kb, 1)})`, '', undefined);
      row('tile cache hits, country / sample (MB held)', `${fmt(s.rates.country.hitShare * 100, 0)} / ${fmt(s.rates.sample.hitShare * 100, 0)} % (${fmt(s.rates.country.cacheMb, 0)} MB)`, '', undefined);
      row('tiles/s, country, gzip not accepted (inflated per request)', fmt(s.rates.plain.rps, 0), '', undefined);
    }
  }
  if (results.plan) {
    const p = results.plan;
    row('plan, world z0-14: tiles / peak RSS', `${fmt(p.planZ14.tiles, 0)} / ${fmt(p.planZ14.peakRssMb, 0)} MB`, `<= ${TARGETS.planRssMb} MB`, p.planZ14.peakRssMb <= TARGETS.planRssMb);
    row(`mirror, world z0-12, ${opts['plan-seconds']} s: peak RSS (1st / 2nd half max)`, `${fmt(p.mirrorZ12.peakRssMb, 0)} MB (${fmt(p.mirrorZ12.rssFirstHalfMaxMb, 0)} / ${fmt(p.mirrorZ12.rssSecondHalfMaxMb, 0)})`, `<= ${TARGETS.planRssMb} MB, flat`, p.mirrorZ12.peakRssMb <= TARGETS.planRssMb);
    row('resume state per million tiles', `${fmt(p.mirrorZ12.resumeStateBytesPerMillion / 1e6, 1)} MB`, '', undefined);
  }
  const head = ['what', 'figure', 'target', ''];
  console.log(table(head, rows));
  console.log(markdownTable(head, rows));
  writeResults('country', { options: opts, results });
}

module.exports = { description: 'a country of synthetic vector tiles: label build, geocoding, serving, world plan', options, run };
