'use strict';
// `npm run bench -- soak`: one `tilemirror serve` on the sample under a mixed workload for a long time (default 10
// minutes) at 80 % of the maximum the same mix reached just before (wrk, paced): errors, requests and p99 per
// minute, and the server's RSS at the start and the end (drift target < 10 %).
//   npm run bench -- soak --minutes 10 --connections 32 --load 0.8

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT } = require('./lib/store');
const { startServer, waitReady, stop, freePort, measure, cpuPinning } = require('./lib/processes');
const { runWrk } = require('./lib/wrk');
const { fmt, table, markdownTable, writeResults } = require('./lib/report');

const KEY = 'demo';
const CLI = path.join(ROOT, 'dist', 'cli.js');

const options = {
  minutes: { default: 10, help: 'minutes of paced load' },
  connections: { default: 32, help: 'concurrent connections' },
  load: { default: 0.8, help: 'fraction of the measured maximum offered during the soak' },
  'max-seconds': { default: 15, help: 'seconds of the full-speed run that measures the maximum' },
};

/** The mix, by weight (one path list; wrk picks uniformly, so a weight is a number of copies). */
function mixedPaths() {
  const k = `key=${KEY}`;
  const tiles = [];
  for (let z = 0; z <= 5; z++) for (let x = 0; x < 2 ** z; x++) for (let y = 0; y < 2 ** z; y++) tiles.push(`/maps/sample/${z}/${x}/${y}.png?${k}`, `/maps/sample/256/${z}/${x}/${y}.png?${k}`);
  const mix = [
    [tiles, 800],
    [[`/maps/sample/tiles.json?${k}`, `/tiles/sample-vector/tiles.json?${k}`, `/maps/sample/style.json?${k}`], 50],
    [[`/maps/sample/WMTSCapabilities.xml?${k}`, `/wmts/1.0.0/WMTSCapabilities.xml?${k}`, `/ogc/collections?${k}`], 30],
    [[`/maps/sample/static/8.54,47.37,5/300x200.png?${k}`, `/maps/sample/static/2.35,48.86,6/256x256.png?${k}`], 10],
    [[`/geocoding/Zurich.json?${k}`, `/geocoding/Paris.json?${k}`, `/geocoding/8.54,47.37.json?${k}`], 40],
    [[`/coordinates/search/mercator.json?${k}`, `/coordinates/search/4326.json?${k}`, `/coordinates/transform/17,50;17.1,50.1.json?s_srs=4326&t_srs=5514&${k}`], 40],
    [[`/elevation/8.2,46.8;7.5,46.5.json?${k}`, `/elevation/9.1,47.1.json?${k}`], 30],
  ];
  const out = [];
  for (const [paths, weight] of mix) for (let i = 0; i < weight; i++) out.push(paths[i % paths.length]);
  return { paths: out, unique: [...new Set(mix.flatMap(([p]) => p))], parts: mix.map(([p, w]) => ({ example: p[0], weight: w })) };
}

async function run(opts) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-soak-'));
  const port = await freePort();
  const config = path.join(tmp, 'serve.json');
  fs.writeFileSync(config, JSON.stringify({ server: { host: '127.0.0.1', port, requestLog: true }, data: path.join(ROOT, 'mirror'), keys: [{ key: KEY, plan: 'paid' }], logLevel: 'warn' }));
  const pin = cpuPinning();
  const cmd = pin ? 'taskset' : process.execPath;
  const args = [...(pin ? ['-c', pin.first, process.execPath] : []), CLI, 'serve', '--config', config];
  const child = startServer('soak', cmd, args, { cwd: tmp });
  const origin = `http://127.0.0.1:${port}`;
  const { paths, unique, parts } = mixedPaths();
  const minutes = [];
  try {
    await waitReady(child, `${origin}/health`, 30000);
    // Every path answers 200 before the run (so any error during it is the server's).
    for (const p of unique) {
      const r = await fetch(origin + p);
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`${p}: HTTP ${r.status} before the soak`);
    }
    const cpus = pin ? pin.last : undefined;
    const max = await runWrk({ origin, paths, connections: opts.connections, duration: opts['max-seconds'], warmup: 5 }, { cpus });
    const rate = Math.round(max.requestsPerSecMean * opts.load);
    console.error(`maximum of the mix: ${fmt(max.requestsPerSecMean, 0)} req/s (p99 ${fmt(max.latencyMs.p99, 1)} ms); soaking at ${fmt(rate, 0)} req/s for ${opts.minutes} min`);
    const rssStart = measure(child.pid).rssMb;
    // wrk paces each connection by a fixed pause, on top of the answer's own time: the rate offered is corrected
    // minute by minute towards the target from what the previous minute achieved.
    let offered = rate;
    for (let m = 1; m <= opts.minutes; m++) {
      const r = await runWrk({ origin, paths, connections: opts.connections, duration: 60, warmup: 0, rate: offered }, { cpus });
      offered = Math.round(offered * Math.min(2, Math.max(0.5, rate / Math.max(1, r.requestsPerSecMean))));
      const row = { minute: m, reqPerSec: r.requestsPerSecMean, p50: r.latencyMs.p50, p99: r.latencyMs.p99, max: r.latencyMs.max, errors: r.errors + r.timeouts, non2xx: r.non2xx, rssMb: measure(child.pid).rssMb };
      minutes.push(row);
      console.error(`  minute ${m}: ${fmt(row.reqPerSec, 0)} req/s, p99 ${fmt(row.p99, 2)} ms, errors ${row.errors}, non-2xx ${row.non2xx}, RSS ${fmt(row.rssMb, 0)} MB`);
    }
    const rssEnd = measure(child.pid).rssMb;
    const drift = (rssEnd - rssStart) / rssStart;
    const head = ['minute', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'non-2xx', 'RSS MB'];
    const rows = minutes.map((r) => [r.minute, fmt(r.reqPerSec, 0), fmt(r.p50, 2), fmt(r.p99, 2), fmt(r.max, 1), r.errors, r.non2xx, fmt(r.rssMb, 0)]);
    const errors = minutes.reduce((a, r) => a + r.errors + r.non2xx, 0);
    console.log(`\nsoak: ${opts.minutes} min at ${fmt(rate, 0)} req/s (${opts.load * 100} % of the mix's maximum ${fmt(max.requestsPerSecMean, 0)}), ${opts.connections} connections, wrk paced, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log('mix (weight per 1,000 requests): ' + parts.map((p) => `${p.weight} ${p.example.replace(/\?.*$/, '')}`).join(', '));
    console.log(table(head, rows));
    console.log(`\nRSS ${fmt(rssStart, 0)} → ${fmt(rssEnd, 0)} MB (drift ${fmt(drift * 100, 1)} %, target < 10 %); errors and non-2xx: ${errors}`);
    console.log('\n' + markdownTable(head, rows));
    const file = writeResults('soak', { date: new Date().toISOString(), opts, rate, max, rssStart, rssEnd, drift, minutes, parts, load: os.loadavg() });
    console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
    if (errors > 0 || drift >= 0.1) process.exitCode = 1;
  } finally {
    await stop(child);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

module.exports = { description: 'a long mixed workload at 80 % of its maximum: errors, p99 per minute, RSS drift', options, run };
