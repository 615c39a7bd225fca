// Writing a store that a bundle carries whole, as its SQLite file (layout `sqlite`): the bytes go to the same
// hidden staging file as a patch (`.{id}.mbtiles.import`, skipped by the catalog), flushed behind the writer, and
// the file must pass these checks before it may be published:
//  - SQLite's quick_check (every b-tree page, overflow chain and free list), unless a trusted key signed the
//    bundle: the parts' SHA-256 says the bytes are the ones in the manifest, and a trusted signature says that
//    manifest is the exporting side's: a store its tilemirror wrote (a mirror publishes only after SQLite's
//    integrity_check), every row of which the export has just read. Without a trusted signature the bundle could
//    come from anyone, so the structure is checked: ~0.5 s of CPU a GB;
//  - the content tables are tables with the columns of our schema (store/mbtiles/sql.ts), and `tiles` has its unique
//    index (a hand-made file without it would make every tile read a scan); anything else the file holds is
//    dropped: the exporting side's mirror state (`tilemirror_mirror_*`: validators, empty tiles, the upstream's
//    address) and whatever a hand-made file could carry (other tables, views, triggers), so the store holds
//    exactly what a records import would have built;
//  - its header (metadata, pyramids, tables) and its counts of tiles and documents equal the manifest's.
// Like a patch, the staging file is disposable until the caller publishes it (fsync, rename, fsync).

import Database from 'better-sqlite3';
import { closeSync, openSync, writeSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { readHeader, type StoreHeader } from './content';
import { FLUSH_BEHIND_BYTES, flushBehind, type FlushBehind } from '../mbtiles/flush-behind';
import { DocumentTable, dropAllButContent, MAIN_TABLE_KEY, schemaProblem, TileTables } from '../mbtiles/sql';
import { publishFile } from '../mbtiles/publish';
import { removeStaging } from '../mbtiles/staging';

/** A store file that fails the checks: the message says what is wrong with it. */
export class StoreFileError extends Error {}

export interface ExpectedStore {
  header: StoreHeader;
  tiles: number;
  documents: number;
  /** Run SQLite's quick_check (the bundle is not vouched for by a trusted signature). */
  quickCheck: boolean;
}

export class StoreFileCopy {
  private fd: number | undefined;
  private written = 0;
  private readonly flusher: FlushBehind | undefined;

  /** `size`: the bytes of the file, all of which must be written before complete(). */
  constructor(readonly paths: { published: string; staging: string }, private readonly size: number) {
    removeStaging(paths.staging);
    this.fd = openSync(paths.staging, 'w');
    this.flusher = size >= FLUSH_BEHIND_BYTES ? flushBehind(paths.staging) : undefined;
  }

  write(bytes: Buffer): void {
    if (this.fd === undefined) throw new Error('the store copy is closed');
    if (this.written + bytes.length > this.size) throw new StoreFileError(`more than the ${this.size} bytes announced`);
    for (let at = 0; at < bytes.length; ) at += writeSync(this.fd, bytes, at, bytes.length - at);
    this.written += bytes.length;
  }

  private closeFile(): void {
    this.flusher?.stop();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Closes the file and checks it (see the top of this file); throws a StoreFileError naming the first problem. */
  complete(expected: ExpectedStore): void {
    this.closeFile();
    if (this.written !== this.size) throw new StoreFileError(`${this.written} of its ${this.size} bytes arrived`);
    let db: Database.Database;
    try {
      db = new Database(this.paths.staging, { fileMustExist: true });
    } catch (err) {
      throw new StoreFileError(`not a SQLite database (${(err as Error).message})`);
    }
    try {
      // The staging file is disposable: no journal for the few writes below.
      db.pragma('journal_mode = OFF');
      db.pragma('synchronous = OFF');
      checkStoreFile(db, expected);
    } catch (err) {
      if (err instanceof StoreFileError) throw err;
      // SQLITE_CORRUPT, SQLITE_NOTADB and the like, raised by any statement on a damaged file.
      throw new StoreFileError(`it cannot be read as a store (${(err as Error).message})`);
    } finally {
      db.close();
    }
  }

  publish(): void {
    publishFile(this.paths.staging, this.paths.published);
  }

  /** Gives up: closes and removes the staging file; the published store is untouched. */
  abandon(): void {
    this.closeFile();
    removeStaging(this.paths.staging);
  }
}

/** The checks of complete(), on the opened staging file; drops every object that is not content. */
function checkStoreFile(db: Database.Database, expected: ExpectedStore): void {
  if (expected.quickCheck) {
    const quick = db.pragma('quick_check(1)', { simple: true });
    if (quick !== 'ok') throw new StoreFileError(`the database is damaged (quick_check: ${String(quick).replace(/\s*\n\s*/g, ' ')})`);
  }
  const problem = schemaProblem(db);
  if (problem) throw new StoreFileError(problem);
  dropAllButContent(db);
  const header = readHeader(db);
  if (!isDeepStrictEqual(header, expected.header)) throw new StoreFileError('its metadata, pyramids or tables differ from the manifest');
  const tiles = new TileTables(db, MAIN_TABLE_KEY).count();
  const documents = new DocumentTable(db).count();
  if (tiles !== expected.tiles || documents !== expected.documents) {
    throw new StoreFileError(`it holds ${tiles} tiles and ${documents} documents, the manifest says ${expected.tiles} and ${expected.documents}`);
  }
}
