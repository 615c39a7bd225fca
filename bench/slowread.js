'use strict';
// `npm run bench -- slowread`: slow readers of big answers against one `tilemirror serve` on the sample. The
// attack is slowhttptest's slow-read mode (Debian's slowhttptest, installed on first use; `--tool node` uses this
// script's own readers instead): connections with a tiny TCP window that read a few bytes a second, all asking for
// a 4096 x 4096 px static map. Meanwhile a few keep-alive clients fetch tiles. Reported: the server's RSS before,
// at its peak, and 12, 30 and 60 s after the attack; tile latency (p50, p99) idle and during the attack; how the
// static map requests were answered.
//   npm run bench -- slowread --connections 500 --seconds 40

const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ROOT } = require('./lib/store');
const { startServer, waitReady, stop, freePort, measure } = require('./lib/processes');
const { ensureDebianCommand } = require('./lib/anchors');
const { fmt, table, markdownTable, writeResults } = require('./lib/report');

const KEY = 'demo';
const CLI = path.join(ROOT, 'dist', 'cli.js');
const BIG = '/maps/sample/static/auto/2048x2048@2x.png?markers=0,0';
const AFTER = [12, 30, 60];

const options = {
  connections: { default: 500, help: 'slow readers' },
  seconds: { default: 40, help: 'length of the attack' },
  tool: { default: 'slowhttptest', help: 'slowhttptest (Debian package, installed on first use) or node (own readers)' },
  'tile-clients': { default: 4, help: 'keep-alive clients fetching tiles meanwhile' },
  'arena-max': { default: 2, help: 'MALLOC_ARENA_MAX of the server (as the Docker image and npm start set it; 0: unset)' },
  'mmap-threshold': { default: 131072, help: 'MALLOC_MMAP_THRESHOLD_ of the server, bytes (as the Docker image and npm start set it; 0: unset)' },
  install: { default: true, help: 'apt-get install slowhttptest when missing' },
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** `clients` keep-alive loops over the sample's tiles until `stopAt()`: latencies (ms) and failures. */
async function tileLoad(port, clients, stopAt) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const paths = [];
  for (let z = 0; z <= 5; z++) for (let x = 0; x < 2 ** z; x++) for (let y = 0; y < 2 ** z; y++) paths.push(`/maps/sample/${z}/${x}/${y}.png?key=${KEY}`);
  const ms = [];
  let failed = 0;
  let i = 0;
  const one = (p) =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const req = http.get({ host: '127.0.0.1', port, path: p, agent, timeout: 30_000 }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) ms.push(performance.now() - t0);
          else failed++;
          resolve();
        });
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        failed++;
        resolve();
      });
    });
  await Promise.all(Array.from({ length: clients }, async () => {
    while (!stopAt()) await one(paths[i++ % paths.length]);
  }));
  agent.destroy();
  ms.sort((a, b) => a - b);
  return { requests: ms.length, failed, p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

/**
 * Node's own slow readers: each reads at most 16 bytes per second (a 16-byte read buffer, paused between reads),
 * reconnecting when the server closes it, until `stopAt()`. Counts the status lines seen.
 */
function nodeReaders(port, count, stopAt) {
  const statuses = {};
  const sockets = new Set();
  const open = () => {
    if (stopAt()) return;
    let head = '';
    const socket = net.connect({
      port,
      host: '127.0.0.1',
      onread: {
        buffer: Buffer.alloc(16),
        callback: (n, buf) => {
          if (head.length < 16) {
            head += buf.toString('latin1', 0, n);
            if (head.length >= 12) statuses[head.slice(9, 12)] = (statuses[head.slice(9, 12)] ?? 0) + 1;
          }
          return false; // pause: the next read a second later
        },
      },
    });
    sockets.add(socket);
    const timer = setInterval(() => socket.resume(), 1000);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearInterval(timer);
      sockets.delete(socket);
      setTimeout(open, 100);
    });
    socket.write(`GET ${BIG}&key=${KEY} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  };
  for (let i = 0; i < count; i++) setTimeout(open, (i * 1000) / 200); // 200 connections a second, as slowhttptest -r 200
  return {
    statuses,
    stop: () => {
      for (const s of sockets) s.destroy();
    },
  };
}

/** Connections to `port` the server's side still holds (/proc/net/tcp: established, owned by a socket). */
function heldConnections(port) {
  let n = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length >= 10 && parseInt(f[1].split(':')[1], 16) === port && f[3] === '01' && f[9] !== '0') n++;
    }
  }
  return n;
}

function slowhttptest(command, port, opts, tmp) {
  const args = ['-X', '-c', String(opts.connections), '-r', '200', '-w', '16', '-y', '16', '-n', '1', '-z', '16', '-k', '1', '-l', String(opts.seconds), '-p', '5', '-u', `http://127.0.0.1:${port}${BIG}&key=${KEY}`, '-g', '-o', path.join(tmp, 'slowhttptest')];
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: false });
  let out = '';
  child.stdout.on('data', (d) => (out = (out + d).slice(-20_000)));
  child.stderr.on('data', (d) => (out = (out + d).slice(-20_000)));
  const done = new Promise((resolve) => child.once('exit', () => resolve()));
  return { child, done, output: () => out };
}

async function run(opts) {
  if (!fs.existsSync(CLI)) throw new Error('dist/ is missing: npm run build first');
  let tool = opts.tool;
  let command;
  if (tool === 'slowhttptest') {
    const r = ensureDebianCommand('slowhttptest', 'slowhttptest', { install: opts.install });
    if (r.reason) {
      console.error(`slowread: ${r.reason}; using the script's own slow readers`);
      tool = 'node';
    } else command = r.path;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tilemirror-slowread-'));
  const port = await freePort();
  const config = path.join(tmp, 'serve.json');
  fs.writeFileSync(config, JSON.stringify({ server: { host: '127.0.0.1', port, requestLog: false }, data: path.join(ROOT, 'mirror'), keys: [{ key: KEY, plan: 'paid' }] }));
  const env = {
    ...(opts['arena-max'] > 0 ? { MALLOC_ARENA_MAX: String(opts['arena-max']) } : {}),
    ...(opts['mmap-threshold'] > 0 ? { MALLOC_MMAP_THRESHOLD_: String(opts['mmap-threshold']) } : {}),
  };
  const server = startServer('tilemirror', process.execPath, [CLI, 'serve', '--config', config], { env });
  try {
    await waitReady(server, `http://127.0.0.1:${port}/health`);
    const pid = server.pid;
    // Warm: two renders of the big map and a pass over the tiles, so the baseline holds what serving it holds.
    for (let i = 0; i < 2; i++) await (await fetch(`http://127.0.0.1:${port}${BIG}&key=${KEY}`)).arrayBuffer();
    const idle = await tileLoad(port, opts['tile-clients'], ((end) => () => performance.now() > end)(performance.now() + 5000));
    await sleep(2000);
    const baseline = measure(pid).rssMb;

    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, measure(pid).rssMb)), 250);
    const end = performance.now() + opts.seconds * 1000;
    const stopAt = () => performance.now() > end;
    const attack = tool === 'node' ? nodeReaders(port, opts.connections, stopAt) : slowhttptest(command, port, opts, tmp);
    const during = await tileLoad(port, opts['tile-clients'], stopAt);
    // What the server still holds of the attack's connections at its end (each reader of a map is closed one
    // minSendRateSeconds after its answer started to wait for it).
    const held = heldConnections(port);
    if (tool === 'node') attack.stop();
    else {
      attack.child.kill('SIGINT');
      await Promise.race([attack.done, sleep(5000)]);
      if (attack.child.exitCode === null) attack.child.kill('SIGKILL');
    }
    const endedAt = performance.now();
    const after = {};
    for (const s of AFTER) {
      await sleep(Math.max(0, endedAt + s * 1000 - performance.now()));
      after[s] = measure(pid).rssMb;
    }
    clearInterval(sampler);
    const health = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status, () => 'refused');

    const rows = [
      ['RSS before (MB)', fmt(baseline, 0)],
      ['RSS peak during the attack (MB)', fmt(peak, 0)],
      ...AFTER.map((s) => [`RSS ${s} s after (MB)`, fmt(after[s], 0)]),
      ['tile p50 / p99 idle (ms)', `${fmt(idle.p50, 1)} / ${fmt(idle.p99, 1)}`],
      ['tile p50 / p99 during (ms)', `${fmt(during.p50, 1)} / ${fmt(during.p99, 1)}`],
      ['tiles answered / failed during', `${during.requests} / ${during.failed}`],
      ['connections the server held at the end', `${held} of ${opts.connections}`],
      ['/health after', String(health)],
    ];
    console.log(`\nslow readers (${tool}, ${opts.connections} connections, ${opts.seconds} s) of ${BIG}; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
    console.log(table(['', 'value'], rows));
    if (tool === 'node') console.log(`\nstatus lines seen by the readers: ${JSON.stringify(attack.statuses)}`);
    else {
      const summary = attack.output().split('\n').filter((l) => /connected|closed|error|pending|available/i.test(l)).slice(-6);
      console.log(`\nslowhttptest's last status:\n${summary.join('\n')}`);
    }
    console.log(`\n${markdownTable(['', 'value'], rows)}`);
    const file = writeResults('slowread', { tool, opts, baseline, peak, after, idle, during, held, health, load: os.loadavg() });
    console.log(`\nresults: ${path.relative(ROOT, file)}`);
  } finally {
    await stop(server);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

module.exports = { description: 'slow readers of big static maps (slowhttptest -X): server RSS and tile latency', options, run };
