#!/usr/bin/env node
'use strict';
// A slow tail for the `wan` benchmark: an HTTP/1.1 proxy in front of an upstream that holds a share of its answers
// a set time before sending them (a cloud's stragglers), the rest at once. Which answers stall is decided by a hash
// of the path and how often it was asked, so every run meets the same stalls. A client that gives up on a held
// answer (a hedge answered first) closes it; nothing more is sent.
//   node bench/lib/stall-proxy.js --listen <port> --target <port> [--share 0.02] [--stall-ms 15000]
// SIGUSR1 turns the stalls on, SIGUSR2 off (they start off); prints `stall-proxy: listening on <port>` when
// ready, and the answers held so far on each signal.

const http = require('node:http');
const { createHash } = require('node:crypto');

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const listen = Number(arg('listen'));
const target = Number(arg('target'));
const share = Number(arg('share', '0.02'));
const stallMs = Number(arg('stall-ms', '15000'));

let on = false;
let held = 0;
const asked = new Map();
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });

/** A uniform number in [0, 1) from the path and its count: the same stalls every run. */
const chance = (path, n) => createHash('sha1').update(`${path}\0${n}`).digest().readUInt32BE(0) / 2 ** 32;

const server = http.createServer((req, res) => {
  const n = (asked.get(req.url) ?? 0) + 1;
  asked.set(req.url, n);
  const stall = on && !req.url.includes('.json') && chance(req.url, n) < share;
  const fwd = http.request({ host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers, agent }, (up) => {
    const chunks = [];
    up.on('data', (c) => chunks.push(c));
    up.on('end', () => {
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(up.statusCode ?? 502, up.headers);
        res.end(Buffer.concat(chunks));
      };
      if (!stall) return send();
      held++;
      const timer = setTimeout(send, stallMs);
      res.on('close', () => clearTimeout(timer));
    });
  });
  fwd.on('error', () => res.destroy());
  req.pipe(fwd);
});
server.keepAliveTimeout = 120_000;
server.listen(listen, '127.0.0.1', () => process.stderr.write(`stall-proxy: listening on ${listen}\n`));
process.on('SIGUSR1', () => {
  on = true;
  asked.clear();
  process.stderr.write(`stall-proxy: stalls on (${held} held so far)\n`);
});
process.on('SIGUSR2', () => {
  on = false;
  process.stderr.write(`stall-proxy: stalls off (${held} held so far)\n`);
});
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => process.exit(0));
