'use strict';
// Where a tilemirror server spends its CPU under the serve benchmark's load: runs `node --cpu-prof dist/cli.js
// serve`, loads it like `serve` does, stops it, and summarises the profile (self time by function and by area).
//   node bench/profile.js [--duration 8] [--connections 64] [--store <file>] [--top 30] [--bare]
// The .cpuprofile is kept in .bench/profiles/ (open it in Chrome DevTools or speedscope for the call tree).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { resolveStore, readTiles, ROOT } = require('./lib/store');
const { startServer, waitReady, stop, freePort } = require('./lib/processes');
const { runWrk } = require('./lib/wrk');
const { writeConfig, verifyAll, KEY, CLI } = require('./serve');
const { fmt, table } = require('./lib/report');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

/** The area a frame belongs to, for a coarse breakdown. */
function areaOf(frame) {
  const url = frame.url || '';
  const fn = frame.functionName;
  if (!url) {
    if (fn === '(garbage collector)') return 'GC';
    if (fn === '(idle)' || fn === '(program)' || fn === '(root)') return fn;
    return 'native (no JS frame: syscalls, libuv, C++ bindings)';
  }
  if (url.includes('/node_modules/')) return 'npm: ' + url.split('/node_modules/').pop().split('/').slice(0, url.includes('/node_modules/@') ? 2 : 1).join('/');
  if (url.startsWith('node:')) {
    const m = /^node:(internal\/)?([a-z_]+)/.exec(url);
    return `node: ${m ? m[2] : url}`;
  }
  if (url.includes('/dist/')) return 'tilemirror: ' + url.split('/dist/').pop().replace(/\.js$/, '');
  return url;
}

function summarise(profile, requests, top) {
  const self = new Map();
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = profile.timeDeltas;
  const counts = new Map();
  for (let i = 0; i < profile.samples.length; i++) counts.set(profile.samples[i], (counts.get(profile.samples[i]) ?? 0) + (dt[i] ?? 0));
  let total = 0;
  const byFn = new Map();
  const byArea = new Map();
  for (const [id, us] of counts) {
    const f = byNode.get(id).callFrame;
    total += us;
    const key = `${f.functionName || '(anonymous)'}  ${f.url ? `${f.url.replace(`file://${ROOT}/`, '').replace(ROOT + '/', '')}:${f.lineNumber + 1}` : ''}`;
    byFn.set(key, (byFn.get(key) ?? 0) + us);
    const a = areaOf(f);
    byArea.set(a, (byArea.get(a) ?? 0) + us);
  }
  self.total = total;
  const rows = (m) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => [fmt((us / total) * 100, 1) + ' %', fmt(us / requests, 2), k]);
  return { total, fns: rows(byFn), areas: rows(byArea) };
}

async function main() {
  const duration = Number(arg('duration', '8'));
  const connections = Number(arg('connections', '64'));
  const top = Number(arg('top', '30'));
  const store = resolveStore(arg('store'));
  const { tiles } = readTiles(store.file, { maxzoom: 5 });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tilemirror-prof-'));
  process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const profDir = path.join(ROOT, '.bench', 'profiles');
  fs.mkdirSync(profDir, { recursive: true });
  const before = new Set(fs.readdirSync(profDir));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const config = await writeConfig(tmp, { port, dataDir: store.dataDir });
  const urlOf = (t) => `/maps/${store.id}/${t.z}/${t.x}/${t.y}.png?key=${KEY}`;
  // --bare: the same load on the bare node:http server (bench/bare-server.js), to compare costs line by line.
  const bare = process.argv.includes('--bare');
  const serverArgs = bare
    ? [path.join(__dirname, 'bare-server.js'), '--store', store.file, '--port', String(port), '--id', store.id, '--maxzoom', '5']
    : [CLI, 'serve', '--config', config];
  const child = startServer(bare ? 'bare (profiled)' : 'tilemirror (profiled)', process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, ...serverArgs], { cwd: tmp });
  let load;
  try {
    await waitReady(child, origin + urlOf(tiles[0]));
    await verifyAll(origin, tiles, urlOf);
    load = await runWrk({ origin, paths: tiles.map(urlOf), connections, duration, warmup: 1, minBytes: 1 });
  } finally {
    await stop(child, 10000); // SIGTERM: the server exits itself, which writes the profile
  }
  const file = fs.readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile') && !before.has(f)).map((f) => path.join(profDir, f))[0];
  if (!file) throw new Error('no .cpuprofile was written (did the server exit by itself on SIGTERM?)');
  const requests = load.totalRequests + 1365; // + the verification pass (the warm-up is not counted: a slight overestimate)
  const s = summarise(JSON.parse(fs.readFileSync(file, 'utf8')), requests, top);
  console.log(`${fmt(load.requestsPerSecMean, 0)} req/s, p99 ${fmt(load.latencyMs.p99, 2)} ms while profiled; profile ${path.relative(process.cwd(), file)}`);
  console.log(`sampled ${fmt(s.total / 1e6, 2)} s of the server's main thread; columns: share, µs per request, what\n`);
  console.log(table(['share', 'µs/req', 'area (self time)'], s.areas));
  console.log('');
  console.log(table(['share', 'µs/req', 'function (self time)'], s.fns));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err.stack ?? err);
    process.exit(1);
  },
);
