// src/http/routes/sprites.ts in process: the sample sprite's sheets and indexes byte for byte, the deprecated
// map-scoped path (Deprecation, a Link to its successor), and the 400 and 404 answers.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as sprites from '../../../src/http/routes/sprites';
import { StoreWriter } from '../../../src/store/mbtiles/writer';
import { BASE_URL, failure, inProcess, patternsOf, readStoredDocument, storeFile } from '../../helpers/in-process';
import { tempDirs } from '../../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-sprites-');

const app = inProcess();
afterAll(() => app.close());

const SPRITE = storeFile('sprites', 'sample');
const TEXT = 'text/plain; charset=utf-8';
const FILES = [
  ['sprite.json', 'application/json; charset=utf-8'],
  ['sprite.png', 'image/png'],
  ['sprite@2x.json', 'application/json; charset=utf-8'],
  ['sprite@2x.png', 'image/png'],
] as const;

// Maps whose style names no usable sprite, and a sprite store missing its @2x files.
const dir = tempDir();
const WORLD: [number, number, number, number] = [-180, -85, 180, 85];
mkdirSync(join(dir, 'maps'));
mkdirSync(join(dir, 'sprites'));
const writeMap = (id: string, style?: object) => {
  const w = new StoreWriter(join(dir, 'maps', `${id}.mbtiles`), { kind: 'maps', name: id, pyramids: [{ name: '512', tileSize: 512, scale: 1, format: 'png', minzoom: 0, maxzoom: 0, bounds: WORLD }] });
  if (style) w.putDocument('style.json', 'application/json', JSON.stringify(style));
  w.close();
};
writeMap('plain');
writeMap('nosprite', { version: 8, sources: {}, layers: [] });
writeMap('remote', { version: 8, sprite: 'https://example.com/sprite', sources: {}, layers: [] });
writeMap('missing', { version: 8, sprite: 'tilemirror://sprites/gone/sprite', sources: {}, layers: [] });
const half = new StoreWriter(join(dir, 'sprites', 'half.mbtiles'), { kind: 'sprites', name: 'half', pyramids: [] });
half.putDocument('sprite.json', 'application/json', readStoredDocument(SPRITE, 'sprite.json'));
half.close();
const other = inProcess({ dataDir: dir });
afterAll(async () => {
  await other.close();
  removeTempDirs();
});

test('the route table gives sprites.ts its two patterns, the map-scoped one deprecated', () => {
  expect(patternsOf(sprites)).toEqual(['/maps/:mapId/sprite[:scale(@\\d+x)].:format', '/sprites/:spriteId/sprite[:scale(@\\d+x)].:format']);
});

describe('/sprites/{spriteId}/sprite[@2x].{png,json}', () => {
  test.each(FILES)('%s: the stored bytes as %s, a document with an ETag', async (file, type) => {
    const r = await app.get(`/sprites/sample/${file}`);
    expect(r).toMatchObject({ status: 200, type, cache: 'document' });
    expect(r.etag).toEqual(expect.any(String));
    expect(r.body?.equals(readStoredDocument(SPRITE, file))).toBe(true);
    expect(r.headers).toBeUndefined();
  });

  test.each([
    ['/sprites/sample/sprite@3x.png', 400, 'Invalid scale: only @2x is supported'],
    ['/sprites/sample/sprite@1x.json', 400, 'Invalid scale: only @2x is supported'],
    ['/sprites/sample/sprite.gif', 400, 'Invalid format: png or json'],
    ['/sprites/sample/sprite.JSON', 400, 'Invalid format: png or json'],
    ['/sprites/nope/sprite.png', 404, 'Unknown sprite: nope'],
    ['/sprites/nope/sprite@2x.json', 404, 'Unknown sprite: nope'],
  ])('%s → %i %s', async (path, status, message) => {
    expect(failure(await app.get(path))).toEqual({ status, type: TEXT, message });
  });

  test('a sprite store without the file asked for is 404 naming it', async () => {
    expect((await other.get('/sprites/half/sprite.json')).status).toBe(200);
    expect(failure(await other.get('/sprites/half/sprite@2x.png'))).toEqual({ status: 404, type: TEXT, message: 'This sprite has no sprite@2x.png' });
  });
});

describe('/maps/{mapId}/sprite[@2x].{png,json} (deprecated)', () => {
  test.each(FILES)('%s: the same bytes as the sprites endpoint, Deprecation and a Link to it', async (file, type) => {
    const old = await app.get(`/maps/sample/${file}`);
    const current = await app.get(`/sprites/sample/${file}`);
    expect(old).toMatchObject({ status: 200, type, cache: 'document' });
    expect(old.body?.equals(current.body!)).toBe(true);
    expect(old.headers).toEqual({ Deprecation: 'true', Link: `<${BASE_URL}/sprites/sample/${file}?key=demo>; rel="successor-version"` });
  });

  test('bad scale or format 400, unknown map 404, each still marked deprecated', async () => {
    for (const [path, status, message] of [
      ['/maps/sample/sprite@3x.png', 400, 'Invalid scale: only @2x is supported'],
      ['/maps/sample/sprite.gif', 400, 'Invalid format: png or json'],
      ['/maps/nope/sprite.png', 404, 'Unknown map: nope'],
    ] as const) {
      const r = await app.get(path);
      expect([path, failure(r)]).toEqual([path, { status, type: TEXT, message }]);
      expect(r.headers?.Deprecation).toBe('true');
    }
  });

  test('a map whose style names no sprite of this server is 404', async () => {
    for (const id of ['plain', 'nosprite', 'remote']) expect(failure(await other.get(`/maps/${id}/sprite.png`))).toEqual({ status: 404, type: TEXT, message: 'This map has no sprite' });
    expect(failure(await other.get('/maps/missing/sprite.png'))).toEqual({ status: 404, type: TEXT, message: 'Unknown sprite: gone' });
  });
});

test('every route of sprites.ts was reached, and nothing failed unexpectedly', () => {
  expect([...app.reached]).toEqual(expect.arrayContaining(patternsOf(sprites)));
  expect([...app.failures, ...other.failures]).toEqual([]);
});
