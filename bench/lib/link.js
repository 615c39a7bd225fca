#!/usr/bin/env node
'use strict';
// A link emulator for the `wan` benchmark: a TCP relay that holds every chunk it receives a set time before passing
// it on, in each direction, so a connection through it has that many more milliseconds of round trip (the kernels
// of these machines have no netem qdisc). Optionally a bandwidth cap, shared by all connections of a direction:
// a chunk waits for the link to be free, takes its bytes / bandwidth to cross, then the delay (a queue in front of
// a wire). Ends of streams (FIN) are delayed like data. Bytes are not looked at: TLS and HTTP/2 pass through.
//   node bench/lib/link.js --listen <port> --target <host:port> [--delay-ms 25] [--mbit 0]
// Prints `link: listening on <port>` on stderr when ready; stops on SIGINT/SIGTERM.
// A connection's queue holds at most HIGH_WATER bytes before the relay stops reading from its sender (a window):
// enough for 64 MB/s per connection at 100 ms each way, so the relay never limits a connection's rate before the
// cap does.

const net = require('node:net');

const HIGH_WATER = 8 * 1024 * 1024;
const LOW_WATER = 2 * 1024 * 1024;

/** One direction of the link: when its wire is free again (ms, performance.now()). */
function wire(bytesPerMs) {
  return { bytesPerMs, freeAt: 0 };
}

/** Relays `from` to `to` through `w`, each chunk held `delayMs` after it has crossed the wire. */
function pipeDelayed(from, to, w, delayMs) {
  const queue = [];
  let queued = 0;
  let timer;
  let paused = false;
  const flush = () => {
    timer = undefined;
    const now = performance.now();
    // Timers fire up to ~1 ms early or late: a chunk due within half a millisecond goes now.
    while (queue.length && queue[0].due <= now + 0.5) {
      const { chunk } = queue.shift();
      if (chunk === null) {
        to.end();
        continue;
      }
      queued -= chunk.length;
      if (!to.destroyed) to.write(chunk);
    }
    if (paused && queued < LOW_WATER) {
      paused = false;
      from.resume();
    }
    if (queue.length) timer = setTimeout(flush, Math.max(0, queue[0].due - performance.now()));
  };
  const push = (chunk) => {
    const now = performance.now();
    let at = now;
    if (w.bytesPerMs > 0) {
      const start = Math.max(now, w.freeAt);
      w.freeAt = start + (chunk ? chunk.length : 0) / w.bytesPerMs;
      at = w.freeAt;
    }
    // Never before the chunk ahead of it: a stream's bytes keep their order.
    const due = Math.max(at + delayMs, queue.length ? queue[queue.length - 1].due : 0);
    queue.push({ due, chunk });
    if (chunk) queued += chunk.length;
    if (queued > HIGH_WATER && !paused) {
      paused = true;
      from.pause();
    }
    if (!timer) timer = setTimeout(flush, Math.max(0, due - now));
  };
  from.on('data', push);
  from.on('end', () => push(null));
  return () => clearTimeout(timer);
}

/** Starts the relay; resolves with its server once listening. */
function startLink({ listenPort, listenHost = '127.0.0.1', targetHost, targetPort, delayMs = 25, mbit = 0 }) {
  const bytesPerMs = mbit > 0 ? (mbit * 1e6) / 8 / 1000 : 0;
  const up = wire(bytesPerMs);
  const down = wire(bytesPerMs);
  const sockets = new Set();
  const server = net.createServer({ noDelay: true }, (client) => {
    const target = net.connect({ host: targetHost, port: targetPort, noDelay: true });
    sockets.add(client);
    sockets.add(target);
    const stops = [pipeDelayed(client, target, up, delayMs), pipeDelayed(target, client, down, delayMs)];
    const close = () => {
      for (const s of stops) s();
      client.destroy();
      target.destroy();
      sockets.delete(client);
      sockets.delete(target);
    };
    // An error tears both down at once. A side that closes cleanly has sent its FIN, which pipeDelayed passes on
    // after its last chunk; the relay lets go once both sides have closed, so an answer followed by a close (an
    // HTTP/1.1 `Connection: close`, as Python's urllib sends) still crosses the link whole.
    let closed = 0;
    for (const s of [client, target]) {
      s.on('error', close);
      s.on('close', () => {
        if (++closed === 2) close();
      });
    }
  });
  server.closeAll = () => {
    for (const s of sockets) s.destroy();
    server.close();
  };
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, listenHost, () => resolve(server));
  });
}

module.exports = { startLink };

if (require.main === module) {
  const arg = (name, def) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : def;
  };
  const [targetHost, targetPort] = String(arg('target', '')).split(':');
  if (!targetPort) {
    process.stderr.write('usage: node bench/lib/link.js --listen <port> --target <host:port> [--delay-ms 25] [--mbit 0]\n');
    process.exit(2);
  }
  const opts = { listenPort: Number(arg('listen', 0)), targetHost, targetPort: Number(targetPort), delayMs: Number(arg('delay-ms', 25)), mbit: Number(arg('mbit', 0)) };
  startLink(opts).then(
    (server) => {
      process.stderr.write(`link: listening on ${server.address().port}, ${opts.delayMs} ms each way${opts.mbit ? `, ${opts.mbit} Mbit/s` : ''}\n`);
      for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => (server.closeAll(), process.exit(0)));
    },
    (err) => {
      process.stderr.write(`link: ${err.message}\n`);
      process.exit(1);
    },
  );
}
