// /weather/latest.json served from the weather store (`weather/latest.mbtiles`, document latest.json): local
// `tilemirror://` URLs resolved to this server and the requester's key; the keyframe tilesets are plain tilesets.
// The catalog's variable is also a WMTS layer with a Time dimension and an OGC API collection with a temporal
// extent, each time its keyframe's tiles; a newer catalog published over the old one is what they then show.

import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { weatherCatalog, writeKeyframeTileset, writeWeatherStore } from '../fixtures/document-stores';
import { readStoredTile } from '../helpers/stored-tiles';
import { rawGet, startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-weather-');

let dir: string;
let empty: string;
let srv: TestServer;
let bare: TestServer;
beforeAll(async () => {
  dir = tempDir();
  empty = tempDir('tm-weather-none-');
  writeWeatherStore(dir, ['kf-a', 'kf-b']);
  await writeKeyframeTileset(dir, 'kf-a', 1);
  await writeKeyframeTileset(dir, 'kf-b', 2);
  srv = await startServer({ dataDir: dir });
  bare = await startServer({ dataDir: empty });
});
afterAll(async () => {
  await srv.close();
  await bare.close();
  removeTempDirs();
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

describe('the weather variable as a WMTS layer and an OGC API collection', () => {
  const LAYER = 'weather/temperature-2m.gfs';
  const SET = 'GoogleMapsCompatible256-z0-1';
  const TIMES = ['2024-05-01T00:00:00Z', '2024-05-01T01:00:00Z', '2024-05-01T02:00:00Z'];
  const xml = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true });
  interface Layer {
    Identifier: string;
    Dimension?: { Identifier: string; Default: string; Value: string | string[] };
  }
  const layers = async (path: string): Promise<Layer[]> => [xml.parse((await rawGet(`${srv.url}${path}`)).body.toString('utf8')).Capabilities.Contents.Layer].flat();
  const stored = (id: string) => readStoredTile(join(dir, 'tiles', `${id}.mbtiles`), { z: 1, x: 1, y: 0 });
  const kvp = (time?: string) =>
    `${srv.url}/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=${LAYER}&STYLE=default&FORMAT=image/png&TILEMATRIXSET=${SET}&TILEMATRIX=1&TILEROW=0&TILECOL=1${time ? `&TIME=${encodeURIComponent(time)}` : ''}&key=demo`;
  const rest = (time: string) => `${srv.url}/wmts/1.0.0/${LAYER}/default/${encodeURIComponent(time)}/${SET}/1/0/1.png?key=demo`;
  const ogc = (query: string) => `${srv.url}/ogc/collections/weather.temperature-2m.gfs/map/tiles/WebMercatorQuad/1/0/1?${query}key=demo`;

  test('the service-wide capabilities: one layer of the variable, its Time the keyframes\' (UTC, Z), the keyframe tile sets still layers of their own', async () => {
    const all = await layers('/wmts/1.0.0/WMTSCapabilities.xml?key=demo');
    expect(all.map((l) => l.Identifier)).toEqual(expect.arrayContaining(['tiles/kf-a', 'tiles/kf-b', LAYER]));
    expect(all.find((l) => l.Identifier === LAYER)?.Dimension).toMatchObject({ Identifier: 'Time', Default: TIMES[1], Value: TIMES.slice(0, 2) });
  });

  test('KVP TIME, the RESTful {Time} and OGC API datetime: the keyframe tile set\'s tile, same bytes; no time: the latest', async () => {
    for (const [i, id] of ['kf-a', 'kf-b'].entries()) {
      for (const url of [kvp(TIMES[i]), rest(TIMES[i]), ogc(`datetime=${encodeURIComponent(TIMES[i])}&`)]) {
        const r = await rawGet(url);
        expect([url, r.status, r.headers['content-type']]).toEqual([url, 200, 'image/png']);
        expect(r.body.equals(stored(id))).toBe(true);
      }
    }
    for (const url of [kvp(), ogc('')]) expect((await rawGet(url)).body.equals(stored('kf-b'))).toBe(true);
  });

  test('a newer catalog published over the old one: its keyframes are the times, the latest the default', async () => {
    await writeKeyframeTileset(dir, 'kf-c', 3);
    writeWeatherStore(dir, ['kf-a', 'kf-b', 'kf-c'], '.next.mbtiles');
    renameSync(join(dir, 'weather', '.next.mbtiles'), join(dir, 'weather', 'latest.mbtiles'));
    const dim = await waitFor('the capabilities naming the third keyframe', async () => {
      const d = (await layers('/wmts/1.0.0/WMTSCapabilities.xml?key=demo')).find((l) => l.Identifier === LAYER)?.Dimension;
      return d && [d.Value].flat().length === 3 && d;
    });
    expect(dim).toMatchObject({ Default: TIMES[2], Value: TIMES });
    expect((await rawGet(kvp())).body.equals(stored('kf-c'))).toBe(true);
    expect((await rawGet(rest(TIMES[2]))).body.equals(stored('kf-c'))).toBe(true);
    const collection = JSON.parse((await rawGet(`${srv.url}/ogc/collections/weather.temperature-2m.gfs?key=demo`)).body.toString('utf8'));
    expect(collection.extent.temporal).toMatchObject({ interval: [[TIMES[0], TIMES[2]]], values: TIMES });
    // The catalog document itself is served as mirrored.
    expect(JSON.parse((await rawGet(`${srv.url}/weather/latest.json?key=demo`)).body.toString('utf8')).variables[0].keyframes.map((k: { id: string }) => k.id)).toEqual(['kf-a', 'kf-b', 'kf-c']);
  });
});
