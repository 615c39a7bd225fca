// The on-disk form of a store: MBTiles 1.3 (`metadata`, `tiles`) so GDAL, QGIS, tileserver-gl and
// @mapbox/mbtiles read the main pyramid as they read any MBTiles file, plus three tables of our own
// for what MBTiles has no place for. One file per resource keeps publishing one atomic rename.
//
//  - tilemirror_pyramids: every pyramid the store holds; the first row (ord 0) is the main one, held in `tiles`.
//  - tilemirror_tiles:    tiles of the other pyramids (e.g. a map's 256 px pyramid beside its 512 px main one).
//  - tilemirror_documents: documents that are not tiles (style.json, image.json, upstream TileJSON, ...), by path.
// Rows are TMS-ordered (tile_row counted from the south) in both tile tables, as MBTiles requires.

export const MAIN_PYRAMID_SQL = `
CREATE TABLE IF NOT EXISTS metadata (name TEXT NOT NULL, value TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS metadata_name ON metadata (name);
CREATE TABLE IF NOT EXISTS tiles (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_data BLOB);
CREATE UNIQUE INDEX IF NOT EXISTS tile_index ON tiles (zoom_level, tile_column, tile_row);
`;

export const EXTRA_TABLES_SQL = `
CREATE TABLE IF NOT EXISTS tilemirror_pyramids (
  name TEXT PRIMARY KEY, ord INTEGER NOT NULL, tile_size INTEGER NOT NULL, scale INTEGER NOT NULL,
  format TEXT NOT NULL, minzoom INTEGER NOT NULL, maxzoom INTEGER NOT NULL, bounds TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tilemirror_tiles (
  pyramid TEXT NOT NULL, zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_data BLOB,
  PRIMARY KEY (pyramid, zoom_level, tile_column, tile_row)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tilemirror_documents (path TEXT PRIMARY KEY, content_type TEXT NOT NULL, data BLOB NOT NULL) WITHOUT ROWID;
`;

/** Metadata keys of our own (MBTiles allows extra rows). */
export const META = {
  /** 'tiles' | 'maps' | 'images' */
  kind: 'tilemirror:kind',
  /** JSON {width,height} of an image resource */
  image: 'tilemirror:image',
  /** tile size in px of the main pyramid */
  tileSize: 'tilemirror:tile_size',
} as const;
