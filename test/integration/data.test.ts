// /data/{dataId}/features.json served from a dataset store (`data/{id}.mbtiles`, document features.json).

import { FEATURES, writeDataStore } from '../fixtures/document-stores';
import { rawGet, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-data-');

let dir: string;
let srv: TestServer;
beforeAll(async () => {
  dir = tempDir();
  writeDataStore(dir, 'places');
  writeDataStore(dir, 'empty', { type: 'FeatureCollection', features: [] });
  srv = await startServer({ dataDir: dir });
});
afterAll(async () => {
  await srv.close();
  removeTempDirs();
});
const get = (p: string, h?: Record<string, string>) => rawGet(`${srv.url}${p}`, h);

describe('data', () => {
  test('features.json: the stored GeoJSON, byte for byte, as application/json', async () => {
    const r = await get('/data/places/features.json?key=demo');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.headers['cache-control']).toBeDefined();
    expect(r.body.toString('utf8')).toBe(JSON.stringify(FEATURES));
    expect(JSON.parse((await get('/data/empty/features.json?key=demo')).body.toString('utf8'))).toEqual({ type: 'FeatureCollection', features: [] });
  });

  test('ETag and 304; HEAD', async () => {
    const r = await get('/data/places/features.json?key=demo');
    const etag = r.headers.etag as string;
    expect(etag).toBeDefined();
    expect((await get('/data/places/features.json?key=demo', { 'If-None-Match': etag })).status).toBe(304);
  });

  test('unknown dataset 404, other paths 404, no key 403', async () => {
    expect((await get('/data/nope/features.json?key=demo')).status).toBe(404);
    expect((await get('/data/places/other.json?key=demo')).status).toBe(404);
    expect((await get('/data/places/features.json')).status).toBe(403);
    expect((await get('/data/places/features.json?key=wrong')).status).toBe(403);
  });
});
