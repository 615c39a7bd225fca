'use strict';
// `npm run bench -- pmtiles`: `export --format pmtiles` write speed and archive size beside the MBTiles store,
// and uncached tile reads from the archive (PmtilesStore) beside the same reads from the store (MbtilesStore).
// The store is synthetic: every tile of zooms 0..maxzoom, a quarter of them one repeated "ocean" tile, the
// rest random bytes (incompressible, like PNG/JPEG) of 1-3 KB. Written under the OS temporary directory.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { StoreWriter } = require('../dist/store/mbtiles/writer.js');
const { MbtilesStore } = require('../dist/store/mbtiles/reader.js');
const { PmtilesStore } = require('../dist/store/pmtiles/store.js');
const { exportPmtiles } = require('../dist/store/pmtiles/export.js');

const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;

async function run(opts) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tilemirror-bench-pmtiles-'));
  try {
    const file = path.join(dir, 'bench.mbtiles');
    const max = opts.maxzoom;
    const world = [-180, -85.0511287798066, 180, 85.0511287798066];
    const w = new StoreWriter(file, { kind: 'tiles', name: 'bench', pyramids: [{ name: 'main', tileSize: 256, scale: 1, format: 'png', minzoom: 0, maxzoom: max, bounds: world }] });
    const ocean = crypto.randomBytes(800);
    let count = 0;
    w.batch(() => {
      for (let z = 0; z <= max; z++) {
        for (let x = 0; x < 2 ** z; x++) {
          for (let y = 0; y < 2 ** z; y++) {
            w.putTile('main', z, x, y, (x + y) % 4 === 0 ? ocean : crypto.randomBytes(1000 + ((x * 7 + y) % 2000)));
            count++;
          }
        }
      }
    });
    w.close();
    const store = new MbtilesStore(file, 'tiles', 'bench', 'bench');
    const out = path.join(dir, 'bench.pmtiles');
    const t0 = process.hrtime.bigint();
    const stats = exportPmtiles(store, out, { name: 'bench' });
    const s = seconds(t0);
    const mb = fs.statSync(file).size;
    const pb = fs.statSync(out).size;
    console.log(`pmtiles write: ${count} tiles in ${s.toFixed(2)} s = ${Math.round(count / s)} tiles/s, ${(pb / 1e6 / s).toFixed(1)} MB/s of archive`);
    console.log(`pmtiles size: ${(pb / 1e6).toFixed(1)} MB beside ${(mb / 1e6).toFixed(1)} MB of MBTiles (${((100 * pb) / mb).toFixed(1)} %); ` +
      `${stats.contents} distinct contents, ${stats.entries} entries, ${stats.leaves} leaf directories`);
    const archive = new PmtilesStore(out, 'bench', 'bench');
    const addrs = Array.from({ length: opts.reads }, () => [max, Math.floor(Math.random() * 2 ** max), Math.floor(Math.random() * 2 ** max)]);
    for (const [name, source] of [['mbtiles', store], ['pmtiles', archive]]) {
      const t = process.hrtime.bigint();
      for (const [z, x, y] of addrs) source.tile('main', z, x, y);
      console.log(`read ${name}: ${Math.round(addrs.length / seconds(t))} tiles/s (uncached, random addresses at zoom ${max})`);
    }
    archive.close();
    store.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = {
  description: 'PMTiles export write speed and size beside MBTiles, and uncached reads from each',
  options: {
    maxzoom: { default: 8, help: 'every tile of zooms 0..maxzoom (8: 87381 tiles, ~190 MB of MBTiles)' },
    reads: { default: 100000, help: 'random tile reads from each store' },
  },
  run,
};
