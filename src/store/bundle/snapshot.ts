// A published store opened for export: its rows (through SQLite) and, when it can travel whole, its file's bytes,
// both from the same file in the same state. Published files are never written in place (a new version is a new
// file renamed over the path), so "the same state" means "the same inode": the file descriptor is opened first,
// SQLite opens the path after it, and the path must still name that inode once SQLite holds it. A read transaction
// is held until close() as well, so even a file changed in place by hand could not change under the export.
// The bytes alone are the whole database only in rollback-journal mode with no journal or WAL content beside the file;
// a file in WAL mode, one whose size is not its page count times its page size, or one whose content tables are not
// laid out as our schema lays them out (an MBTiles file made elsewhere), travels as records instead.

import type Database from 'better-sqlite3';
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { openReadOnly } from './content';
import { schemaProblem } from '../mbtiles/sql';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const CHUNK = 4 * 1024 * 1024;

const nonEmpty = (file: string): boolean => (statSync(file, { throwIfNoEntry: false })?.size ?? 0) > 0;

export class StoreSnapshot {
  readonly db: Database.Database;
  /** Bytes of the file when it can travel whole (see above), else undefined. */
  readonly fileBytes: number | undefined;
  private readonly fd: number;

  constructor(readonly file: string) {
    this.fd = openSync(file, 'r');
    try {
      const ino = fstatSync(this.fd).ino;
      this.db = openReadOnly(file);
      try {
        this.db.exec('BEGIN');
        // The first read takes the shared lock the transaction keeps.
        this.db.prepare('SELECT count(*) FROM sqlite_master').pluck().get();
        this.fileBytes = statSync(file).ino === ino ? this.wholeFileBytes() : undefined;
      } catch (err) {
        this.db.close();
        throw err;
      }
    } catch (err) {
      closeSync(this.fd);
      throw err;
    }
  }

  private wholeFileBytes(): number | undefined {
    const head = Buffer.alloc(100);
    if (readSync(this.fd, head, 0, head.length, 0) !== head.length || !head.subarray(0, 16).equals(SQLITE_MAGIC)) return undefined;
    // Bytes 18 and 19: the file format's write and read versions, 1 for a rollback journal, 2 for WAL.
    if (head[18] !== 1 || head[19] !== 1) return undefined;
    // SQLite reads a WAL file it finds beside the database whatever the header says, and rolls a hot journal back:
    // either, with anything in it, holds pages the file's bytes lack. (Switching a file out of WAL mode can leave an
    // empty -wal behind.)
    if (nonEmpty(`${this.file}-journal`) || nonEmpty(`${this.file}-wal`)) return undefined;
    // A file laid out otherwise (a de-duplicated MBTiles made elsewhere) travels as rows, into our schema.
    if (schemaProblem(this.db) !== undefined) return undefined;
    const size = fstatSync(this.fd).size;
    const pages = (this.db.pragma('page_count', { simple: true }) as number) * (this.db.pragma('page_size', { simple: true }) as number);
    return size === pages ? size : undefined;
  }

  /** Hands the file's bytes, in order, to `write` (each buffer is reused once write returns). */
  copyFile(write: (bytes: Buffer) => void): void {
    if (this.fileBytes === undefined) throw new Error(`${this.file} cannot travel as a file`);
    const buf = Buffer.allocUnsafe(CHUNK);
    for (let at = 0; at < this.fileBytes; ) {
      const n = readSync(this.fd, buf, 0, Math.min(CHUNK, this.fileBytes - at), at);
      if (n === 0) throw new Error(`${this.file} ended at ${at} of ${this.fileBytes} bytes`);
      write(buf.subarray(0, n));
      at += n;
    }
  }

  close(): void {
    try {
      if (this.db.inTransaction) this.db.exec('COMMIT');
      this.db.close();
    } finally {
      closeSync(this.fd);
    }
  }
}
