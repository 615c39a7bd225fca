'use strict';
// Benchmark `bundle`: export and import throughput (MB/s, tiles/s) of a ~1 GB store of incompressible tiles,
// beside the disk's sequential write speed measured by dd in the same run, in the same folder; then the size of
// an incremental bundle after 1 % of the tiles changed, against the full one. Everything lives in a temporary
// folder (on the same disk as os.tmpdir()) that is removed at the end. Export and import run as the CLI does,
// in process (the built dist/), so start-up time is not counted. The full bundle (the store as its SQLite file) is
// signed and imported twice into empty folders: without a trusted key (SQLite's quick_check runs on the file) and
// with the signing key trusted (the signature vouches for the file: no quick_check), as README's air-gap section
// recommends. The target is judged on both.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { execFileSync } = require('node:child_process');
const { ROOT } = require('./lib/store');
const { table, markdownTable, fmt, writeResults } = require('./lib/report');

const TARGETS = { importVsDd: 0.5, incrementalVsFull: 0.02 };

const options = {
  'store-mb': { default: 1024, help: 'size of the tile data of the store, MB' },
  'tile-kb': { default: 64, help: 'size of each tile, KB (random bytes: incompressible)' },
  'changed-percent': { default: 1, help: 'percent of the tiles changed before the incremental export' },
  dir: { default: '', help: 'folder to work in (default: a new one under os.tmpdir())' },
};

const MB = 1024 * 1024;
const dist = (rel) => require(path.join(ROOT, 'dist', rel));

function dd(dir, mb) {
  const file = path.join(dir, 'dd.bin');
  const t = process.hrtime.bigint();
  const out = execFileSync('dd', ['if=/dev/zero', `of=${file}`, 'bs=1M', `count=${mb}`, 'conv=fdatasync'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const seconds = Number(process.hrtime.bigint() - t) / 1e9;
  fs.rmSync(file);
  return { mbps: mb / seconds, seconds, out };
}

function writeStore(dataDir, tiles, tileBytes) {
  const { StoreWriter } = dist('store/mbtiles/writer.js');
  fs.mkdirSync(path.join(dataDir, 'tiles'), { recursive: true });
  const z = Math.ceil(Math.log2(Math.sqrt(tiles)));
  const w = new StoreWriter(path.join(dataDir, 'tiles', 'bench.mbtiles'), {
    kind: 'tiles',
    name: 'bundle bench',
    pyramids: [{ name: 'main', tileSize: 256, scale: 1, format: 'png', minzoom: z, maxzoom: z, bounds: [-180, -85.0511287798066, 180, 85.0511287798066] }],
  });
  const side = 2 ** z;
  for (let start = 0; start < tiles; start += 1000) {
    w.batch(() => {
      for (let i = start; i < Math.min(tiles, start + 1000); i++) w.putTile('main', z, i % side, Math.floor(i / side), crypto.randomBytes(tileBytes));
    });
  }
  w.close();
  return { z, side };
}

function changeTiles(dataDir, count, tileBytes) {
  const Database = require('better-sqlite3');
  const db = new Database(path.join(dataDir, 'tiles', 'bench.mbtiles'));
  const rows = db.prepare('SELECT rowid FROM tiles ORDER BY random() LIMIT ?').pluck().all(count);
  const put = db.prepare('UPDATE tiles SET tile_data = ? WHERE rowid = ?');
  db.transaction(() => rows.forEach((r) => put.run(crypto.randomBytes(tileBytes), r)))();
  db.close();
}

/** Wall seconds, and CPU seconds of the whole process (user + system, worker threads included: hashing, flushing). */
async function timed(fn) {
  const t = process.hrtime.bigint();
  const c = process.cpuUsage();
  const result = await fn();
  const cpu = process.cpuUsage(c);
  return { result, seconds: Number(process.hrtime.bigint() - t) / 1e9, cpu: (cpu.user + cpu.system) / 1e6 };
}

const sizeOf = (p) => (fs.statSync(p).isDirectory() ? fs.readdirSync(p).reduce((n, f) => n + fs.statSync(path.join(p, f)).size, 0) : fs.statSync(p).size);

async function run(opts) {
  const { exportBundle } = dist('bundle/export.js');
  const { importBundle } = dist('bundle/import.js');
  const { storeVersions } = dist('store/bundle/content-version.js');
  const { listStores } = dist('store/bundle/content.js');
  const dir = opts.dir || fs.mkdtempSync(path.join(os.tmpdir(), 'tm-bench-bundle-'));
  const src = path.join(dir, 'src');
  const dst = path.join(dir, 'dst');
  const tileBytes = opts['tile-kb'] * 1024;
  const tiles = Math.round((opts['store-mb'] * MB) / tileBytes);
  const dataMb = (tiles * tileBytes) / MB;
  const loadBefore = os.loadavg();
  console.log(`bundle: ${tiles} tiles of ${opts['tile-kb']} KB (${fmt(dataMb, 0)} MB) in ${dir}; load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} cores`);
  try {
    const disk = dd(dir, Math.min(1024, Math.round(dataMb)));
    console.log(`dd: ${fmt(disk.mbps, 0)} MB/s sequential write (conv=fdatasync)`);
    const gen = await timed(() => writeStore(src, tiles, tileBytes));
    console.log(`store written in ${gen.seconds.toFixed(1)} s (${fmt(sizeOf(path.join(src, 'tiles', 'bench.mbtiles')) / MB, 0)} MB file)`);

    const full = path.join(dir, 'full.bundle');
    const { generateKeyPair } = dist('bundle/sign.js');
    const keys = generateKeyPair(path.join(dir, 'bench'));
    const ex = await timed(() => exportBundle({ dataDir: src, out: full, resources: [], since: new Map(), partSize: null, signKey: keys.privateFile }));
    const im = await timed(() => importBundle({ dataDir: dst, bundle: full, trust: [] }));
    if (im.result.applied.length !== 1) throw new Error('the full import published nothing');
    const trustedDst = path.join(dir, 'dst-trusted');
    const imTrusted = await timed(() => importBundle({ dataDir: trustedDst, bundle: full, trust: [keys.publicFile] }));
    if (imTrusted.result.applied.length !== 1) throw new Error('the trusted full import published nothing');
    fs.rmSync(trustedDst, { recursive: true, force: true });
    const fullBytes = sizeOf(full);
    const versionsFile = path.join(dir, 'versions.json');
    fs.writeFileSync(versionsFile, JSON.stringify(storeVersions(dst, listStores(dst), (r, e) => { throw e; })));
    fs.rmSync(full);

    const changed = Math.round((tiles * opts['changed-percent']) / 100);
    changeTiles(src, changed, tileBytes);
    const inc = path.join(dir, 'inc.bundle');
    const since = new Map(Object.entries(JSON.parse(fs.readFileSync(versionsFile, 'utf8')).stores));
    const exInc = await timed(() => exportBundle({ dataDir: src, out: inc, resources: [], since, partSize: null }));
    const incBytes = sizeOf(inc);
    const imInc = await timed(() => importBundle({ dataDir: dst, bundle: inc, trust: [] }));
    const check = storeVersions(src, listStores(src), (r, e) => { throw e; }).stores;
    fs.rmSync(path.join(dst, '.tilemirror-bundles'), { recursive: true, force: true });
    const got = storeVersions(dst, listStores(dst), (r, e) => { throw e; }).stores;
    if (JSON.stringify(check) !== JSON.stringify(got)) throw new Error(`after the incremental import the versions differ: ${JSON.stringify(check)} vs ${JSON.stringify(got)}`);
    const loadAfter = os.loadavg();

    // CPU seconds per step: the figure a busy machine moves least (the wall figures are the issue's).
    const row = (name, step, mb, n) => [name, fmt(step.seconds, 2), fmt(mb / step.seconds, 0), fmt(n / step.seconds, 0), fmt(step.cpu, 2)];
    const head = ['step', 'seconds', 'MB/s', 'tiles/s', 'CPU s'];
    const rows = [
      ['dd (write, fdatasync)', fmt(disk.seconds, 2), fmt(disk.mbps, 0), '', ''],
      row('export full', ex, dataMb, tiles),
      row('import full, no trusted key', im, dataMb, tiles),
      row('import full, signed and trusted', imTrusted, dataMb, tiles),
      row(`export ${opts['changed-percent']} % changed`, exInc, dataMb, tiles),
      row(`import ${opts['changed-percent']} % changed`, imInc, dataMb, tiles),
    ];
    console.log(`\n${table(head, rows)}\n`);
    const importRatio = dataMb / im.seconds / disk.mbps;
    const trustedRatio = dataMb / imTrusted.seconds / disk.mbps;
    const incRatio = incBytes / fullBytes;
    console.log(`full bundle ${fmt(fullBytes / MB, 1)} MB; incremental (${changed} tiles changed) ${fmt(incBytes / MB, 2)} MB`);
    for (const [what, ratio] of [['no trusted key', importRatio], ['signed and trusted', trustedRatio]]) {
      console.log(`target import >= ${TARGETS.importVsDd * 100} % of dd (${what}): ${fmt(ratio * 100, 0)} % ${ratio >= TARGETS.importVsDd ? 'pass' : 'FAIL'}`);
    }
    console.log(`target incremental <= ${TARGETS.incrementalVsFull * 100} % of full: ${fmt(incRatio * 100, 2)} % ${incRatio <= TARGETS.incrementalVsFull ? 'pass' : 'FAIL'}`);
    console.log(`load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`);
    console.log(`\n${markdownTable(head, rows)}\n`);
    const file = writeResults('bundle', { opts, tiles, dataMb, dd: disk.mbps, export: ex.seconds, import: im.seconds, importTrusted: imTrusted.seconds, exportIncremental: exInc.seconds, importIncremental: imInc.seconds, cpu: { export: ex.cpu, import: im.cpu, importTrusted: imTrusted.cpu, exportIncremental: exInc.cpu, importIncremental: imInc.cpu }, fullBytes, incBytes, importRatio, trustedRatio, incRatio, loadBefore, loadAfter });
    console.log(`results: ${file}`);
  } finally {
    if (!opts.dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = {
  description: 'export and import throughput of a ~1 GB store beside dd\'s write speed; the size of an incremental bundle after 1 % of the tiles changed',
  options,
  run,
};
