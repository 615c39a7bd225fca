// src/http/routes/data.ts in process: a dataset's features.json byte for byte, and the 404 answers.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as data from '../../../src/http/routes/data';
import { StoreWriter } from '../../../src/store/mbtiles/writer';
import { failure, inProcess, patternsOf, readStoredDocument, storeFile } from '../../helpers/in-process';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-data-');

const app = inProcess();
// A dataset store without its document.
const dir = tempDir();
mkdirSync(join(dir, 'data'));
new StoreWriter(join(dir, 'data', 'hollow.mbtiles'), { kind: 'data', name: 'hollow', pyramids: [] }).close();
const hollow = inProcess({ dataDir: dir });
afterAll(async () => {
  await app.close();
  await hollow.close();
  removeTempDirs();
});

const TEXT = 'text/plain; charset=utf-8';

test('the route table gives data.ts its one pattern', () => {
  expect(patternsOf(data)).toEqual(['/data/:dataId/features.json']);
});

test('features.json: the stored GeoJSON byte for byte, application/json, a document with an ETag', async () => {
  const r = await app.get('/data/sample-countries/features.json');
  expect(r).toMatchObject({ status: 200, type: 'application/json; charset=utf-8', cache: 'document', compressible: true });
  expect(r.etag).toEqual(expect.any(String));
  expect(r.body?.equals(readStoredDocument(storeFile('data', 'sample-countries'), 'features.json'))).toBe(true);
  expect((await app.get('/data/sample-countries/features.json')).etag).toBe(r.etag);
});

test('an unknown dataset, a dataset without features.json and other paths are 404', async () => {
  expect(failure(await app.get('/data/nope/features.json'))).toEqual({ status: 404, type: TEXT, message: 'Unknown dataset: nope' });
  expect(failure(await hollow.get('/data/hollow/features.json'))).toEqual({ status: 404, type: TEXT, message: 'This dataset has no features.json' });
  expect(failure(await app.get('/data/sample-countries/other.json'))).toEqual({ status: 404, type: TEXT, message: 'Not found' });
});

test('every route of data.ts was reached, and nothing failed unexpectedly', () => {
  expect([...app.reached]).toEqual(expect.arrayContaining(patternsOf(data)));
  expect([...app.failures, ...hollow.failures]).toEqual([]);
});
