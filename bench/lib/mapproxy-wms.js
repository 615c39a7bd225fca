'use strict';
// MapProxy (Debian's python3-mapproxy) as the WMS anchor of the wms benchmark: a WMS layer whose cache is an
// existing MBTiles file read in place (`sources: []`: nothing is fetched, nothing written), on a 512 px
// GLOBAL_WEBMERCATOR grid with TMS rows (MBTiles' own) and only the levels the file holds, served by gunicorn
// (Debian's `gunicorn`, sync workers: one request at a time per process, MapProxy's usual deployment).

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ensureDebianCommand } = require('./anchors');
const { layerOverCache, cacheDirs } = require('./mapproxy-seed');

const GRID = 'webmercator_512';
// Debian's python, the one python3-mapproxy and gunicorn's script use (another python3 may come first in PATH).
const PYTHON = '/usr/bin/python3';

/** Writes mapproxy.yaml and the WSGI module into `dir`; returns their paths. */
function mapproxyWmsFiles(dir, { layer, mbtiles, maxzoom, crs, resampling }) {
  fs.mkdirSync(dir, { recursive: true });
  const config = path.join(dir, 'mapproxy.yaml');
  const yaml = [
    '# written by bench/lib/mapproxy-wms.js',
    'services:',
    '  wms:',
    "    versions: ['1.3.0', '1.1.1']",
    `    srs: [${crs.map((c) => `'${c}'`).join(', ')}]`,
    "    image_formats: ['image/png']",
    '    md:',
    '      title: tilemirror wms bench',
    ...layerOverCache(layer, GRID),
    '    sources: []',
    '    format: image/png',
    '    cache:',
    '      type: mbtiles',
    `      filename: ${JSON.stringify(mbtiles)}`,
    'grids:',
    // The levels the file holds: beyond them MapProxy would pick a level with no tile and answer a blank image.
    `  ${GRID}:`,
    '    base: GLOBAL_WEBMERCATOR',
    '    origin: sw',
    '    tile_size: [512, 512]',
    `    num_levels: ${maxzoom + 1}`,
    'globals:',
    '  image:',
    `    resampling_method: ${resampling === 'cubic' ? 'bicubic' : resampling}`,
    // Truecolour PNG like tilemirror's (MapProxy's default quantizes PNG to 256 colours, which costs accuracy).
    '    paletted: false',
    ...cacheDirs(dir),
    '',
  ].join('\n');
  fs.writeFileSync(config, yaml);
  const app = path.join(dir, 'mapproxy_app.py');
  fs.writeFileSync(app, ['# written by bench/lib/mapproxy-wms.js', 'from mapproxy.wsgiapp import make_wsgi_app', `application = make_wsgi_app(${JSON.stringify(config)})`, ''].join('\n'));
  return { config, app, dir };
}

/** gunicorn's path and the MapProxy version, installing Debian's gunicorn when missing; { reason } when it cannot. */
function ensureGunicornMapproxy(opts = {}) {
  const py = spawnSync(PYTHON, ['-c', 'import mapproxy.wsgiapp'], { encoding: 'utf8' });
  if (py.status !== 0) {
    const r = ensureDebianCommand('mapproxy-util', 'mapproxy', opts);
    if (r.reason) return { reason: `python3-mapproxy is missing: ${r.reason}` };
  }
  const g = ensureDebianCommand('gunicorn', 'gunicorn', opts);
  if (g.reason) return g;
  const v = (pkg) => spawnSync('dpkg-query', ['-W', '-f=${Version}', pkg], { encoding: 'utf8' }).stdout?.trim() || '?';
  return { gunicorn: g.path, version: `MapProxy ${v('python3-mapproxy')}, gunicorn ${v('gunicorn')}` };
}

/** gunicorn's arguments for `workers` sync workers on 127.0.0.1:port. */
function gunicornArgs(files, { port, workers }) {
  return ['--workers', String(workers), '--bind', `127.0.0.1:${port}`, '--chdir', files.dir, '--log-level', 'warning', 'mapproxy_app:application'];
}

/**
 * The level MapProxy reads for each request, from its own grid code (get_affected_bbox_and_level: the request's
 * bbox transformed to the grid, its resolution, the closest level): `requests` are [crs, [x0, y0, x1, y1] easting
 * or longitude first, width, height].
 */
function mapproxyLevels(files, requests) {
  const script = [
    'import sys, json',
    'from mapproxy.config.loader import load_configuration',
    'from mapproxy.srs import SRS',
    'conf = load_configuration(sys.argv[1])',
    `grid = conf.grids['${GRID}'].tile_grid()`,
    'out = []',
    'for crs, bbox, w, h in json.loads(sys.argv[2]):',
    '    out.append(grid.get_affected_bbox_and_level(tuple(bbox), (w, h), req_srs=SRS(crs))[1])',
    'print(json.dumps(out))',
  ].join('\n');
  const r = spawnSync(PYTHON, ['-c', script, files.config, JSON.stringify(requests)], { encoding: 'utf8', timeout: 60000 });
  if (r.status !== 0) throw new Error(`MapProxy's level choice failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

module.exports = { mapproxyWmsFiles, ensureGunicornMapproxy, gunicornArgs, mapproxyLevels };
