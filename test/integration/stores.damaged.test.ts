// A damaged gzip vector tile (the exact bytes) asked for by a client that does not accept gzip used to
// kill the process. Now: 500 "Damaged tile" for that tile, one log line per tile and store version, and the
// same process serves on. Run as a child process: a crash there cannot take the test runner with it.

import { join } from 'node:path';
import { startChildServer, type ChildServer } from '../helpers/child-server';
import { KEY, rawGet } from '../helpers/server';
import { parseMetrics, total } from '../helpers/prometheus';
import { waitFor } from '../helpers/wait';
import { DAMAGED_GZIP, GZIP_TILE, PLAIN_TILE, writeDamagedVectorStore, writeGoodVectorStore } from '../fixtures/hand-made-stores';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-damaged-');

let dir: string;
let srv: ChildServer;
beforeAll(async () => {
  dir = tempDir();
  writeDamagedVectorStore(join(dir, 'data', 'tiles', 'bad.mbtiles'));
  writeDamagedVectorStore(join(dir, 'data', 'tiles', 'bad-too.mbtiles'));
  writeGoodVectorStore(join(dir, 'data', 'tiles', 'good.mbtiles'));
  srv = await startChildServer(join(dir, 'data'));
});
afterAll(async () => {
  await srv?.stop();
  removeTempDirs();
});

const tile = (id: string) => `${srv.url}/tiles/${id}/0/0/0?key=${KEY}`;

test('without gzip: 500 Damaged tile, every time, and the process serves on', async () => {
  for (let i = 0; i < 5; i++) {
    const r = await rawGet(tile('bad'));
    expect(r.status).toBe(500);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.body.toString()).toMatch(/^Damaged tile/);
  }
  expect(srv.child.exitCode).toBeNull();
  const good = await rawGet(tile('good'));
  expect(good.status).toBe(200);
  expect(good.headers['content-encoding']).toBeUndefined();
  expect(good.headers.vary).toMatch(/Accept-Encoding/);
  expect(good.body).toEqual(PLAIN_TILE);
});

test('with gzip: the stored bytes as they are (the client decides), the good tile gzipped with its own ETag', async () => {
  const bad = await rawGet(tile('bad'), { 'Accept-Encoding': 'gzip' });
  expect(bad.status).toBe(200);
  expect(bad.body).toEqual(DAMAGED_GZIP);
  const good = await rawGet(tile('good'), { 'Accept-Encoding': 'gzip' });
  expect(good.headers['content-encoding']).toBe('gzip');
  expect(good.body).toEqual(GZIP_TILE);
  const plain = await rawGet(tile('good'));
  expect(plain.headers.etag).not.toBe(good.headers.etag);
  // The plain copy revalidates like any tile.
  expect((await rawGet(tile('good'), { 'If-None-Match': String(plain.headers.etag) })).status).toBe(304);
});

test('logged once per damaged tile, not per request', async () => {
  for (let i = 0; i < 3; i++) expect((await rawGet(tile('bad'))).status).toBe(500);
  // Log lines are written in order: once the other store's line is out, any repeat for `bad` would be too.
  expect((await rawGet(tile('bad-too'))).status).toBe(500);
  await waitFor('the log line of bad-too', () => srv.logged('damaged tile').some((l) => String(l.file).endsWith('bad-too.mbtiles')));
  const lines = srv.logged('damaged tile');
  expect(lines.map((l) => [String(l.file).replace(`${dir}/`, ''), l.tile])).toEqual([
    ['data/tiles/bad.mbtiles', 'main/0/0/0'],
    ['data/tiles/bad-too.mbtiles', 'main/0/0/0'],
  ]);
  expect(srv.child.exitCode).toBeNull();
});

test('/metrics counts each damaged tile once and every 500 answered for one', async () => {
  const metrics = parseMetrics((await rawGet(`${srv.url}/metrics`)).body.toString('utf8'));
  expect(total(metrics, 'tilemirror_damaged_tiles_total')).toBe(2);
  // The tests above: 5 + 3 requests for `bad`, 1 for `bad-too`, none with gzip.
  expect(total(metrics, 'tilemirror_http_requests_total', { route: '/tiles/:tilesId/:z/:x/:y([^/.@]+)[.:ext]', code: '500' })).toBe(9);
});
