// The render store: an MBTiles file per map and render version. Read back through GDAL-independent SQL (the
// MBTiles tables themselves), reopened when a render job's publish replaces it, read-only where it may not write.

import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRenderStore, pruneRenderStores, RENDER_PYRAMIDS, RenderStore, renderPyramidName, renderStorePath } from '../../src/store/renders/render-store';
import { tempDirs } from '../helpers/temp-dirs';

const temp = tempDirs('tilemirror-render-store-');
afterAll(() => temp.removeTempDirs());

const png = (n: number): Buffer => Buffer.from(`png-${n}`);

test('renders are kept per variant and read back; the file is an MBTiles with the main variant in `tiles`', () => {
  const data = temp.tempDir();
  const file = renderStorePath(data, 'streets', 'v1');
  expect(file).toBe(join(data, '.renders', 'maps', 'streets', 'v1.mbtiles'));
  createRenderStore(file, { name: 'Streets', attribution: '© OSM', version: 'v1' });
  const store = new RenderStore(file, true);
  store.put([
    { tileSize: 512, scale: 1, format: 'png', z: 3, x: 4, y: 2, data: png(1) },
    { tileSize: 256, scale: 2, format: 'webp', z: 3, x: 4, y: 2, data: png(2) },
  ]);
  expect(store.get({ tileSize: 512, scale: 1, format: 'png' }, 3, 4, 2)).toEqual(png(1));
  expect(store.get({ tileSize: 256, scale: 2, format: 'webp' }, 3, 4, 2)).toEqual(png(2));
  expect(store.get({ tileSize: 256, scale: 1, format: 'webp' }, 3, 4, 2)).toBeUndefined();
  expect(store.has({ tileSize: 512, scale: 1, format: 'png' }, 3, 4, 5)).toBe(false);
  expect(store.count()).toBe(2);
  store.close();
  // What any MBTiles reader sees: the 512 px png tile in `tiles`, TMS row (2^3 - 1 - 2 = 5).
  const db = new Database(file, { readonly: true });
  expect(db.prepare('SELECT tile_data FROM tiles WHERE zoom_level = 3 AND tile_column = 4 AND tile_row = 5').pluck().get()).toEqual(png(1));
  const meta = Object.fromEntries(db.prepare('SELECT name, value FROM metadata').all().map((r) => [(r as { name: string }).name, (r as { value: string }).value]));
  expect(meta).toMatchObject({ name: 'Streets', format: 'png', 'tilemirror:render_version': 'v1' });
  expect(db.prepare('SELECT count(*) FROM tilemirror_pyramids').pluck().get()).toBe(12);
  db.close();
});

test('variant names follow the served paths', () => {
  expect(RENDER_PYRAMIDS.map((p) => p.name)).toEqual(['512', '512.jpg', '512.webp', '512@2x', '512@2x.jpg', '512@2x.webp', '256', '256.jpg', '256.webp', '256@2x', '256@2x.jpg', '256@2x.webp']);
  expect(renderPyramidName({ tileSize: 256, scale: 2, format: 'jpg' })).toBe('256@2x.jpg');
});

test('a read-only store refuses writes; a replaced file is reopened; other versions are pruned', () => {
  const data = temp.tempDir();
  const file = renderStorePath(data, 'm', 'v2');
  createRenderStore(file, { name: 'M', attribution: '', version: 'v2' });
  const reader = new RenderStore(file, false);
  expect(() => reader.put([{ tileSize: 512, scale: 1, format: 'png', z: 0, x: 0, y: 0, data: png(0) }])).toThrow(/read-only/);
  // A render job publishes a new file by rename.
  const staging = join(data, '.renders', 'maps', 'm', '.v2.staging');
  copyFileSync(file, staging);
  const w = new RenderStore(staging, true);
  w.put([{ tileSize: 512, scale: 1, format: 'png', z: 0, x: 0, y: 0, data: png(9) }]);
  w.close();
  expect(reader.get({ tileSize: 512, scale: 1, format: 'png' }, 0, 0, 0)).toBeUndefined();
  renameSync(staging, file);
  expect(reader.current()).toBe(true);
  expect(reader.get({ tileSize: 512, scale: 1, format: 'png' }, 0, 0, 0)).toEqual(png(9));
  reader.close();
  // Older versions go; the kept one and its staging file stay.
  mkdirSync(join(data, '.renders', 'maps', 'm'), { recursive: true });
  writeFileSync(join(data, '.renders', 'maps', 'm', 'v1.mbtiles'), 'old');
  writeFileSync(join(data, '.renders', 'maps', 'm', '.v2.staging'), 'job');
  expect(pruneRenderStores(data, 'm', 'v2')).toEqual(['v1.mbtiles']);
  expect(readdirSync(join(data, '.renders', 'maps', 'm')).sort()).toEqual(['.v2.staging', 'v2.mbtiles']);
  expect(pruneRenderStores(data, 'absent', 'v1')).toEqual([]);
  expect(existsSync(file)).toBe(true);
});
