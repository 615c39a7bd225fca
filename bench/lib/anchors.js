'use strict';
// Anchors: other servers the benchmarks compare against. They are NOT project dependencies: each is installed
// on first use into .bench/ (gitignored), outside package.json and package-lock.json.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('./store');

const TILESERVER_PREFIX = path.join(ROOT, '.bench', 'tileserver');
const TILESERVER_SPEC = 'tileserver-gl-light@5';
const TILESERVER_MAIN = path.join(TILESERVER_PREFIX, 'node_modules', 'tileserver-gl-light', 'src', 'main.js');

function tileserverWorks() {
  if (!fs.existsSync(TILESERVER_MAIN)) return false;
  const r = spawnSync(process.execPath, [TILESERVER_MAIN, '--help'], { encoding: 'utf8', timeout: 30000 });
  return r.status === 0 && /--mbtiles/.test(r.stdout);
}

/**
 * The path of tileserver-gl-light's main script, installing it first when needed (~100 s: sqlite3 builds from source).
 * Returns undefined (with the reason) when it cannot be installed or `install` is false.
 */
function ensureTileserver({ install = true, log = console.error } = {}) {
  if (tileserverWorks()) return { main: TILESERVER_MAIN, version: tileserverVersion() };
  if (!install) return { reason: `not installed in ${TILESERVER_PREFIX} (run without --no-install)` };
  log(`installing ${TILESERVER_SPEC} into ${path.relative(ROOT, TILESERVER_PREFIX)}/ (once; ~100 s) ...`);
  fs.mkdirSync(TILESERVER_PREFIX, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', TILESERVER_PREFIX, TILESERVER_SPEC], {
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 15 * 60 * 1000,
  });
  if (r.status !== 0 || !tileserverWorks()) return { reason: `npm install ${TILESERVER_SPEC} failed (exit ${r.status ?? r.signal})` };
  return { main: TILESERVER_MAIN, version: tileserverVersion() };
}

function tileserverVersion() {
  try {
    return JSON.parse(fs.readFileSync(path.join(path.dirname(TILESERVER_MAIN), '..', 'package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

module.exports = { ensureTileserver, TILESERVER_PREFIX };

// MapProxy (the mirror benchmark's anchor): Debian's `mapproxy` package provides mapproxy-seed, installed on first use.
const MAPPROXY_PACKAGE = 'mapproxy';

function which(cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function mapproxyVersion(seed) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Version}', MAPPROXY_PACKAGE], { encoding: 'utf8' });
  if (r.status === 0 && r.stdout) return r.stdout.trim();
  const v = spawnSync(seed, ['--version'], { encoding: 'utf8', timeout: 30000 });
  return (v.stdout || v.stderr || 'unknown').trim().split('\n')[0];
}

/**
 * The path of `command`, installing Debian's `pkg` first with apt-get when it is missing (as root, or through
 * `sudo -n`); { reason } when it cannot. Benchmark tools only (wrk, mapproxy-seed): never project dependencies.
 */
function ensureDebianCommand(command, pkg, { install = true, log = console.error } = {}) {
  let found = which(command);
  if (found) return { path: found };
  if (!install) return { reason: `${command} is not installed (apt-get install ${pkg}; run without --no-install)` };
  if (!which('apt-get')) return { reason: `${command} is not installed and there is no apt-get` };
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const sudo = root ? [] : which('sudo') ? ['sudo', '-n'] : undefined;
  if (!sudo) return { reason: `${command} is not installed and apt-get needs root (apt-get install ${pkg})` };
  log(`installing Debian ${pkg} (${command}) with apt-get (once) ...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) =>
    spawnSync(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), ...args], { stdio: ['ignore', 'inherit', 'inherit'], env, timeout: 15 * 60 * 1000 });
  let r = apt(['install', '-y', '-q', '--no-install-recommends', pkg]);
  if (r.status !== 0) {
    apt(['update', '-q']);
    r = apt(['install', '-y', '-q', '--no-install-recommends', pkg]);
  }
  found = which(command);
  if (r.status !== 0 || !found) return { reason: `apt-get install ${pkg} failed (exit ${r.status ?? r.signal})` };
  return { path: found };
}

/** The path of mapproxy-seed, installing Debian's `mapproxy` first when needed; { reason } when it cannot. */
function ensureMapproxy(opts = {}) {
  const r = ensureDebianCommand('mapproxy-seed', MAPPROXY_PACKAGE, opts);
  return r.reason ? r : { seed: r.path, version: mapproxyVersion(r.path) };
}

module.exports.ensureMapproxy = ensureMapproxy;
module.exports.ensureDebianCommand = ensureDebianCommand;

// tilelive-copy (the `wan` benchmark's classic Node copier): @mapbox/tilelive with tilelive-http as the source and
// @mapbox/mbtiles as the sink, installed on first use into .bench/tilelive (~2 min: sqlite3 builds from source).
const TILELIVE_PREFIX = path.join(ROOT, '.bench', 'tilelive');
const TILELIVE_SPECS = ['@mapbox/tilelive@6', 'tilelive-http@0', '@mapbox/mbtiles@0'];
const TILELIVE_COPY = path.join(TILELIVE_PREFIX, 'node_modules', '@mapbox', 'tilelive', 'bin', 'tilelive-copy');

function tileliveWorks() {
  if (!fs.existsSync(TILELIVE_COPY)) return false;
  const r = spawnSync(process.execPath, ['-e', "require('tilelive-http'); require('@mapbox/mbtiles')"], { cwd: TILELIVE_PREFIX, encoding: 'utf8', timeout: 30000 });
  return r.status === 0;
}

function tileliveVersions() {
  const v = (name) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(TILELIVE_PREFIX, 'node_modules', name, 'package.json'), 'utf8')).version;
    } catch {
      return '?';
    }
  };
  return `@mapbox/tilelive ${v('@mapbox/tilelive')}, tilelive-http ${v('tilelive-http')}, @mapbox/mbtiles ${v('@mapbox/mbtiles')}`;
}

/** The path of tilelive-copy (its modules beside it), installing them first when needed; { reason } when it cannot. */
function ensureTilelive({ install = true, log = console.error } = {}) {
  if (tileliveWorks()) return { copy: TILELIVE_COPY, version: tileliveVersions() };
  if (!install) return { reason: `not installed in ${TILELIVE_PREFIX} (run without --no-install)` };
  log(`installing ${TILELIVE_SPECS.join(' ')} into ${path.relative(ROOT, TILELIVE_PREFIX)}/ (once; ~2 min) ...`);
  fs.mkdirSync(TILELIVE_PREFIX, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', TILELIVE_PREFIX, ...TILELIVE_SPECS], {
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 15 * 60 * 1000,
  });
  if (r.status !== 0 || !tileliveWorks()) return { reason: `npm install ${TILELIVE_SPECS.join(' ')} failed (exit ${r.status ?? r.signal})` };
  return { copy: TILELIVE_COPY, version: tileliveVersions() };
}

module.exports.ensureTilelive = ensureTilelive;
