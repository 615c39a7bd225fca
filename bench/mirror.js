'use strict';
// Benchmark `mirror`: tiles/s mirroring z0-8 of an area from a loopback upstream (a tilemirror serving a
// synthetic tileset), beside mapproxy-seed seeding the same tiles from the same upstream into MBTiles, beside
// the upstream's own serving rate for the same tiles (the ceiling); then the memory of a 1,000,000+ tile plan:
// `tilemirror plan` of the world at z0-10 and a bounded run of it against bench/big-upstream.js.
// Every command runs as a child process on 127.0.0.1; the upstream is pinned to CPU 0, the client to the last.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { ROOT } = require('./lib/store');
const { startServer, waitReady, stop, freePort, allProcessesCpu, otherCpuSeconds, waitIdle, cpuPinning, stealSeconds } = require('./lib/processes');
const { runWrk } = require('./lib/wrk');
const { ensureMapproxy } = require('./lib/anchors');
const { areaOf, tileSet, buildSyntheticStore } = require('./lib/synthetic');
const { table, markdownTable, fmt, writeResults } = require('./lib/report');
const { runMeasured, measuredCopy, sampleTree, countTiles } = require('./lib/measured');
const { mapproxyFiles } = require('./lib/mapproxy-seed');

const CLI = path.join(ROOT, 'dist', 'cli.js');
const EXIT_STATS = path.join(__dirname, 'lib', 'exit-stats.js');
const KEY = 'demo';
const ID = 'synthetic';

const TARGETS = { vsMapproxy: 10, ofCeiling: 0.5, bigRssMb: 300 }; // issue 12: ≥ 10x mapproxy-seed at 20 KB tiles, ≥ 50 % of the upstream's ceiling

const PARTS = ['ceiling', 'tilemirror', 'mapproxy', 'plan', 'big'];

const options = {
  area: { default: '96,64,191,159', help: 'the area, as tiles x0,y0,x1,y1 (XYZ, inclusive) at --maxzoom, with all their parents (default: 96x96 tiles at z8, lon -45..90, lat -41..66.5: 12,294 tiles)' },
  maxzoom: { default: 8, help: 'deepest zoom mirrored (z0..maxzoom over the area)' },
  'tile-bytes': { default: 0, help: 'pad every PNG tile to about this many bytes with a random ancillary chunk (0: solid-colour PNGs of ~156 bytes)' },
  concurrency: { default: '8,32,128,256', help: 'tilemirror mirror --concurrency values, comma-separated (no --rate); 128 and 256 (the most the CLI takes) keep a loopback upstream busy while the mirror commits (see bench/README.md)' },
  runs: { default: 3, help: 'tilemirror runs per concurrency (the median is reported; all are kept in the JSON)' },
  'mapproxy-concurrency': { default: '2,8', help: 'mapproxy-seed -c values, comma-separated' },
  'ceiling-duration': { default: 5, help: 'seconds of load per concurrency when measuring the upstream\'s own rate (after 1 s warm-up)' },
  'upstream-log': { default: true, help: 'request log of the upstream tilemirror on (to /dev/null), as a deployed one would run' },
  'big-zoom': { default: 10, help: 'the large plan: the whole world at z0..big-zoom (10: 1,398,101 tiles)' },
  'big-seconds': { default: 60, help: 'seconds the large plan runs before SIGINT (0: until it is published)' },
  'big-concurrency': { default: 16, help: 'tilemirror mirror --concurrency of the large run' },
  only: { default: PARTS.join(','), help: `parts to run, comma-separated: ${PARTS.join(', ')}` },
  install: { default: true, help: 'apt-get install mapproxy when mapproxy-seed is missing (--no-install to skip MapProxy then)' },
  pin: { default: true, help: 'pin the upstream to CPU 0 and the mirroring client (and load generator) to the last CPU (taskset)' },
  'idle-wait': { default: 30, help: 'seconds to wait, before each run, for other processes to leave the CPUs idle' },
  timeout: { default: 600, help: 'seconds after which one mirroring run is killed and reported as failed' },
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const list = (s) => String(s).split(',').map((v) => v.trim()).filter(Boolean);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

function pinPlan() {
  const cpus = cpuPinning();
  return cpus && { upstream: cpus.first, client: cpus.last };
}

// ---- the parts -----------------------------------------------------------------------------------------------

async function upstreamCeiling(ctx, concurrencies) {
  const out = [];
  for (const c of concurrencies) {
    await waitIdle(ctx.idleWait);
    const cpu0 = sampleTree([ctx.upstream.pid]).cpu;
    const load = await runWrk(
      { origin: ctx.origin, paths: ctx.paths, connections: c, duration: ctx.ceilingDuration, warmup: 1, minBytes: ctx.minTileBytes },
      { cpus: ctx.pin ? ctx.pin.client : undefined, onPhase: () => (ctx.cpuAtMain = sampleTree([ctx.upstream.pid]).cpu) },
    );
    const upstreamCores = (sampleTree([ctx.upstream.pid]).cpu - (ctx.cpuAtMain ?? cpu0)) / load.durationSec;
    const bad = load.non2xx + load.errors + load.timeouts + (load.responsesSeen - load.responsesOk);
    if (bad) throw new Error(`the upstream answered ${bad} of ${load.responsesSeen} requests with something else than a tile`);
    const r = {
      tool: 'upstream (wrk)',
      config: `${c} connections`,
      concurrency: c,
      tiles: load.totalRequests,
      seconds: load.durationSec,
      tilesPerSec: load.requestsPerSecMean,
      p99Ms: load.latencyMs.p99,
      upstreamCores,
      loadgenCores: load.loadgenCpuSeconds / load.durationSec,
    };
    console.error(`- upstream ceiling, ${c} connections: ${fmt(r.tilesPerSec, 0)} tiles/s (upstream CPU ${fmt(upstreamCores, 2)} cores, load generator ${fmt(r.loadgenCores, 2)})`);
    out.push(r);
  }
  return out;
}

async function tilemirrorRuns(ctx, concurrencies, runs) {
  const out = [];
  for (const c of concurrencies) {
    const rounds = [];
    for (let i = 1; i <= runs; i++) {
      const idle = await waitIdle(ctx.idleWait);
      const data = path.join(ctx.tmp, `tm-c${c}-${i}`);
      const statsFile = path.join(ctx.tmp, `tm-c${c}-${i}.json`);
      const args = ['-r', EXIT_STATS, CLI, 'mirror', '--upstream', ctx.origin, '--data', data, '--zoom', `0-${ctx.area.z}`, `--bbox=${ctx.area.bbox4326.join(',')}`, '--concurrency', String(c), '--key', KEY, `tiles/${ID}`];
      const { run: r, check, row, complete, identical } = await measuredCopy(`tilemirror mirror c${c}`, process.execPath, args, {
        file: path.join(data, 'tiles', `${ID}.mbtiles`),
        upstreamFile: ctx.upstreamFile,
        expected: ctx.area.total,
        upstreamPid: ctx.upstream.pid,
        idleBefore: idle,
        cpus: ctx.pin ? ctx.pin.client : undefined,
        timeoutMs: ctx.timeoutSec * 1000,
        exitStats: statsFile,
        exclude: [ctx.upstream.pid],
      });
      const { upstreamCores } = row;
      const ok = complete && identical;
      const round = { run: i, ok, ...row, identical: check.identical };
      if (!ok) round.error = `exit ${r.code ?? r.signal}, ${check.count} tiles (${check.identical} identical) of ${ctx.area.total}: ${r.stderrTail.slice(-600)}`;
      console.error(
        `- tilemirror c${c} run ${i}: ${ok ? 'published' : 'FAILED'} ${check.count} tiles in ${fmt(r.wallSec, 2)} s = ${fmt(round.tilesPerSec, 0)} tiles/s, ` +
          `peak RSS ${fmt(r.peakRssMb, 0)} MB, mirror CPU ${fmt(round.cpuCores, 2)} cores, upstream CPU ${fmt(upstreamCores, 2)} cores, steal ${fmt(r.stealCores, 2)} cores` +
          (round.error ? `\n  ${round.error}` : ''),
      );
      fs.rmSync(data, { recursive: true, force: true });
      rounds.push(round);
    }
    const good = rounds.filter((r) => r.ok);
    const pick = good.length ? good.slice().sort((a, b) => a.seconds - b.seconds)[Math.floor((good.length - 1) / 2)] : rounds[0];
    out.push({
      tool: 'tilemirror mirror',
      config: `--concurrency ${c}`,
      concurrency: c,
      ok: good.length === rounds.length,
      tiles: pick.tiles,
      seconds: pick.seconds,
      tilesPerSec: good.length ? median(good.map((r) => r.tilesPerSec)) : NaN,
      peakRssMb: Math.max(...rounds.map((r) => r.peakRssMb)),
      cpuCores: pick.cpuCores,
      upstreamCores: pick.upstreamCores,
      otherCpuCores: Math.max(...rounds.map((r) => r.otherCpuCores)),
      stealCores: Math.max(...rounds.map((r) => r.stealCores)),
      identical: pick.identical === ctx.area.total,
      rounds,
    });
  }
  return out;
}

async function mapproxyRuns(ctx, concurrencies) {
  const mp = ensureMapproxy({ install: ctx.install });
  if (!mp.seed) {
    console.error(`- mapproxy-seed: n/a (${mp.reason})`);
    return concurrencies.map((c) => ({ tool: 'mapproxy-seed', config: `-c ${c}`, concurrency: c, status: 'n/a', reason: mp.reason }));
  }
  const out = [];
  for (const c of concurrencies) {
    const idle = await waitIdle(ctx.idleWait);
    const dir = path.join(ctx.tmp, `mapproxy-c${c}`);
    const files = mapproxyFiles(dir, { origin: ctx.origin, id: ID, key: KEY, area: ctx.area });
    const { run: r, check, row: measured, complete, identical } = await measuredCopy(`mapproxy-seed -c ${c}`, mp.seed, ['-f', files.proxy, '-s', files.seed, '-c', String(c)], {
      file: files.cacheFile,
      upstreamFile: ctx.upstreamFile,
      expected: ctx.area.total,
      upstreamPid: ctx.upstream.pid,
      idleBefore: idle,
      cpus: ctx.pin ? ctx.pin.client : undefined,
      cwd: dir,
      timeoutMs: ctx.timeoutSec * 1000,
      sampleMs: 500,
      exclude: [ctx.upstream.pid],
    });
    const { upstreamCores } = measured;
    const ok = complete;
    const row = {
      tool: 'mapproxy-seed',
      version: mp.version,
      config: `-c ${c}`,
      concurrency: c,
      ok,
      ...measured,
      identical,
      identicalTiles: check.identical,
      // The processes share pages (forked workers): the summed RSS counts them once per process, PSS shares them out.
      peakPssMb: r.peakPssMb,
      processes: r.processes,
    };
    if (!ok) row.error = `exit ${r.code ?? r.signal}, ${check.count} tiles of ${ctx.area.total}: ${(r.stderrTail + r.stdout).slice(-800)}`;
    console.error(
      `- mapproxy-seed -c ${c}: ${ok ? 'done' : 'FAILED'} ${check.count} tiles (${check.identical} byte-identical) in ${fmt(r.wallSec, 2)} s = ${fmt(row.tilesPerSec, 0)} tiles/s, ` +
        `peak RSS ${fmt(r.peakRssMb, 0)} MB (PSS ${fmt(r.peakPssMb, 0)} MB, ${r.processes} processes), upstream CPU ${fmt(upstreamCores, 2)} cores, steal ${fmt(r.stealCores, 2)} cores` +
        (row.error ? `\n  ${row.error}` : ''),
    );
    fs.rmSync(dir, { recursive: true, force: true });
    out.push(row);
  }
  return out;
}

async function bigPlan(ctx, bigOrigin, zoom) {
  const expected = (4 ** (zoom + 1) - 1) / 3;
  await waitIdle(ctx.idleWait);
  const statsFile = path.join(ctx.tmp, `plan-z${zoom}.json`);
  const r = await runMeasured(`tilemirror plan z0-${zoom}`, process.execPath, ['-r', EXIT_STATS, CLI, 'plan', '--upstream', bigOrigin, '--zoom', `0-${zoom}`, '--key', KEY, 'tiles/big'], {
    cpus: ctx.pin ? ctx.pin.client : undefined,
    timeoutMs: ctx.timeoutSec * 1000,
    exitStats: statsFile,
    sampleMs: 50,
  });
  const m = /tiles\/big: (\d+) tiles/.exec(r.stdout);
  const tiles = m ? Number(m[1]) : undefined;
  const ok = r.code === 0 && tiles === expected;
  const row = { tool: 'tilemirror plan', config: `world z0-${zoom}`, ok, tiles, expected, seconds: r.wallSec, peakRssMb: r.peakRssMb, cpuCores: r.cpuSec / r.wallSec };
  if (!ok) row.error = `exit ${r.code ?? r.signal}, ${tiles} tiles (expected ${expected}): ${(r.stderrTail + r.stdout).slice(-600)}`;
  console.error(`- tilemirror plan world z0-${zoom}: ${tiles ?? '?'} tiles in ${fmt(r.wallSec, 2)} s, peak RSS ${fmt(r.peakRssMb, 0)} MB${row.error ? `\n  ${row.error}` : ''}`);
  return row;
}

async function bigRun(ctx, bigOrigin, bigPid) {
  const zoom = ctx.bigZoom;
  const expected = (4 ** (zoom + 1) - 1) / 3;
  await waitIdle(ctx.idleWait);
  const data = path.join(ctx.tmp, 'big');
  const statsFile = path.join(ctx.tmp, 'big-run.json');
  const until = ctx.bigSeconds > 0;
  const r = await runMeasured(
    `tilemirror mirror z0-${zoom}`,
    process.execPath,
    ['-r', EXIT_STATS, CLI, 'mirror', '--upstream', bigOrigin, '--data', data, '--zoom', `0-${zoom}`, '--concurrency', String(ctx.bigConcurrency), '--key', KEY, 'tiles/big'],
    {
      cpus: ctx.pin ? ctx.pin.client : undefined,
      timeoutMs: until ? (ctx.bigSeconds + 60) * 1000 : Math.max(ctx.timeoutSec, 3600) * 1000,
      exitStats: statsFile,
      sampleMs: 500,
      interruptAfterMs: until ? ctx.bigSeconds * 1000 : undefined,
      exclude: [bigPid],
    },
  );
  const staging = path.join(data, 'tiles', '.big.mbtiles.staging');
  const published = path.join(data, 'tiles', 'big.mbtiles');
  const m = /(\d+) fetched and stored/.exec(r.stdout);
  let stored = m ? Number(m[1]) : undefined;
  const file = fs.existsSync(published) ? published : staging;
  let inStore;
  try {
    inStore = countTiles(file);
  } catch {
    /* no store */
  }
  stored ??= inStore;
  const expectCode = until ? 3 : 0;
  const ok = r.code === expectCode && stored > 0 && (until || inStore === expected);
  // RSS over time: the first and second half of the run (a steady state is flat).
  const s = r.samples.filter((x) => x.t <= r.runSec);
  const half = s.filter((x) => x.t >= r.runSec / 2);
  const row = {
    tool: 'tilemirror mirror',
    config: `world z0-${zoom} (${fmt(expected, 0)} tiles), --concurrency ${ctx.bigConcurrency}, ${until ? `SIGINT after ${ctx.bigSeconds} s` : 'to the end'}`,
    ok,
    exitCode: r.code ?? r.signal,
    planned: expected,
    tiles: stored,
    tilesInStore: inStore,
    seconds: r.runSec,
    wallSec: r.wallSec,
    stopSec: r.wallSec - r.runSec,
    tilesPerSec: stored / r.runSec,
    peakRssMb: r.peakRssMb,
    rssSecondHalfMinMb: half.length ? Math.min(...half.map((x) => x.rssMb)) : undefined,
    rssSecondHalfMaxMb: half.length ? Math.max(...half.map((x) => x.rssMb)) : undefined,
    rssEndMb: s.length ? s[s.length - 1].rssMb : undefined,
    cpuCores: r.cpuSec / r.wallSec,
    otherCpuCores: r.otherCpuCores,
    stealCores: r.stealCores,
    samples: r.samples,
    summary: r.stdout.trim().split('\n').slice(-4),
  };
  if (!ok) row.error = `exit ${r.code ?? r.signal} (expected ${expectCode}), ${stored} tiles stored: ${(r.stderrTail + r.stdout).slice(-800)}`;
  console.error(
    `- tilemirror mirror world z0-${zoom}: ${until ? `interrupted after ${fmt(r.runSec, 1)} s` : 'ran to the end'} (exit ${row.exitCode}, stopped in ${fmt(row.stopSec, 2)} s): ` +
      `${fmt(stored, 0)} tiles = ${fmt(row.tilesPerSec, 0)} tiles/s, peak RSS ${fmt(r.peakRssMb, 0)} MB (2nd half ${fmt(row.rssSecondHalfMinMb, 0)}-${fmt(row.rssSecondHalfMaxMb, 0)} MB)` +
      (row.error ? `\n  ${row.error}` : ''),
  );
  fs.rmSync(data, { recursive: true, force: true });
  return row;
}

// ---- the benchmark ------------------------------------------------------------------------------------------

async function run(opts) {
  const parts = list(opts.only);
  for (const p of parts) if (!PARTS.includes(p)) throw new Error(`unknown part ${p} (use ${PARTS.join(', ')})`);
  const [x0, y0, x1, y1] = list(opts.area).map(Number);
  if (![x0, y0, x1, y1].every(Number.isInteger) || x1 < x0 || y1 < y0 || x1 >= 2 ** opts.maxzoom || y1 >= 2 ** opts.maxzoom) throw new Error(`--area needs x0,y0,x1,y1 tiles of zoom ${opts.maxzoom}`);
  if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: npm run build');
  const area = areaOf({ z: opts.maxzoom, x0, y0, x1, y1 });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tilemirror-bench-mirror-'));
  process.once('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const pin = opts.pin && pinPlan();
  const machine = `${os.cpus().length} x ${os.cpus()[0]?.model.trim()}, ${fmt(os.totalmem() / 2 ** 30, 1)} GB, Node ${process.version}, ${os.platform()} ${os.release()}`;

  // The upstream: a tilemirror serving the synthetic tileset.
  const dataDir = path.join(tmp, 'upstream');
  const tiles = tileSet({ tileBytes: opts['tile-bytes'] });
  const upstreamFile = buildSyntheticStore(dataDir, ID, area, tiles);
  const tileBytes = tiles.bufs.map((b) => b.length);
  const meanTileBytes = tileBytes.reduce((a, b) => a + b, 0) / tileBytes.length;
  const areaText =
    `tiles/${ID}: z0-${area.z} over tiles ${x0}-${x1} x ${y0}-${y1} of z${area.z} (lon ${fmt(area.bbox4326[0], 1)}..${fmt(area.bbox4326[2], 1)}, lat ${fmt(area.bbox4326[1], 1)}..${fmt(area.bbox4326[3], 1)}), ` +
    `${fmt(area.total, 0)} tiles, 256 px solid-colour PNGs of ${fmt(meanTileBytes, 0)} bytes (${tiles.bufs.length} colours)`;
  console.error(`mirror benchmark: ${areaText}${pin ? `; upstream on CPU ${pin.upstream}, clients on CPU ${pin.client}` : ''}`);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const config = path.join(tmp, 'upstream.yaml');
  fs.writeFileSync(config, ['# written by bench/mirror.js', 'server:', '  host: 127.0.0.1', `  port: ${port}`, `  requestLog: ${opts['upstream-log']}`, `data: ${JSON.stringify(dataDir)}`, 'keys:', `  - key: ${KEY}`, 'logLevel: info', ''].join('\n'));
  const paths = [];
  for (const r of area.zooms) for (let x = r.minX; x <= r.maxX; x++) for (let y = r.minY; y <= r.maxY; y++) paths.push(`/tiles/${ID}/${r.z}/${x}/${y}?key=${KEY}`);

  const result = { benchmark: 'mirror', date: new Date().toISOString(), machine, setup: { ...opts, area: { ...area }, meanTileBytes, pin }, rows: [] };
  const children = [];
  try {
    let ceiling = [];
    let tm = [];
    let mp = [];
    const concurrencies = list(opts.concurrency).map(Number);
    if (parts.some((p) => ['ceiling', 'tilemirror', 'mapproxy'].includes(p))) {
      const upstream = startServer('upstream tilemirror', pin ? 'taskset' : process.execPath, [...(pin ? ['-c', pin.upstream, process.execPath] : []), CLI, 'serve', '--config', config], { cwd: tmp });
      children.push(upstream);
      await waitReady(upstream, `${origin}${paths[0]}`);
      const ctx = {
        tmp,
        area,
        origin,
        paths,
        upstream,
        upstreamFile,
        minTileBytes: Math.min(...tileBytes),
        pin,
        idleWait: opts['idle-wait'],
        ceilingDuration: opts['ceiling-duration'],
        timeoutSec: opts.timeout,
        install: opts.install,
      };
      if (parts.includes('ceiling')) ceiling = await upstreamCeiling(ctx, concurrencies);
      if (parts.includes('tilemirror')) tm = await tilemirrorRuns(ctx, concurrencies, opts.runs);
      if (parts.includes('mapproxy')) mp = await mapproxyRuns(ctx, list(opts['mapproxy-concurrency']).map(Number));
      await stop(upstream);
    }
    result.ceiling = ceiling;
    result.tilemirror = tm;
    result.mapproxy = mp;

    let plans = [];
    let big;
    if (parts.includes('plan') || parts.includes('big')) {
      const bigPort = await freePort();
      const bigOrigin = `http://127.0.0.1:${bigPort}`;
      const args = [path.join(__dirname, 'big-upstream.js'), '--port', String(bigPort), '--maxzoom', String(Math.max(14, opts['big-zoom'])), '--tile-bytes', String(opts['tile-bytes'])];
      const bigUp = startServer('big upstream', pin ? 'taskset' : process.execPath, [...(pin ? ['-c', pin.upstream, process.execPath] : []), ...args], { cwd: tmp });
      children.push(bigUp);
      await waitReady(bigUp, `${bigOrigin}/tiles/big/tiles.json`);
      const ctx = { tmp, pin, idleWait: opts['idle-wait'], timeoutSec: opts.timeout, bigZoom: opts['big-zoom'], bigSeconds: opts['big-seconds'], bigConcurrency: opts['big-concurrency'] };
      if (parts.includes('plan')) {
        plans.push(await bigPlan(ctx, bigOrigin, opts['big-zoom']));
        plans.push(await bigPlan(ctx, bigOrigin, 14));
      }
      if (parts.includes('big')) big = await bigRun(ctx, bigOrigin, bigUp.pid);
      await stop(bigUp);
    }
    result.plans = plans;
    result.big = big;

    // ---- report ----
    const okRows = (rs) => rs.filter((r) => r.ok && Number.isFinite(r.tilesPerSec));
    const bestTm = okRows(tm).sort((a, b) => b.tilesPerSec - a.tilesPerSec)[0];
    const bestMp = okRows(mp).sort((a, b) => b.tilesPerSec - a.tilesPerSec)[0];
    const ceilingAt = (c) => ceiling.find((r) => r.concurrency === c);
    const bestCeiling = ceiling.slice().sort((a, b) => b.tilesPerSec - a.tilesPerSec)[0];
    const vsMapproxy = bestTm && bestMp ? bestTm.tilesPerSec / bestMp.tilesPerSec : undefined;
    const vsCeiling = bestTm && ceilingAt(bestTm.concurrency) ? bestTm.tilesPerSec / ceilingAt(bestTm.concurrency).tilesPerSec : undefined;
    const bigPeak = Math.max(...[...plans.map((p) => p.peakRssMb), big?.peakRssMb].filter((v) => Number.isFinite(v)));
    result.ratios = { tilemirrorVsMapproxy: vsMapproxy, tilemirrorVsCeiling: vsCeiling, bestTilemirror: bestTm?.config, bestMapproxy: bestMp?.config };
    const check = (target, value, pass, shown) => ({ target, value, shown, pass: value === undefined || !Number.isFinite(value) ? 'n/a' : pass ? 'pass' : 'FAIL' });
    result.checks = [
      check(`tilemirror >= ${TARGETS.vsMapproxy}x mapproxy-seed (best config of each)`, vsMapproxy, vsMapproxy >= TARGETS.vsMapproxy, vsMapproxy && `${fmt(vsMapproxy, 1)}x (${bestTm.config} vs ${bestMp.config})`),
      check(`tilemirror >= ${TARGETS.ofCeiling * 100} % of the upstream's ceiling (wrk, same concurrency)`, vsCeiling, vsCeiling >= TARGETS.ofCeiling, vsCeiling && `${fmt(vsCeiling * 100, 0)} %`),
      check(
        `RSS < ${TARGETS.bigRssMb} MB planning and running a 1,000,000+ tile plan`,
        plans.length || big ? bigPeak : undefined,
        bigPeak < TARGETS.bigRssMb && plans.every((p) => p.ok) && (!big || big.ok),
        `${fmt(bigPeak, 0)} MB peak (plan ${plans.map((p) => `${fmt(p.peakRssMb, 0)} MB`).join(' / ') || 'n/a'}, run ${big ? `${fmt(big.peakRssMb, 0)} MB` : 'n/a'})`,
      ),
      check('every mirrored store complete and byte-identical to the upstream', tm.length ? 1 : undefined, tm.every((r) => r.ok && r.identical), tm.length ? (tm.every((r) => r.ok && r.identical) ? 'yes' : 'no') : undefined),
    ];

    const rows = [];
    for (const r of ceiling) rows.push(['upstream ceiling (wrk)', r.config, fmt(r.tiles, 0), fmt(r.seconds, 1), fmt(r.tilesPerSec, 0), '', `upstream ${fmt(r.upstreamCores, 2)}`]);
    for (const r of tm)
      rows.push([
        'tilemirror mirror',
        `${r.config}${opts.runs > 1 ? ` (median of ${r.rounds.length})` : ''}`,
        r.ok ? fmt(r.tiles, 0) : 'FAILED',
        fmt(r.seconds, 2),
        fmt(r.tilesPerSec, 0),
        fmt(r.peakRssMb, 0),
        `mirror ${fmt(r.cpuCores, 2)}, upstream ${fmt(r.upstreamCores, 2)}`,
      ]);
    for (const r of mp)
      rows.push(
        r.status === 'n/a'
          ? ['mapproxy-seed', r.config, 'n/a', '', '', '', r.reason]
          : [`mapproxy-seed ${r.version}`, r.config, r.ok ? fmt(r.tiles, 0) : 'FAILED', fmt(r.seconds, 2), fmt(r.tilesPerSec, 0), `${fmt(r.peakRssMb, 0)} (PSS ${fmt(r.peakPssMb, 0)})`, `seed ${fmt(r.cpuCores, 2)}, upstream ${fmt(r.upstreamCores, 2)}`],
      );
    for (const p of plans) rows.push(['tilemirror plan', p.config, p.ok ? fmt(p.tiles, 0) : 'FAILED', fmt(p.seconds, 2), '', fmt(p.peakRssMb, 0), '']);
    if (big) rows.push(['tilemirror mirror (big)', big.config, big.ok ? fmt(big.tiles, 0) : 'FAILED', fmt(big.seconds, 1), fmt(big.tilesPerSec, 0), fmt(big.peakRssMb, 0), `mirror ${fmt(big.cpuCores, 2)}`]);
    const head = ['tool', 'config', 'tiles', 'seconds', 'tiles/s', 'peak RSS MB', 'CPU cores'];
    const setup = `${areaText}; from a loopback \`tilemirror serve\` (one process${opts['upstream-log'] ? ', request log on' : ''})${pin ? `, upstream pinned to CPU ${pin.upstream}, mirroring client to CPU ${pin.client}` : ''}; wall time from start to published`;
    console.log(`\nmirror benchmark: ${setup}\nmachine: ${machine}\n`);
    console.log(table(head, rows));
    console.log(
      '\nratios: ' +
        [
          `tilemirror / mapproxy-seed ${vsMapproxy ? `${fmt(vsMapproxy, 1)}x` : 'n/a'}${vsMapproxy ? ` (${bestTm.config} vs ${bestMp.config})` : ''}`,
          `tilemirror / upstream ceiling ${vsCeiling ? `${fmt(vsCeiling * 100, 0)} %` : 'n/a'}${vsCeiling ? ` (at ${bestTm.concurrency} in flight; the best ceiling ${fmt(bestCeiling.tilesPerSec, 0)} tiles/s)` : ''}`,
        ].join(', '),
    );
    const disturbance = (r) => r.otherCpuCores + (r.stealCores ?? 0);
    const disturbed = [...tm.map((r) => ['tilemirror ' + r.config, r]), ...mp.map((r) => ['mapproxy-seed ' + r.config, r]), ...(big ? [['big run', big]] : [])].filter(([, r]) => disturbance(r) > 0.2);
    if (disturbed.length) console.log(`WARNING: other processes or the hypervisor (steal) took CPU during ${disturbed.map(([n, r]) => `${n} (others ${fmt(r.otherCpuCores, 2)}, steal ${fmt(r.stealCores ?? 0, 2)} cores)`).join(', ')}: those figures are noisy.`);
    for (const r of [...tm, ...mp, ...plans, ...(big ? [big] : [])]) if (r.ok === false) console.log(`${r.tool} ${r.config}: FAILED (${(r.error ?? r.rounds?.find((x) => x.error)?.error ?? '').slice(0, 400)})`);
    console.log('\ntargets:');
    for (const c of result.checks) console.log(`  ${c.pass.padEnd(4)}  ${c.target}: ${c.shown ?? 'n/a'}`);

    const md =
      `Mirror benchmark (\`npm run bench -- mirror\`): ${setup}; ${machine}.\n\n` +
      markdownTable(
        ['tool', 'config', 'tiles', 'seconds', 'tiles/s', 'peak RSS MB'],
        rows.map((r) => r.slice(0, 6)),
      ) +
      `\n\ntilemirror / mapproxy-seed: ${vsMapproxy ? `${fmt(vsMapproxy, 1)}x` : 'n/a'}; tilemirror / upstream ceiling: ${vsCeiling ? `${fmt(vsCeiling * 100, 0)} %` : 'n/a'}.`;
    console.log('\nmarkdown (for the README):\n');
    console.log(md);
    result.markdown = md;
    const file = writeResults('mirror', result);
    console.log(`\nresults: ${path.relative(process.cwd(), file)}`);
    return result;
  } finally {
    for (const c of children) await stop(c);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

module.exports = {
  description: 'mirroring tiles/s (tilemirror mirror vs mapproxy-seed vs the upstream\'s own rate) and RSS of a 1,000,000+ tile plan',
  options,
  run,
};
