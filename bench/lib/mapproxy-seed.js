'use strict';
// mapproxy-seed's two files for seeding a tilemirror-shaped upstream's tiles/<id> into MBTiles: one request per
// tile (no meta-tiles), tiles stored as they came; `caFile` is the CA an https upstream's certificate is checked with.

const fs = require('node:fs');
const path = require('node:path');

/** MapProxy YAML lines: a layer `id` drawn from the cache `${id}_cache` on `grid` (the cache's settings follow). */
function layerOverCache(id, grid) {
  return ['layers:', `  - name: ${id}`, `    title: ${id}`, `    sources: [${id}_cache]`, 'caches:', `  ${id}_cache:`, `    grids: [${grid}]`];
}

/** MapProxy YAML lines under `globals:`: its cache and lock folders inside `dir`. */
function cacheDirs(dir) {
  const data = path.join(dir, 'cache_data');
  return ['  cache:', `    base_dir: ${JSON.stringify(data)}`, `    lock_dir: ${JSON.stringify(path.join(data, 'locks'))}`, `    tile_lock_dir: ${JSON.stringify(path.join(data, 'tile_locks'))}`];
}

/** Writes `mapproxy.yaml` and `seed.yaml` into `dir` for the area (areaOf) at zooms 0..area.z. */
function mapproxyFiles(dir, { origin, id, key, area, caFile }) {
  fs.mkdirSync(dir, { recursive: true });
  const cacheFile = path.join(dir, `${id}.mbtiles`);
  // Meta-tiling off (one request per tile, like the mirror); the source's grid is XYZ (origin nw) to match the
  // upstream's URLs, the cache's grid TMS (origin sw) so that the MBTiles rows follow the MBTiles spec (with a
  // nw grid MapProxy writes XYZ rows into tile_row). Same resolutions and tile edges: tiles pass through as
  // they came (no decoding or resampling; the bytes are checked afterwards).
  const proxy = [
    '# written by bench/lib/mapproxy-seed.js',
    'services:',
    '  demo:',
    ...layerOverCache(id, 'webmercator_tms'),
    '    sources: [upstream]',
    '    format: image/png',
    '    request_format: image/png',
    '    meta_size: [1, 1]',
    '    meta_buffer: 0',
    '    bulk_meta_tiles: false',
    '    minimize_meta_requests: true',
    '    cache:',
    '      type: mbtiles',
    `      filename: ${JSON.stringify(cacheFile)}`,
    'sources:',
    '  upstream:',
    '    type: tile',
    `    url: ${origin}/tiles/${id}/%(z)s/%(x)s/%(y)s?key=${key}`,
    ...(caFile ? ['    http:', `      ssl_ca_certs: ${JSON.stringify(caFile)}`] : []),
    '    grid: webmercator_xyz',
    '    transparent: false',
    'grids:',
    '  webmercator_xyz:',
    '    base: GLOBAL_WEBMERCATOR',
    '    origin: nw',
    '  webmercator_tms:',
    '    base: GLOBAL_WEBMERCATOR',
    '    origin: sw',
    'globals:',
    ...cacheDirs(dir),
    '',
  ].join('\n');
  const seed = [
    '# written by bench/lib/mapproxy-seed.js',
    'seeds:',
    `  ${id}:`,
    `    caches: [${id}_cache]`,
    '    levels:',
    '      from: 0',
    `      to: ${area.z}`,
    '    coverages: [area]',
    'coverages:',
    '  area:',
    `    bbox: [${area.bbox3857.join(', ')}]`,
    "    srs: 'EPSG:3857'",
    '',
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'mapproxy.yaml'), proxy);
  fs.writeFileSync(path.join(dir, 'seed.yaml'), seed);
  return { proxy: path.join(dir, 'mapproxy.yaml'), seed: path.join(dir, 'seed.yaml'), cacheFile };
}

module.exports = { mapproxyFiles, layerOverCache, cacheDirs };
