// server.socketTimeoutSeconds without Node's per-socket timer (src/http/stalled-sockets.ts): a connection on which
// nothing moves while a request is being read is closed, never before the timeout; a keep-alive connection idle
// between requests is left to the keep-alive timeout (65 s) and still answers after several socket timeouts.

import { connect, type Socket } from 'node:net';
import { serverConfig, startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';

let srv: TestServer;
const sockets: Socket[] = [];

beforeAll(async () => {
  srv = await startServer({ config: serverConfig({ socketTimeoutSeconds: 1 }) });
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await srv?.close();
});

function open(): Promise<{ socket: Socket; data: () => string; closedAt: () => number | undefined }> {
  const { hostname, port } = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    sockets.push(socket);
    let text = '';
    let closedAt: number | undefined;
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('close', () => (closedAt = performance.now()));
    socket.once('error', () => undefined); // a reset is a close too
    socket.once('connect', () => resolve({ socket, data: () => text, closedAt: () => closedAt }));
    socket.once('error', reject);
  });
}

const REQUEST = 'GET /maps/sample/0/0/0.png?key=demo HTTP/1.1\r\nHost: localhost\r\n';

test('a request whose headers stop coming is cut once nothing moved for the timeout, not before', async () => {
  const c = await open();
  const sent = performance.now();
  c.socket.write(REQUEST); // no blank line: the headers never end
  await waitFor('the server to close the stalled connection', () => c.closedAt() !== undefined);
  expect((c.closedAt() as number) - sent).toBeGreaterThanOrEqual(950);
  expect(c.data()).toBe(''); // cut, not answered
});

test('a keep-alive connection idle between requests outlives several socket timeouts and answers again', async () => {
  const c = await open();
  c.socket.write(`${REQUEST}\r\n`);
  await waitFor('the first answer', () => /^HTTP\/1\.1 200 /.test(c.data()) && c.data().includes('\r\n\r\n'));
  await new Promise((r) => setTimeout(r, 3000)); // three socket timeouts with nothing on the wire
  expect(c.closedAt()).toBeUndefined();
  c.socket.write(`${REQUEST}\r\n`);
  await waitFor('the second answer on the same connection', () => c.data().split('HTTP/1.1 200 ').length === 3);
  expect(c.closedAt()).toBeUndefined();
});
