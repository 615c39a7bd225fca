// /weather/latest.json served from the weather store (`weather/latest.mbtiles`, document latest.json): local
// `tilemirror://` URLs resolved to this server and the requester's key; the keyframe tilesets are plain tilesets.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { weatherCatalog, writeKeyframeTileset, writeWeatherStore } from '../fixtures/document-stores';
import { rawGet, startServer, type TestServer } from '../helpers/server';

let dir: string;
let empty: string;
let srv: TestServer;
let bare: TestServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tm-weather-'));
  empty = mkdtempSync(join(tmpdir(), 'tm-weather-none-'));
  writeWeatherStore(dir, ['kf-a', 'kf-b']);
  await writeKeyframeTileset(dir, 'kf-a', 1);
  await writeKeyframeTileset(dir, 'kf-b', 2);
  srv = await startServer({ dataDir: dir });
  bare = await startServer({ dataDir: empty });
});
afterAll(async () => {
  await srv.close();
  await bare.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(empty, { recursive: true, force: true });
});

describe('weather', () => {
  test('latest.json: the catalog, its URLs on this server with the key', async () => {
    const r = await rawGet(`${srv.url}/weather/latest.json?key=demo`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const doc = JSON.parse(r.body.toString('utf8'));
    const expected = weatherCatalog(['kf-a', 'kf-b']) as { variables: { keyframes: { tiles: string }[] }[] };
    for (const k of expected.variables[0].keyframes) k.tiles = k.tiles.replace('tilemirror://', `${srv.url}/`) + '?key=demo';
    expect(doc).toEqual(expected);
    expect(doc.variables[0].keyframes.map((k: { id: string }) => k.id)).toEqual(['kf-a', 'kf-b']);
    const etag = r.headers.etag as string;
    expect((await rawGet(`${srv.url}/weather/latest.json?key=demo`, { 'If-None-Match': etag })).status).toBe(304);
  });

  test('every keyframe is a tileset served at /tiles/{keyframeId}/{z}/{x}/{y}.png', async () => {
    for (const id of ['kf-a', 'kf-b']) {
      const t = await rawGet(`${srv.url}/tiles/${id}/1/1/1.png?key=demo`);
      expect(t.status).toBe(200);
      expect(t.headers['content-type']).toBe('image/png');
      const tj = JSON.parse((await rawGet(`${srv.url}/tiles/${id}/tiles.json?key=demo`)).body.toString('utf8'));
      expect(tj.tiles[0]).toContain(`/tiles/${id}/{z}/{x}/{y}`);
    }
  });

  test('no key 403; nothing mirrored 404', async () => {
    expect((await rawGet(`${srv.url}/weather/latest.json`)).status).toBe(403);
    expect((await rawGet(`${bare.url}/weather/latest.json?key=demo`)).status).toBe(404);
    expect((await rawGet(`${srv.url}/weather/other.json?key=demo`)).status).toBe(404);
  });
});
