// Pipelined /assets requests on connections that then close (issue 8, item 3) used to keep one file descriptor
// per queued answer for good. A child server's descriptors, counted in /proc/PID/fd, are back to where they
// started after a burst of 200 sockets x 20 pipelined asset requests that each read 100 bytes and close.

import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { startChildServer, type ChildServer } from '../helpers/child-server';
import { SAMPLE_DIR } from '../helpers/server';
import { waitFor } from '../helpers/wait';

const SOCKETS = 200;
const PIPELINED = 20;
const REQUEST = 'GET /assets/maplibre-gl/maplibre-gl-dev.mjs.map HTTP/1.1\r\nHost: x\r\n\r\n';

let srv: ChildServer;
beforeAll(async () => {
  srv = await startChildServer(SAMPLE_DIR);
});
afterAll(() => srv?.stop());

const fds = (): number => readdirSync(`/proc/${srv.child.pid}/fd`).length;

/** Sends the pipelined requests, reads a first chunk of the answer and closes. */
function burstOne(port: number): Promise<void> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => s.write(REQUEST.repeat(PIPELINED)));
    s.once('data', () => s.destroy());
    s.once('error', () => resolve());
    s.once('close', () => resolve());
  });
}

test('descriptors return to the start after a burst of pipelined asset requests on closed connections', async () => {
  // One request first, so lazily opened descriptors (stores, the asset folder) are counted in the start.
  await burstOne(srv.port);
  const start = fds();
  await Promise.all(Array.from({ length: SOCKETS }, () => burstOne(srv.port)));
  const settled = await waitFor(`descriptors back to ${start} (now ${fds()})`, () => {
    const n = fds();
    return n <= start ? n : undefined;
  });
  expect(settled).toBeLessThanOrEqual(start);
  expect(srv.child.exitCode).toBeNull();
});
