'use strict';
// `npm run bench -- geocoding`: quality and speed of the gazetteer geocoder, on the lists committed under
// bench/quality/ (written from general knowledge, not from the index):
//   forward  200 well-known places (native names, typos, "name, context"): top-1 has the expected country and lies
//            within 30 km of the expected position
//   reverse  200 points on land: the country answered is the expected one
// Latency is the service called in-process (the gazetteer opened as `serve` opens it), after one warm-up pass;
// RSS is a real `serve` process's after it answered every query over HTTP. `--build` rebuilds the index into a
// temporary directory first and times it (the install does the same once).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ROOT } = require('./lib/store');
const { fmt, table, markdownTable, writeResults } = require('./lib/report');

const QUALITY = path.join(__dirname, 'quality');

function readList(file) {
  return fs
    .readFileSync(path.join(QUALITY, file), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split('\t'));
}

function km(a, b) {
  const r = Math.PI / 180;
  const h = Math.sin(((b[1] - a[1]) * r) / 2) ** 2 + Math.cos(a[1] * r) * Math.cos(b[1] * r) * Math.sin(((b[0] - a[0]) * r) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function timed(fn) {
  const t = process.hrtime.bigint();
  const value = fn();
  return { value, ms: Number(process.hrtime.bigint() - t) / 1e6 };
}

function duMb(dir) {
  let total = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) total += fs.statSync(p).size;
    }
  };
  walk(dir);
  return total / 1e6;
}

async function serverRss(indexDir, forward, reverse) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-geocoding-'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const config = path.join(dir, 'config.json');
  fs.writeFileSync(config, JSON.stringify({ server: { host: '127.0.0.1', port, requestLog: false }, data: path.join(ROOT, 'mirror'), indexDir, keys: [{ key: 'demo' }], logLevel: 'warn' }));
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), 'serve', '--config', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100; i++) {
      try {
        if ((await fetch(`${base}/health`)).ok) break;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const [q] of forward) await (await fetch(`${base}/geocoding/${encodeURIComponent(q)}.json?key=demo`)).arrayBuffer();
    for (const [lon, lat] of reverse) await (await fetch(`${base}/geocoding/${lon},${lat}.json?key=demo`)).arrayBuffer();
    const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
  } finally {
    child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = {
  description: 'geocoding quality (200 forward, 200 reverse) and speed over the gazetteer',
  options: {
    build: { default: false, help: 'rebuild the gazetteer into a temporary directory first and time it' },
    rss: { default: true, help: 'measure the RSS of a serve process that answered every query' },
  },
  async run(opts) {
    const { DEFAULT_INDEX_DIR } = require(path.join(ROOT, 'dist', 'config', 'load.js'));
    const { buildGazetteerIndex, gazetteerPackageDirs } = require(path.join(ROOT, 'dist', 'services', 'geocoding', 'gazetteer-index.js'));
    const { GeocodingService } = require(path.join(ROOT, 'dist', 'services', 'geocoding', 'service.js'));
    let indexDir = DEFAULT_INDEX_DIR;
    let build;
    let tmp;
    if (opts.build) {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-gazetteer-'));
      build = await buildGazetteerIndex(tmp);
      indexDir = tmp;
    } else {
      build = await buildGazetteerIndex(indexDir);
    }
    const service = new GeocodingService({ indexDir });
    const forward = readList('geocoding-forward.tsv');
    const reverse = readList('geocoding-reverse.tsv');
    const fopts = { language: [], limit: 5, fuzzyMatch: true, autocomplete: true };
    // warm-up pass (page cache, statement caches)
    for (const [q] of forward) service.forward(q, fopts);
    for (const [lon, lat] of reverse) service.reverse(Number(lon), Number(lat), { language: [] });

    const slow = [];
    const fTimes = [];
    const misses = [];
    let fRight = 0;
    for (const [q, cc, lon, lat] of forward) {
      const { value, ms } = timed(() => service.forward(q, fopts));
      fTimes.push(ms);
      slow.push([ms, `forward ${q}`]);
      const top = value.features[0];
      const ok = top && top.properties.country_code === cc.toLowerCase() && km(top.center, [Number(lon), Number(lat)]) <= 30;
      if (ok) fRight++;
      else misses.push(`forward ${q}: ${top ? `${top.place_name} [${top.center}]` : 'nothing'}`);
    }
    const rTimes = [];
    let rRight = 0;
    for (const [lon, lat, cc] of reverse) {
      const { value, ms } = timed(() => service.reverse(Number(lon), Number(lat), { language: [] }));
      rTimes.push(ms);
      slow.push([ms, `reverse ${lon},${lat}`]);
      const country = value.features.find((f) => f.place_type[0] === 'country');
      if (country && country.properties.country_code === cc.toLowerCase()) rRight++;
      else misses.push(`reverse ${lon},${lat} (${cc}): ${country ? country.properties.country_code : 'no country'}`);
    }
    fTimes.sort((a, b) => a - b);
    rTimes.sort((a, b) => a - b);
    service.close();
    const rss = opts.rss ? await serverRss(indexDir, forward, reverse) : undefined;
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });

    const dataMb = gazetteerPackageDirs().reduce((s, d) => s + duMb(d), 0);
    const rows = [
      ['forward top-1 right', `${fmt((100 * fRight) / forward.length, 1)} %`, '>= 95 %', (100 * fRight) / forward.length >= 95],
      ['reverse country right', `${fmt((100 * rRight) / reverse.length, 1)} %`, '>= 99 %', (100 * rRight) / reverse.length >= 99],
      ['forward p50 ms', fmt(percentile(fTimes, 50), 2), '<= 5', percentile(fTimes, 50) <= 5],
      ['forward p99 ms', fmt(percentile(fTimes, 99), 2), '<= 30', percentile(fTimes, 99) <= 30],
      ['reverse p50 ms', fmt(percentile(rTimes, 50), 2), '<= 2', percentile(rTimes, 50) <= 2],
      ['reverse p99 ms', fmt(percentile(rTimes, 99), 2), '', true],
      ['serve RSS MB (index loaded, all queries answered)', rss === undefined ? 'n/a' : fmt(rss, 0), '<= 400', rss === undefined || rss <= 400],
      [build.built ? 'index build s' : 'index build s (was current: --build to time it)', fmt(build.seconds, 1), '<= 120', !build.built || build.seconds <= 120],
      ['index MB', fmt(build.mb, 1), '', true],
      ['npm data MB (the four packages, unpacked)', fmt(dataMb, 0), '', true],
    ];
    console.log(table(['measure', 'value', 'target', 'pass'], rows.map((r) => [r[0], r[1], r[2], r[3] ? 'pass' : 'FAIL'])));
    console.log(`\nslowest: ${slow.sort((a, b) => b[0] - a[0]).slice(0, 6).map(([ms, q]) => `${q} ${fmt(ms, 1)} ms`).join('; ')}`);
    if (misses.length) console.log(`\nmisses:\n  ${misses.join('\n  ')}`);
    console.log(`\n${markdownTable(['measure', 'value', 'target'], rows.map((r) => r.slice(0, 3)))}`);
    const file = writeResults('geocoding', { rows, misses, build });
    console.log(`\nresults: ${file}`);
  },
};
