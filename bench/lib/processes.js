'use strict';
// Child processes of a benchmark: servers started in their own process group, awaited until they
// answer, measured (RSS, CPU) and always stopped: on success, on errors, on Ctrl-C/SIGTERM.

const { spawn, execFileSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const net = require('node:net');
const { cpus } = require('node:os');

const live = new Set();

function killGroup(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal); // the whole group: a cluster master and its workers
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

/** Stops one started server: SIGTERM to its group, SIGKILL after `graceMs`. */
function stop(child, graceMs = 3000) {
  live.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      killGroup(child, 'SIGKILL');
      resolve();
    }, graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      // Workers a master left behind (same group) are ended too.
      killGroup(child, 'SIGKILL');
      resolve();
    });
    killGroup(child, 'SIGTERM');
  });
}

function stopAllSync() {
  for (const child of live) killGroup(child, 'SIGKILL');
  live.clear();
}

let hooked = false;
function hookExit() {
  if (hooked) return;
  hooked = true;
  process.on('exit', stopAllSync);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      console.error(`\n${sig}: stopping the servers`);
      stopAllSync();
      process.exit(130);
    });
  }
}

/**
 * Starts a server as a child process in a new process group. stdout goes to /dev/null (logging is part of the
 * cost measured, reading it back is not); the last lines of stderr are kept for error messages.
 */
function startServer(name, command, args, options = {}) {
  hookExit();
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', options.stdout ?? 'ignore', 'pipe'],
    detached: true,
  });
  child.benchName = name;
  child.stderrTail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    child.stderrTail = (child.stderrTail + d).slice(-4000);
  });
  live.add(child);
  return child;
}

/** Polls `url` until it answers 200, the child exits, or `timeoutMs` passes. */
async function waitReady(child, url, timeoutMs = 60000) {
  const t0 = Date.now();
  let last = '';
  while (Date.now() - t0 < timeoutMs) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${child.benchName} exited (${child.exitCode ?? child.signalCode}) before answering:\n${child.stderrTail}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return Date.now() - t0;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = err.cause?.code ?? err.message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${child.benchName} did not answer ${url} within ${timeoutMs} ms (last: ${last}):\n${child.stderrTail}`);
}

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** The pid and all its descendants (a cluster master's workers). */
function processTree(pid) {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    let kids = '';
    try {
      kids = execFileSync('ps', ['--ppid', String(out[i]), '-o', 'pid='], { encoding: 'utf8' });
    } catch {
      /* no children: ps exits 1 */
    }
    for (const k of kids.split(/\s+/).filter(Boolean)) out.push(Number(k));
  }
  return out;
}

function statusKb(pid, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14, stime field 15.
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return 0;
  }
}

/** Memory and CPU of a server and its descendants: RSS now, peak RSS (VmHWM), CPU seconds so far. */
function measure(pid) {
  const pids = processTree(pid);
  let rssKb = 0;
  let hwmKb = 0;
  let cpu = 0;
  for (const p of pids) {
    rssKb += statusKb(p, 'VmRSS');
    hwmKb += statusKb(p, 'VmHWM');
    cpu += cpuSeconds(p);
  }
  return { pids, rssMb: rssKb / 1024, peakRssMb: hwmKb / 1024, cpuSeconds: cpu };
}

module.exports = { startServer, waitReady, stop, stopAllSync, freePort, processTree, measure };

/** CPU seconds the whole machine has been busy (all cores; /proc/stat: everything but idle and iowait). */
function machineBusySeconds() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = v;
    return (user + nice + system + irq + softirq + (steal || 0)) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by every process of the machine: Map pid -> seconds. */
function allProcessesCpu() {
  const out = new Map();
  let names = [];
  try {
    names = require('node:fs').readdirSync('/proc');
  } catch {
    return out;
  }
  for (const n of names) if (/^\d+$/.test(n)) out.set(Number(n), cpuSeconds(Number(n)));
  return out;
}

/** CPU cores used between two allProcessesCpu() snapshots by processes not in `exclude` (new ones count whole). */
function otherCpuSeconds(before, after, exclude) {
  let sum = 0;
  for (const [pid, cpu] of after) {
    if (exclude.has(pid)) continue;
    sum += Math.max(0, cpu - (before.get(pid) ?? 0));
  }
  return sum;
}

/** CPU seconds the hypervisor has given to others (steal) so far, all cores. */
function stealSeconds() {
  try {
    const v = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return (v[7] || 0) / 100;
  } catch {
    return 0;
  }
}

module.exports.machineBusySeconds = machineBusySeconds;
module.exports.stealSeconds = stealSeconds;
module.exports.allProcessesCpu = allProcessesCpu;
module.exports.otherCpuSeconds = otherCpuSeconds;

const sleepMs = (ms) => new Promise((r) => setTimeout(r, ms));

/** Cores kept busy over `ms` by processes other than this one. */
async function machineLoad(ms = 1000) {
  const a = allProcessesCpu();
  await sleepMs(ms);
  return otherCpuSeconds(a, allProcessesCpu(), new Set([process.pid])) / (ms / 1000);
}

/** Waits (at most `maxSec`) until other processes use less than 0.3 of a core; returns the last load seen. */
async function waitIdle(maxSec) {
  const t0 = Date.now();
  let load = await machineLoad();
  if (load >= 0.3 && maxSec > 0) console.error(`  the machine is busy (${load.toFixed(2)} cores used by other processes): waiting up to ${maxSec} s`);
  while (load >= 0.3 && Date.now() - t0 < maxSec * 1000) load = await machineLoad();
  return load;
}

module.exports.machineLoad = machineLoad;
module.exports.waitIdle = waitIdle;

/**
 * CPUs to pin the measured server and the load generator to, so they do not take turns on one core:
 * `first` (CPU 0), `last` (the highest CPU), `allButLast`; false on one CPU or without taskset.
 */
function cpuPinning() {
  const n = cpus().length;
  if (n < 2) return false;
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
  } catch {
    return false;
  }
  return { first: '0', last: String(n - 1), allButLast: n > 2 ? `0-${n - 2}` : undefined };
}

module.exports.cpuPinning = cpuPinning;
