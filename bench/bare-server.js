'use strict';
// The ceiling: a bare node:http server answering the same tile URLs with the same bytes, from memory.
// No key check, no routing beyond one Map lookup, no logging.
//   node bench/bare-server.js --store <file.mbtiles> --port <n> [--host 127.0.0.1] [--id sample] [--sqlite [--mmap]]
// --sqlite reads each tile from the store per request instead (better-sqlite3, one prepared statement, read-only;
// --mmap adds PRAGMA mmap_size): the floor of any server that reads from SQLite.

const http = require('node:http');
const { readTiles } = require('./lib/store');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const file = arg('store');
const port = Number(arg('port', '0'));
const host = arg('host', '127.0.0.1');
const id = arg('id', 'sample');
const maxzoom = Number(arg('maxzoom', '30'));
if (!file) {
  console.error('usage: node bench/bare-server.js --store <file.mbtiles> --port <n> [--host 127.0.0.1] [--id sample]');
  process.exit(2);
}

const tiles = new Map();
let lookup = (path) => tiles.get(path);
if (process.argv.includes('--sqlite')) {
  const Database = require('better-sqlite3');
  const db = new Database(file, { readonly: true, fileMustExist: true });
  if (process.argv.includes('--mmap')) db.pragma('mmap_size = 268435456');
  const stmt = db.prepare('SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?');
  const re = new RegExp(`^/maps/${id}/(\\d+)/(\\d+)/(\\d+)\\.png$`);
  lookup = (path) => {
    const m = re.exec(path);
    if (!m) return undefined;
    const z = Number(m[1]);
    return stmt.get(z, Number(m[2]), 2 ** z - 1 - Number(m[3]))?.tile_data;
  };
} else {
  for (const t of readTiles(file, { maxzoom }).tiles) tiles.set(`/maps/${id}/${t.z}/${t.x}/${t.y}.png`, t.data);
}

const server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const body = lookup(q < 0 ? url : url.slice(0, q));
  if (!body) {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('Not found');
    return;
  }
  res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': body.length, 'Cache-Control': 'public, max-age=86400' });
  res.end(body);
});
server.listen(port, host, () => {
  console.error(`bare server: ${tiles.size || 'sqlite'} tiles on http://${host}:${server.address().port}`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => server.close(() => process.exit(0)) && server.closeAllConnections());
