'use strict';
// Benchmark `geolocation` (issue 10 item 9, the IP part of `npm run bench -- geocoding`):
//   in-process: full answers per second (DB-IP lookup, country facts and bounds, time zone) over deterministic
//   pseudo-random public addresses, first pass (every new position's time zone computed) and again (cached), and
//   for 5,000 recurring clients; the time to open both DB-IP files and the RSS they add;
//   server: `node dist/cli.js serve` start-up (first 200 from /health), RSS at start, the first geolocation answer
//   (reads the IPv4 file), RSS after, and the median of sequential requests through a trusted proxy's
//   X-Forwarded-For.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { startServer, waitReady, stop, freePort, measure } = require('./lib/processes');
const { table, markdownTable, fmt, writeResults } = require('./lib/report');

const ROOT = path.join(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');

const TARGETS = { lookupsPerSec: 50000, startMs: 1500 };

const options = {
  lookups: { default: 200000, help: 'addresses per in-process pass' },
  requests: { default: 1000, help: 'sequential HTTP requests for the median' },
};

async function timed(url, headers) {
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${body.slice(0, 200)}`);
  return performance.now() - t0;
}

async function run(opts) {
  const result = { machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? ''}`, targets: TARGETS };

  // 1. In process, in a fresh node.
  console.error(`geolocation: ${opts.lookups} in-process lookups per pass...`);
  const out = execFileSync(process.execPath, ['--expose-gc', path.join(__dirname, 'geolocation-inprocess.js'), String(opts.lookups)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  result.inProcess = JSON.parse(out.trim().split('\n').pop());

  // 2. The server.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tilemirror-bench-geolocation-'));
  const port = await freePort();
  const config = path.join(tmp, 'config.yaml');
  fs.writeFileSync(config, `server: { host: 127.0.0.1, port: ${port}, trustProxy: true, requestLog: false }\ndata: ${JSON.stringify(path.join(ROOT, 'mirror'))}\nkeys: [{ key: demo }]\nlogLevel: warn\n`);
  const child = startServer('tilemirror', process.execPath, [CLI, 'serve', '--config', config]);
  try {
    const base = `http://127.0.0.1:${port}`;
    result.server = { startMs: await waitReady(child, `${base}/health`, 30000) };
    result.server.rssStartMb = measure(child.pid).rssMb;
    const url = `${base}/geolocation/ip.json?key=demo`;
    result.server.firstAnswerMs = await timed(url, { 'X-Forwarded-For': '8.8.8.8' });
    result.server.rssAfterFirstMb = measure(child.pid).rssMb;
    await timed(url, { 'X-Forwarded-For': '2a00:1450:4001::1' });
    result.server.rssBothFilesMb = measure(child.pid).rssMb;
    const ms = [];
    for (let i = 0; i < opts.requests; i++) ms.push(await timed(url, { 'X-Forwarded-For': `${81 + (i % 100)}.${i % 250}.${(i * 7) % 250}.1` }));
    ms.sort((a, b) => a - b);
    result.server.medianMs = ms[Math.floor(ms.length / 2)];
    result.server.rssEndMb = measure(child.pid).rssMb;
  } finally {
    await stop(child);
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  const p = result.inProcess;
  const s = result.server;
  const head = ['what', 'value'];
  const rows = [
    ['lookups/s, first pass (new positions: time zone computed)', fmt(p.coldPerSec, 0)],
    ['lookups/s, same addresses again', fmt(p.warmPerSec, 0)],
    ['lookups/s, 5,000 recurring clients', fmt(p.repeatPerSec, 0)],
    ['addresses located by DB-IP', `${fmt((100 * p.located) / p.count, 1)} %`],
    ['open both DB-IP files ms', fmt(p.openMs, 0)],
    ['RSS added by the open files MB', fmt(p.rssOpenMb - p.rssBaseMb, 0)],
    ['RSS added after a pass over the world MB', fmt(p.rssEndMb - p.rssBaseMb, 0)],
    ['serve ready ms', fmt(s.startMs, 0)],
    ['serve RSS at start MB', fmt(s.rssStartMb, 0)],
    ['first answer ms (reads the IPv4 file)', fmt(s.firstAnswerMs, 0)],
    ['serve RSS, IPv4 and IPv6 files read MB', fmt(s.rssBothFilesMb, 0)],
    [`median ms over ${opts.requests} HTTP requests`, fmt(s.medianMs, 2)],
    ['serve RSS at the end MB', fmt(s.rssEndMb, 0)],
  ];
  result.checks = [
    { target: `lookups/s (same addresses again) >= ${TARGETS.lookupsPerSec}`, value: p.warmPerSec, pass: p.warmPerSec >= TARGETS.lookupsPerSec ? 'pass' : 'FAIL' },
    { target: `serve ready <= ${TARGETS.startMs} ms`, value: s.startMs, pass: s.startMs <= TARGETS.startMs ? 'pass' : 'FAIL' },
  ];
  console.log(`\ngeolocation benchmark: DB-IP Lite City, ${p.count} addresses per pass\nmachine: ${result.machine}\n`);
  console.log(table(head, rows));
  console.log('\ntargets:');
  for (const c of result.checks) console.log(`  ${c.pass.padEnd(4)}  ${c.target}: ${fmt(c.value, 0)}`);
  console.log('\nmarkdown:\n');
  console.log(markdownTable(head, rows));
  const file = writeResults('geolocation', result);
  console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
  return result;
}

module.exports = { description: 'IP geolocation: in-process lookups/s, RSS of the DB-IP files, serve start-up and first answer', options, run };
