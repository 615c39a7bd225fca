'use strict';
// The store the benchmarks read: the bundled sample map (mirror/maps/sample.mbtiles, built by `npm run sample`),
// or, while it does not exist, a stand-in of the same shape written with the project's own StoreWriter.

const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const crypto = require('node:crypto');

const ROOT = path.resolve(__dirname, '..', '..');
const SAMPLE = path.join(ROOT, 'mirror', 'maps', 'sample.mbtiles');
const STANDIN_DIR = path.join(os.tmpdir(), 'tilemirror-bench-standin');
const STANDIN = path.join(STANDIN_DIR, 'maps', 'sample.mbtiles');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const WORLD = [-180, -85.0511287798066, 180, 85.0511287798066];

/** Writes the stand-in: z0-maxzoom of a 512 px png pyramid, each tile `bytes` random bytes behind a PNG signature. */
function buildStandIn(file = STANDIN, { maxzoom = 5, bytes = 20 * 1024 } = {}) {
  const { StoreWriter } = require(path.join(ROOT, 'dist', 'store', 'mbtiles', 'writer.js'));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.rmSync(tmp, { force: true });
  const w = new StoreWriter(tmp, {
    kind: 'maps',
    name: 'sample (bench stand-in)',
    description: 'random bytes in PNG-sized tiles, written by bench/lib/store.js',
    pyramids: [{ name: '512', tileSize: 512, scale: 1, format: 'png', minzoom: 0, maxzoom, bounds: WORLD }],
  });
  w.batch(() => {
    for (let z = 0; z <= maxzoom; z++) {
      for (let x = 0; x < 2 ** z; x++) {
        for (let y = 0; y < 2 ** z; y++) w.putTile('512', z, x, y, Buffer.concat([PNG_SIGNATURE, crypto.randomBytes(bytes - 8)]));
      }
    }
  });
  w.close();
  fs.renameSync(tmp, file);
  return file;
}

/**
 * The store to benchmark: `explicit` if given, else the sample if built, else the stand-in (built when missing).
 * Returns the file, its data directory (the folder holding maps/), its id and whether it is the stand-in.
 */
function resolveStore(explicit) {
  let file = explicit ? path.resolve(explicit) : SAMPLE;
  let standIn = false;
  if (!fs.existsSync(file)) {
    if (explicit) throw new Error(`no store at ${file}`);
    standIn = true;
    file = STANDIN;
    if (!fs.existsSync(file)) buildStandIn(file);
  }
  if (path.basename(path.dirname(file)) !== 'maps') throw new Error(`${file}: a map store must live in <data>/maps/`);
  return { file, dataDir: path.dirname(path.dirname(file)), id: path.basename(file, '.mbtiles'), standIn };
}

/** All tiles of zooms minzoom..maxzoom of the main (`tiles` table) pyramid, XYZ-addressed, with their bytes. */
function readTiles(file, { maxzoom = 5 } = {}) {
  const Database = require('better-sqlite3');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const meta = Object.fromEntries(db.prepare('SELECT name, value FROM metadata').all().map((r) => [r.name, r.value]));
    const rows = db
      .prepare('SELECT zoom_level AS z, tile_column AS x, tile_row AS row, tile_data AS data FROM tiles WHERE zoom_level <= ? ORDER BY 1, 2, 3')
      .all(maxzoom);
    const tiles = rows.map((r) => ({ z: r.z, x: r.x, y: 2 ** r.z - 1 - r.row, data: r.data }));
    return { meta, tiles };
  } finally {
    db.close();
  }
}

module.exports = { ROOT, SAMPLE, STANDIN, buildStandIn, resolveStore, readTiles };
