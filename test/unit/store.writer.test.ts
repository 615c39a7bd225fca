// The store writer's file layout: a store written from scratch has 16 KB pages (a tile of ~15 KB fits its leaf
// page instead of spreading over four 4 KB overflow pages), tiles of every size read back byte for byte, and a
// file that already has tables (a staging file resumed) keeps the page size it was made with.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { MbtilesStore } from '../../src/store/mbtiles/reader';
import { StoreWriter, type StoreHeader } from '../../src/store/mbtiles/writer';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-writer-');

let dir: string;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => removeTempDirs());

const header: StoreHeader = {
  kind: 'tiles',
  name: 'writer test',
  pyramids: [{ name: 'main', tileSize: 512, scale: 1, format: 'pbf', minzoom: 0, maxzoom: 3, bounds: [-180, -85, 180, 85] }],
};

const pageSize = (file: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('page_size', { simple: true }) as number;
  } finally {
    db.close();
  }
};

test('a store written from scratch has 16 KB pages and reads back every tile byte for byte, small, page-sized and larger', () => {
  const file = join(dir, 'fresh.mbtiles');
  // Sizes around the page and its overflow thresholds: one byte, a typical vector tile, just under and over a page, several pages.
  const sizes = [1, 900, 15_000, 16_300, 16_400, 40_000, 200_000];
  const tiles = sizes.map((n, i) => ({ z: 3, x: i, y: 7 - i, data: randomBytes(n) }));
  const w = new StoreWriter(file, header);
  w.batch(() => {
    for (const t of tiles) w.putTile('main', t.z, t.x, t.y, t.data);
  });
  w.close();
  expect(pageSize(file)).toBe(16384);

  // Read with plain SQL (as GDAL or any MBTiles reader does) and through the store's own reader.
  const db = new Database(file, { readonly: true });
  const store = new MbtilesStore(file, 'tiles', 'fresh', 'sig');
  try {
    for (const t of tiles) {
      const row = db.prepare('SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?').pluck().get(t.z, t.x, 7 - t.y) as Buffer;
      expect(row.equals(t.data)).toBe(true);
      expect(store.tile('main', t.z, t.x, t.y)?.equals(t.data)).toBe(true);
    }
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    store.close();
    db.close();
  }
});

test('a writer opened on a file that already has tables keeps its page size (a resumed staging file)', () => {
  const file = join(dir, 'older.mbtiles');
  const older = new Database(file);
  older.pragma('page_size = 4096');
  older.exec('CREATE TABLE t (a)');
  older.close();
  const w = new StoreWriter(file, header);
  w.putTile('main', 0, 0, 0, Buffer.from('tile'));
  w.close();
  expect(pageSize(file)).toBe(4096);
  const store = new MbtilesStore(file, 'tiles', 'older', 'sig');
  try {
    expect(store.tile('main', 0, 0, 0)?.toString()).toBe('tile');
  } finally {
    store.close();
  }
});
