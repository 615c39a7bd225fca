'use strict';
// The `wan` benchmark's link measured alone, so it is known not to be the bottleneck: the round trip it adds (one
// byte echoed, 30 times, through the link and directly) and its throughput (`streams` connections each pulling
// `mbPerStream` MB through it at once), from a server in this process.

const net = require('node:net');
const { startServer, stop } = require('./processes');
const { sampleTree } = require('./measured');

/** A server that echoes what it gets after an 'e', or sends `bytes` bytes and ends after a 'b'. */
function probeServer(bytes) {
  const block = Buffer.alloc(64 * 1024, 7);
  const server = net.createServer({ noDelay: true }, (s) => {
    s.once('data', (first) => {
      if (first[0] === 0x62) {
        let left = bytes;
        const pump = () => {
          while (left > 0) {
            const n = Math.min(left, block.length);
            left -= n;
            if (!s.write(n === block.length ? block : block.subarray(0, n))) return s.once('drain', pump);
          }
          s.end();
        };
        return pump();
      }
      s.write(first.subarray(1));
      s.pipe(s);
    });
    s.on('error', () => undefined);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function connect(port) {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port, noDelay: true }, () => resolve(s));
    s.once('error', reject);
  });
}

/** Median round trip (ms) of one byte through `port`, `n` times on one connection. */
async function roundTrip(port, n = 30) {
  const s = await connect(port);
  s.write('e');
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await new Promise((resolve) => {
      s.once('data', resolve);
      s.write('x');
    });
    times.push(performance.now() - t0);
  }
  s.destroy();
  times.sort((a, b) => a - b);
  return times[Math.floor(n / 2)];
}

/** Bytes per second through `port` over `streams` connections pulling at once, first byte to last. */
async function throughput(port, streams) {
  let first;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: streams }, async () => {
      const s = await connect(port);
      s.write('b');
      await new Promise((resolve, reject) => {
        s.on('data', (d) => {
          first ??= performance.now();
          bytes += d.length;
        });
        s.on('end', resolve);
        s.on('error', reject);
      });
      s.destroy();
    }),
  );
  return (bytes * 1000) / (performance.now() - first);
}

async function waitListening(child) {
  for (let i = 0; i < 300; i++) {
    const m = /listening on (\d+)/.exec(child.stderrTail);
    if (m) return Number(m[1]);
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the link did not start:\n${child.stderrTail}`);
}

async function measureLink({ linkScript, delayMs, mbit, cpu, tileBytes, streams = 16, mbPerStream = 16 }) {
  const server = await probeServer(mbPerStream * 1024 * 1024);
  const target = server.address().port;
  const args = [linkScript, '--listen', '0', '--target', `127.0.0.1:${target}`, '--delay-ms', String(delayMs), '--mbit', String(mbit)];
  const child = startServer('link (probe)', cpu === undefined ? process.execPath : 'taskset', cpu === undefined ? args : ['-c', String(cpu), process.execPath, ...args]);
  try {
    const port = await waitListening(child);
    const directRttMs = await roundTrip(target);
    const rttMs = await roundTrip(port);
    const cpu0 = sampleTree([child.pid]).cpu;
    const t0 = performance.now();
    const bps = await throughput(port, streams);
    const linkCores = (sampleTree([child.pid]).cpu - cpu0) / ((performance.now() - t0) / 1000);
    return { rttMs, directRttMs, addedRttMs: rttMs - directRttMs, streams, mbPerSec: bps / 1e6, tilesPerSec: bps / tileBytes, linkCores };
  } finally {
    await stop(child);
    server.close();
  }
}

module.exports = { measureLink };
