// SIGTERM drains (issue 8, item 8): a child `tilemirror serve` stops accepting, closes idle keep-alive
// connections at once, lets a slow in-flight download finish, and exits 0; a client that never reads is cut
// when the grace period ends, and the process still exits 0.

import { statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { startChildServer, type ChildServer } from '../helpers/child-server';
import { SAMPLE_DIR } from '../helpers/server';
import { waitFor } from '../helpers/wait';

const ASSET = '/assets/maplibre-gl/maplibre-gl-dev.mjs.map';
const ASSET_BYTES = statSync(join(dirname(require.resolve('maplibre-gl/dist/maplibre-gl.mjs')), 'maplibre-gl-dev.mjs.map')).size;

const DOWNLOADS = 8;

let srv: ChildServer | undefined;
afterEach(async () => {
  await srv?.stop();
  srv = undefined;
});

/** A raw connection that records what it received and whether the server closed it. */
class RawClient {
  private chunks: Buffer[] = [];
  closed = false;
  /** Everything received so far (joined when asked: tens of MB arrive in 64 KB chunks). */
  get received(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }
  private constructor(readonly socket: Socket) {
    socket.on('data', (c: Buffer) => this.chunks.push(c));
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => undefined);
  }
  static open(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => resolve(new RawClient(s)));
      s.once('error', reject);
    });
  }
  get(path: string): void {
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  }
  /** Complete responses received so far (each with a Content-Length body), and the bytes of a partial one. */
  complete(): { statuses: number[]; bodies: number[] } {
    const received = this.received;
    const statuses: number[] = [];
    const bodies: number[] = [];
    let at = 0;
    for (;;) {
      const end = received.indexOf('\r\n\r\n', at);
      if (end < 0) break;
      const head = received.subarray(at, end).toString('latin1');
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (received.length < end + 4 + length) break;
      statuses.push(Number(head.split(' ')[1]));
      bodies.push(length);
      at = end + 4 + length;
    }
    return { statuses, bodies };
  }
  /** Header block and body length of the one response received so far. */
  response(): { head: string; bodyBytes: number } | undefined {
    const end = this.received.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    return { head: this.received.subarray(0, end).toString('latin1'), bodyBytes: this.received.length - end - 4 };
  }
}

function exitOf(s: ChildServer): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return Promise.resolve({ code: s.child.exitCode, signal: s.child.signalCode });
  return new Promise((resolve) => s.child.once('exit', (code, signal) => resolve({ code, signal })));
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

test('SIGTERM: idle keep-alive closed, new connections refused, a slow download completes, exit 0', async () => {
  srv = await startChildServer(SAMPLE_DIR, { server: { shutdownGraceSeconds: 120 } });
  const s = srv;
  // A keep-alive client that got its answer and now sits idle.
  const idle = await RawClient.open(s.port);
  idle.get('/assets/maplibre-gl/maplibre-gl.css');
  await waitFor('the idle client to get its answer', () => idle.response()?.head.startsWith('HTTP/1.1 200'));
  // Slow downloads: 8 pipelined 5.6 MB files, paused after the first bytes, so at the signal tens of MB are still
  // to be written (more than loopback's socket buffers hold).
  const slow = await RawClient.open(s.port);
  slow.socket.write(`GET ${ASSET} HTTP/1.1\r\nHost: localhost\r\n\r\n`.repeat(DOWNLOADS));
  await waitFor('the download to start', () => slow.response()?.head.startsWith('HTTP/1.1 200'));
  slow.socket.pause();
  const exit = exitOf(s);
  s.child.kill('SIGTERM');
  await waitFor('the idle keep-alive connection to be closed', () => idle.closed);
  await waitFor('new connections to be refused', () => refused(s.port));
  expect(s.child.exitCode).toBeNull(); // still draining: the downloads are not done
  expect(slow.closed).toBe(false);
  slow.socket.resume();
  await waitFor('the downloads to complete', () => slow.complete().statuses.length === DOWNLOADS);
  expect(slow.complete()).toEqual({ statuses: Array(DOWNLOADS).fill(200), bodies: Array(DOWNLOADS).fill(ASSET_BYTES) });
  expect(await exit).toEqual({ code: 0, signal: null });
  await waitFor('the download connection to close', () => slow.closed);
});

test('SIGTERM: a client that never reads is cut when the grace period ends, and the process exits 0', async () => {
  srv = await startChildServer(SAMPLE_DIR, { server: { shutdownGraceSeconds: 1 } });
  const s = srv;
  const stuck = await RawClient.open(s.port);
  // More than loopback's socket buffers hold, so the server cannot hand it all to the kernel and be done.
  stuck.socket.write(`GET ${ASSET} HTTP/1.1\r\nHost: localhost\r\n\r\n`.repeat(DOWNLOADS));
  await waitFor('the download to start', () => stuck.response()?.head.startsWith('HTTP/1.1 200'));
  stuck.socket.pause(); // never reads again
  const exit = exitOf(s);
  s.child.kill('SIGTERM');
  expect(await exit).toEqual({ code: 0, signal: null });
  stuck.socket.resume(); // a paused socket never sees the end of its connection
  await waitFor('the cut connection to close', () => stuck.closed);
  expect(stuck.complete().statuses.length).toBeLessThan(DOWNLOADS);
  expect(s.logged('grace period').length).toBe(1);
});

test('SIGINT drains like SIGTERM', async () => {
  srv = await startChildServer(SAMPLE_DIR, { server: { shutdownGraceSeconds: 120 } });
  const s = srv;
  const idle = await RawClient.open(s.port);
  idle.get('/assets/maplibre-gl/maplibre-gl.css');
  await waitFor('the idle client to get its answer', () => idle.response()?.head.startsWith('HTTP/1.1 200'));
  const exit = exitOf(s);
  s.child.kill('SIGINT');
  await waitFor('the idle keep-alive connection to be closed', () => idle.closed);
  expect(await exit).toEqual({ code: 0, signal: null });
});

test('serve --workers 2: SIGTERM to the primary drains every worker (a slow download completes), then exit 0', async () => {
  srv = await startChildServer(SAMPLE_DIR, { server: { shutdownGraceSeconds: 120 }, args: ['--workers', '2'] });
  const s = srv;
  // Both workers listening: each logs its start (they share the primary's port).
  await waitFor('both workers to serve', () => s.logged('tilemirror serving').length === 2);
  const slow = await RawClient.open(s.port);
  slow.socket.write(`GET ${ASSET} HTTP/1.1\r\nHost: localhost\r\n\r\n`.repeat(DOWNLOADS));
  await waitFor('the download to start', () => slow.response()?.head.startsWith('HTTP/1.1 200'));
  slow.socket.pause();
  const exit = exitOf(s);
  s.child.kill('SIGTERM');
  await waitFor('new connections to be refused', () => refused(s.port));
  expect(s.child.exitCode).toBeNull(); // the worker holding the download is still draining
  slow.socket.resume();
  await waitFor('the downloads to complete', () => slow.complete().statuses.length === DOWNLOADS);
  expect(slow.complete()).toEqual({ statuses: Array(DOWNLOADS).fill(200), bodies: Array(DOWNLOADS).fill(ASSET_BYTES) });
  expect(await exit).toEqual({ code: 0, signal: null });
});
