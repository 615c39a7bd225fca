// A store file arriving whole (store/bundle/file-copy.ts), on real SQLite files: the bytes of a store made by StoreWriter
// are written through StoreFileCopy and checked. A good file keeps every content row and loses everything else;
// a file that is short, not a database, laid out otherwise (a view for `tiles`, other columns, no unique tile
// index) or not what the manifest says is refused, and abandon() leaves nothing behind.

import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readHeader } from '../../src/store/bundle/content';
import { StoreFileCopy, StoreFileError } from '../../src/store/bundle/file-copy';
import { StoreWriter } from '../../src/store/mbtiles/writer';
import { bytesFor, contentRows } from '../fixtures/bundle-stores';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-file-copy-');

let dir: string;
beforeAll(() => {
  dir = tempDir();
  mkdirSync(join(dir, 'out'));
});
afterAll(() => removeTempDirs());

const WORLD: [number, number, number, number] = [-180, -85.0511287798066, 180, 85.0511287798066];

/** A store of 16 tiles at z2; `change` then alters it with plain SQL. */
function source(name: string, change = ''): string {
  const file = join(dir, `${name}.mbtiles`);
  const w = new StoreWriter(file, { kind: 'tiles', name, pyramids: [{ name: 'main', tileSize: 256, scale: 1, format: 'png', minzoom: 2, maxzoom: 2, bounds: WORLD }] });
  w.batch(() => {
    for (let i = 0; i < 16; i++) w.putTile('main', 2, i % 4, Math.floor(i / 4), bytesFor(`${name}/${i}`, 500));
  });
  w.close();
  if (change) {
    const db = new Database(file);
    db.exec(change);
    db.close();
  }
  return file;
}

/** What the manifest would say of the file (read with plain SQL where it can be). */
function expectedOf(file: string, quickCheck = true): { header: ReturnType<typeof readHeader>; tiles: number; documents: number; quickCheck: boolean } {
  const db = new Database(file, { readonly: true });
  try {
    return { header: readHeader(db), tiles: db.prepare('SELECT count(*) FROM tiles').pluck().get() as number, documents: 0, quickCheck };
  } finally {
    db.close();
  }
}

/** Copies `bytes` through a StoreFileCopy announcing `size` bytes, in pieces of 1,000, and completes it. */
function copy(name: string, bytes: Buffer, expected: ReturnType<typeof expectedOf>, size = bytes.length): StoreFileCopy {
  const c = new StoreFileCopy({ published: join(dir, 'out', `${name}.mbtiles`), staging: join(dir, `.${name}.import`) }, size);
  try {
    for (let at = 0; at < bytes.length; at += 1000) c.write(bytes.subarray(at, at + 1000));
    c.complete(expected);
    return c;
  } catch (err) {
    c.abandon();
    throw err;
  }
}

test('a good file keeps every content row and nothing else, and publishes', () => {
  const file = source('good', `
    CREATE TABLE tilemirror_mirror_empty (pyramid TEXT, z INTEGER, x INTEGER, y INTEGER, status INTEGER);
    INSERT INTO tilemirror_mirror_empty VALUES ('main', 2, 0, 0, 204);
    CREATE VIEW v AS SELECT 1;
    CREATE TRIGGER t AFTER INSERT ON tiles BEGIN SELECT 1; END;`);
  const c = copy('good', readFileSync(file), expectedOf(file));
  c.publish();
  const out = join(dir, 'out', 'good.mbtiles');
  expect(contentRows(out)).toEqual(contentRows(file));
  const db = new Database(out, { readonly: true });
  const names = db.prepare("SELECT type || ' ' || name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY 1").pluck().all();
  db.close();
  expect(names).toEqual(['index metadata_name', 'index tile_index', 'table metadata', 'table tilemirror_documents', 'table tilemirror_pyramids', 'table tilemirror_tiles', 'table tiles']);
  expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
});

test('refusals: short, not a database, laid out otherwise, or not what the manifest says; nothing left behind', () => {
  const good = source('base');
  const bytes = readFileSync(good);
  const cases: [string, () => unknown, RegExp][] = [
    ['short', () => copy('short', bytes.subarray(0, 4096), expectedOf(good), bytes.length), /4096 of its \d+ bytes arrived/],
    ['too long', () => copy('long', Buffer.concat([bytes, Buffer.alloc(10)]), expectedOf(good), bytes.length), /more than the \d+ bytes announced/],
    ['not a database', () => copy('junk', bytesFor('junk', bytes.length), expectedOf(good)), /not a SQLite database|cannot be read as a store/],
    ['another name', () => copy('renamed', bytes, { ...expectedOf(good), header: { ...expectedOf(good).header, metadata: [['name', 'x']] } }), /differ from the manifest/],
    ['another count', () => copy('count', bytes, { ...expectedOf(good), tiles: 17 }), /holds 16 tiles and 0 documents, the manifest says 17 and 0/],
  ];
  const noIndex = source('noindex', 'DROP INDEX tile_index');
  cases.push(['no tile index', () => copy('noindex', readFileSync(noIndex), expectedOf(noIndex)), /no unique index on \(zoom_level, tile_column, tile_row\)/]);
  const extraColumn = source('column', 'ALTER TABLE tiles ADD COLUMN note TEXT');
  cases.push(['another column', () => copy('column', readFileSync(extraColumn), expectedOf(extraColumn)), /table tiles has the columns \(.*note TEXT 0\)/]);
  const view = source('view', `CREATE TABLE t2 AS SELECT * FROM tiles; DROP TABLE tiles; CREATE VIEW tiles AS SELECT * FROM t2;`);
  cases.push(['tiles a view', () => copy('view', readFileSync(view), expectedOf(view)), /tiles is a view, not a table/]);
  for (const [name, run, message] of cases) {
    let error: unknown;
    try {
      run();
    } catch (err) {
      error = err;
    }
    expect({ name, error: error instanceof StoreFileError ? error.message : String(error) }).toEqual({ name, error: expect.stringMatching(message) });
  }
  expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
  expect(existsSync(join(dir, 'out', 'base.mbtiles'))).toBe(false);
});
