'use strict';
// Benchmark `wan`: mirroring from an upstream tens of milliseconds away. The upstream is a tilemirror serving a
// synthetic store of incompressible ~20 KB tiles behind Debian's nginx (TLS with a CA made here, HTTP/2 and
// HTTP/1.1), reached through bench/lib/link.js, a TCP relay holding every chunk --delay-ms each way (the kernel has
// no netem). Over the same link, in one run: the link alone (its round trip and its throughput), wrk (the ceiling
// at 16/64/256 connections), `tilemirror mirror` with no tuning flag, tilemirror at its best flags,
// mapproxy-seed and tilelive-copy. Every store is checked tile by tile against the upstream's.
// The `stalls` part measures a slow tail: a second upstream chain with bench/lib/stall-proxy.js between nginx and
// the upstream tilemirror, where --stall-share of the answers come --stall-ms late; tilemirror with no flags through
// it with the stalls off and on (the same stalls every run), the ratio of the two rates its figure.

const fs = require('node:fs');
const os = require('node:os');
const net = require('node:net');
const path = require('node:path');
const { ROOT } = require('./lib/store');
const { startServer, waitReady, stop, freePort, waitIdle, cpuPinning } = require('./lib/processes');
const { runWrk } = require('./lib/wrk');
const { ensureMapproxy, ensureDebianCommand, ensureTilelive } = require('./lib/anchors');
const { areaOf, tileSet, buildSyntheticStore } = require('./lib/synthetic');
const { table, markdownTable, fmt, writeResults } = require('./lib/report');
const { measuredCopy, sampleTree } = require('./lib/measured');
const { mapproxyFiles } = require('./lib/mapproxy-seed');
const { makeCertificates, startNginx, protocolsSince } = require('./lib/tls-upstream');
const { measureLink } = require('./lib/link-probe');

const CLI = path.join(ROOT, 'dist', 'cli.js');
const EXIT_STATS = path.join(__dirname, 'lib', 'exit-stats.js');
const LINK = path.join(__dirname, 'lib', 'link.js');
const TILELIVE_HTTPS = path.join(__dirname, 'lib', 'tilelive-https.js');
const KEY = 'demo';
const ID = 'synthetic';

const STALL_PROXY = path.join(__dirname, 'lib', 'stall-proxy.js');
const TARGETS = { ofCeiling64: 0.8, vsMapproxy: 10, vsTilelive: 3, stalledOfCalm: 0.7 };
const PARTS = ['link', 'ceiling', 'tilemirror', 'best', 'mapproxy', 'tilelive', 'stalls'];

const options = {
  // 12,294 tiles: a run of 3,078 (48x48 at z8) spent a fifth of its wall time starting (the process, the
  // TileJSON over TLS, the requests in flight climbing from 8), which wrk's steady state does not pay.
  area: { default: '192,128,287,223', help: 'the area, as tiles x0,y0,x1,y1 (XYZ, inclusive) at --maxzoom, with all their parents (default: 96x96 tiles at z9, 12,294 tiles)' },
  maxzoom: { default: 9, help: 'deepest zoom mirrored' },
  'tile-bytes': { default: 20000, help: 'every PNG tile padded to about this many bytes with random (incompressible) bytes' },
  'delay-ms': { default: 25, help: 'milliseconds the link holds every chunk, each way (25: 50 ms round trip; try 5, 50)' },
  mbit: { default: 0, help: 'bandwidth cap of the link, Mbit/s each way, shared by all connections (0: none)' },
  connections: { default: '16,64,256', help: 'wrk connections for the ceiling, comma-separated' },
  'ceiling-duration': { default: 5, help: 'seconds of wrk per connection count (after 2 s of warm-up)' },
  best: { default: '--concurrency 256', help: 'tilemirror mirror flags of the "best" run (the default run has none)' },
  runs: { default: 3, help: 'runs of each tilemirror configuration (the median is reported: one run moves by ~25 % on a shared machine)' },
  'mapproxy-concurrency': { default: 8, help: 'mapproxy-seed -c (processes)' },
  'tilelive-concurrency': { default: 16, help: 'tilelive-copy --concurrency' },
  only: { default: PARTS.join(','), help: `parts to run, comma-separated: ${PARTS.join(', ')}` },
  install: { default: true, help: 'install nginx-light, wrk, mapproxy and tilelive when missing (--no-install: skip what is missing)' },
  pin: { default: true, help: 'pin the upstream, nginx and the link to CPU 0 and each client to the last CPU (taskset)' },
  'idle-wait': { default: 10, help: 'seconds to wait, before each client, for other processes to leave the CPUs idle' },
  timeout: { default: 600, help: 'seconds after which one client run is killed and reported as failed' },
  'stall-share': { default: 0.02, help: 'the stalls part: share of the answers held back' },
  'stall-ms': { default: 15000, help: 'the stalls part: milliseconds an answer is held back' },
};

const list = (s) => String(s).split(',').map((v) => v.trim()).filter(Boolean);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const uptime = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Resolves once a TCP connection to `port` succeeds. */
async function waitPort(child, port, timeoutMs = 30000) {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${child.benchName} exited before listening:\n${child.stderrTail}`);
    const ok = await new Promise((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => (s.destroy(), resolve(true)));
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${child.benchName} did not listen on ${port}:\n${child.stderrTail}`);
}

function pinned(cpu, cmd, args) {
  return cpu === undefined ? [cmd, args] : ['taskset', ['-c', String(cpu), cmd, ...args]];
}

/** One client run into `file`, measured, its store checked against the upstream's. */
async function clientRun(ctx, { tool, config, cmd, args, cwd, env, file }) {
  const idle = await waitIdle(ctx.idleWait);
  const load = uptime();
  const before = protocolsSince(ctx.protocolLog, ctx.protoOffset);
  ctx.protoOffset = before.offset;
  const { run: r, check, row: measured, complete, identical } = await measuredCopy(`${tool} ${config}`, cmd, args, {
    file,
    upstreamFile: ctx.upstreamFile,
    expected: ctx.area.total,
    upstreamPid: ctx.upstream.pid,
    idleBefore: idle,
    cpus: ctx.pin?.client,
    cwd,
    env: { NODE_EXTRA_CA_CERTS: ctx.certs.ca, ...env },
    timeoutMs: ctx.timeoutSec * 1000,
    sampleMs: 500,
    exclude: ctx.network,
  });
  const protocols = protocolsSince(ctx.protocolLog, ctx.protoOffset);
  ctx.protoOffset = protocols.offset;
  const ok = complete && identical;
  const { upstreamCores } = measured;
  const row = {
    tool,
    config,
    ok,
    identical: check.identical,
    ...measured,
    protocols: protocols.counts,
    loadAverage: load,
  };
  if (!ok) row.error = `exit ${r.code ?? r.signal}, ${check.count} tiles (${check.identical} identical) of ${ctx.area.total}: ${(r.stderrTail + r.stdout).slice(-600)}`;
  const protoText = Object.entries(protocols.counts).map(([p, n]) => `${p} ${n}`).join(', ');
  console.error(
    `- ${tool} ${config}: ${ok ? 'done' : 'FAILED'} ${check.count} tiles (${check.identical} identical) in ${fmt(r.wallSec, 2)} s = ${fmt(row.tilesPerSec, 0)} tiles/s, ` +
      `peak RSS ${fmt(r.peakRssMb, 0)} MB, client CPU ${fmt(row.cpuCores, 2)}, upstream CPU ${fmt(upstreamCores, 2)} cores, requests ${protoText || 'none'}, load ${load}` +
      (row.error ? `\n  ${row.error}` : ''),
  );
  return row;
}

async function tilemirrorRun(ctx, config, flags, i) {
  const data = path.join(ctx.tmp, `tm-${ctx.seq++}`);
  const args = ['-r', EXIT_STATS, CLI, 'mirror', '--upstream', ctx.origin, '--data', data, '--zoom', `0-${ctx.area.z}`, `--bbox=${ctx.area.bbox4326.join(',')}`, '--key', KEY, ...flags, `tiles/${ID}`];
  const row = await clientRun(ctx, {
    tool: 'tilemirror mirror',
    config: `${config}${ctx.runs > 1 ? ` run ${i}` : ''}`,
    cmd: process.execPath,
    args,
    env: { BENCH_EXIT_STATS: path.join(ctx.tmp, `tm-${ctx.seq}.json`) },
    file: path.join(data, 'tiles', `${ID}.mbtiles`),
  });
  fs.rmSync(data, { recursive: true, force: true });
  return row;
}

async function tilemirrorRuns(ctx, config, flags, beforeEach = () => undefined) {
  const rounds = [];
  for (let i = 1; i <= ctx.runs; i++) {
    beforeEach();
    rounds.push(await tilemirrorRun(ctx, config, flags, i));
  }
  const good = rounds.filter((r) => r.ok);
  const pick = good.length ? good.slice().sort((a, b) => a.seconds - b.seconds)[Math.floor((good.length - 1) / 2)] : rounds[0];
  return { ...pick, config, ok: good.length === rounds.length, tilesPerSec: good.length ? median(good.map((r) => r.tilesPerSec)) : NaN, rounds };
}

async function mapproxyRun(ctx, c) {
  const mp = ensureMapproxy({ install: ctx.install });
  if (!mp.seed) return { tool: 'mapproxy-seed', config: `-c ${c}`, status: 'n/a', reason: mp.reason };
  const dir = path.join(ctx.tmp, 'mapproxy');
  const files = mapproxyFiles(dir, { origin: ctx.origin, id: ID, key: KEY, area: ctx.area, caFile: ctx.certs.ca });
  const row = await clientRun(ctx, { tool: 'mapproxy-seed', config: `-c ${c}`, cmd: mp.seed, args: ['-f', files.proxy, '-s', files.seed, '-c', String(c)], cwd: dir, file: files.cacheFile });
  row.version = mp.version;
  fs.rmSync(dir, { recursive: true, force: true });
  return row;
}

async function tileliveRun(ctx, c) {
  const tl = ensureTilelive({ install: ctx.install });
  if (!tl.copy) return { tool: 'tilelive-copy', config: `--concurrency ${c}`, status: 'n/a', reason: tl.reason };
  const dir = path.join(ctx.tmp, 'tilelive');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${ID}.mbtiles`);
  const src = `${ctx.origin}/tiles/${ID}/{z}/{x}/{y}?key=${KEY}`;
  const args = ['-r', TILELIVE_HTTPS, tl.copy, '--withoutprogress', '--exit', `--minzoom=0`, `--maxzoom=${ctx.area.z}`, `--bounds=${ctx.area.bbox4326.join(',')}`, `--concurrency=${c}`, src, `mbtiles://${file}`];
  const row = await clientRun(ctx, { tool: 'tilelive-copy', config: `--concurrency ${c}`, cmd: process.execPath, args, cwd: path.dirname(path.dirname(path.dirname(path.dirname(tl.copy)))), file });
  row.version = tl.version;
  fs.rmSync(dir, { recursive: true, force: true });
  return row;
}

async function ceilingRuns(ctx, connections) {
  const out = [];
  for (const c of connections) {
    await waitIdle(ctx.idleWait);
    const load = uptime();
    const cpu0 = sampleTree([ctx.upstream.pid]).cpu;
    const r = await runWrk({ origin: ctx.origin, paths: ctx.paths, connections: c, duration: ctx.ceilingDuration, warmup: 2 }, { cpus: ctx.pin?.client, onPhase: () => (ctx.cpuAtMain = sampleTree([ctx.upstream.pid]).cpu) });
    const upstreamCores = (sampleTree([ctx.upstream.pid]).cpu - (ctx.cpuAtMain ?? cpu0)) / r.durationSec;
    const bad = r.non2xx + r.errors + r.timeouts;
    const row = { tool: 'wrk (ceiling)', config: `${c} connections`, connections: c, ok: bad === 0, tiles: r.totalRequests, seconds: r.durationSec, tilesPerSec: r.requestsPerSecMean, p50Ms: r.latencyMs.p50, p99Ms: r.latencyMs.p99, mbPerSec: r.throughputMBps, upstreamCores, loadAverage: load };
    if (bad) row.error = `${bad} of ${r.responsesSeen} requests failed`;
    console.error(`- ceiling, wrk ${c} connections: ${fmt(row.tilesPerSec, 0)} tiles/s, p50 ${fmt(row.p50Ms, 1)} ms, ${fmt(row.mbPerSec, 1)} MB/s, upstream CPU ${fmt(upstreamCores, 2)} cores, load ${load}${bad ? `, ${bad} FAILED` : ''}`);
    out.push(row);
  }
  return out;
}

/**
 * The stalls part: a second chain (upstream tilemirror naming its own origin, the stall proxy, nginx, a link of the
 * same delay), and tilemirror with no flags through it, the stalls off and then on.
 */
async function stallRuns(ctx, { config, tmp, nginx, pin, children, opts }) {
  const [upPort, proxyPort, tlsPort, linkPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const origin = `https://127.0.0.1:${linkPort}`;
  const config2 = path.join(tmp, 'upstream-stalls.yaml');
  fs.writeFileSync(config2, fs.readFileSync(config, 'utf8').replace(/port: \d+/, `port: ${upPort}`).replace(/publicUrl: \S+/, `publicUrl: ${origin}`));
  const [upCmd, upArgs] = pinned(pin?.network, process.execPath, [CLI, 'serve', '--config', config2]);
  const upstream = startServer('upstream tilemirror (stalls)', upCmd, upArgs, { cwd: tmp });
  children.push(upstream);
  await waitReady(upstream, `http://127.0.0.1:${upPort}${ctx.paths[0]}`);
  const [spCmd, spArgs] = pinned(pin?.network, process.execPath, [STALL_PROXY, '--listen', String(proxyPort), '--target', String(upPort), '--share', String(opts['stall-share']), '--stall-ms', String(opts['stall-ms'])]);
  const proxy = startServer('stall proxy', spCmd, spArgs, { cwd: tmp });
  children.push(proxy);
  await waitPort(proxy, proxyPort);
  const ng = startNginx({ nginx: nginx.path, dir: path.join(tmp, 'nginx-stalls'), port: tlsPort, upstreamPort: proxyPort, certs: ctx.certs, cpus: pin?.network });
  children.push(ng.child);
  await waitPort(ng.child, tlsPort);
  const [lkCmd, lkArgs] = pinned(pin?.network, process.execPath, [LINK, '--listen', String(linkPort), '--target', `127.0.0.1:${tlsPort}`, '--delay-ms', String(opts['delay-ms']), '--mbit', String(opts.mbit)]);
  const link = startServer('link (stalls)', lkCmd, lkArgs, { cwd: tmp });
  children.push(link);
  await waitPort(link, linkPort);
  const ctx2 = { ...ctx, origin, upstream, protocolLog: ng.protocolLog, protoOffset: 0, network: [upstream.pid, proxy.pid, ng.child.pid, link.pid] };
  const stalled = `no flags, ${fmt(opts['stall-share'] * 100, 0)} % of answers stalled ${fmt(opts['stall-ms'] / 1000, 0)} s`;
  const calm = await tilemirrorRuns(ctx2, 'no flags, through the stall proxy, no stalls', [], () => proxy.kill('SIGUSR2'));
  const slow = await tilemirrorRuns(ctx2, stalled, [], () => proxy.kill('SIGUSR1'));
  proxy.kill('SIGUSR2');
  return { calm, stalled: slow };
}

async function run(opts) {
  const parts = list(opts.only);
  for (const p of parts) if (!PARTS.includes(p)) throw new Error(`unknown part ${p} (use ${PARTS.join(', ')})`);
  const [x0, y0, x1, y1] = list(opts.area).map(Number);
  if (![x0, y0, x1, y1].every(Number.isInteger) || x1 < x0 || y1 < y0 || x1 >= 2 ** opts.maxzoom || y1 >= 2 ** opts.maxzoom) throw new Error(`--area needs x0,y0,x1,y1 tiles of zoom ${opts.maxzoom}`);
  if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: npm run build');
  const nginx = ensureDebianCommand('nginx', 'nginx-light', { install: opts.install });
  if (!nginx.path) throw new Error(`nginx: ${nginx.reason}`);
  const area = areaOf({ z: opts.maxzoom, x0, y0, x1, y1 });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tilemirror-bench-wan-'));
  process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const cpus = opts.pin && cpuPinning();
  const pin = cpus && { network: cpus.first, client: cpus.last };
  const machine = `${os.cpus().length} x ${os.cpus()[0]?.model.trim()}, ${fmt(os.totalmem() / 2 ** 30, 1)} GB, Node ${process.version}, ${os.platform()} ${os.release()}`;
  const linkText = `${opts['delay-ms']} ms each way (${2 * opts['delay-ms']} ms round trip)${opts.mbit ? `, ${opts.mbit} Mbit/s` : ''}`;

  const dataDir = path.join(tmp, 'upstream');
  const tiles = tileSet({ tileBytes: opts['tile-bytes'] });
  const upstreamFile = buildSyntheticStore(dataDir, ID, area, tiles);
  const meanTileBytes = tiles.bufs.reduce((a, b) => a + b.length, 0) / tiles.bufs.length;
  const areaText = `tiles/${ID}: z0-${area.z}, ${fmt(area.total, 0)} tiles of ${fmt(meanTileBytes, 0)} bytes (random bytes in a PNG chunk)`;
  console.error(`wan benchmark: ${areaText}; link ${linkText}${pin ? `; upstream, nginx and link on CPU ${pin.network}, clients on CPU ${pin.client}` : ''}; load ${uptime()}`);

  const [upPort, tlsPort, linkPort] = [await freePort(), await freePort(), await freePort()];
  const origin = `https://127.0.0.1:${linkPort}`;
  const config = path.join(tmp, 'upstream.yaml');
  // The upstream's documents name the address the clients reach it at: through the link, over TLS.
  fs.writeFileSync(config, ['# written by bench/wan.js', 'server:', '  host: 127.0.0.1', `  port: ${upPort}`, `  publicUrl: ${origin}`, '  requestLog: true', `data: ${JSON.stringify(dataDir)}`, 'keys:', `  - key: ${KEY}`, 'logLevel: warn', ''].join('\n'));
  const paths = [];
  for (const r of area.zooms) for (let x = r.minX; x <= r.maxX; x++) for (let y = r.minY; y <= r.maxY; y++) paths.push(`/tiles/${ID}/${r.z}/${x}/${y}?key=${KEY}`);

  const result = { benchmark: 'wan', date: new Date().toISOString(), machine, setup: { ...opts, area: { ...area, zooms: undefined }, meanTileBytes, pin }, loadAtStart: uptime() };
  const children = [];
  try {
    const certs = makeCertificates(tmp);
    let link;
    if (parts.includes('link')) {
      link = await measureLink({ linkScript: LINK, delayMs: opts['delay-ms'], mbit: opts.mbit, cpu: pin?.network, tileBytes: meanTileBytes });
      console.error(
        `- the link alone: round trip ${fmt(link.rttMs, 1)} ms (direct ${fmt(link.directRttMs, 2)} ms), ${fmt(link.mbPerSec, 0)} MB/s over ${link.streams} connections ` +
          `(= ${fmt(link.tilesPerSec, 0)} tiles/s of ${fmt(meanTileBytes, 0)} bytes), link CPU ${fmt(link.linkCores, 2)} cores`,
      );
    }
    result.link = link;

    const [upCmd, upArgs] = pinned(pin?.network, process.execPath, [CLI, 'serve', '--config', config]);
    const upstream = startServer('upstream tilemirror', upCmd, upArgs, { cwd: tmp });
    children.push(upstream);
    await waitReady(upstream, `http://127.0.0.1:${upPort}${paths[0]}`);
    const ng = startNginx({ nginx: nginx.path, dir: path.join(tmp, 'nginx'), port: tlsPort, upstreamPort: upPort, certs, cpus: pin?.network });
    children.push(ng.child);
    await waitPort(ng.child, tlsPort);
    const [lkCmd, lkArgs] = pinned(pin?.network, process.execPath, [LINK, '--listen', String(linkPort), '--target', `127.0.0.1:${tlsPort}`, '--delay-ms', String(opts['delay-ms']), '--mbit', String(opts.mbit)]);
    const linkChild = startServer('link', lkCmd, lkArgs, { cwd: tmp });
    children.push(linkChild);
    await waitPort(linkChild, linkPort);

    const ctx = {
      tmp,
      area,
      origin,
      paths,
      upstream,
      upstreamFile,
      certs,
      pin,
      network: [upstream.pid, ng.child.pid, linkChild.pid],
      protocolLog: ng.protocolLog,
      protoOffset: 0,
      idleWait: opts['idle-wait'],
      ceilingDuration: opts['ceiling-duration'],
      timeoutSec: opts.timeout,
      install: opts.install,
      runs: opts.runs,
      seq: 0,
    };
    const ceiling = parts.includes('ceiling') ? await ceilingRuns(ctx, list(opts.connections).map(Number)) : [];
    const tmDefault = parts.includes('tilemirror') ? await tilemirrorRuns(ctx, 'no flags', []) : undefined;
    const tmBest = parts.includes('best') ? await tilemirrorRuns(ctx, opts.best, opts.best.split(/\s+/).filter(Boolean)) : undefined;
    const mp = parts.includes('mapproxy') ? await mapproxyRun(ctx, opts['mapproxy-concurrency']) : undefined;
    const tl = parts.includes('tilelive') ? await tileliveRun(ctx, opts['tilelive-concurrency']) : undefined;
    const stalls = parts.includes('stalls') ? await stallRuns(ctx, { config, origin, tmp, nginx, pin, children, opts }) : undefined;
    Object.assign(result, { ceiling, tilemirror: tmDefault, best: tmBest, mapproxy: mp, tilelive: tl, stalls, loadAtEnd: uptime() });

    // ---- report ----
    const rate = (r) => (r?.ok && Number.isFinite(r.tilesPerSec) ? r.tilesPerSec : undefined);
    const c64 = ceiling.find((r) => r.connections === 64);
    const ratio = (a, b) => (rate(a) && rate(b) ? rate(a) / rate(b) : undefined);
    const ofCeiling = ratio(tmDefault, c64);
    const vsMp = ratio(tmDefault, mp);
    const vsTl = ratio(tmDefault, tl);
    const check = (target, value, pass, shown) => ({ target, value, shown, pass: value === undefined || !Number.isFinite(value) ? 'n/a' : pass ? 'pass' : 'FAIL' });
    const clients = [tmDefault, tmBest, mp, tl, stalls?.calm, stalls?.stalled].filter((r) => r && r.status !== 'n/a');
    const stalledOfCalm = ratio(stalls?.stalled, stalls?.calm);
    result.ratios = { ofCeiling64: ofCeiling, vsMapproxy: vsMp, vsTilelive: vsTl, stalledOfCalm };
    result.checks = [
      check(`tilemirror with no flags >= ${TARGETS.ofCeiling64 * 100} % of the ceiling at 64 connections`, ofCeiling, ofCeiling >= TARGETS.ofCeiling64, ofCeiling && `${fmt(ofCeiling * 100, 0)} %`),
      check(`tilemirror with no flags >= ${TARGETS.vsMapproxy}x mapproxy-seed`, vsMp, vsMp >= TARGETS.vsMapproxy, vsMp && `${fmt(vsMp, 1)}x`),
      check(`tilemirror with no flags >= ${TARGETS.vsTilelive}x tilelive-copy`, vsTl, vsTl >= TARGETS.vsTilelive, vsTl && `${fmt(vsTl, 1)}x`),
      check(
        `tilemirror with no flags, ${fmt(opts['stall-share'] * 100, 0)} % of answers stalled ${fmt(opts['stall-ms'] / 1000, 0)} s, >= ${TARGETS.stalledOfCalm * 100} % of its rate without stalls`,
        stalledOfCalm,
        stalledOfCalm >= TARGETS.stalledOfCalm,
        stalledOfCalm && `${fmt(stalledOfCalm * 100, 0)} %`,
      ),
      check('every store complete and byte-identical to the upstream', clients.length ? 1 : undefined, clients.every((r) => r.ok), clients.every((r) => r.ok) ? 'yes' : 'no'),
    ];

    const proto = (r) => Object.entries(r.protocols ?? {}).map(([p, n]) => `${p.replace('HTTP/', 'h')} ${n}`).join(', ');
    const rows = [];
    if (link) rows.push(['the link alone', `${link.streams} connections`, '', '', fmt(link.tilesPerSec, 0), `${fmt(link.mbPerSec, 0)} MB/s, round trip ${fmt(link.rttMs, 1)} ms`]);
    for (const r of ceiling) rows.push(['wrk (ceiling)', r.config, fmt(r.tiles, 0), fmt(r.seconds, 1), fmt(r.tilesPerSec, 0), `p50 ${fmt(r.p50Ms, 1)} ms, upstream ${fmt(r.upstreamCores, 2)} cores`]);
    for (const r of clients)
      rows.push([`${r.tool}${r.version && !r.tool.startsWith('tilemirror') ? ` ${r.version}` : ''}`, r.config, r.ok ? fmt(r.tiles, 0) : 'FAILED', fmt(r.seconds, 2), fmt(r.tilesPerSec, 0), `${proto(r)}; client ${fmt(r.cpuCores, 2)} cores, RSS ${fmt(r.peakRssMb, 0)} MB`]);
    for (const r of [mp, tl]) if (r?.status === 'n/a') rows.push([r.tool, r.config, 'n/a', '', '', r.reason]);
    const head = ['what', 'config', 'tiles', 'seconds', 'tiles/s', 'notes'];
    const setup = `${areaText}; upstream \`tilemirror serve\` behind nginx (TLS; HTTP/2 and HTTP/1.1 offered) through a link of ${linkText}${pin ? `; upstream, nginx and link on CPU ${pin.network}, clients on CPU ${pin.client}` : ''}; wall time from start to published`;
    console.log(`\nwan benchmark: ${setup}\nmachine: ${machine}; load average ${result.loadAtStart} at the start, ${result.loadAtEnd} at the end\n`);
    console.log(table(head, rows));
    const disturbed = clients.filter((r) => r.otherCpuCores + (r.stealCores ?? 0) > 0.2);
    if (disturbed.length) console.log(`WARNING: other processes or the hypervisor took CPU during ${disturbed.map((r) => `${r.tool} ${r.config} (others ${fmt(r.otherCpuCores, 2)}, steal ${fmt(r.stealCores ?? 0, 2)} cores)`).join(', ')}: those figures are noisy.`);
    for (const r of clients) if (!r.ok) console.log(`${r.tool} ${r.config}: FAILED (${(r.error ?? '').slice(0, 400)})`);
    console.log('\ntargets:');
    for (const c of result.checks) console.log(`  ${c.pass.padEnd(4)}  ${c.target}: ${c.shown ?? 'n/a'}`);
    const md = `WAN benchmark (\`npm run bench -- wan\`): ${setup}; ${machine}.\n\n${markdownTable(head, rows)}`;
    console.log(`\nmarkdown (for the README):\n\n${md}`);
    result.markdown = md;
    const file = writeResults('wan', result);
    console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
    return result;
  } finally {
    for (const c of children.reverse()) await stop(c);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

module.exports = {
  description: 'mirroring over a 50 ms TLS link (nginx offers HTTP/2 and HTTP/1.1): tilemirror (no flags, best flags) vs wrk (the ceiling), mapproxy-seed and tilelive-copy',
  options,
  run,
};
