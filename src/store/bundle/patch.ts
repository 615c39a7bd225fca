// Writing a store from a bundle: a hidden staging file `{data}/{kind}/.{id}.mbtiles.import` (the catalog skips
// dot files), started empty (a full bundle) or as a copy of the published store (an incremental one), changed row
// by row, checked, and published by the same fsync-rename-fsync as every store. The staging file is disposable:
// a killed import leaves the published store as it was, and the next import starts this store's staging afresh,
// so the staging file needs no journal and no fsync until it is complete.

import Database from 'better-sqlite3';
import { constants, copyFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreHeader } from './content';
import { FLUSH_BEHIND_BYTES, flushBehind, type FlushBehind } from '../mbtiles/flush-behind';
import {
  clearTables,
  CONTENT_TABLES,
  createTables,
  DocumentTable,
  dropTables,
  insertStoredPyramidRows,
  MAIN_TABLE_KEY,
  TileTables,
  writeMetadata,
  type ContentTable,
} from '../mbtiles/sql';
import { publishFile } from '../mbtiles/publish';
import { removeStaging } from '../mbtiles/staging';
import type { StoreKind } from '../types';

export function patchPaths(dataDir: string, kind: StoreKind, id: string): { published: string; staging: string } {
  const dir = join(dataDir, kind);
  return { published: join(dir, `${id}.mbtiles`), staging: join(dir, `.${id}.mbtiles.import`) };
}

const BATCH = 2000;
export class StorePatch {
  private readonly db: Database.Database;
  /** Tile tables keyed as bundles key them (MAIN_TABLE_KEY for `tiles`), rows as stored (TMS). */
  private readonly tiles: TileTables;
  private readonly documents: DocumentTable;
  private pending = 0;
  private readonly flusher: FlushBehind | undefined;

  /**
   * `base`: start from a copy of the published store (incremental); otherwise from an empty file (full).
   * `bytes`: the tile and document bytes about to be written (a big store's file is flushed behind its writer).
   */
  constructor(readonly paths: { published: string; staging: string }, base: boolean, opts: { averageTileBytes?: number; bytes?: number } = {}) {
    removeStaging(paths.staging);
    // FICLONE: a copy-on-write clone where the file system has them (btrfs, XFS), a byte copy elsewhere.
    if (base) copyFileSync(paths.published, paths.staging, constants.COPYFILE_FICLONE);
    this.db = new Database(paths.staging);
    // Big tiles (aerial imagery, terrain) fill fewer overflow pages with larger ones: a full import writes them
    // faster. Only the file's layout changes, not its content; an incremental import keeps the base's pages.
    if (!base && (opts.averageTileBytes ?? 0) >= 32 * 1024) this.db.pragma('page_size = 65536');
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma('cache_size = -65536');
    createTables(this.db);
    this.tiles = new TileTables(this.db, MAIN_TABLE_KEY);
    this.documents = new DocumentTable(this.db);
    this.db.exec('BEGIN');
    // The disk writes the staging file while the records are applied, not all at once at the publishing fsync.
    const fileBytes = (opts.bytes ?? 0) + (base ? statSync(paths.staging).size : 0);
    this.flusher = fileBytes >= FLUSH_BEHIND_BYTES ? flushBehind(paths.staging) : undefined;
  }

  /** Replaces the metadata and pyramid rows, and keeps exactly the content tables the exported store has. */
  setHeader(header: StoreHeader): void {
    clearTables(this.db, ['metadata', 'tilemirror_pyramids']);
    writeMetadata(this.db, header.metadata, false);
    insertStoredPyramidRows(this.db, header.pyramids);
    this.dropped = CONTENT_TABLES.filter((t) => !header.tables.includes(t));
  }

  private dropped: ContentTable[] = [];

  private tick(): void {
    if (++this.pending < BATCH) return;
    this.db.exec('COMMIT; BEGIN');
    this.pending = 0;
  }

  putTile(key: string, z: number, x: number, row: number, data: Buffer | null): void {
    this.tiles.put(key, z, x, row, data);
    this.tick();
  }

  deleteTile(key: string, z: number, x: number, row: number): void {
    this.tiles.delete(key, z, x, row);
    this.tick();
  }

  putDocument(path: string, contentType: string, data: Buffer): void {
    this.documents.put(path, contentType, data);
    this.tick();
  }

  deleteDocument(path: string): void {
    this.documents.delete(path);
    this.tick();
  }

  /** Tiles and documents the staging store holds now. */
  counts(): { tiles: number; documents: number } {
    return { tiles: this.tiles.count(), documents: this.documents.count() };
  }

  /** Commits, drops the tables the exported store does not have, and closes the staging file as one self-contained file. */
  complete(): void {
    this.db.exec('COMMIT');
    this.flusher?.stop();
    dropTables(this.db, this.dropped);
    this.db.pragma('journal_mode = DELETE');
    this.db.close();
  }

  publish(): void {
    publishFile(this.paths.staging, this.paths.published);
  }

  /** Gives up: closes and removes the staging file; the published store is untouched. */
  abandon(): void {
    this.flusher?.stop();
    if (this.db.open) this.db.close();
    removeStaging(this.paths.staging);
  }
}
