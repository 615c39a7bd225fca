'use strict';
// What /metrics costs on the hot path: the same server (dist/cli.js serve, request log off) with `metrics.enabled`
// true and false, in alternating rounds, under wrk (64 connections, random 512 px tiles of the sample map, zooms
// 0-5). Server pinned to the first CPU, wrk to the last (taskset). Prints req/s, p99 and the server's CPU time per
// request (from /proc: steadier than req/s on a shared machine) per round, and the medians.
//   node bench/metrics-overhead.js [seconds=10] [rounds=3]     (after `npm run build`)

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const seconds = Number(process.argv[2] ?? 10);
const rounds = Number(process.argv[3] ?? 3);
const cpus = os.cpus().length;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function paths() {
  const out = [];
  for (let z = 0; z <= 5; z++) for (let x = 0; x < 2 ** z; x++) for (let y = 0; y < 2 ** z; y++) out.push(`/maps/sample/${z}/${x}/${y}.png?key=demo`);
  return out;
}

function luaScript(dir) {
  const file = path.join(dir, 'random.lua');
  const list = paths().map((p) => `"${p}"`).join(',\n');
  fs.writeFileSync(file, `local paths = {${list}}\nmath.randomseed(42)\nrequest = function()\n  return wrk.format("GET", paths[math.random(#paths)])\nend\n`);
  return file;
}

async function startServer(dir, port, metrics) {
  const config = path.join(dir, `config-${metrics}.yaml`);
  fs.writeFileSync(config, `server: { host: 127.0.0.1, port: ${port}, requestLog: false }\ndata: ${path.join(ROOT, 'mirror')}\nkeys: [{ key: demo }]\nmetrics: { enabled: ${metrics} }\nlogLevel: warn\n`);
  const pin = cpus >= 2 ? ['taskset', '-c', '0'] : [];
  const child = spawn(pin[0] ?? process.execPath, [...pin.slice(1), ...(pin.length ? [process.execPath] : []), CLI, 'serve', '--config', config], { stdio: 'inherit' });
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return child;
    } catch {
      /* not yet */
    }
    await sleep(50);
  }
  throw new Error('server did not start');
}

function wrk(port, script) {
  const pin = cpus >= 2 ? ['taskset', '-c', String(cpus - 1)] : [];
  const args = [...pin.slice(1), ...(pin.length ? ['wrk'] : []), '-t1', '-c64', `-d${seconds}s`, '--latency', '-s', script, `http://127.0.0.1:${port}`];
  const out = execFileSync(pin[0] ?? 'wrk', args, { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99ms = Number(p99[1]) * (p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1);
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  const requests = Number(/(\d+) requests in/.exec(out)[1]);
  return { rps, p99ms, requests, non2xx: errors ? Number(errors[1]) : 0 };
}

/** CPU seconds (user + system) the process has used: less disturbed by other load on the machine than req/s. */
function cpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'metrics-overhead-'));
  const script = luaScript(dir);
  const results = { true: [], false: [] };
  try {
    for (let r = 0; r < rounds; r++) {
      for (const metrics of r % 2 === 0 ? [true, false] : [false, true]) {
        const port = 18000 + r * 2 + (metrics ? 1 : 0);
        const child = await startServer(dir, port, metrics);
        try {
          wrk(port, script).rps; // warm-up (caches, JIT): not counted
          const cpu0 = cpuSeconds(child.pid);
          const m = wrk(port, script);
          m.cpuUs = ((cpuSeconds(child.pid) - cpu0) / m.requests) * 1e6;
          results[metrics].push(m);
          console.log(`round ${r + 1} metrics=${metrics}: ${m.rps.toFixed(0)} req/s, p99 ${m.p99ms.toFixed(2)} ms, server CPU ${m.cpuUs.toFixed(2)} µs/request, non-2xx ${m.non2xx}`);
        } finally {
          child.kill('SIGTERM');
          await new Promise((res) => child.once('exit', res));
        }
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const on = median(results.true.map((m) => m.rps));
  const off = median(results.false.map((m) => m.rps));
  console.log(`median req/s: metrics on ${on.toFixed(0)}, off ${off.toFixed(0)}: on/off = ${(on / off).toFixed(3)}`);
  const cpuOn = median(results.true.map((m) => m.cpuUs));
  const cpuOff = median(results.false.map((m) => m.cpuUs));
  console.log(`median server CPU per request: on ${cpuOn.toFixed(2)} µs, off ${cpuOff.toFixed(2)} µs: +${(cpuOn - cpuOff).toFixed(2)} µs (${(((cpuOn - cpuOff) / cpuOff) * 100).toFixed(1)} %)`);
  console.log(`median p99 ms: on ${median(results.true.map((m) => m.p99ms)).toFixed(2)}, off ${median(results.false.map((m) => m.p99ms)).toFixed(2)}`);
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
