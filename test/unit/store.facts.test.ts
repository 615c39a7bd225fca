// store-facts.ts: what the admin API tells of a store file (tile rows, bytes, origin), read from the file and read
// again only when the file has changed: a store republished in its place (a new file renamed over it, as a mirror
// run publishes) or written to is counted anew; a file that cannot be read says its size and is read again.
import { randomBytes } from 'node:crypto';
import { renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { storeFacts } from '../../src/store/store-facts';
import { StoreWriter, type StoreHeader } from '../../src/store/mbtiles/writer';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-facts-');
afterAll(() => removeTempDirs());

const header: StoreHeader = {
  kind: 'tiles',
  name: 'facts test',
  pyramids: [{ name: 'main', tileSize: 512, scale: 1, format: 'pbf', minzoom: 0, maxzoom: 4, bounds: [-180, -85, 180, 85] }],
};

function writeStore(file: string, tiles: number): void {
  const w = new StoreWriter(file, header);
  w.batch(() => {
    for (let x = 0; x < tiles; x++) w.putTile('main', 4, x, 3, randomBytes(200));
  });
  w.close();
}

test('the same file gives the same facts; a store republished over it, or written to, is counted anew', () => {
  const dir = tempDir();
  const file = join(dir, 'store.mbtiles');
  writeStore(file, 5);
  expect(storeFacts(file)).toEqual({ tiles: 5, bytes: statSync(file).size, origin: { type: 'imported' } });
  expect(storeFacts(file)).toMatchObject({ tiles: 5 });

  // Published in its place: a new file renamed over the old one.
  const next = join(dir, 'next.mbtiles');
  writeStore(next, 9);
  renameSync(next, file);
  expect(storeFacts(file)).toEqual({ tiles: 9, bytes: statSync(file).size, origin: { type: 'imported' } });

  // Written in place (same inode): its size or modification time moves. A mirror run records its upstream so.
  const db = new Database(file);
  db.exec('CREATE TABLE tilemirror_mirror_state (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
  db.prepare("INSERT INTO tilemirror_mirror_state (name, value) VALUES ('upstream', 'https://user:pw@up.example/tiles?key=secret')").run();
  db.close();
  expect(storeFacts(file)).toMatchObject({ tiles: 9, origin: { type: 'upstream', url: 'https://up.example/tiles' } });
});

test('a file that cannot be read says its size, and is read again once it can be', () => {
  const dir = tempDir();
  const file = join(dir, 'broken.mbtiles');
  writeFileSync(file, 'not a database');
  expect(storeFacts(file)).toEqual({ tiles: null, bytes: 14, origin: { type: 'imported' } });
  writeStore(join(dir, 'good.mbtiles'), 3);
  renameSync(join(dir, 'good.mbtiles'), file);
  expect(storeFacts(file)).toMatchObject({ tiles: 3 });
});
