// A GeoPackage that fills as tiles are drawn: the tiles of a resource in a grid besides Web Mercator, kept by the
// server as it draws them and by a pre-render run (services/wms/grid-prerender.ts). An ordinary GeoPackage 1.3 file
// (write.ts's tables), so GDAL, QGIS and ArcGIS Pro open it as it is; one tiles table per source pyramid and format,
// added when its first tile comes. Several processes may write one file (the server and a pre-render run): SQLite's
// WAL and locks keep every tile whole, and a tile already there is never written again.

import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import type { GpkgGrid } from './grid';
import { addTilesTable, createGeopackageSchema, declareWebp, isTilesTableName, syncAndRename, type GpkgContent } from './write';

/** How long a write waits for another process's transaction on the same file. */
const BUSY_TIMEOUT_MS = 5000;

export class GpkgTileCache {
  private readonly db: Database.Database;
  private readonly tables = new Set<string>();
  private readonly reads = new Map<string, Database.Statement>();
  private readonly writes = new Map<string, Database.Statement>();

  /** Creates an empty GeoPackage on `grid` at `file` (built aside and renamed: never seen half made). */
  static create(file: string, grid: GpkgGrid): void {
    const tmp = `${file}.${process.pid}.tmp`;
    rmSync(tmp, { force: true });
    const db = new Database(tmp);
    try {
      db.transaction(() => createGeopackageSchema(db, grid.srs))();
      db.close();
      syncAndRename(tmp, file);
    } catch (err) {
      if (db.open) db.close();
      rmSync(tmp, { force: true });
      throw err;
    }
  }

  constructor(
    readonly file: string,
    private readonly grid: GpkgGrid,
  ) {
    this.db = new Database(file, { fileMustExist: true });
    this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    this.db.pragma('journal_mode = WAL');
    // A kept tile can be drawn again: the last transactions may be lost with the machine, never the file.
    this.db.pragma('synchronous = NORMAL');
    this.refreshTables();
  }

  private refreshTables(): void {
    const rows = this.db.prepare("SELECT table_name AS t FROM gpkg_contents WHERE data_type = 'tiles'").all() as { t: string }[];
    for (const r of rows) this.tables.add(r.t);
  }

  /** The tile, or undefined when it is not kept. */
  get(table: string, zoom: number, column: number, row: number): Buffer | undefined {
    // Closed by its owner (too many open, a new version) while a request awaited it: as if not kept.
    if (!this.db.open) return undefined;
    if (!this.tables.has(table)) {
      // Another process (a pre-render run) may have added it since.
      this.refreshTables();
      if (!this.tables.has(table)) return undefined;
    }
    let read = this.reads.get(table);
    if (!read) {
      read = this.db.prepare(`SELECT tile_data AS d FROM "${table}" WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?`);
      this.reads.set(table, read);
    }
    const r = read.get(zoom, column, row) as { d: Buffer } | undefined;
    return r?.d;
  }

  /** Keeps a tile (the first one kept at an address stays); the table is added with `content` when missing. */
  put(content: Omit<GpkgContent, 'bounds'> & { bounds: () => [number, number, number, number] }, zoom: number, column: number, row: number, data: Buffer, webp: boolean): void {
    const { table } = content;
    if (!isTilesTableName(table)) throw new Error(`"${table}" cannot name a tiles table`);
    this.db.transaction(() => {
      if (!this.tables.has(table)) {
        this.refreshTables();
        if (!this.tables.has(table)) addTilesTable(this.db, this.grid, { ...content, bounds: content.bounds() });
        this.tables.add(table);
      }
      if (webp) declareWebp(this.db, table);
      let write = this.writes.get(table);
      if (!write) {
        write = this.db.prepare(`INSERT OR IGNORE INTO "${table}" (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)`);
        this.writes.set(table, write);
      }
      write.run(zoom, column, row, data);
    }).immediate();
  }

  /** Tiles kept per zoom level in `table` (none when the table does not exist). */
  counts(table: string): { zoom: number; tiles: number }[] {
    this.refreshTables();
    if (!this.tables.has(table)) return [];
    return this.db.prepare(`SELECT zoom_level AS zoom, count(*) AS tiles FROM "${table}" GROUP BY zoom_level ORDER BY zoom_level`).all() as { zoom: number; tiles: number }[];
  }

  /** The kept tiles of one zoom level in `table`, by column then row (row 0 at the top); at most `limit`. */
  tilesAt(table: string, zoom: number, limit: number): { column: number; row: number }[] {
    this.refreshTables();
    if (!this.tables.has(table)) return [];
    const rows = this.db
      .prepare(`SELECT tile_column AS c, tile_row AS r FROM "${table}" WHERE zoom_level = ? ORDER BY tile_column, tile_row LIMIT ?`)
      .all(zoom, limit) as { c: number; r: number }[];
    return rows.map(({ c, r }) => ({ column: c, row: r }));
  }

  get isOpen(): boolean {
    return this.db.open;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
