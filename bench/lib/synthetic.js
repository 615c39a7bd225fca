'use strict';
// The synthetic upstream of the mirror benchmark: an area given as a rectangle of tiles at the deepest zoom,
// turned into one bbox both mirroring tools get (in degrees for tilemirror, in EPSG:3857 metres for MapProxy),
// and a tileset store holding exactly the tiles of that area at every zoom, written with the project's StoreWriter.

const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('./store');
const { solidPng, palette } = require('./png');

const HALF = 20037508.342789244; // half the Web Mercator world, metres

const lonOf = (x, z) => (x / 2 ** z) * 360 - 180;
const latOf = (y, z) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / 2 ** z))) * 180) / Math.PI;
const mxOf = (x, z) => (x / 2 ** z) * 2 * HALF - HALF;
const myOf = (y, z) => HALF - (y / 2 ** z) * 2 * HALF;

/**
 * The area of tiles x0..x1, y0..y1 (XYZ, inclusive) at zoom `z`: its bbox shrunk inwards by 1/1000 of a tile
 * on every side, so that "tiles intersecting the bbox" is that rectangle (and its parents) for any tool, with no
 * tile merely touching an edge. Returns the bboxes and the tile ranges per zoom 0..z.
 */
function areaOf({ z, x0, y0, x1, y1 }) {
  const e = 0.001;
  const bbox4326 = [lonOf(x0 + e, z), latOf(y1 + 1 - e, z), lonOf(x1 + 1 - e, z), latOf(y0 + e, z)];
  const bbox3857 = [mxOf(x0 + e, z), myOf(y1 + 1 - e, z), mxOf(x1 + 1 - e, z), myOf(y0 + e, z)];
  const zooms = [];
  for (let k = 0; k <= z; k++) {
    const d = 2 ** (z - k);
    const r = { z: k, minX: Math.floor(x0 / d), maxX: Math.floor(x1 / d), minY: Math.floor(y0 / d), maxY: Math.floor(y1 / d) };
    r.count = (r.maxX - r.minX + 1) * (r.maxY - r.minY + 1);
    zooms.push(r);
  }
  return { z, x0, y0, x1, y1, bbox4326, bbox3857, zooms, total: zooms.reduce((n, r) => n + r.count, 0) };
}

/** Tile bytes: `colours` precomputed solid-colour PNGs (padded to `tileBytes` when > 0), picked per tile. */
function tileSet({ colours = 64, tileBytes = 0, size = 256 } = {}) {
  const bufs = palette(colours).map((c) => solidPng(c, { size, padTo: tileBytes }));
  const pick = (z, x, y) => bufs[((x * 7 + y * 13 + z * 31) >>> 0) % bufs.length];
  return { bufs, pick };
}

/** Writes `<dataDir>/tiles/<id>.mbtiles`: the area's tiles at zooms 0..area.z (format png, 256 px). */
function buildSyntheticStore(dataDir, id, area, tiles) {
  const { StoreWriter } = require(path.join(ROOT, 'dist', 'store', 'mbtiles', 'writer.js'));
  const file = path.join(dataDir, 'tiles', `${id}.mbtiles`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.rmSync(file, { force: true });
  const tmp = `${file}.tmp`;
  fs.rmSync(tmp, { force: true });
  const w = new StoreWriter(tmp, {
    kind: 'tiles',
    name: 'synthetic (mirror benchmark)',
    description: 'solid-colour 256 px PNG tiles written by bench/lib/synthetic.js',
    attribution: 'tilemirror bench',
    pyramids: [{ name: 'main', tileSize: 256, scale: 1, format: 'png', minzoom: 0, maxzoom: area.z, bounds: area.bbox4326 }],
  });
  w.batch(() => {
    for (const r of area.zooms) {
      for (let x = r.minX; x <= r.maxX; x++) for (let y = r.minY; y <= r.maxY; y++) w.putTile('main', r.z, x, y, tiles.pick(r.z, x, y));
    }
  });
  w.close();
  fs.renameSync(tmp, file);
  return file;
}

module.exports = { areaOf, tileSet, buildSyntheticStore, lonOf, latOf };
