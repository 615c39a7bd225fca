// The mirror's transport (src/mirror/transport.ts) against a real loopback server that misbehaves: a body that
// drips forever, headers that never come, a body too large, a run stopped mid-body. Every request ends, with the
// right error, and its connection is usable again afterwards.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RequestTimeout, Transport } from '../../src/mirror/upstream/transport';

let server: http.Server;
let base = '';
const open = new Set<http.ServerResponse>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const path = req.url ?? '/';
    if (path === '/ok') return res.end('fine');
    if (path === '/big') {
      res.writeHead(200, { 'Content-Length': 3000 });
      return res.end(Buffer.alloc(3000, 1));
    }
    if (path === '/hang') return; // no headers, ever
    if (path === '/drip') {
      // Headers at once, then a byte every 20 ms, never the end: only a total deadline stops it.
      res.writeHead(200, { 'Content-Type': 'image/png' });
      const t = setInterval(() => res.write('x'), 20);
      res.on('close', () => clearInterval(t));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of open) res.destroy();
  await new Promise((r) => server.close(r));
});

describe('mirror transport', () => {
  test('an answer comes back raw, with its status and lowercase headers', async () => {
    const t = new Transport({ connections: 2, timeoutMs: 5000, maxBody: 1 << 20 });
    try {
      const r = await t.get(`${base}/ok`, { accept: '*/*' });
      expect({ status: r.status, body: r.body.toString(), length: r.headers['content-length'] }).toEqual({ status: 200, body: 'fine', length: '4' });
      expect((await t.get(`${base}/missing`, {})).status).toBe(404);
    } finally {
      t.close();
    }
  });

  test('a body that drips forever and headers that never come both end at the total deadline; the connections serve again', async () => {
    const t = new Transport({ connections: 1, timeoutMs: 300, maxBody: 1 << 20 });
    try {
      await expect(t.get(`${base}/drip`, {})).rejects.toThrow(new RequestTimeout('timed out after 300 ms'));
      await expect(t.get(`${base}/hang`, {})).rejects.toBeInstanceOf(RequestTimeout);
      // One connection: a request queued behind a hung one has its deadline from its call, not from getting the
      // connection, so both end together. The clock is held for the two calls: a millisecond ticking between them
      // gave /ok a later deadline, and it was answered on the connection the timed-out /hang had just freed.
      const now = jest.spyOn(Date, 'now').mockReturnValue(Date.now());
      const calls = [t.get(`${base}/hang`, {}), t.get(`${base}/ok`, {})];
      now.mockRestore();
      const [a, b] = await Promise.allSettled(calls);
      expect(a.status).toBe('rejected');
      expect(b.status === 'rejected' ? b.reason : undefined).toBeInstanceOf(RequestTimeout);
      expect((await t.get(`${base}/ok`, {})).body.toString()).toBe('fine');
      expect(t.inflight.size).toBe(0);
    } finally {
      t.close();
    }
  });

  test('a body over the limit is refused', async () => {
    const t = new Transport({ connections: 1, timeoutMs: 5000, maxBody: 1000 });
    try {
      await expect(t.get(`${base}/big`, {})).rejects.toThrow('response larger than 1000 bytes');
      expect((await t.get(`${base}/ok`, {})).status).toBe(200);
    } finally {
      t.close();
    }
  });

  test('the run\'s signal ends every request of that run at once, mid-body or queued, and no other', async () => {
    const t = new Transport({ connections: 1, timeoutMs: 60_000, maxBody: 1 << 20 });
    const run = new AbortController();
    const other = new AbortController();
    try {
      const dripping = t.get(`${base}/drip`, {}, run.signal);
      const queued = t.get(`${base}/ok`, {}, run.signal);
      const unrelated = t.get(`${base}/ok`, {}, other.signal);
      // The drip has started (its headers came) before the stop.
      await new Promise((r) => setTimeout(r, 100));
      run.abort(new Error('run stopped'));
      await expect(dripping).rejects.toThrow('run stopped');
      await expect(queued).rejects.toThrow('run stopped');
      expect((await unrelated).body.toString()).toBe('fine');
      await expect(t.get(`${base}/ok`, {}, run.signal)).rejects.toThrow('run stopped');
    } finally {
      t.close();
    }
  });
});
