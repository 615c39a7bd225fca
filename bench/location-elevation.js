'use strict';
// Benchmark `location` (elevation part): `/elevation/{50 positions}.json` answered by `node dist/cli.js serve`
// (a child of this one on 127.0.0.1) from a copy of the sample terrain (z0-10 Terrain-RGB, 256 px PNG tiles).
//   path, cold: a 50-point profile (a ~25 km line) on a server just started, after one request elsewhere
//               (code warm, the profile's tiles never read nor decoded): one trial per fresh server.
//   path, warm: the same request again and again (tiles decoded and cached): median and p95.
//   scattered, cold: 50 positions spread over all of Switzerland (about 50 different z10 tiles): the worst case.

const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { ROOT } = require('./lib/store');
const { startServer, waitReady, stop, freePort } = require('./lib/processes');
const { table, markdownTable, fmt, writeResults } = require('./lib/report');

const CLI = path.join(ROOT, 'dist', 'cli.js');
const KEY = 'demo';
const TERRAIN = path.join(ROOT, 'mirror', 'tiles', 'sample-terrain.mbtiles');
const TARGETS = { coldMs: 20, warmMs: 5 };

const options = {
  cold: { default: 10, help: 'cold trials (a fresh server each)' },
  warm: { default: 300, help: 'warm requests timed' },
};

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const median = (xs) => percentile([...xs].sort((a, b) => a - b), 50);

/** 50 positions on a line of about 25 km, shifted by `trial` so each cold trial starts on other tiles. */
function profile(trial) {
  const lon0 = 6.3 + (trial % 5) * 0.8;
  const lat0 = 46.0 + Math.floor(trial / 5) * 0.6;
  return Array.from({ length: 50 }, (_, i) => [+(lon0 + i * 0.006).toFixed(5), +(lat0 + i * 0.002).toFixed(5)]);
}

/** 50 positions on a 10 x 5 grid over the whole sample bounds (5.9-10.5 E, 45.8-47.8 N). */
function scattered() {
  const out = [];
  for (let j = 0; j < 5; j++) for (let i = 0; i < 10; i++) out.push([+(6.0 + i * 0.49).toFixed(4), +(45.9 + j * 0.45).toFixed(4)]);
  return out;
}

const urlOf = (origin, positions) => `${origin}/elevation/${positions.map((p) => p.join(',')).join(';')}.json?key=${KEY}`;

// node:http on a keep-alive connection: fetch (undici) adds a few milliseconds of its own per request here.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function get(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function timed(url) {
  const t0 = performance.now();
  const { status, body } = await get(url);
  const ms = performance.now() - t0;
  if (status !== 200) throw new Error(`${url}: HTTP ${status} ${body.slice(0, 200)}`);
  const answer = JSON.parse(body);
  if (!Array.isArray(answer) || answer.length !== 50 || !answer.every((a) => a.length === 3 && Number.isFinite(a[2]))) throw new Error(`${url}: unexpected answer ${body.slice(0, 200)}`);
  return ms;
}

async function withServer(dataDir, tmp, fn) {
  const port = await freePort();
  const config = path.join(tmp, 'tilemirror.yaml');
  fs.writeFileSync(config, ['# written by bench/location-elevation.js', 'server:', '  host: 127.0.0.1', `  port: ${port}`, '  requestLog: false', `data: ${JSON.stringify(dataDir)}`, 'keys:', `  - key: ${KEY}`, 'logLevel: warn', ''].join('\n'));
  const origin = `http://127.0.0.1:${port}`;
  const child = startServer('tilemirror', process.execPath, [CLI, 'serve', '--config', config], { cwd: tmp });
  try {
    await waitReady(child, `${origin}/health`);
    // Code warm: one request far from the measured tiles (answered from the z0-z1 tiles).
    await get(`${origin}/elevation/-100,20.json?key=${KEY}`);
    return await fn(origin);
  } finally {
    await stop(child);
  }
}

async function run(opts) {
  if (!fs.existsSync(TERRAIN)) throw new Error('the elevation benchmark needs the sample terrain: run `npm run sample` first');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tilemirror-bench-elevation-'));
  process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const dataDir = path.join(tmp, 'data');
  fs.mkdirSync(path.join(dataDir, 'tiles'), { recursive: true });
  fs.copyFileSync(TERRAIN, path.join(dataDir, 'tiles', 'sample-terrain.mbtiles'));
  // Cold figures swing with whatever else runs on the machine (libvips decodes want the cores): say how busy it was.
  const result = { name: 'location-elevation', date: new Date().toISOString(), machine: `${os.cpus().length} x ${os.cpus()[0]?.model.trim()}, Node ${process.version}`, loadBefore: os.loadavg()[0] };
  try {
    const cold = [];
    const scatteredCold = [];
    let warm = [];
    for (let t = 0; t < opts.cold; t++) {
      await withServer(dataDir, tmp, async (origin) => {
        cold.push(await timed(urlOf(origin, profile(t))));
        scatteredCold.push(await timed(urlOf(origin, scattered())));
        if (t === 0) {
          const url = urlOf(origin, profile(t));
          for (let i = 0; i < 20; i++) await timed(url);
          for (let i = 0; i < opts.warm; i++) warm.push(await timed(url));
        }
      });
      console.error(`  cold trial ${t + 1}: path ${fmt(cold[t], 1)} ms, scattered ${fmt(scatteredCold[t], 1)} ms`);
    }
    warm = warm.sort((a, b) => a - b);
    result.pathCold = { trials: cold.length, medianMs: median(cold), maxMs: Math.max(...cold), all: cold };
    result.scatteredCold = { trials: scatteredCold.length, medianMs: median(scatteredCold), maxMs: Math.max(...scatteredCold), all: scatteredCold };
    result.pathWarm = { requests: warm.length, medianMs: percentile(warm, 50), p95Ms: percentile(warm, 95) };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  result.loadAfter = os.loadavg()[0];
  const head = ['50-point elevation request', 'median ms', 'p95 / max ms'];
  const rows = [
    ['profile (~25 km line), cold tiles', fmt(result.pathCold.medianMs, 1), fmt(result.pathCold.maxMs, 1)],
    ['profile, warm tiles', fmt(result.pathWarm.medianMs, 2), fmt(result.pathWarm.p95Ms, 2)],
    ['scattered over Switzerland (~50 tiles), cold', fmt(result.scatteredCold.medianMs, 1), fmt(result.scatteredCold.maxMs, 1)],
  ];
  result.checks = [
    { target: `cold <= ${TARGETS.coldMs} ms (profile, median)`, value: result.pathCold.medianMs, pass: result.pathCold.medianMs <= TARGETS.coldMs ? 'pass' : 'FAIL' },
    { target: `warm <= ${TARGETS.warmMs} ms (median)`, value: result.pathWarm.medianMs, pass: result.pathWarm.medianMs <= TARGETS.warmMs ? 'pass' : 'FAIL' },
  ];
  console.log(`\nelevation benchmark: /elevation with 50 positions over the sample terrain (z0-10, 256 px PNG)\nmachine: ${result.machine}; load average ${fmt(result.loadBefore, 1)} before, ${fmt(result.loadAfter, 1)} after\n`);
  console.log(table(head, rows));
  console.log('\ntargets:');
  for (const c of result.checks) console.log(`  ${c.pass.padEnd(4)}  ${c.target}: ${fmt(c.value, 2)}`);
  console.log('\nmarkdown:\n');
  console.log(markdownTable(head, rows));
  const file = writeResults('location-elevation', result);
  console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
  return result;
}

module.exports = { description: 'elevation: a 50-point request, cold and warm tiles', options, run };
