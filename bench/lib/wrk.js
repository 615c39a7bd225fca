'use strict';
// The load generator of the serve and topology benchmarks: wrk (Debian package `wrk`), one thread, with
// bench/lib/wrk.lua choosing a random path of the list per request. On this 2-core machine autocannon caps near
// 3k req/s on ~27 KB bodies (the same bare server: 3.2k under autocannon, 63k under wrk): its figures were its own.
// Returns the same shape as bench/lib/load.js (autocannon), so the reports read either.

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { ensureDebianCommand } = require('./anchors');

const LUA = path.join(__dirname, 'wrk.lua');

let found;

/** The path of wrk, installed from Debian's `wrk` package on first use; throws when it cannot be. */
function wrkPath() {
  if (found) return found;
  const r = ensureDebianCommand('wrk', 'wrk');
  if (r.reason) throw new Error(r.reason);
  found = r.path;
  return found;
}

/** CPU seconds (user + system) of a process, from /proc; 0 once it is gone. */
function cpuSeconds(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

/** One wrk run of `seconds`; resolves with its JSON line and its CPU seconds (sampled until it exits). */
function once({ origin, pathsFile, connections, seconds, cpus, timeoutSec = 10, rate, headers = [] }) {
  return new Promise((resolve, reject) => {
    const args = ['-t1', `-c${connections}`, `-d${seconds}s`, `--timeout`, `${timeoutSec}s`, ...headers.flatMap((h) => ['-H', h]), '-s', LUA, origin];
    const cmd = cpus !== undefined ? 'taskset' : wrkPath();
    const child = spawn(cmd, cpus !== undefined ? ['-c', String(cpus), wrkPath(), ...args] : args, {
      env: { ...process.env, WRK_PATHS: pathsFile, ...(rate ? { WRK_DELAY_MS: String(Math.max(1, Math.round((connections * 1000) / rate))) } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let cpu = 0;
    const sampler = setInterval(() => (cpu = Math.max(cpu, cpuSeconds(child.pid))), 250);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(sampler);
      const line = out.split('\n').find((l) => l.startsWith('WRK_JSON '));
      if (code !== 0 || !line) return reject(new Error(`wrk exited ${code}: ${err.trim() || out.trim()}`));
      resolve({ r: JSON.parse(line.slice('WRK_JSON '.length)), cpu, pid: child.pid });
    });
  });
}

/**
 * Warm-up then the measured run against `origin`, requesting `paths` at random over `connections`.
 * `onPhase('main')` is called between the two (the caller samples the server's CPU there). With `rate`
 * (requests per second) each connection is paced to offer about that much in all. `headers` ("Name: value") go
 * with every request.
 */
async function runWrk({ origin, paths, connections, duration, warmup, rate, headers }, { onPhase, cpus } = {}) {
  wrkPath(); // installs wrk, or throws, before any file is written
  const pathsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wrk-')), 'paths.txt');
  fs.writeFileSync(pathsFile, paths.join('\n') + '\n');
  try {
    if (warmup > 0) await once({ origin, pathsFile, connections, seconds: warmup, cpus, rate, headers });
    onPhase?.('main');
    const { r, cpu, pid } = await once({ origin, pathsFile, connections, seconds: duration, cpus, rate, headers });
    const sec = r.duration_us / 1e6;
    const ms = (us) => us / 1000;
    const errors = r.connect + r.read + r.write;
    return {
      loadgen: 'wrk',
      requestsPerSecMean: r.requests / sec,
      requestsPerSecStddev: undefined,
      totalRequests: r.requests,
      durationSec: sec,
      latencyMs: { mean: ms(r.mean_us), p50: ms(r.p50_us), p90: ms(r.p90_us), p99: ms(r.p99_us), p999: ms(r.p999_us), max: ms(r.max_us) },
      throughputMBps: r.bytes / sec / 1e6,
      bytesPerResponse: r.bytes / Math.max(1, r.requests),
      // wrk counts responses with a status above 399 as `status` errors; bodies are checked before the run.
      non2xx: r.status,
      errors,
      timeouts: r.timeout,
      statusCodes: undefined,
      responsesOk: r.requests - r.status,
      responsesSeen: r.requests,
      loadgenCpuSeconds: cpu,
      pid,
    };
  } finally {
    fs.rmSync(path.dirname(pathsFile), { recursive: true, force: true });
  }
}

module.exports = { runWrk, wrkPath };
