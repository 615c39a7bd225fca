// OGC API - Tiles in the configured grids besides Web Mercator (geo/grids.ts: WorldCRS84Quad,
// EuropeanETRS89_LAEAQuad, the UTM quads, an operator's own): the tile matrix sets under /ogc/tileMatrixSets after
// the Web Mercator ones, and a raster collection's tileset in each grid whose area meets its bounds, after its Web
// Mercator tilesets (a client that takes the first tileset keeps Web Mercator; GDAL's OGCAPI driver, though,
// prefers a WorldCRS84Quad one when the list has it). Its tiles are drawn from the collection's main pyramid
// (http/routes/grid-tile-reply.ts). Vector collections have none: a vector tile is not warped.
//
// A grid's tileset limits each matrix to all its tiles (every tile of every matrix is answered, transparent where the
// collection has no data). Not the tiles the collection's bounds cover: those are the bounds carried into the grid's
// CRS, which takes PROJ (the coordinates service) for each collection, and these builders are pure (WMTS leaves
// TileMatrixSetLimits out of these grids' links for that reason, decision 0055). Not none either, though OGC API -
// Tiles makes them optional: GDAL 3.6's OGCAPI driver (Debian 12's) reads only the matrices the limits name, so
// without them (none, or an empty list) it opens nothing and fails with "No such file or directory" alone; GDAL
// 3.10 reads a tileset without limits as one limited to every tile.
// Grid ids are letters, digits, `_`, `.` and `-` (the configuration's schema): they go into paths as they are.

import type { Grid, GridMatrix } from '../geo/grids';
import type { TileMatrixLimits } from '../geo/tile-matrix-set';
import type { Pyramid, TilesetInfo } from '../store/types';
import { CRS84, dataTypeOf, link, OGC_ROOT, tilesetEntry, tilesetLinks, tilesetList, tilesetPyramids, tilesetsPath, tileMatrixSetList, type Link, type TileMatrixSetSummary, type Tileset, type TilesetEntry } from './ogcapi-tiles';
import { gridTileMatrixSetJson, type TileMatrixSetJson } from './tile-matrix-set-json';

/** The formats a grid's tiles are drawn in (what the WMS warp encodes). */
const GRID_TILE_FORMATS: readonly string[] = ['png', 'jpg', 'webp'];

/** A raster collection's pyramid its grid tiles are drawn from: the main one, when its format is one a grid tile is drawn in. */
export interface GridSource extends Pyramid {
  format: 'png' | 'jpg' | 'webp';
}

const isGridFormat = (p: Pyramid): p is GridSource => GRID_TILE_FORMATS.includes(p.format);

/** The pyramid a collection's grid tiles are drawn from (its main one), or undefined when it has none (vector collections). */
export function gridSource(info: TilesetInfo): GridSource | undefined {
  if (dataTypeOf(info) !== 'map') return undefined;
  const main = tilesetPyramids(info)[0];
  return main && isGridFormat(main) ? main : undefined;
}

/** A collection's tileset in a grid: what a Web Mercator one says but the zooms of its pyramid. */
export type GridTileset = Omit<Tileset, 'minzoom' | 'maxzoom' | 'layers'>;

/** Every tile of every matrix of the grid (see above). */
export function wholeGridLimits(grid: Grid): TileMatrixLimits[] {
  return grid.matrices.map((m) => ({ tileMatrix: m.id, minTileRow: 0, maxTileRow: m.matrixHeight - 1, minTileCol: 0, maxTileCol: m.matrixWidth - 1 }));
}

/** The tileset of a raster collection in `grid`, its tiles drawn from `source`; its bounding box the source's bounds, in CRS84. */
export function gridTileset(info: TilesetInfo, source: GridSource, grid: Grid, baseUrl: string, key: string): GridTileset {
  const path = `${tilesetsPath(info)}/${grid.id}`;
  const [w, s, e, n] = source.bounds;
  const doc: GridTileset = {
    title: `${info.name} (${grid.title})`,
    description: info.description,
    dataType: 'map',
    crs: grid.crsUri,
    tileMatrixSetLimits: wholeGridLimits(grid),
    boundingBox: { lowerLeft: [w, s], upperRight: [e, n], crs: CRS84 },
    links: tilesetLinks(path, grid, source.format, baseUrl, key),
  };
  // tileMatrixSetURI names a set on an official register: an operator's grid has none.
  return grid.uri ? { ...doc, tileMatrixSetURI: grid.uri } : doc;
}

/** `/ogc/collections/{cid}/map/tiles`: the Web Mercator tilesets, then one per grid in `grids` (those the collection is offered in). */
export function tilesetListWithGrids(info: TilesetInfo, grids: readonly Grid[], baseUrl: string, key: string): { links: Link[]; tilesets: TilesetEntry[] } {
  const list = tilesetList(info, baseUrl, key);
  const source = gridSource(info);
  if (!source || grids.length === 0) return list;
  return { ...list, tilesets: [...list.tilesets, ...grids.map((g) => tilesetEntry(gridTileset(info, source, g, baseUrl, key), g.id))] };
}

const tileMatrixSetPath = (grid: Grid): string => `${OGC_ROOT}/tileMatrixSets/${grid.id}`;

/** `/ogc/tileMatrixSets`: the Web Mercator sets, then every configured grid. */
export function tileMatrixSetListWithGrids(grids: readonly Grid[], baseUrl: string, key: string): { links: Link[]; tileMatrixSets: TileMatrixSetSummary[] } {
  const list = tileMatrixSetList(baseUrl, key);
  const more = grids.map((g): TileMatrixSetSummary => ({
    id: g.id,
    title: g.title,
    ...(g.uri && { uri: g.uri }),
    crs: g.crsUri,
    links: [link(baseUrl, key, tileMatrixSetPath(g), 'self', g.title)],
  }));
  return { ...list, tileMatrixSets: [...list.tileMatrixSets, ...more] };
}

/** `/ogc/tileMatrixSets/{gridId}`: the grid's definition with a self link. */
export function gridTileMatrixSet(grid: Grid, baseUrl: string, key: string): TileMatrixSetJson & { links: Link[] } {
  return { ...gridTileMatrixSetJson(grid), links: [link(baseUrl, key, tileMatrixSetPath(grid), 'self', grid.title)] };
}

/**
 * The matrix a tile request names in `grid` (`{tileMatrix}`, `{tileRow}`, `{tileCol}` as the path gives them), or
 * why it names none, naming the parameter: a matrix the grid has not, or a row or column outside the matrix.
 */
export function gridTileMatrix(grid: Grid, tileMatrix: string, row: number, col: number): { matrix: GridMatrix } | { invalid: string } {
  const matrix = grid.matrices.find((m) => m.id === tileMatrix);
  if (!matrix) {
    const ids = grid.matrices.map((m) => m.id);
    return { invalid: `Invalid tileMatrix: expected the identifier of a tile matrix of ${grid.id}, ${ids[0]} to ${ids[ids.length - 1]}` };
  }
  if (row >= matrix.matrixHeight) return { invalid: `Invalid tileRow: expected 0 to ${matrix.matrixHeight - 1} in tile matrix ${matrix.id} of ${grid.id}` };
  if (col >= matrix.matrixWidth) return { invalid: `Invalid tileCol: expected 0 to ${matrix.matrixWidth - 1} in tile matrix ${matrix.id} of ${grid.id}` };
  return { matrix };
}
