// The import's staging writer on real files, with a flushing thread behind it (the `bytes` hint of a big store):
// a store written, completed and published reads back row for row; one abandoned midway leaves no file behind
// and the published store as it was.

import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { patchPaths, StorePatch } from '../../src/store/bundle/patch';
import { bytesFor } from '../fixtures/bundle-stores';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-patch-');

let dir: string;
beforeAll(() => {
  dir = tempDir();
  mkdirSync(join(dir, 'tiles'));
});
afterAll(() => removeTempDirs());

const BIG = { bytes: 1 << 30 };
const header = { tables: ['tiles' as const], metadata: [['name', 'p'] as [string, string]], pyramids: [] };

test('flushed behind its writer, a staging store publishes every row', () => {
  const paths = patchPaths(dir, 'tiles', 'p');
  const patch = new StorePatch(paths, false, BIG);
  patch.setHeader(header);
  for (let i = 0; i < 3000; i++) patch.putTile('', 10, i, 7, bytesFor(`p${i}`, 5000));
  expect(patch.counts().tiles).toBe(3000);
  patch.complete();
  patch.publish();
  expect(readdirSync(join(dir, 'tiles'))).toEqual(['p.mbtiles']);
  const db = new Database(paths.published, { readonly: true });
  const rows = db.prepare('SELECT tile_column AS x, tile_data AS data FROM tiles ORDER BY tile_column').all() as { x: number; data: Buffer }[];
  db.close();
  expect(rows.length).toBe(3000);
  for (const r of rows) expect({ x: r.x, same: Buffer.compare(r.data, bytesFor(`p${r.x}`, 5000)) }).toEqual({ x: r.x, same: 0 });
});

test('abandoned midway, it leaves no staging file and the published store as it was', () => {
  const paths = patchPaths(dir, 'tiles', 'p');
  const before = readFileSync(paths.published);
  const patch = new StorePatch(paths, true, BIG);
  for (let i = 0; i < 500; i++) patch.putTile('', 11, i, 1, bytesFor(`q${i}`, 5000));
  patch.abandon();
  expect(existsSync(paths.staging)).toBe(false);
  expect(readdirSync(join(dir, 'tiles'))).toEqual(['p.mbtiles']);
  expect(Buffer.compare(readFileSync(paths.published), before)).toBe(0);
});
