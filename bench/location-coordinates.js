'use strict';
// Part of `npm run bench -- location` (bench/location.js runs every location-<part>.js): coordinates on a real `serve` over the sample (loopback HTTP, one
// request at a time, so a figure is one request's latency including HTTP):
//   coordinates: `serve` start time (spawn → /health 200), search p50/p99 over 1,000 varied queries, a 50-point
//   transform (cold: first request, PROJ loaded then; warm: p50/p99 by node:http keep-alive, the target's figure,
//   and p50 by fetch, each beside GET /health's p50 in the same run; the server's own mean from /metrics), and the RSS the coordinates service adds
//   (a server with its index and PROJ loaded against one whose indexDir is empty).

const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { startServer, waitReady, stop, freePort, measure } = require('./lib/processes');
const { fmt, table, writeResults } = require('./lib/report');

const ROOT = path.join(__dirname, '..');
const KEY = 'demo';

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function serve(name, indexDir) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-location-'));
  const port = await freePort();
  const config = path.join(dir, 'serve.json');
  fs.writeFileSync(
    config,
    JSON.stringify({ server: { host: '127.0.0.1', port, requestLog: false }, data: path.join(ROOT, 'mirror'), keys: [{ key: KEY, plan: 'paid' }], indexDir, logLevel: 'warn' }),
  );
  const child = startServer(name, process.execPath, [path.join(ROOT, 'dist', 'cli.js'), 'serve', '--config', config]);
  const readyMs = await waitReady(child, `http://127.0.0.1:${port}/health`, 30000);
  return { child, readyMs, url: `http://127.0.0.1:${port}`, dir };
}

async function timed(url) {
  const t0 = process.hrtime.bigint();
  const r = await fetch(url);
  await r.arrayBuffer();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 200) throw new Error(`${url}: HTTP ${r.status}`);
  return ms;
}

// node:http with one keep-alive connection: a client cheaper than fetch (undici), so the figure is closer to the
// server's own time; fetch is reported beside it, each with its own /health floor.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function timedHttp(url) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    http
      .get(url, { agent }, (r) => {
        r.resume();
        r.on('end', () => {
          const ms = Number(process.hrtime.bigint() - t0) / 1e6;
          if (r.statusCode !== 200) reject(new Error(`${url}: HTTP ${r.statusCode}`));
          else resolve(ms);
        });
      })
      .on('error', reject);
  });
}

/** The server's own time for the transform route (arrival to answer handed to the socket): sum and count from /metrics. */
async function serverTime(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (suffix) => Number((new RegExp(`tilemirror_http_request_duration_seconds_${suffix}\\{route="/coordinates/transform/:coordinates\\.json",class="2xx"\\} (\\S+)`).exec(text) ?? [])[1] ?? NaN);
  return { seconds: read('sum'), count: read('count') };
}

/** 1,000 queries: codes, names and aliases, partial words, filters, paging, exports. Deterministic. */
function searchQueries() {
  const words = ['wgs 84', 'mercator', 'web mercator', 'google', 'utm zone 33n', 'etrs89', 'lambert', 'nad83', 'osgb', 'swiss', 'ch1903',
    'krovak', 'gda2020', 'rd new', 'pulkovo', 'tokyo', 'ed50', 'amersfoort', 'mga zone 55', 'stereographic', 'albers', 'polar', 'conus',
    'texas', 'california zone 3', 'israel', 'sirgas', 'nzgd2000', 'hong kong', 'brazil', 'india', 'gauss kruger', 'transverse', 'ntf',
    'rgf93', 'lambert 93', 'dhdn', 'arctic', 'antarctic', 'sweref', 'euref', 'web', 'wgs', 'utm'];
  const filters = ['', ' kind:CRS', ' kind:CRS-PROJCRS', ' kind:CRS-GEOGCRS', ' kind:COORDOP', ' kind:DATUM', ' deprecated:*', ' trans:1'];
  const out = [];
  for (let i = 0; out.length < 1000; i++) {
    const k = i % 5;
    if (k === 0) out.push(`${[4326, 3857, 5514, 2056, 27700, 25833, 32633, 2154, 31467, 28992][i % 10]}`);
    else if (k === 1) out.push(`code:${2000 + ((i * 37) % 8000)}`);
    else {
      const w = words[(i * 7) % words.length];
      out.push(`${k === 4 ? w.slice(0, Math.max(3, w.length - 2)) : w}${filters[(i * 3) % filters.length]}`);
    }
  }
  return out.map((q, i) => `/coordinates/search/${encodeURIComponent(q)}.json?key=${KEY}${i % 10 === 9 ? '&limit=50&offset=10' : ''}${i % 25 === 24 ? '&exports=true' : ''}`);
}

function points50() {
  const pts = [];
  for (let i = 0; i < 50; i++) pts.push(`${(12.1 + (i % 10) * 0.66).toFixed(4)},${(48.6 + Math.floor(i / 10) * 0.4).toFixed(4)}`);
  return pts.join(';');
}

async function coordinates() {
  const results = {};
  // Without the service (empty indexDir): the baseline RSS and start time.
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-location-empty-'));
  const bare = await serve('serve-no-coordinates', empty);
  await timed(`${bare.url}/health`);
  results.rssWithoutMb = measure(bare.child.pid).rssMb;
  await stop(bare.child);

  const indexDir = path.join(ROOT, 'dist', 'indexes');
  if (!fs.existsSync(path.join(indexDir, 'coordinates.sqlite'))) throw new Error('no dist/indexes/coordinates.sqlite: run `npm run indexes` first');
  const s = await serve('serve', indexDir);
  results.readyMs = s.readyMs;

  const transformUrl = `${s.url}/coordinates/transform/${points50()}.json?s_srs=4326&t_srs=5514&key=${KEY}`;
  results.transformColdMs = await timed(transformUrl); // PROJ's worker thread starts here
  for (let i = 0; i < 50; i++) await timedHttp(transformUrl);
  // Interleaved with GET /health on the same server: the HTTP floor of this machine at this moment (the client,
  // loopback, the server's parsing and answer), so a busy machine shows as such. By node:http (keep-alive, the
  // figure the target is judged on) and by fetch; the server's own mean time from /metrics over the node:http run.
  const before = await serverTime(s.url);
  const tr = [];
  const floor = [];
  for (let i = 0; i < 500; i++) {
    tr.push(await timedHttp(transformUrl));
    floor.push(await timedHttp(`${s.url}/health`));
  }
  const after = await serverTime(s.url);
  results.serverMeanMs = ((after.seconds - before.seconds) / (after.count - before.count)) * 1000;
  const trFetch = [];
  const floorFetch = [];
  for (let i = 0; i < 300; i++) {
    trFetch.push(await timed(transformUrl));
    floorFetch.push(await timed(`${s.url}/health`));
  }
  for (const a of [tr, floor, trFetch, floorFetch]) a.sort((x, y) => x - y);
  results.transformP50Ms = pct(tr, 50);
  results.transformP99Ms = pct(tr, 99);
  results.httpFloorP50Ms = pct(floor, 50);
  results.transformFetchP50Ms = pct(trFetch, 50);
  results.httpFloorFetchP50Ms = pct(floorFetch, 50);

  const queries = searchQueries();
  for (const q of queries.slice(0, 50)) await timed(s.url + q); // warm the page cache of the index
  const se = [];
  for (const q of queries) se.push(await timed(s.url + q));
  se.sort((a, b) => a - b);
  results.searchP50Ms = pct(se, 50);
  results.searchP99Ms = pct(se, 99);
  results.searchMaxMs = se[se.length - 1];

  results.rssWithMb = measure(s.child.pid).rssMb;
  results.rssAddedMb = results.rssWithMb - results.rssWithoutMb;
  await stop(s.child);
  fs.rmSync(empty, { recursive: true, force: true });

  console.log('\ncoordinates (one request at a time over loopback HTTP; 2-core machine shared with other work)');
  console.log(
    table(
      ['measure', 'value', 'target'],
      [
        ['serve ready (spawn → /health 200), ms', fmt(results.readyMs, 0), '≤ 1,500'],
        ['search p50 over 1,000 queries, ms', fmt(results.searchP50Ms, 2), '≤ 5'],
        ['search p99, ms', fmt(results.searchP99Ms, 2), ''],
        ['transform 50 points, first (PROJ loads), ms', fmt(results.transformColdMs, 1), ''],
        ['transform 50 points p50 (warm), node:http keep-alive, ms', fmt(results.transformP50Ms, 2), '≤ 2'],
        ['transform 50 points p99 (warm), node:http keep-alive, ms', fmt(results.transformP99Ms, 2), ''],
        ['HTTP floor: GET /health p50, interleaved, node:http, ms', fmt(results.httpFloorP50Ms, 2), ''],
        ['transform server-side mean (arrival → answer written, /metrics), ms', fmt(results.serverMeanMs, 2), ''],
        ['transform 50 points p50 (warm), fetch, ms', fmt(results.transformFetchP50Ms, 2), ''],
        ['HTTP floor: GET /health p50, interleaved, fetch, ms', fmt(results.httpFloorFetchP50Ms, 2), ''],
        ['RSS without the coordinates service, MB', fmt(results.rssWithoutMb, 0), ''],
        ['RSS with it (index open, PROJ loaded), MB', fmt(results.rssWithMb, 0), ''],
        ['RSS added, MB', fmt(results.rssAddedMb, 0), '≤ 150'],
      ],
    ),
  );
  return results;
}

module.exports = {
  description: 'coordinates: search p50/p99, a 50-point transform cold and warm, RSS added, serve start',
  options: {},
  async run() {
    const data = { load: os.loadavg(), coordinates: await coordinates() };
    console.log(`\nresults: ${writeResults('location-coordinates', data)}`);
    return data;
  },
};
