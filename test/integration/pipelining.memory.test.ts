// Issue 8, item 2: clients that pipeline many requests and never read their answers. Before the fix one socket
// had every request of a 64 KB read handled at once and every answer buffered (200 sockets x 200 requests took
// RSS from 459 MB to 2,974 MB, held after the clients left). Now the server stops reading a connection whose
// answers are not consumed, and closes it once no byte has moved for server.socketTimeoutSeconds.

import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { startChildServer, type ChildServer } from '../helpers/child-server';
import { openFds, rssBytes, serverConnections } from '../helpers/proc';
import { requestBytes } from '../helpers/raw-http';
import { rawGet } from '../helpers/server';
import { waitFor } from '../helpers/wait';

jest.setTimeout(120_000);

const SOCKETS = 50;
const PER_SOCKET = 1_000;
// A vector tile of the sample (47 KB gzipped; this client sends no Accept-Encoding, so it gets the inflated copy).
const TILE = '/tiles/sample-vector/0/0/0?key=demo';
// What one stalled socket may have had handled: the 8 admitted at once, plus as many answers as the kernel's
// send and receive buffers of a loopback connection take (several MB at most, i.e. a few dozen tiles). Without
// backpressure all 1,000 parsed requests of the socket are handled at once.
const HANDLED_PER_SOCKET_MAX = 300;
const MiB = 1024 * 1024;

let srv: ChildServer;
const clients: Socket[] = [];

beforeAll(async () => {
  srv = await startChildServer(join(__dirname, '..', '..', 'mirror'), { server: { requestLog: true, socketTimeoutSeconds: 3 } });
});

afterAll(async () => {
  for (const s of clients) s.destroy();
  await srv?.stop();
});

/** Opens a connection that writes `count` pipelined requests at once and does not read until `resume()`. */
function stalledClient(count: number): Promise<{ socket: Socket; received: () => Buffer; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(srv.port, '127.0.0.1');
    clients.push(socket);
    const ended = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      socket.pause();
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.write(Buffer.concat(Array.from({ length: count }, () => requestBytes(TILE))));
      resolve({ socket, received: () => Buffer.concat(chunks), ended });
    });
    socket.once('error', reject);
  });
}

/** Complete answers at the start of `buf`: status and body length of each. */
function answersIn(buf: Buffer): { status: number; length: number }[] {
  const out: { status: number; length: number }[] = [];
  let offset = 0;
  for (;;) {
    const end = buf.indexOf('\r\n\r\n', offset);
    if (end < 0) return out;
    const head = buf.subarray(offset, end).toString('latin1');
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? NaN);
    if (buf.length < end + 4 + length) return out;
    out.push({ status: Number(head.split(' ')[1]), length });
    offset = end + 4 + length;
  }
}

test(`${SOCKETS} sockets x ${PER_SOCKET} pipelined requests never read: bounded work and memory, closed after the socket timeout`, async () => {
  const pid = srv.child.pid as number;
  // One answer first, so the tile cache and lazy modules are warm before the baseline is taken.
  expect((await rawGet(`${srv.url}${TILE}`)).status).toBe(200);
  const fdStart = openFds(pid);
  const rssStart = rssBytes(pid);
  const handledBefore = srv.logged('request').length;
  let rssPeak = rssStart;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssBytes(pid))), 50);

  const stalled = await Promise.all(Array.from({ length: SOCKETS }, () => stalledClient(PER_SOCKET)));
  // While those sockets hold the server's writes, anyone else is still answered.
  expect((await rawGet(`${srv.url}/health`)).status).toBe(200);

  // The server gives up on the stalled connections (no byte moves for socketTimeoutSeconds) and closes every one of
  // them (asked of the kernel's connection table: the count of all descriptors could dip to its start while one
  // is still open, when another descriptor, such as the warm-up's keep-alive connection, closes meanwhile); then
  // its descriptors are back, although the clients still hold their ends open.
  const ports = new Set(stalled.map((c) => c.socket.localPort as number));
  expect(serverConnections(srv.port, ports)).toBeGreaterThan(0); // the table is read right: they are open now
  await waitFor('the server to close every stalled connection', () => serverConnections(srv.port, ports) === 0);
  await waitFor(`the server's fds back to ${fdStart}`, () => openFds(pid) <= fdStart);
  clearInterval(sampler);
  const handled = srv.logged('request').length - handledBefore - 1; // minus the /health above

  // Now the clients read what reached them before the close (a close with unread requests is a reset, which may
  // drop what the client had not read yet): only whole 200 answers of the tile, then the end of the stream.
  for (const c of stalled) c.socket.resume();
  await Promise.all(stalled.map((c) => c.ended));
  const perSocket = stalled.map((c) => answersIn(c.received()));
  const received = perSocket.reduce((n, a) => n + a.length, 0);

  console.log(
    `${SOCKETS} x ${PER_SOCKET} pipelined, never read: ${handled} handled (${(handled / SOCKETS).toFixed(0)} per socket), ` +
      `${received} answers received after resuming; RSS ${(rssStart / MiB).toFixed(0)} -> peak ${(rssPeak / MiB).toFixed(0)} MiB`,
  );
  expect(handled).toBeGreaterThan(0);
  expect(handled).toBeLessThanOrEqual(SOCKETS * HANDLED_PER_SOCKET_MAX);
  for (const answers of perSocket) {
    expect(answers.length).toBeLessThan(PER_SOCKET);
    expect(answers.length).toBeLessThanOrEqual(HANDLED_PER_SOCKET_MAX);
    for (const a of answers) expect(a).toEqual({ status: 200, length: answers[0].length });
  }
  // 50 x 1,000 inflated tiles would be about 4 GB; the admitted answers are a few MB per socket at most.
  expect(rssPeak - rssStart).toBeLessThan(300 * MiB);
  // And the server serves on.
  expect((await rawGet(`${srv.url}${TILE}`)).status).toBe(200);
});
