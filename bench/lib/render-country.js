'use strict';
// The data directory of the render benchmark's `basic-preview` run: the synthetic country (country-store.js,
// OpenMapTiles schema) as `tiles/country`, the sample's `Noto Sans Regular` glyphs, the sample map (mirrored raster
// tiles: the serving comparison), and `maps/basic`: the OpenMapTiles "Basic" style (`basic-preview` in the npm
// package tileserver-gl-styles, 47 layers, labels in Noto Sans) over the country, mirrored as `raster: render`
// would store it (its pyramids described, no raster tile). Built under .bench/render-country/ once per country.

const fs = require('node:fs');
const path = require('node:path');
const { ensureCountry } = require('./country-store');

const ROOT = path.resolve(__dirname, '..', '..');

/** The basic-preview style with its sources, glyphs and sprite pointing at this server's stores. */
function basicStyle() {
  const style = JSON.parse(fs.readFileSync(require.resolve('tileserver-gl-styles/styles/basic-preview/style.json'), 'utf8'));
  style.sources = { openmaptiles: { type: 'vector', url: 'tilemirror://tiles/country/tiles.json' } };
  style.glyphs = 'tilemirror://fonts/{fontstack}/{range}.pbf';
  delete style.sprite;
  return style;
}

async function ensureRenderCountry({ scale, log = console.error }) {
  const country = await ensureCountry({ scale, log });
  const dir = path.join(ROOT, '.bench', 'render-country', path.basename(country.dir));
  const marker = path.join(dir, 'maps', 'basic.mbtiles');
  if (fs.existsSync(marker)) return { dir, bounds: country.manifest.bounds ?? boundsOf(country.store) };
  for (const k of ['tiles', 'fonts', 'maps']) fs.mkdirSync(path.join(dir, k), { recursive: true });
  const link = (from, to) => {
    fs.rmSync(to, { force: true });
    try {
      fs.linkSync(from, to);
    } catch {
      fs.copyFileSync(from, to);
    }
  };
  link(country.store, path.join(dir, 'tiles', 'country.mbtiles'));
  fs.copyFileSync(path.join(ROOT, 'mirror', 'fonts', 'Noto Sans Regular.mbtiles'), path.join(dir, 'fonts', 'Noto Sans Regular.mbtiles'));
  fs.copyFileSync(path.join(ROOT, 'mirror', 'maps', 'sample.mbtiles'), path.join(dir, 'maps', 'sample.mbtiles'));
  const bounds = boundsOf(country.store);
  const { StoreWriter } = require(path.join(ROOT, 'dist', 'store', 'mbtiles', 'writer.js'));
  const tmp = `${marker}.tmp`;
  fs.rmSync(tmp, { force: true });
  const w = new StoreWriter(tmp, {
    kind: 'maps',
    name: 'Basic (OpenMapTiles) over the synthetic country',
    attribution: 'synthetic data (tilemirror bench)',
    center: [(bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2, 12],
    pyramids: [
      { name: '512', tileSize: 512, scale: 1, format: 'png', minzoom: 0, maxzoom: 14, bounds },
      { name: '256', tileSize: 256, scale: 1, format: 'png', minzoom: 0, maxzoom: 15, bounds },
    ],
    extraMetadata: { tilemirror_raster: 'render' },
  });
  w.putDocument('style.json', 'application/json', JSON.stringify(basicStyle()));
  w.close();
  fs.renameSync(tmp, marker);
  log(`render bench data: ${dir}`);
  return { dir, bounds };
}

function boundsOf(store) {
  const Database = require(path.join(ROOT, 'node_modules', 'better-sqlite3'));
  const db = new Database(store, { readonly: true });
  try {
    return db.prepare("SELECT value FROM metadata WHERE name = 'bounds'").pluck().get().split(',').map(Number);
  } finally {
    db.close();
  }
}

module.exports = { ensureRenderCountry, basicStyle };
