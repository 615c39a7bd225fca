'use strict';
// Benchmark `static`: static map images rendered by tilemirror (`node dist/cli.js serve`, one process, a child of
// this one on 127.0.0.1): a 512x512 png of the sample map with a 100-point path and 10 markers.
//   latency: median and p95 over N sequential renders; throughput: images/s with 2 requests in flight;
//   memory: the server's RSS sampled over 1,000 renders (start, peak, end, and the growth over the second half).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { resolveStore, ROOT } = require('./lib/store');
const { startServer, waitReady, stop, freePort, measure } = require('./lib/processes');
const { table, markdownTable, fmt, writeResults } = require('./lib/report');

const CLI = path.join(ROOT, 'dist', 'cli.js');
const KEY = 'demo';

const TARGETS = {
  medianMs: 40,
  /** "RSS flat": growth over the second half of the memory run, after the caches have filled. */
  rssGrowthMb: 10,
};

const options = {
  renders: { default: 200, help: 'sequential renders timed for median and p95' },
  concurrent: { default: 200, help: 'renders for the images/s run (2 in flight)' },
  memory: { default: 1000, help: 'renders over which RSS is sampled' },
  warmup: { default: 20, help: 'renders before measuring (not counted)' },
  store: { default: '', help: 'a map store <data>/maps/<id>.mbtiles (default: mirror/maps/sample.mbtiles)' },
};

/** A 100-point path (a spiral around Central Europe) as an encoded polyline, and 10 markers. */
function scene() {
  const { encodePolyline } = require(path.join(ROOT, 'dist', 'geo', 'polyline.js'));
  const pts = [];
  for (let i = 0; i < 100; i++) {
    const t = (i / 99) * 6 * Math.PI;
    const r = 1 + (i / 99) * 9;
    pts.push([Math.round((10 + r * Math.cos(t)) * 1e5) / 1e5, Math.round((48 + 0.7 * r * Math.sin(t)) * 1e5) / 1e5]);
  }
  const colours = ['red', 'blue', 'green', '%23ff8800', 'purple', 'black', '%2300aaff', 'rgba(200,0,100,0.8)', 'Label', 'yellow'];
  const markers = colours.map((c, i) => `${(2 + i * 2).toFixed(1)},${(44 + (i % 4) * 2).toFixed(1)},${c}`).join('|');
  return `path=stroke:%23cc0033|width:3|enc:${encodeURIComponent(encodePolyline(pts))}&markers=${markers}`;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

async function fetchImage(url) {
  const t0 = performance.now();
  const res = await fetch(url);
  const body = Buffer.from(await res.arrayBuffer());
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${body.toString('utf8').slice(0, 200)}`);
  if (res.headers.get('content-type') !== 'image/png') throw new Error(`${url}: Content-Type ${res.headers.get('content-type')}`);
  return { ms, bytes: body.length, body };
}

async function run(opts) {
  const source = resolveStore(opts.store || undefined);
  if (source.standIn) throw new Error('the static benchmark needs real tiles: run `npm run sample` first');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tilemirror-bench-static-'));
  process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const dataDir = path.join(tmp, 'data');
  fs.mkdirSync(path.join(dataDir, 'maps'), { recursive: true });
  fs.copyFileSync(source.file, path.join(dataDir, 'maps', path.basename(source.file)));
  const port = await freePort();
  const config = path.join(tmp, 'tilemirror.yaml');
  fs.writeFileSync(config, ['# written by bench/static.js', 'server:', '  host: 127.0.0.1', `  port: ${port}`, '  requestLog: false', `data: ${JSON.stringify(dataDir)}`, 'keys:', `  - key: ${KEY}`, '    plan: paid', 'logLevel: warn', ''].join('\n'));
  const origin = `http://127.0.0.1:${port}`;
  const url = `${origin}/maps/${source.id}/static/10,48,4.5/512x512.png?${scene()}&key=${KEY}`;
  console.error(`static: ${path.relative(ROOT, source.file)}, 512x512 png, 100-point path + 10 markers (URL ${url.length - origin.length} bytes)`);
  const child = startServer('tilemirror', process.execPath, [CLI, 'serve', '--config', config, '--data', dataDir, '--port', String(port), '--host', '127.0.0.1'], { cwd: tmp });
  const result = { name: 'static', date: new Date().toISOString(), machine: `${os.cpus().length} x ${os.cpus()[0]?.model.trim()}, Node ${process.version}` };
  try {
    result.startupMs = await waitReady(child, `${origin}/maps/${source.id}/0/0/0.png?key=${KEY}`);
    const first = await fetchImage(url);
    const sharp = require('sharp');
    const meta = await sharp(first.body).metadata();
    if (meta.width !== 512 || meta.height !== 512 || meta.format !== 'png') throw new Error(`unexpected image ${meta.width}x${meta.height} ${meta.format}`);
    result.imageBytes = first.bytes;
    for (let i = 0; i < opts.warmup; i++) await fetchImage(url);

    // 1. Sequential latency.
    const times = [];
    for (let i = 0; i < opts.renders; i++) times.push((await fetchImage(url)).ms);
    times.sort((a, b) => a - b);
    result.sequential = { renders: times.length, medianMs: percentile(times, 50), p95Ms: percentile(times, 95), minMs: times[0], maxMs: times[times.length - 1] };
    console.error(`  sequential: median ${fmt(result.sequential.medianMs, 1)} ms, p95 ${fmt(result.sequential.p95Ms, 1)} ms`);

    // 2. Throughput with 2 in flight.
    let next = 0;
    const t0 = performance.now();
    const cpu0 = measure(child.pid).cpuSeconds;
    await Promise.all(
      [0, 1].map(async () => {
        while (next < opts.concurrent) {
          next++;
          await fetchImage(url);
        }
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    result.concurrent = { renders: opts.concurrent, inFlight: 2, imagesPerSec: opts.concurrent / secs, serverCpuCores: (measure(child.pid).cpuSeconds - cpu0) / secs };
    console.error(`  2 in flight: ${fmt(result.concurrent.imagesPerSec, 1)} images/s (server CPU ${fmt(result.concurrent.serverCpuCores, 2)} cores)`);

    // 3. Memory over many renders (sequential), sampled every 50.
    const samples = [{ renders: 0, rssMb: measure(child.pid).rssMb }];
    for (let i = 1; i <= opts.memory; i++) {
      await fetchImage(url);
      if (i % 50 === 0) samples.push({ renders: i, rssMb: measure(child.pid).rssMb });
    }
    const rss = samples.map((s) => s.rssMb);
    const half = samples.find((s) => s.renders >= opts.memory / 2) ?? samples[0];
    result.memory = {
      renders: opts.memory,
      startMb: rss[0],
      peakMb: Math.max(...rss),
      endMb: rss[rss.length - 1],
      secondHalfGrowthMb: rss[rss.length - 1] - half.rssMb,
      vmHwmMb: measure(child.pid).peakRssMb,
      samples,
    };
    console.error(`  RSS over ${opts.memory} renders: start ${fmt(result.memory.startMb, 0)} MB, peak ${fmt(result.memory.peakMb, 0)} MB, end ${fmt(result.memory.endMb, 0)} MB`);
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited during the run:\n${child.stderrTail}`);
  } finally {
    await stop(child);
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  const head = ['what', 'value'];
  const rows = [
    ['median ms (sequential)', fmt(result.sequential.medianMs, 1)],
    ['p95 ms (sequential)', fmt(result.sequential.p95Ms, 1)],
    ['images/s (2 in flight)', fmt(result.concurrent.imagesPerSec, 1)],
    ['RSS start MB', fmt(result.memory.startMb, 0)],
    ['RSS peak MB', fmt(result.memory.peakMb, 0)],
    ['RSS end MB', fmt(result.memory.endMb, 0)],
    ['RSS growth, 2nd half MB', fmt(result.memory.secondHalfGrowthMb, 1)],
  ];
  result.checks = [
    { target: `median <= ${TARGETS.medianMs} ms`, value: result.sequential.medianMs, pass: result.sequential.medianMs <= TARGETS.medianMs ? 'pass' : 'FAIL' },
    { target: `RSS flat (growth over the 2nd half <= ${TARGETS.rssGrowthMb} MB)`, value: result.memory.secondHalfGrowthMb, pass: result.memory.secondHalfGrowthMb <= TARGETS.rssGrowthMb ? 'pass' : 'FAIL' },
  ];
  console.log(`\nstatic benchmark: 512x512 png of ${path.relative(ROOT, source.file)} with a 100-point path and 10 markers\nmachine: ${result.machine}\n`);
  console.log(table(head, rows));
  console.log('\ntargets:');
  for (const c of result.checks) console.log(`  ${c.pass.padEnd(4)}  ${c.target}: ${fmt(c.value, 1)}`);
  console.log('\nmarkdown:\n');
  console.log(markdownTable(head, rows));
  const file = writeResults('static', result);
  console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
  return result;
}

module.exports = { description: 'static map images: 512x512 png, 100-point path, 10 markers (latency, images/s, RSS)', options, run };
