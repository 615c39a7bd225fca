// A store's facts (TileReader.facts: tile rows, bytes, origin), what the admin API tells of a store: read once per
// opened version of the file (the catalog's store object is the memo) and again only when the file has changed: a
// store republished in its place (a new file renamed over it, as a mirror run publishes) or written to is counted
// anew; a store that cannot be read says its size and is read again.
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Catalog } from '../../src/store/catalog/catalog';
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

/** A data directory with its tiles folder; the store under test is tiles/store.mbtiles. */
function dataDir(): { dir: string; file: string } {
  const dir = tempDir();
  mkdirSync(join(dir, 'tiles'));
  return { dir, file: join(dir, 'tiles', 'store.mbtiles') };
}

test('the same file gives the same facts; a store republished over it, or written to, is counted anew', () => {
  const { dir, file } = dataDir();
  writeStore(file, 5);
  const catalog = new Catalog(dir);
  const served = catalog.get('tiles', 'store')!;
  expect(served.facts()).toEqual({ tiles: 5, bytes: statSync(file).size, origin: { type: 'imported' } });
  expect(served.facts()).toMatchObject({ tiles: 5 });

  // Published in its place: a new file renamed over the old one.
  const next = join(dir, 'tiles', 'next.mbtiles');
  writeStore(next, 9);
  renameSync(next, file);
  catalog.scan();
  expect(catalog.get('tiles', 'store')!.facts()).toEqual({ tiles: 9, bytes: statSync(file).size, origin: { type: 'imported' } });

  // Written in place (same inode): its size or modification time moves. A served store refuses writers in place
  // (it keeps its read lock), so the writer comes while no catalog holds it. A mirror run records its upstream so.
  catalog.close();
  const db = new Database(file);
  db.exec('CREATE TABLE tilemirror_mirror_state (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
  db.prepare("INSERT INTO tilemirror_mirror_state (name, value) VALUES ('upstream', 'https://user:pw@up.example/tiles?key=secret')").run();
  db.close();
  const again = new Catalog(dir);
  expect(again.get('tiles', 'store')!.facts()).toMatchObject({ tiles: 9, origin: { type: 'upstream', url: 'https://up.example/tiles' } });
  again.close();
});

test('a file that cannot be read says its size, and is read again once it can be', () => {
  const { dir, file } = dataDir();
  writeStore(file, 2);
  const catalog = new Catalog(dir);
  const served = catalog.get('tiles', 'store')!;
  // A store whose file can no longer be read (here: closed under the caller) says what it can: its size.
  served.close();
  expect(served.facts()).toEqual({ tiles: null, bytes: statSync(file).size, origin: { type: 'imported' } });
  // Not remembered: asked again, it still cannot say.
  expect(served.facts()).toMatchObject({ tiles: null });
  // A file that is no store is not opened (the catalog keeps what it served); once a good file replaces it, it
  // is counted.
  writeFileSync(join(dir, 'tiles', 'broken.mbtiles'), 'not a database');
  renameSync(join(dir, 'tiles', 'broken.mbtiles'), file);
  catalog.scan();
  expect(catalog.status().failed).toBe(1);
  writeStore(join(dir, 'tiles', 'good.mbtiles'), 3);
  renameSync(join(dir, 'tiles', 'good.mbtiles'), file);
  catalog.scan();
  expect(catalog.get('tiles', 'store')!.facts()).toMatchObject({ tiles: 3 });
  catalog.close();
});
