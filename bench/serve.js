'use strict';
// Benchmark `serve`: random 512 px map tiles of zooms 0-5 (1365 tiles), 64 connections, against
//   tilemirror (one process), a bare node:http server with the same bytes in memory, tileserver-gl-light on the
//   same .mbtiles, and tilemirror with `--workers 2` (when the CLI has it).
// Each server runs alone, as a child process on 127.0.0.1; the load generator (wrk, one thread; `--loadgen
// autocannon` for the old one) is another process, pinned to its own core.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { resolveStore, readTiles, ROOT } = require('./lib/store');
const { startServer, waitReady, stop, freePort, measure, allProcessesCpu, otherCpuSeconds, waitIdle, cpuPinning, stealSeconds } = require('./lib/processes');
const { runLoad } = require('./lib/loadgen');
const { runWrk } = require('./lib/wrk');
const { ensureTileserver } = require('./lib/anchors');
const { table, markdownTable, fmt, writeResults } = require('./lib/report');

const CLI = path.join(ROOT, 'dist', 'cli.js');
const KEY = 'demo';

const TARGETS = {
  vsBare: 0.7, // single process >= 70 % of the bare server (issue 12)
  vsTileserver: 5, // >= 5x tileserver-gl-light
  p99Ms: 10,
  rssMb: 150,
};

const SERVERS = ['bare', 'tilemirror', 'tilemirror-workers2', 'tileserver-gl-light'];
// Diagnostic variants, only with --only: where tilemirror's time goes.
//   bare-sqlite(-mmap): the bare server reading every tile from SQLite; tilemirror-nolog: requestLog off.
const EXTRA = ['bare-sqlite', 'bare-sqlite-mmap', 'tilemirror-nolog'];
const ALL = ['bare', 'bare-sqlite', 'bare-sqlite-mmap', 'tilemirror', 'tilemirror-nolog', 'tilemirror-workers2', 'tileserver-gl-light'];

const options = {
  duration: { default: 10, help: 'seconds measured per server' },
  warmup: { default: 2, help: 'seconds of warm-up per server (not measured)' },
  connections: { default: 64, help: 'concurrent connections' },
  maxzoom: { default: 5, help: 'deepest zoom requested (all tiles of 0..maxzoom)' },
  only: { default: SERVERS.join(','), help: `servers to run, comma-separated: ${SERVERS.join(', ')}; diagnostics: ${EXTRA.join(', ')}` },
  store: { default: '', help: 'a map store <data>/maps/<id>.mbtiles (default: mirror/maps/sample.mbtiles, else a stand-in)' },
  install: { default: true, help: 'install tileserver-gl-light into .bench/ when missing (--no-install to skip it)' },
  workers: { default: 2, help: 'workers of the cluster run (tilemirror serve --workers N)' },
  pin: {
    default: true,
    help: 'pin the server to CPU 0 and the load generator to the last CPU (taskset; 2+ cores); a cluster gets all but the last, unpinned on 2 cores',
  },
  loadgen: { default: 'wrk', help: 'load generator: wrk (Debian package) or autocannon (caps near 3k req/s on 20 KB bodies here)' },
  rounds: { default: 1, help: 'rounds over all servers (interleaved); each server reports its least disturbed round' },
  'idle-wait': { default: 60, help: 'seconds to wait, before each server, for other processes to leave the CPUs idle' },
};

/** Which CPUs the server, a cluster and the load generator get, or false when pinning is not possible. */
function pinPlan() {
  const cpus = cpuPinning();
  return cpus && { server: cpus.first, loadgen: cpus.last, cluster: cpus.allButLast };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));



function cliHelp() {
  try {
    return execFileSync(process.execPath, [CLI, 'serve', '--help'], { encoding: 'utf8', timeout: 30000 });
  } catch (err) {
    return String(err.stdout ?? '');
  }
}

/** Fetches every tile once and compares status, media type and bytes with the store. */
async function verifyAll(origin, tiles, urlOf) {
  let next = 0;
  const problems = [];
  async function worker() {
    while (next < tiles.length && problems.length < 5) {
      const t = tiles[next++];
      const url = origin + urlOf(t);
      const res = await fetch(url);
      const body = Buffer.from(await res.arrayBuffer());
      const type = res.headers.get('content-type') ?? '';
      if (res.status !== 200) problems.push(`${url}: HTTP ${res.status}`);
      else if (!type.startsWith('image/png')) problems.push(`${url}: Content-Type ${type}`);
      else if (!body.equals(t.data)) problems.push(`${url}: ${body.length} bytes differ from the stored ${t.data.length}`);
    }
  }
  await Promise.all(Array.from({ length: 16 }, worker));
  if (problems.length) throw new Error(`responses do not match the store:\n  ${problems.slice(0, 5).join('\n  ')}`);
}

async function writeConfig(dir, { port, dataDir, requestLog = true }) {
  const file = path.join(dir, 'tilemirror.yaml');
  fs.writeFileSync(
    file,
    [
      '# written by bench/serve.js',
      'server:',
      '  host: 127.0.0.1',
      `  port: ${port}`,
      `  requestLog: ${requestLog}`,
      `data: ${JSON.stringify(dataDir)}`,
      'keys:',
      `  - key: ${KEY}`,
      'logLevel: info',
      '',
    ].join('\n'),
  );
  return file;
}

/** How to start each server: command, args, and the URL of a tile. */
async function describeServer(name, ctx) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const tmUrl = (t) => `/maps/${ctx.store.id}/${t.z}/${t.x}/${t.y}.png?key=${KEY}`;
  switch (name) {
    case 'bare':
    case 'bare-sqlite':
    case 'bare-sqlite-mmap': {
      const args = [path.join(__dirname, 'bare-server.js'), '--store', ctx.store.file, '--port', String(port), '--host', '127.0.0.1', '--id', ctx.store.id, '--maxzoom', String(ctx.maxzoom)];
      if (name !== 'bare') args.push('--sqlite');
      if (name === 'bare-sqlite-mmap') args.push('--mmap');
      return { origin, urlOf: tmUrl, cmd: process.execPath, args };
    }
    case 'tilemirror':
    case 'tilemirror-nolog':
    case 'tilemirror-workers2': {
      const cluster = name === 'tilemirror-workers2';
      if (cluster && !ctx.hasWorkers) return { skip: '`tilemirror serve --workers` not available yet' };
      const config = await writeConfig(ctx.tmp, { port, dataDir: ctx.store.dataDir, requestLog: name !== 'tilemirror-nolog' });
      const args = [CLI, 'serve', '--config', config, '--data', ctx.store.dataDir, '--port', String(port), '--host', '127.0.0.1'];
      if (cluster) args.push('--workers', String(ctx.workers));
      return { origin, urlOf: tmUrl, cmd: process.execPath, args, cwd: ctx.tmp };
    }
    case 'tileserver-gl-light': {
      const ts = ctx.tileserver();
      if (!ts.main) return { skip: ts.reason };
      // Its own config, as `--file x.mbtiles` would write it (raw data only: no style, no fonts, nothing fetched),
      // because --file looks for tileserver-gl-styles inside its own node_modules and npm hoists it.
      const config = path.join(ctx.tmp, 'tileserver-config.json');
      fs.writeFileSync(
        config,
        JSON.stringify({
          options: { paths: { root: ctx.tmp, mbtiles: path.dirname(ctx.store.file) } },
          styles: {},
          data: { [ctx.store.id]: { mbtiles: path.basename(ctx.store.file) } },
        }),
      );
      return {
        origin,
        version: ts.version,
        urlOf: (t) => `/data/${ctx.store.id}/${t.z}/${t.x}/${t.y}.png`,
        cmd: process.execPath,
        args: [ts.main, '--config', config, '--port', String(port), '--bind', '127.0.0.1', '--public_url', `${origin}/`],
        cwd: ctx.tmp,
      };
    }
    default:
      throw new Error(`unknown server ${name} (use ${ALL.join(', ')})`);
  }
}

async function benchOne(name, ctx) {
  const d = await describeServer(name, ctx);
  if (d.skip) {
    console.error(`- ${name}: n/a (${d.skip})`);
    return { name, status: 'n/a', reason: d.skip };
  }
  const idleLoad = await waitIdle(ctx.idleWait);
  console.error(`- ${name}: starting`);
  let cmd = d.cmd;
  let args = d.args;
  // One core for the server, one for the load generator: runs compare alike instead of depending on where the
  // scheduler puts two busy processes. A cluster gets every core but the load generator's; with 2 cores that
  // would be one core for two workers, so there nothing is pinned.
  const serverCpus = ctx.pin && (name === 'tilemirror-workers2' ? ctx.pin.cluster : ctx.pin.server);
  const pinned = serverCpus !== undefined && serverCpus !== false;
  if (pinned) {
    args = ['-c', serverCpus, cmd, ...args];
    cmd = 'taskset';
  }
  const child = startServer(name, cmd, args, { cwd: d.cwd });
  try {
    const startupMs = await waitReady(child, d.origin + d.urlOf(ctx.tiles[0]));
    await verifyAll(d.origin, ctx.tiles, d.urlOf);
    const idle = measure(child.pid);
    let atMain = idle;
    console.error(`  ready in ${startupMs} ms, all ${ctx.tiles.length} tiles verified; load: ${ctx.warmup} s warm-up + ${ctx.duration} s`);
    const load = await (ctx.loadgen === 'wrk' ? runWrk : runLoad)(
      {
        origin: d.origin,
        paths: ctx.tiles.map(d.urlOf),
        connections: ctx.connections,
        duration: ctx.duration,
        warmup: ctx.warmup,
        minBytes: ctx.minTileBytes,
      },
      {
        cpus: pinned ? ctx.pin.loadgen : undefined,
        onPhase: () => {
          atMain = measure(child.pid);
          atMain.all = allProcessesCpu();
          atMain.steal = stealSeconds();
        },
      },
    );
    const end = measure(child.pid);
    // Everything but the server, the load generator (load.pid) and this orchestrator.
    const others = otherCpuSeconds(atMain.all, allProcessesCpu(), new Set([...end.pids, load.pid, process.pid]));
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited during the run:\n${child.stderrTail}`);
    const r = {
      name,
      status: 'ok',
      version: d.version,
      command: [path.relative(ROOT, d.cmd) === d.cmd ? 'node' : d.cmd, ...d.args.map((a) => (a.startsWith(ROOT) ? path.relative(ROOT, a) : a))].join(' '),
      startupMs,
      processes: end.pids.length,
      reqPerSec: load.requestsPerSecMean,
      reqPerSecStddev: load.requestsPerSecStddev,
      totalRequests: load.totalRequests,
      latencyMs: load.latencyMs,
      autocannonLatencyMs: load.autocannonLatencyMs,
      throughputMBps: load.throughputMBps,
      non2xx: load.non2xx,
      errors: load.errors,
      timeouts: load.timeouts,
      statusCodes: load.statusCodes,
      responsesOk: load.responsesOk,
      responsesSeen: load.responsesSeen,
      cpuAffinity: pinned ? { server: serverCpus, loadgen: ctx.pin.loadgen } : 'none',
      rssIdleMb: idle.rssMb,
      rssMb: end.rssMb,
      peakRssMb: end.peakRssMb,
      serverCpuCores: (end.cpuSeconds - atMain.cpuSeconds) / load.durationSec,
      loadgenCpuCores: load.loadgenCpuSeconds / load.durationSec,
      // CPU of everything else on the machine during the run: above ~0.2 cores the figures are disturbed.
      otherCpuCores: others / load.durationSec,
      // CPU time the hypervisor gave to other guests (a VM's noisy neighbours), in cores.
      stealCores: (stealSeconds() - atMain.steal) / load.durationSec,
      otherCpuCoresBefore: idleLoad,
    };
    const bad = r.non2xx + r.errors + r.timeouts + (r.responsesSeen - r.responsesOk);
    r.allOk = bad === 0;
    console.error(
      `  ${fmt(r.reqPerSec, 0)} req/s, p50 ${fmt(r.latencyMs.p50, 2)} ms, p99 ${fmt(r.latencyMs.p99, 2)} ms, ` +
        `non-2xx ${r.non2xx}, errors ${r.errors}, RSS ${fmt(r.rssMb, 0)} MB, server CPU ${fmt(r.serverCpuCores, 2)} cores`,
    );
    return r;
  } catch (err) {
    console.error(`  ${name} failed: ${err.message}`);
    return { name, status: 'failed', reason: err.message.split('\n')[0], detail: err.message };
  } finally {
    await stop(child);
  }
}

function ratio(a, b) {
  return a && b && a.status === 'ok' && b.status === 'ok' ? a.reqPerSec / b.reqPerSec : undefined;
}

function evaluate(byName) {
  const tm = byName.tilemirror;
  const checks = [];
  const add = (target, value, pass, shown) => checks.push({ target, value, shown, pass: value === undefined ? 'n/a' : pass ? 'pass' : 'FAIL' });
  const vsBare = ratio(tm, byName.bare);
  const vsTs = ratio(tm, byName['tileserver-gl-light']);
  add(`single process >= ${TARGETS.vsBare * 100} % of bare`, vsBare, vsBare >= TARGETS.vsBare, vsBare && `${fmt(vsBare * 100, 0)} %`);
  add(`single process >= ${TARGETS.vsTileserver}x tileserver-gl-light`, vsTs, vsTs >= TARGETS.vsTileserver, vsTs && `${fmt(vsTs, 2)}x`);
  const p99 = tm?.status === 'ok' ? tm.latencyMs.p99 : undefined;
  add(`p99 <= ${TARGETS.p99Ms} ms`, p99, p99 <= TARGETS.p99Ms, p99 && `${fmt(p99, 2)} ms`);
  const rss = tm?.status === 'ok' ? tm.rssMb : undefined;
  add(`RSS <= ${TARGETS.rssMb} MB`, rss, rss <= TARGETS.rssMb, rss && `${fmt(rss, 0)} MB`);
  const ok = tm?.status === 'ok' ? tm.allOk : undefined;
  add('every response 200 with the tile (no non-2xx, errors, timeouts)', ok, ok, ok === undefined ? undefined : ok ? 'yes' : 'no');
  return { checks, ratios: { tilemirrorVsBare: vsBare, tilemirrorVsTileserver: vsTs, workersVsSingle: ratio(byName['tilemirror-workers2'], tm) } };
}

async function run(opts) {
  const source = resolveStore(opts.store || undefined);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tilemirror-bench-'));
  process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true })); // also after Ctrl-C
  // A private copy: every server reads the same bytes for the whole run, even if `npm run sample` republishes
  // the sample meanwhile (its PNGs are not byte-identical from one build to the next).
  const store = { ...source, dataDir: path.join(tmp, 'data') };
  store.file = path.join(store.dataDir, 'maps', path.basename(source.file));
  fs.mkdirSync(path.dirname(store.file), { recursive: true });
  fs.copyFileSync(source.file, store.file);
  const { meta, tiles } = readTiles(store.file, { maxzoom: opts.maxzoom });
  if (tiles.length === 0) throw new Error(`${store.file} holds no tiles of zooms 0-${opts.maxzoom}`);
  const expected = (4 ** (opts.maxzoom + 1) - 1) / 3;
  const tileSize = meta['tilemirror:tile_size'];
  const sizes = tiles.map((t) => t.data.length);
  const meanBytes = sizes.reduce((a, b) => a + b, 0) / sizes.length;
  console.error(
    `store ${path.relative(process.cwd(), source.file) || source.file}${store.standIn ? ' (STAND-IN: npm run sample has not built the sample yet)' : ''}: ` +
      `${tiles.length} tiles of z0-${opts.maxzoom}${tiles.length !== expected ? ` (a full pyramid has ${expected})` : ''}, ` +
      `tile size ${tileSize ?? '?'} px, ${fmt(meanBytes / 1024, 1)} KB mean (${fmt(Math.min(...sizes) / 1024, 1)}-${fmt(Math.max(...sizes) / 1024, 1)})`,
  );
  const help = cliHelp();
  if (!/\bserve\b/.test(help) && !/--data/.test(help)) throw new Error(`node dist/cli.js serve --help failed: is the project built (npm run build)?`);
  let tileserver;
  const ctx = {
    store,
    tiles,
    tmp,
    maxzoom: opts.maxzoom,
    minTileBytes: Math.min(...sizes),
    duration: opts.duration,
    warmup: opts.warmup,
    connections: opts.connections,
    workers: opts.workers,
    loadgen: opts.loadgen,
    idleWait: opts['idle-wait'],
    hasWorkers: /--workers\b/.test(help),
    pin: opts.pin && pinPlan(),
    tileserver: () => (tileserver ??= ensureTileserver({ install: opts.install })),
  };
  const names = String(opts.only).split(',').map((s) => s.trim()).filter(Boolean);
  for (const n of names) if (!ALL.includes(n)) throw new Error(`unknown server ${n} (use ${ALL.join(', ')})`);
  const rounds = [];
  try {
    for (let round = 1; round <= opts.rounds; round++) {
      if (opts.rounds > 1) console.error(`round ${round} of ${opts.rounds}`);
      for (const n of ALL.filter((s) => names.includes(s))) {
        const r = await benchOne(n, ctx);
        rounds.push({ round, ...r });
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  // Per server: the round least disturbed by other processes or by the hypervisor (steal: CPU given to other
  // guests, which here took up to 1.5 of the 2 cores in a round), then the fastest; all rounds go to the JSON.
  const results = ALL.filter((s) => names.includes(s)).map((n) => {
    const mine = rounds.filter((r) => r.name === n);
    const ok = mine.filter((r) => r.status === 'ok');
    if (ok.length === 0) return mine[0];
    const disturbance = (r) => Math.round((r.otherCpuCores + (r.stealCores ?? 0)) * 10); // in tenths of a core
    ok.sort((a, b) => disturbance(a) - disturbance(b) || b.reqPerSec - a.reqPerSec);
    return { ...ok[0], roundsRun: mine.length, reqPerSecAllRounds: ok.map((r) => Math.round(r.reqPerSec)) };
  });
  const byName = Object.fromEntries(results.map((r) => [r.name, r]));
  const { checks, ratios } = evaluate(byName);

  const cols = [
    ['server', (r) => r.name],
    ['req/s', (r) => fmt(r.reqPerSec, 0)],
    ['p50 ms', (r) => fmt(r.latencyMs?.p50, 2)],
    ['p99 ms', (r) => fmt(r.latencyMs?.p99, 2)],
    ['non-2xx', (r) => r.non2xx],
    ['errors', (r) => (r.status === 'ok' ? r.errors + r.timeouts : undefined)],
    ['RSS MB', (r) => fmt(r.rssMb, 0)],
    ['peak RSS MB', (r) => fmt(r.peakRssMb, 0)],
    ['procs', (r) => r.processes],
    ['server CPU', (r) => fmt(r.serverCpuCores, 2)],
    ['loadgen CPU', (r) => fmt(r.loadgenCpuCores, 2)],
    ['other CPU', (r) => fmt(r.otherCpuCores, 2)],
    ['steal', (r) => fmt(r.stealCores, 2)],
    ['vs bare', (r) => (r.status === 'ok' && byName.bare?.status === 'ok' ? `${fmt((r.reqPerSec / byName.bare.reqPerSec) * 100, 0)} %` : undefined)],
  ];
  const rows = results.map((r) => (r.status === 'ok' ? cols.map(([, f]) => f(r)) : [r.name, r.status, ...cols.slice(2).map(() => '')]));
  const head = cols.map(([h]) => h);
  const machine = `${os.cpus().length} x ${os.cpus()[0]?.model.trim()}, ${fmt(os.totalmem() / 2 ** 30, 1)} GB, Node ${process.version}, ${os.platform()} ${os.release()}`;
  const setup =
    `${tiles.length} random tiles (z0-${opts.maxzoom}, ${tileSize ?? '?'} px, ${fmt(meanBytes / 1024, 1)} KB mean) of ${path.relative(ROOT, source.file)}` +
    `${store.standIn ? ' [stand-in]' : ''}, ${opts.connections} connections, ${opts.warmup} s warm-up + ${opts.duration} s, ${opts.loadgen} in its own process${ctx.pin ? ` pinned to CPU ${ctx.pin.loadgen}, the server to CPU ${ctx.pin.server}${ctx.pin.cluster ? ` (a cluster to ${ctx.pin.cluster})` : ' (a cluster unpinned)'}` : ''}`;

  console.log(`\nserve benchmark: ${setup}\nmachine: ${machine}\n`);
  console.log(table(head, rows));
  console.log('\nratios: ' + [
    `tilemirror / bare ${ratios.tilemirrorVsBare ? fmt(ratios.tilemirrorVsBare * 100, 0) + ' %' : 'n/a'}`,
    `tilemirror / tileserver-gl-light ${ratios.tilemirrorVsTileserver ? fmt(ratios.tilemirrorVsTileserver, 2) + 'x' : 'n/a'}`,
    `workers ${opts.workers} / single ${ratios.workersVsSingle ? fmt(ratios.workersVsSingle, 2) + 'x' : 'n/a'}`,
  ].join(', '));
  for (const r of results) if (r.status !== 'ok') console.log(`${r.name}: ${r.status} (${r.reason})`);
  const disturbed = results.filter((r) => r.status === 'ok' && r.otherCpuCores + (r.stealCores ?? 0) > 0.2);
  if (disturbed.length) {
    const what = (r) => `${r.name} (other processes ${fmt(r.otherCpuCores, 2)} cores, steal ${fmt(r.stealCores, 2)} cores)`;
    console.log(`WARNING: the CPUs were not the benchmark's alone during ${disturbed.map(what).join(', ')}: those figures are low and noisy; run again on an idle machine.`);
  }
  console.log('\ntargets (tilemirror, one process):');
  for (const c of checks) console.log(`  ${c.pass.padEnd(4)}  ${c.target}: ${c.shown ?? 'n/a'}`);

  const md =
    `Serve benchmark (\`npm run bench -- serve\`): ${setup}; ${machine}.\n\n` +
    markdownTable(
      ['server', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'RSS MB', 'vs bare'],
      results.map((r) =>
        r.status === 'ok'
          ? [r.name + (r.version ? ` ${r.version}` : ''), fmt(r.reqPerSec, 0), fmt(r.latencyMs.p50, 2), fmt(r.latencyMs.p99, 2), r.non2xx, fmt(r.rssMb, 0), byName.bare?.status === 'ok' ? `${fmt((r.reqPerSec / byName.bare.reqPerSec) * 100, 0)} %` : '']
          : [r.name, r.status, '', '', '', '', ''],
      ),
    );
  console.log('\nmarkdown (for the README):\n');
  console.log(md);

  const file = writeResults('serve', {
    benchmark: 'serve',
    date: new Date().toISOString(),
    machine,
    setup: { ...opts, store: path.relative(ROOT, source.file), standIn: store.standIn, tiles: tiles.length, tileSize, meanTileBytes: meanBytes },
    targets: TARGETS,
    results,
    rounds,
    ratios,
    checks,
    markdown: md,
  });
  console.log(`\nresults written to ${path.relative(process.cwd(), file)}`);
  if (rounds.some((r) => r.status === 'failed')) {
    console.error('a server failed (see above): exit code 1');
    process.exitCode = 1;
  }
  return { results, checks };
}

module.exports = { description: 'tile serving: tilemirror vs a bare node:http server vs tileserver-gl-light', options, run, writeConfig, verifyAll, KEY, CLI };
