// Running out of file descriptors, for real: the server runs under `prlimit --nofile=N:N` (util-linux; the
// process's own RLIMIT_NOFILE, soft and hard) and the test opens more connections than that. No mock: the
// listing of the data folders fails with EMFILE exactly as in production. Two proofs:
//  1. with the cap lifted (server.maxConnections far above the limit), the folders cannot be listed: the rescan
//     keeps every open store (a kept connection still gets its tile) and logs it;
//  2. with the default cap (derived from the same limit), the flood is refused beyond the cap and the server
//     still has descriptors to open a store published during the flood;
//  3. a label index whose build meets the flood is put off, not given up: it is built once descriptors come back.
// Each flood starts once the server is settled (its label index built, or held back by a lock): a build running
// in a thread while the flood arrives would fail or free descriptors at a moment no test chooses.

import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { flood, KeptConnection, startChildServer, type ChildServer } from '../helpers/child-server';
import { KEY } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { PLAIN_TILE, writeGoodVectorStore } from '../fixtures/hand-made-stores';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-emfile-');

let dir: string;
let srv: ChildServer | undefined;
let kept: KeptConnection | undefined;
let sockets: Socket[] = [];
beforeEach(() => {
  dir = tempDir();
  writeGoodVectorStore(join(dir, 'data', 'tiles', 'good.mbtiles'));
  writeGoodVectorStore(join(dir, 'data', 'maps', 'also-good.mbtiles'));
});
afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets = [];
  kept?.close();
  await srv?.stop();
  removeTempDirs();
});

const tilePath = (id: string) => `/tiles/${id}/0/0/0?key=${KEY}`;

test('out of descriptors: the rescan keeps the open stores and logs, instead of unloading them', async () => {
  const limit = 64;
  srv = await startChildServer(join(dir, 'data'), { server: { maxConnections: 100_000 }, wrap: ['prlimit', `--nofile=${limit}:${limit}`] });
  kept = await KeptConnection.open(srv.port);
  expect((await kept.get(tilePath('good'))).status).toBe(200);
  await waitFor('the label index to be built', () => srv?.logged('label index built')[0]);
  sockets = await flood(srv.port, 2 * limit);
  // The periodic rescan (every 2 s) meets EMFILE: one line, naming the folders.
  const line = await waitFor('the rescan to report the folders it cannot list', () => srv?.logged('data folder cannot be listed')[0]);
  expect(String(line.err)).toMatch(/EMFILE/);
  expect(line.dirs).toEqual(expect.arrayContaining([join(dir, 'data', 'tiles'), join(dir, 'data', 'maps')]));
  // Still out of descriptors: the store opened before is still served (it used to answer 404 Unknown tileset).
  const during = await kept.get(tilePath('good'));
  expect(during.status).toBe(200);
  expect(during.body).toEqual(PLAIN_TILE);
  expect((await kept.get(`/maps/also-good/0/0/0.png?key=${KEY}`)).status).not.toBe(404);
  expect(srv.child.exitCode).toBeNull();
});

test('the default connection cap keeps descriptors for the stores: a store published during a flood is served', async () => {
  const limit = 128;
  srv = await startChildServer(join(dir, 'data'), { wrap: ['prlimit', `--nofile=${limit}:${limit}`] });
  kept = await KeptConnection.open(srv.port);
  expect((await kept.get(tilePath('good'))).status).toBe(200);
  await waitFor('the label index to be built', () => srv?.logged('label index built')[0]);
  sockets = await flood(srv.port, 2 * limit);
  const line = await waitFor('the server to refuse connections beyond its cap', () => srv?.logged('connection limit reached')[0]);
  expect(line.fdLimit).toBe(limit);
  expect(line.maxConnections).toBe(limit - 64);
  // Published by rename while the flood holds every connection the cap allows.
  writeGoodVectorStore(join(dir, 'staging.mbtiles'));
  renameSync(join(dir, 'staging.mbtiles'), join(dir, 'data', 'tiles', 'fresh.mbtiles'));
  await waitFor('the new store to be served', async () => (await kept?.get(tilePath('fresh')))?.status === 200);
  expect(srv.logged('data folder cannot be listed')).toEqual([]);
  expect(srv.child.exitCode).toBeNull();
});

test('a label index the flood keeps from being built is built once descriptors come back', async () => {
  const limit = 64;
  // The lock of a build by another live process (this one): the server waits for it, looking again every second.
  const lock = join(dir, 'data', '.labels', 'good.lock');
  mkdirSync(join(dir, 'data', '.labels'), { recursive: true });
  writeFileSync(lock, String(process.pid));
  srv = await startChildServer(join(dir, 'data'), { server: { maxConnections: 100_000 }, wrap: ['prlimit', `--nofile=${limit}:${limit}`] });
  kept = await KeptConnection.open(srv.port);
  expect((await kept.get(tilePath('good'))).status).toBe(200);
  sockets = await flood(srv.port, 2 * limit);
  await waitFor('the rescan to report the folders it cannot list', () => srv?.logged('data folder cannot be listed')[0]);
  // The other process is gone: the server's next look meets the flood.
  rmSync(lock);
  const putOff = await waitFor('the label index to be put off', () => srv?.logs.find((l) => /^label index: .* put off/.test(String(l.msg))));
  expect(String(putOff.err)).toMatch(/EMFILE/);
  expect(srv.logged('label index built')).toEqual([]);
  for (const s of sockets) s.destroy();
  sockets = [];
  const built = await waitFor('the label index to be built', () => srv?.logged('label index built')[0]);
  expect(built.tileset).toBe('good');
  expect(srv.logged('build failed')).toEqual([]);
  expect(srv.logged('reconciliation failed')).toEqual([]);
  expect(srv.child.exitCode).toBeNull();
});
