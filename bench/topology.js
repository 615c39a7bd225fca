'use strict';
// Benchmark `topology`: requests per second through nginx (docker/nginx.conf) in front of one, then two
// `tilemirror serve` instances over the bundled sample, measured with wrk (random 512 px map tiles of zooms
// 0..maxzoom, the same script for every run). Two modes:
//   nocache  the tile cache of nginx.conf switched off (`proxy_cache off`): every request reaches an instance,
//            so this is what the instances behind nginx can answer;
//   cache    nginx.conf as shipped, the cache warmed first: what nginx answers from its cache.
// Several short runs per case, reported as medians with the load average, since the machine may be shared.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync, spawnSync } = require('node:child_process');
const { ROOT } = require('./lib/store');
const { startServer, waitReady, stop, freePort } = require('./lib/processes');
const { table, markdownTable, fmt, writeResults } = require('./lib/report');
const { wrkPath } = require('./lib/wrk');

const CLI = path.join(ROOT, 'dist', 'cli.js');
const KEY = 'demo';

const options = {
  duration: { default: 5, help: 'seconds per wrk run' },
  runs: { default: 3, help: 'wrk runs per case (the median is reported)' },
  connections: { default: 64, help: 'wrk connections' },
  threads: { default: 2, help: 'wrk threads' },
  maxzoom: { default: 4, help: 'deepest zoom of the random tiles (maps/sample, 512 px)' },
  modes: { default: 'nocache,cache', help: 'nocache, cache or both (comma-separated)' },
};

/** nginx: Debian puts it in /usr/sbin, often not on a user's PATH (test/run.sh installs nginx-light). */
function nginxPath() {
  if (fs.existsSync('/usr/sbin/nginx')) return '/usr/sbin/nginx';
  const r = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error('nginx is not installed (Debian: apt-get install nginx-light)');
  return r.stdout.trim();
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** wrk's text output: requests/s, p99 (ms), non-2xx/3xx answers and socket errors. */
function parseWrk(out) {
  const num = (re) => {
    const m = re.exec(out);
    return m ? Number(m[1]) : 0;
  };
  const unit = { us: 0.001, ms: 1, s: 1000 };
  const p99 = /^\s*99%\s+([\d.]+)(us|ms|s)\s*$/m.exec(out);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    p99Ms: p99 ? Number(p99[1]) * unit[p99[2]] : undefined,
    non2xx: num(/Non-2xx or 3xx responses:\s+(\d+)/),
    socketErrors: sock ? sock.slice(1).reduce((n, v) => n + Number(v), 0) : 0,
  };
}

function wrkScript(dir, maxzoom) {
  const file = path.join(dir, 'tiles.lua');
  fs.writeFileSync(
    file,
    `math.randomseed(${Date.now() % 100000})
request = function()
  local z = math.random(0, ${maxzoom})
  local n = 2 ^ z
  return wrk.format("GET", string.format("/maps/sample/%d/%d/%d.png?key=${KEY}", z, math.random(0, n - 1), math.random(0, n - 1)))
end
`,
  );
  return file;
}

function runWrk(wrk, url, script, o, seconds) {
  const out = execFileSync(wrk, ['-t', String(o.threads), '-c', String(o.connections), '-d', `${seconds}s`, '--latency', '-s', script, url], { encoding: 'utf8' });
  return parseWrk(out);
}

async function startNginx(nginxBin, ports, cache) {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'tm-bench-nginx-'));
  let conf = fs.readFileSync(path.join(ROOT, 'docker', 'nginx.conf'), 'utf8');
  if (!cache) {
    if (!conf.includes('proxy_cache tiles;')) throw new Error('docker/nginx.conf no longer has `proxy_cache tiles;` to switch off');
    conf = conf.replace('proxy_cache tiles;', 'proxy_cache off;');
  }
  fs.writeFileSync(path.join(prefix, 'nginx.conf'), conf);
  const servers = ports.map((p) => `  server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n');
  fs.writeFileSync(path.join(prefix, 'tilemirror-upstream.conf'), `upstream tilemirror {\n${servers}\n  keepalive 32;\n}\n`);
  const port = await freePort();
  fs.writeFileSync(path.join(prefix, 'tilemirror-listen.conf'), `listen 127.0.0.1:${port};\n`);
  const asUser = process.getuid?.() === 0 ? ` user ${os.userInfo().username};` : '';
  const child = startServer('nginx', nginxBin, ['-p', `${prefix}/`, '-c', path.join(prefix, 'nginx.conf'), '-g', `daemon off;${asUser}`]);
  const url = `http://127.0.0.1:${port}`;
  await waitReady(child, `${url}/maps/sample/0/0/0.png?key=${KEY}`);
  return { child, url, prefix };
}

async function run(o) {
  const nginxBin = nginxPath();
  const wrk = wrkPath();
  if (!fs.existsSync(path.join(ROOT, 'mirror', 'maps', 'sample.mbtiles'))) throw new Error('mirror/maps/sample.mbtiles is missing: npm run sample');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tm-bench-topology-'));
  const script = wrkScript(dir, o.maxzoom);
  const instances = [];
  const results = [];
  try {
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const config = path.join(dir, `serve-${i}.json`);
      fs.writeFileSync(
        config,
        JSON.stringify({ server: { host: '127.0.0.1', port, requestLog: false, trustProxy: true }, data: path.join(ROOT, 'mirror'), keys: [{ key: KEY, plan: 'paid' }], logLevel: 'warn' }),
      );
      const child = startServer(`tilemirror-${i + 1}`, process.execPath, [CLI, 'serve', '--config', config]);
      await waitReady(child, `http://127.0.0.1:${port}/maps/sample/0/0/0.png?key=${KEY}`);
      instances.push({ child, port });
    }
    for (const mode of String(o.modes).split(',').map((m) => m.trim()).filter(Boolean)) {
      if (mode !== 'cache' && mode !== 'nocache') throw new Error(`unknown mode ${mode}`);
      for (const n of [1, 2]) {
        const nginx = await startNginx(nginxBin, instances.slice(0, n).map((s) => s.port), mode === 'cache');
        try {
          // Warm-up: connections, the instances' tile caches, and in `cache` mode nginx's cache.
          runWrk(wrk, nginx.url, script, o, 2);
          const runs = [];
          const loads = [];
          for (let r = 0; r < o.runs; r++) {
            loads.push(os.loadavg()[0]);
            runs.push(runWrk(wrk, nginx.url, script, o, o.duration));
          }
          const row = {
            mode,
            instances: n,
            rps: median(runs.map((x) => x.rps)),
            p99Ms: median(runs.map((x) => x.p99Ms ?? NaN)),
            runs: runs.map((x) => Math.round(x.rps)),
            non2xx: runs.reduce((s, x) => s + x.non2xx, 0),
            socketErrors: runs.reduce((s, x) => s + x.socketErrors, 0),
            loadavg1: median(loads),
          };
          results.push(row);
          console.error(`  ${mode} x${n}: ${fmt(row.rps, 0)} req/s (runs ${row.runs.join(', ')}), p99 ${fmt(row.p99Ms, 1)} ms, non-2xx ${row.non2xx}, socket errors ${row.socketErrors}, load ${fmt(row.loadavg1, 2)}`);
        } finally {
          await stop(nginx.child);
          fs.rmSync(nginx.prefix, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await Promise.all(instances.map((s) => stop(s.child)));
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const head = ['mode', 'instances', 'req/s (median)', 'runs', 'p99 ms', 'non-2xx', 'socket errors', 'load avg (1 min)'];
  const rows = results.map((r) => [r.mode, r.instances, fmt(r.rps, 0), r.runs.join(' / '), fmt(r.p99Ms, 1), r.non2xx, r.socketErrors, fmt(r.loadavg1, 2)]);
  console.log(`\ntopology: nginx + tilemirror serve, wrk -t${o.threads} -c${o.connections} -d${o.duration}s x${o.runs}, random 512 px tiles z0-${o.maxzoom}, ${os.cpus().length} CPUs`);
  console.log(table(head, rows));
  console.log(`\n${markdownTable(head, rows)}`);
  const file = writeResults('topology', { options: o, cpus: os.cpus().length, results });
  console.log(`\nresults: ${path.relative(ROOT, file)}`);
  return results;
}

module.exports = { description: 'requests/s through nginx (docker/nginx.conf) with one and two tilemirror instances (wrk)', options, run };
