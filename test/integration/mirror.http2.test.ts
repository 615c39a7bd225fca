// The mirror over HTTP/2: a node:http2 secure server (HTTP/1.1 allowed too, as a CDN offers both) with a
// certificate from a CA made here, in front of a tilemirror serving the sample. `tilemirror mirror` runs as a
// user runs it, with the CA given through NODE_EXTRA_CA_CERTS: with --http2 it negotiates h2 (the server sees
// every request as HTTP/2.0), without it stays on HTTP/1.1, and both stores hold the same tiles as one mirrored
// over plain HTTP.

import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { runMirror } from '../../src/mirror/engine/run';
import { snapshot } from '../fixtures/mirror-stores';
import { built } from '../helpers/dist';
import { serverConfig, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-h2-');

const KEY = 'demo';
const dir = tempDir();
let upstream: TestServer;
/** The same sample served plainly, naming its own address: the reference run's upstream. */
let plainUpstream: TestServer;
let front: http2.Http2SecureServer;
let origin = '';
const versions: string[] = [];

jest.setTimeout(120_000);

/** A CA and a certificate for 127.0.0.1 signed by it (EC P-256, openssl). */
function certificates(): { ca: string; cert: Buffer; key: Buffer } {
  const f = (n: string): string => join(dir, n);
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '1', '-subj', '/CN=test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign');
  ssl('req', ...ec, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  ssl('x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.pem'), '-days', '1', '-extfile', f('server.ext'));
  return { ca: f('ca.pem'), cert: readFileSync(f('server.pem')), key: readFileSync(f('server.key')) };
}

let ca = '';

beforeAll(async () => {
  const c = certificates();
  ca = c.ca;
  // The front first (its address goes into the upstream's documents), then the upstream it proxies to.
  front = http2.createSecureServer({ cert: c.cert, key: c.key, allowHTTP1: true });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  origin = `https://127.0.0.1:${(front.address() as AddressInfo).port}`;
  upstream = await startServer({ config: serverConfig({ publicUrl: origin }) });
  plainUpstream = await startServer();
  const target = new URL(upstream.url);
  front.on('request', (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => {
    versions.push(req.httpVersion);
    const fwd = http.request({ host: target.hostname, port: target.port, path: req.url, method: 'GET', headers: { 'accept-encoding': String(req.headers['accept-encoding'] ?? '') } }, (r) => {
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(r.headers)) if (v !== undefined && !['connection', 'keep-alive', 'transfer-encoding'].includes(k)) headers[k] = v;
      res.writeHead(r.statusCode ?? 502, headers);
      r.pipe(res);
    });
    fwd.on('error', () => res.destroy());
    fwd.end();
  });
});

afterAll(async () => {
  await new Promise((r) => front?.close(r));
  await upstream?.close();
  await plainUpstream?.close();
  removeTempDirs();
});

function mirrorCli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [built('cli.js'), 'mirror', ...args], { env: { ...process.env, ...env }, timeout: 100_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

let plain = '';

beforeAll(async () => {
  plain = join(dir, 'plain');
  const r = await runMirror({ upstream: plainUpstream.url, key: KEY, dataDir: plain, resource: 'tiles/sample-vector', zoom: [0, 3] });
  expect(r.status).toBe('published');
});

/** Mirrors the sample through the front with `flags`; expects it published, byte-identical to the plain run's, every request over `version`. */
async function mirrorThroughFront(name: string, flags: string[], version: string): Promise<void> {
  versions.length = 0;
  const data = join(dir, name);
  const run = await mirrorCli(['--upstream', origin, '--key', KEY, '--data', data, '--zoom', '0-3', ...flags, 'tiles/sample-vector'], { NODE_EXTRA_CA_CERTS: ca });
  expect(run.out).toContain('published');
  expect(run.code).toBe(0);
  // Every request of the run, the documents and the tiles.
  expect(versions.length).toBeGreaterThan(85);
  expect(new Set(versions)).toEqual(new Set([version]));
  const a = snapshot(join(plain, 'tiles', 'sample-vector.mbtiles'));
  const b = snapshot(join(data, 'tiles', 'sample-vector.mbtiles'));
  expect(b.tiles).toEqual(a.tiles);
  expect(b.tiles.length).toBeGreaterThan(0);
  expect(b.documents).toEqual(a.documents);
}

test('with --http2 the mirror negotiates HTTP/2 with a TLS upstream and publishes the same tiles as over HTTP/1.1', async () => {
  await mirrorThroughFront('h2', ['--http2'], '2.0');
});

test('without --http2 the mirror stays on HTTP/1.1 with an upstream that offers HTTP/2, and publishes the same tiles', async () => {
  await mirrorThroughFront('h1', [], '1.1');
});
