// A served store keeps the shared lock of its first read (src/store/mbtiles/reader.ts: SQLite no longer locks, checks
// for a hot journal and re-reads the header around every tile). What that must mean from outside: other readers
// read on, a writer in place is refused while the server has the file open (the bytes clients get cannot change
// under them), and the lock is the server's, gone with it. The server runs as a child process, so the locks are
// between processes, as they are for an operator's sqlite3.

import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startChildServer, type ChildServer } from '../helpers/child-server';
import { KEY, rawGet } from '../helpers/server';
import { GZIP_TILE, writeGoodVectorStore } from '../fixtures/hand-made-stores';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-read-lock-');

let dir: string;
let file: string;
let srv: ChildServer | undefined;
beforeAll(async () => {
  dir = tempDir();
  file = join(dir, 'data', 'tiles', 'good.mbtiles');
  writeGoodVectorStore(file);
  srv = await startChildServer(join(dir, 'data'));
});
afterAll(async () => {
  await srv?.stop();
  removeTempDirs();
});

const OTHER = Buffer.from('not the tile');

/** Replaces the one tile's bytes in place, as an operator's sqlite3 would; throws what SQLite says. */
function writeInPlace(): void {
  const db = new Database(file, { fileMustExist: true, timeout: 0 });
  try {
    db.prepare('UPDATE tiles SET tile_data = ? WHERE zoom_level = 0').run(OTHER);
  } finally {
    db.close();
  }
}

test('while served: other readers read, a writer in place is refused, clients keep getting the same bytes', async () => {
  const tile = `${srv!.url}/tiles/good/0/0/0?key=${KEY}`;
  const first = await rawGet(tile, { 'accept-encoding': 'gzip' });
  expect(first.status).toBe(200);
  expect(first.body.equals(GZIP_TILE)).toBe(true);

  expect(writeInPlace).toThrow(/database is locked/);

  const reader = new Database(file, { readonly: true, fileMustExist: true, timeout: 0 });
  try {
    expect((reader.prepare('SELECT tile_data FROM tiles WHERE zoom_level = 0').pluck().get() as Buffer).equals(GZIP_TILE)).toBe(true);
  } finally {
    reader.close();
  }
  const again = await rawGet(tile, { 'accept-encoding': 'gzip' });
  expect(again.status).toBe(200);
  expect(again.body.equals(GZIP_TILE)).toBe(true);
});

test('the lock is the server\'s: once it has stopped, the same write goes through', async () => {
  await srv!.stop();
  srv = undefined;
  writeInPlace();
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    expect((db.prepare('SELECT tile_data FROM tiles WHERE zoom_level = 0').pluck().get() as Buffer).equals(OTHER)).toBe(true);
  } finally {
    db.close();
  }
});
