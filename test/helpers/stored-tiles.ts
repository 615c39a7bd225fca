// Tiles and metadata read straight from a store file with plain SQL (not the code under test), and the tile
// arithmetic to find them: the oracle tests compare what a server or client answers with.
import Database from 'better-sqlite3';

/** Half the width of the Web Mercator world in metres (EPSG:3857). */
export const MERCATOR_HALF = 20037508.342789244;

export interface TileAddress {
  z: number;
  x: number;
  /** XYZ row, counted from the north (as WMTS TileRow and OGC API tileRow). */
  y: number;
}

export function tmsRow(z: number, y: number): number {
  return 2 ** z - 1 - y;
}

function openReadOnly(file: string): Database.Database {
  return new Database(file, { readonly: true, fileMustExist: true });
}

/** Name of the pyramid held in the MBTiles `tiles` table (tilemirror's first pyramid), if the store says. */
function mainPyramidName(db: Database.Database): string | undefined {
  try {
    const row = db.prepare('SELECT name FROM tilemirror_pyramids ORDER BY ord LIMIT 1').get() as { name: string } | undefined;
    return row?.name;
  } catch {
    return undefined;
  }
}

/** SQL source of the tiles of one pyramid: the MBTiles `tiles` table for the main one, tilemirror_tiles otherwise. */
function pyramidSource(db: Database.Database, pyramid?: string): { where: string; params: unknown[] } {
  if (pyramid === undefined || pyramid === mainPyramidName(db)) return { where: 'tiles WHERE', params: [] };
  return { where: 'tilemirror_tiles WHERE pyramid = ? AND', params: [pyramid] };
}

/** The bytes of one stored tile, read straight from the store file (XYZ address). */
export function readStoredTile(file: string, t: TileAddress, pyramid?: string): Buffer {
  const db = openReadOnly(file);
  try {
    const src = pyramidSource(db, pyramid);
    const row = db
      .prepare(`SELECT tile_data FROM ${src.where} zoom_level = ? AND tile_column = ? AND tile_row = ?`)
      .get(...src.params, t.z, t.x, tmsRow(t.z, t.y)) as { tile_data: Buffer } | undefined;
    if (!row) throw new Error(`no tile ${t.z}/${t.x}/${t.y} (pyramid ${pyramid ?? 'main'}) in ${file}`);
    return row.tile_data;
  } finally {
    db.close();
  }
}

/** MBTiles `metadata` as a map. */
export function readMetadata(file: string): Record<string, string> {
  const db = openReadOnly(file);
  try {
    const rows = db.prepare('SELECT name, value FROM metadata').all() as { name: string; value: string }[];
    return Object.fromEntries(rows.map((r) => [r.name, r.value]));
  } finally {
    db.close();
  }
}

/** EPSG:3857 x of a longitude. */
export function mercatorX(lon: number): number {
  return (lon / 180) * MERCATOR_HALF;
}

/** EPSG:3857 y of a latitude. */
export function mercatorY(lat: number): number {
  return (Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360)) / Math.PI) * MERCATOR_HALF;
}

/** Web Mercator bounds of an XYZ tile: [minX, minY, maxX, maxY] in metres. */
export function tileBounds3857(t: TileAddress): [number, number, number, number] {
  const size = (2 * MERCATOR_HALF) / 2 ** t.z;
  const minX = -MERCATOR_HALF + t.x * size;
  const maxY = MERCATOR_HALF - t.y * size;
  return [minX, maxY - size, minX + size, maxY];
}

/** WGS 84 bounds [west, south, east, north] of an XYZ tile. */
export function tileBoundsLonLat(t: TileAddress): [number, number, number, number] {
  const n = 2 ** t.z;
  const lon = (x: number) => (x / n) * 360 - 180;
  const lat = (y: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / n))) * 180) / Math.PI;
  return [lon(t.x), lat(t.y + 1), lon(t.x + 1), lat(t.y)];
}

/**
 * A stored tile worth comparing: at zoom z, not on the edge of the world, inside `inside` (lon/lat bounds)
 * when given, and the largest one there (most detail, so a wrong tile cannot pass by accident).
 */
export function pickTile(file: string, z: number, opts: { pyramid?: string; inside?: [number, number, number, number] } = {}): TileAddress {
  const db = openReadOnly(file);
  try {
    const src = pyramidSource(db, opts.pyramid);
    const rows = db
      .prepare(`SELECT tile_column AS x, tile_row AS r, length(tile_data) AS n FROM ${src.where} zoom_level = ? ORDER BY n DESC, x, r`)
      .all(...src.params, z) as { x: number; r: number; n: number }[];
    const n = 2 ** z;
    const candidates = rows
      .map((row) => ({ z, x: row.x, y: tmsRow(z, row.r) }))
      .filter((t) => n < 4 || (t.x > 0 && t.x < n - 1 && t.y > 0 && t.y < n - 1))
      .filter((t) => {
        if (!opts.inside) return true;
        const [w, s, e, no] = tileBoundsLonLat(t);
        const [bw, bs, be, bn] = opts.inside;
        return w >= bw && e <= be && s >= bs && no <= bn;
      });
    if (!candidates.length) throw new Error(`no suitable tile at z${z} (pyramid ${opts.pyramid ?? 'main'}) in ${file}`);
    return candidates[0];
  } finally {
    db.close();
  }
}
