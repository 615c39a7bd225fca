// The mirror's own tables inside a store file (`tilemirror_mirror_*`): what a run remembers beside the content,
// its state and checkpoints, tiles known to be empty, and each tile's validators (ETag, Last-Modified, when the
// upstream last vouched for it). Not content: bundles neither carry nor compare them. Every statement on them is
// here, as sql.ts holds those on the content tables. Tiles are addressed in XYZ in these tables (rows from the
// north), unlike the MBTiles tile tables.

import Database from 'better-sqlite3';
import { bandCondition } from './sql';
import { zoomPlanHas, type ZoomPlan } from '../../geo/tile-bands';

const MIRROR_SQL = `
CREATE TABLE IF NOT EXISTS tilemirror_mirror_state (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tilemirror_mirror_empty (
  pyramid TEXT NOT NULL, z INTEGER NOT NULL, x INTEGER NOT NULL, y INTEGER NOT NULL, status INTEGER NOT NULL,
  PRIMARY KEY (pyramid, z, x, y)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tilemirror_mirror_tiles (
  pyramid TEXT NOT NULL, z INTEGER NOT NULL, x INTEGER NOT NULL, y INTEGER NOT NULL,
  etag TEXT, last_modified TEXT, checked_at INTEGER NOT NULL,
  PRIMARY KEY (pyramid, z, x, y)) WITHOUT ROWID;
`;

/** The tables keyed by tile: empty tiles and validators (pruned together). */
const TILE_TABLES = ['tilemirror_mirror_empty', 'tilemirror_mirror_tiles'] as const;

/** Names of the rows of the state table. */
export const STATE = {
  /** Identifies the upstream resource (base URL without key, pyramids, templates): a staging file of another one is discarded. */
  fingerprint: 'fingerprint',
  upstream: 'upstream',
  plan: 'plan',
  checkpoint: 'checkpoint',
  publishedAt: 'published_at',
  /** The max-age policy of the run that wrote the store and its cutoff: a resumed refresh keeps its cutoff. */
  refresh: 'refresh',
  /** The machine's boot id while the file was written without fsync (synchronous = OFF): trusted in that boot only. */
  unsyncedBoot: 'unsynced_boot',
} as const;

/** Creates the mirror's tables (those missing). */
export function createMirrorTables(db: Database.Database): void {
  db.exec(MIRROR_SQL);
}

/** Sets rows of the state table. */
export function writeMirrorState(db: Database.Database, entries: Iterable<readonly [string, string]>): void {
  const put = db.prepare('INSERT OR REPLACE INTO tilemirror_mirror_state (name, value) VALUES (?, ?)');
  for (const [name, value] of entries) put.run(name, value);
}

/** A row of the state table, or undefined (also when the file was not written by a mirror run: no such table). */
export function mirrorStateValue(db: Database.Database, name: string): string | undefined {
  try {
    return (db.prepare('SELECT value FROM tilemirror_mirror_state WHERE name = ?').pluck().get(name) as string | undefined) ?? undefined;
  } catch {
    return undefined;
  }
}

/** A tile's validators as stored (nulls for what the upstream did not send). */
export interface ValidatorRow {
  etag: string | null;
  lastModified: string | null;
  checkedAt: number;
}

/** The mirror's tables of one open staging file, with their statements prepared once. */
/**
 * Tiles of one zoom of a plan that the upstream vouched for at or after `cutoff` (their validators' check time): in
 * SQL while the zoom has at most `sqlBands` bands, else by a pass over the zoom's rows.
 */
export function countCheckedSince(db: Database.Database, pyramid: string, zp: ZoomPlan, cutoff: number, sqlBands: number): number {
  if (zp.bands.length <= sqlBands) {
    const sql = `SELECT COUNT(*) FROM tilemirror_mirror_tiles WHERE pyramid = ? AND z = ? AND checked_at >= ? AND (${bandCondition(zp, false, 'y', 'x')})`;
    return db.prepare(sql).pluck().get(pyramid, zp.z, cutoff) as number;
  }
  let n = 0;
  const rows = db.prepare('SELECT x, y FROM tilemirror_mirror_tiles WHERE pyramid = ? AND z = ? AND checked_at >= ?').raw().iterate(pyramid, zp.z, cutoff) as Iterable<[number, number]>;
  for (const [x, y] of rows) if (zoomPlanHas(zp, x, y)) n++;
  return n;
}

export class MirrorTables {
  private readonly hasEmpty: Database.Statement;
  private readonly putEmpty: Database.Statement;
  private readonly delEmpty: Database.Statement;
  private readonly getValidators: Database.Statement;
  private readonly putValidators: Database.Statement;
  private readonly dropState: Database.Statement;

  /** Creates the tables when missing. */
  constructor(private readonly db: Database.Database) {
    db.transaction(() => createMirrorTables(db))();
    this.hasEmpty = db.prepare('SELECT 1 FROM tilemirror_mirror_empty WHERE pyramid = ? AND z = ? AND x = ? AND y = ?').pluck();
    this.putEmpty = db.prepare('INSERT OR REPLACE INTO tilemirror_mirror_empty (pyramid, z, x, y, status) VALUES (?, ?, ?, ?, ?)');
    this.delEmpty = db.prepare('DELETE FROM tilemirror_mirror_empty WHERE pyramid = ? AND z = ? AND x = ? AND y = ?');
    this.getValidators = db.prepare('SELECT etag, last_modified AS lastModified, checked_at AS checkedAt FROM tilemirror_mirror_tiles WHERE pyramid = ? AND z = ? AND x = ? AND y = ?');
    this.putValidators = db.prepare('INSERT OR REPLACE INTO tilemirror_mirror_tiles (pyramid, z, x, y, etag, last_modified, checked_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.dropState = db.prepare('DELETE FROM tilemirror_mirror_state WHERE name = ?');
  }

  state(name: string): string | undefined {
    return (this.db.prepare('SELECT value FROM tilemirror_mirror_state WHERE name = ?').pluck().get(name) as string | undefined) ?? undefined;
  }

  setState(entries: Iterable<readonly [string, string]>): void {
    writeMirrorState(this.db, entries);
  }

  deleteState(name: string): void {
    this.dropState.run(name);
  }

  isEmpty(pyramid: string, z: number, x: number, y: number): boolean {
    return !!this.hasEmpty.get(pyramid, z, x, y);
  }

  putEmptyTile(pyramid: string, z: number, x: number, y: number, status: number): void {
    this.putEmpty.run(pyramid, z, x, y, status);
  }

  deleteEmptyTile(pyramid: string, z: number, x: number, y: number): void {
    this.delEmpty.run(pyramid, z, x, y);
  }

  validators(pyramid: string, z: number, x: number, y: number): ValidatorRow | undefined {
    return this.getValidators.get(pyramid, z, x, y) as ValidatorRow | undefined;
  }

  putTileValidators(pyramid: string, z: number, x: number, y: number, etag: string | null, lastModified: string | null, checkedAt: number): void {
    this.putValidators.run(pyramid, z, x, y, etag, lastModified, checkedAt);
  }

  /** Deletes the records of pyramids other than `names`. */
  deleteOtherPyramids(names: readonly string[]): void {
    const list = names.map((n) => `'${n.replace(/'/g, "''")}'`).join(',');
    for (const table of TILE_TABLES) this.db.exec(`DELETE FROM ${table} WHERE pyramid NOT IN (${list})`);
  }

  /** Deletes the pyramid's records at zooms other than `zooms`. */
  deleteOtherZooms(pyramid: string, zooms: readonly number[]): void {
    const emp = `pyramid = '${pyramid.replace(/'/g, "''")}' AND `;
    for (const table of TILE_TABLES) this.db.exec(`DELETE FROM ${table} WHERE ${emp}z NOT IN (${zooms.join(',')})`);
  }

  /** Deletes the pyramid's records of the zoom outside the plan's bands (one SQL condition: for plans of few bands). */
  deleteOutside(pyramid: string, zp: ZoomPlan): void {
    const emp = `pyramid = '${pyramid.replace(/'/g, "''")}' AND `;
    for (const table of TILE_TABLES) this.db.exec(`DELETE FROM ${table} WHERE ${emp}z = ${zp.z} AND NOT (${bandCondition(zp, false, 'y', 'x')})`);
  }

  /** Deletes the pyramid's records of zoom z whose column and row `keep` refuses (one pass over the zoom's rows). */
  deleteWhere(pyramid: string, z: number, keep: (x: number, y: number) => boolean): void {
    for (const table of TILE_TABLES) {
      const gone: [number, number][] = [];
      const rows = this.db.prepare(`SELECT x, y FROM ${table} WHERE pyramid = ? AND z = ?`).raw().iterate(pyramid, z) as Iterable<[number, number]>;
      for (const [x, y] of rows) if (!keep(x, y)) gone.push([x, y]);
      const del = this.db.prepare(`DELETE FROM ${table} WHERE pyramid = ? AND z = ? AND x = ? AND y = ?`);
      for (const [x, y] of gone) del.run(pyramid, z, x, y);
    }
  }

  /** A counter of the empty tiles of one zoom inside a rectangle (rows y0..y1, columns x0..x1). */
  emptyCounter(): (pyramid: string, z: number, y0: number, y1: number, x0: number, x1: number) => number {
    const count = this.db.prepare('SELECT count(*) FROM tilemirror_mirror_empty WHERE pyramid = ? AND z = ? AND y BETWEEN ? AND ? AND x BETWEEN ? AND ?').pluck();
    return (pyramid, z, y0, y1, x0, x1) => count.get(pyramid, z, y0, y1, x0, x1) as number;
  }

  /** The columns and rows of the empty tiles of one zoom, streamed. */
  emptyTiles(pyramid: string, z: number): Iterable<[number, number]> {
    return this.db.prepare('SELECT x, y FROM tilemirror_mirror_empty WHERE pyramid = ? AND z = ?').raw().iterate(pyramid, z) as Iterable<[number, number]>;
  }

  countEmpty(): number {
    return this.db.prepare('SELECT count(*) FROM tilemirror_mirror_empty').pluck().get() as number;
  }
}
