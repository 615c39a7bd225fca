#!/usr/bin/env node
'use strict';
// A synthetic upstream for the mirror benchmark's large plan: a node:http server that answers every tile of a
// world-wide tileset fast without a store behind it. Each tile is one of a few precomputed, valid 256 px PNGs
// (solid colours, picked from z/x/y); the TileJSON has the shape of a tilemirror's /tiles/{id}/tiles.json.
//   node bench/big-upstream.js --port 8081 [--host 127.0.0.1] [--id big] [--maxzoom 14] [--tile-bytes 0]
// Answers: /tiles/<id>/tiles.json, /tiles/<id>/{z}/{x}/{y}[.png] (404 outside the pyramid); a `key` is accepted
// and ignored.

const http = require('node:http');
const { tileSet } = require('./lib/synthetic');

function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : def;
}

const port = Number(arg('port', 8081));
const host = arg('host', '127.0.0.1');
const id = arg('id', 'big');
const maxzoom = Number(arg('maxzoom', 14));
const tiles = tileSet({ colours: 16, tileBytes: Number(arg('tile-bytes', 0)) });
const prefix = `/tiles/${id}/`;
const WORLD = [-180, -85.0511287798066, 180, 85.0511287798066];

function tileJson(origin, query) {
  return JSON.stringify({
    tilejson: '3.0.0',
    name: `${id} (synthetic, bench/big-upstream.js)`,
    description: 'every tile of the world, solid-colour 256 px PNGs generated on the fly',
    attribution: 'tilemirror bench',
    version: '1.0.0',
    scheme: 'xyz',
    tiles: [`${origin}${prefix}{z}/{x}/{y}${query}`],
    minzoom: 0,
    maxzoom,
    bounds: WORLD,
    center: [0, 0, 2],
    format: 'png',
    tileSize: 256,
    scale: 1,
  });
}

const server = http.createServer((req, res) => {
  const url = req.url;
  const q = url.indexOf('?');
  const p = q < 0 ? url : url.slice(0, q);
  if (p.startsWith(prefix)) {
    const rest = p.slice(prefix.length);
    if (rest === 'tiles.json') {
      const key = q < 0 ? '' : new URLSearchParams(url.slice(q + 1)).get('key');
      const body = tileJson(`http://${req.headers.host}`, key ? `?key=${encodeURIComponent(key)}` : '');
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      return res.end(body);
    }
    const m = /^(\d+)\/(\d+)\/(\d+)(?:\.png)?$/.exec(rest);
    if (m) {
      const z = Number(m[1]);
      const x = Number(m[2]);
      const y = Number(m[3]);
      if (z <= maxzoom && x < 2 ** z && y < 2 ** z) {
        const body = tiles.pick(z, x, y);
        res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': body.length, 'Cache-Control': 'public, max-age=86400' });
        return res.end(body);
      }
    }
  }
  res.writeHead(404, { 'Content-Type': 'text/plain', 'Content-Length': 9 });
  res.end('not found');
});
server.keepAliveTimeout = 65000;
server.listen(port, host, () => process.stderr.write(`big-upstream: http://${host}:${port}${prefix}tiles.json (z0-${maxzoom})\n`));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
