'use strict';
// Measuring one command of a benchmark to its end: wall time, exit code, peak RSS/PSS and CPU of its process tree
// (from /proc, no `ps` per sample), the CPU other processes and the hypervisor took meanwhile; and checking a store
// it wrote against the upstream's, tile by tile.

const fs = require('node:fs');
const { startServer, stop, allProcessesCpu, otherCpuSeconds, stealSeconds } = require('./processes');

function readProc(pid, file) {
  try {
    return fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
}

function kb(text, field) {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

function statFields(pid) {
  const s = readProc(pid, 'stat');
  if (!s) return undefined;
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / 100 };
}

/** pid and its descendants, from /proc (no `ps` per sample). */
function tree(pid) {
  const kids = new Map();
  for (const n of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    const st = statFields(n);
    if (!st) continue;
    if (!kids.has(st.ppid)) kids.set(st.ppid, []);
    kids.get(st.ppid).push(Number(n));
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...(kids.get(out[i]) ?? []));
  return out;
}

/** Memory and CPU of a process tree now: summed RSS and PSS (MB), per-pid peak (VmHWM), CPU seconds. */
function sampleTree(pids) {
  let rss = 0;
  let pss = 0;
  let cpu = 0;
  const hwm = new Map();
  for (const p of pids) {
    const status = readProc(p, 'status');
    if (!status) continue;
    rss += kb(status, 'VmRSS');
    hwm.set(p, kb(status, 'VmHWM'));
    pss += kb(readProc(p, 'smaps_rollup'), 'Pss');
    cpu += statFields(p)?.cpu ?? 0;
  }
  return { rssMb: rss / 1024, pssMb: pss / 1024, hwm, cpu };
}



// ---- one measured command ----------------------------------------------------------------------------------

/**
 * Runs a command to its end (or SIGINT after `interruptAfterMs`), in its own process group, pinned to `cpus`,
 * sampling its process tree every `sampleMs`: wall time, exit code, peak RSS/PSS, CPU, stdout, stderr tail.
 */
function runMeasured(name, cmd, args, { cpus, env, cwd, timeoutMs, sampleMs = 250, interruptAfterMs, exitStats, exclude = [] }) {
  if (cpus !== undefined) {
    args = ['-c', cpus, cmd, ...args];
    cmd = 'taskset';
  }
  const before = allProcessesCpu();
  const stealBefore = stealSeconds();
  const t0 = performance.now();
  const child = startServer(name, cmd, args, { cwd, env: { ...env, ...(exitStats && { BENCH_EXIT_STATS: exitStats }) }, stdout: 'pipe' });
  let stdout = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    stdout = (stdout + d).slice(-20000);
  });
  const samples = [];
  const seen = new Set([child.pid]);
  const hwm = new Map();
  let peakRss = 0;
  let peakPss = 0;
  let cpuLast = 0;
  let interruptedAt;
  const sample = () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const pids = tree(child.pid);
    for (const p of pids) seen.add(p);
    const s = sampleTree(pids);
    for (const [p, v] of s.hwm) hwm.set(p, Math.max(hwm.get(p) ?? 0, v));
    peakRss = Math.max(peakRss, s.rssMb);
    peakPss = Math.max(peakPss, s.pssMb);
    cpuLast = Math.max(cpuLast, s.cpu);
    samples.push({ t: Math.round(performance.now() - t0) / 1000, rssMb: Math.round(s.rssMb * 10) / 10, processes: pids.length });
  };
  const timer = setInterval(sample, sampleMs);
  let interruptTimer;
  if (interruptAfterMs) {
    interruptTimer = setTimeout(() => {
      sample();
      interruptedAt = performance.now();
      try {
        process.kill(child.pid, 'SIGINT');
      } catch {
        /* gone */
      }
    }, interruptAfterMs);
  }
  return new Promise((resolve) => {
    const killer = setTimeout(() => {
      console.error(`  ${name}: still running after ${timeoutMs / 1000} s: killing it`);
      stop(child, 2000);
    }, timeoutMs);
    child.once('exit', async (code, signal) => {
      const wallSec = (performance.now() - t0) / 1000;
      clearInterval(timer);
      clearTimeout(killer);
      clearTimeout(interruptTimer);
      await stop(child, 1000);
      let stats;
      if (exitStats) {
        try {
          stats = JSON.parse(fs.readFileSync(exitStats, 'utf8'));
        } catch {
          /* absent: a crash */
        }
      }
      const others = otherCpuSeconds(before, allProcessesCpu(), new Set([...seen, ...exclude, process.pid]));
      resolve({
        code,
        signal,
        wallSec,
        runSec: interruptedAt ? (interruptedAt - t0) / 1000 : wallSec,
        stdout,
        stderrTail: child.stderrTail,
        samples,
        peakRssMb: stats?.maxRssKb ? Math.max(stats.maxRssKb / 1024, peakRss) : peakRss,
        sampledPeakRssMb: peakRss,
        peakPssMb: peakPss,
        sumOfPeaksMb: [...hwm.values()].reduce((a, b) => a + b, 0) / 1024,
        processes: seen.size,
        cpuSec: stats ? stats.userSec + stats.systemSec : cpuLast,
        exitStats: stats,
        otherCpuCores: others / wallSec,
        // CPU the hypervisor gave to other guests meanwhile: on a shared VM it moves every figure here by tens of %.
        stealCores: (stealSeconds() - stealBefore) / wallSec,
      });
    });
  });
}

/** Tiles of `file` (MBTiles, TMS rows) and how many are byte-identical to the upstream store's. */
function compareStores(file, upstreamFile) {
  const Database = require('better-sqlite3');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.prepare('ATTACH DATABASE ? AS up').run(upstreamFile);
    const count = db.prepare('SELECT count(*) FROM main.tiles').pluck().get();
    const same = db
      .prepare('SELECT count(*) FROM main.tiles a JOIN up.tiles b ON a.zoom_level = b.zoom_level AND a.tile_column = b.tile_column AND a.tile_row = b.tile_row AND a.tile_data = b.tile_data')
      .pluck()
      .get();
    const perZoom = db.prepare('SELECT zoom_level AS z, count(*) AS n FROM main.tiles GROUP BY 1 ORDER BY 1').all();
    return { count, identical: same, perZoom };
  } finally {
    db.close();
  }
}

/**
 * One client copying tiles from an upstream, measured to its end (`runMeasured` with `runOpts`), then the store it
 * wrote (`file`) checked tile by tile against `upstreamFile`, which holds `expected` tiles; the upstream's own CPU
 * (`upstreamPid`) over the run counted. `run` is runMeasured's answer; `row` the fields every copy bench reports;
 * `complete` whether it exited 0 with every tile, `identical` whether every tile is the upstream's.
 */
async function measuredCopy(name, cmd, args, { file, upstreamFile, expected, upstreamPid, idleBefore, ...runOpts }) {
  const up0 = sampleTree([upstreamPid]).cpu;
  const run = await runMeasured(name, cmd, args, runOpts);
  const upstreamCores = (sampleTree([upstreamPid]).cpu - up0) / run.wallSec;
  const check = fs.existsSync(file) ? compareStores(file, upstreamFile) : { count: 0, identical: 0 };
  const row = {
    exitCode: run.code ?? run.signal,
    tiles: check.count,
    seconds: run.wallSec,
    tilesPerSec: check.count / run.wallSec,
    peakRssMb: run.peakRssMb,
    cpuCores: run.cpuSec / run.wallSec,
    upstreamCores,
    otherCpuCores: run.otherCpuCores,
    stealCores: run.stealCores,
    otherCpuCoresBefore: idleBefore,
    summary: run.stdout.trim().split('\n').slice(-3),
  };
  return { run, check, row, complete: run.code === 0 && check.count === expected, identical: check.identical === expected };
}

function countTiles(file) {
  const Database = require('better-sqlite3');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT count(*) FROM tiles').pluck().get();
  } finally {
    db.close();
  }
}

module.exports = { runMeasured, measuredCopy, sampleTree, compareStores, countTiles, tree };
