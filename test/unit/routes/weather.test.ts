// src/http/routes/weather.ts in process: the mirrored weather catalog, its local URLs resolved to this server and
// the requester's key, and the 404 answers (nothing mirrored, an unreadable catalog).

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as weather from '../../../src/http/routes/weather';
import { StoreWriter } from '../../../src/store/mbtiles/writer';
import { weatherCatalog, writeWeatherStore } from '../../fixtures/document-stores';
import { BASE_URL, failure, inProcess, json, patternsOf, readStoredDocument, storeFile } from '../../helpers/in-process';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-weather-');

const TEXT = 'text/plain; charset=utf-8';

const app = inProcess();
// A catalog naming keyframes by local URL; an empty data directory; a catalog that is not JSON.
const local = tempDir();
writeWeatherStore(local, ['kf-a', 'kf-b']);
const empty = tempDir('tilemirror-weather-none-');
const broken = tempDir('tilemirror-weather-broken-');
mkdirSync(join(broken, 'weather'));
const w = new StoreWriter(join(broken, 'weather', 'latest.mbtiles'), { kind: 'weather', name: 'Weather', pyramids: [] });
w.putDocument('latest.json', 'application/json', '{"variables": [');
w.close();
const apps = { local: inProcess({ dataDir: local }), empty: inProcess({ dataDir: empty }), broken: inProcess({ dataDir: broken }) };
afterAll(async () => {
  for (const a of [app, ...Object.values(apps)]) await a.close();
  removeTempDirs();
});

test('the route table gives weather.ts its one pattern', () => {
  expect(patternsOf(weather)).toEqual(['/weather/latest.json']);
});

test("the sample's catalog: the stored document, as JSON, a document", async () => {
  const r = await app.get('/weather/latest.json');
  expect(r).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', cache: 'document' });
  expect(json(r)).toEqual(JSON.parse(readStoredDocument(storeFile('weather', 'latest'), 'latest.json').toString('utf8')));
});

test('local keyframe URLs point at this server with the key', async () => {
  const expected = weatherCatalog(['kf-a', 'kf-b']) as { variables: { keyframes: { tiles: string }[] }[] };
  for (const k of expected.variables[0].keyframes) k.tiles = `${k.tiles.replace('tilemirror://', `${BASE_URL}/`)}?key=demo`;
  expect(json(await apps.local.get('/weather/latest.json'))).toEqual(expected);
});

test('nothing mirrored, or an unreadable catalog: 404; other paths 404', async () => {
  expect(failure(await apps.empty.get('/weather/latest.json'))).toEqual({ status: 404, type: TEXT, message: 'No weather catalog is mirrored' });
  expect(failure(await apps.broken.get('/weather/latest.json'))).toEqual({ status: 404, type: TEXT, message: 'The mirrored weather catalog is unreadable' });
  expect(failure(await app.get('/weather/other.json'))).toEqual({ status: 404, type: TEXT, message: 'Not found' });
});

test('every route of weather.ts was reached, and nothing failed unexpectedly', () => {
  expect([...app.reached]).toEqual(expect.arrayContaining(patternsOf(weather)));
  expect([app, ...Object.values(apps)].flatMap((a) => a.failures)).toEqual([]);
});
