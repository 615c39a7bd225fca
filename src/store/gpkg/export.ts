// One raster pyramid of a tile store as a GeoPackage on the WebMercatorQuad grid: the grid's tiles are the stored
// tiles (XYZ rows count from the top as GeoPackage rows do), read through the TileReader seam. Another grid is
// another GpkgGrid and tile source handed to writeGeopackage (a reprojecting one reads the same pyramid).

import { imageWidth } from '../bytes/formats';
import type { TileReader } from '../tile-reader';
import type { Pyramid } from '../types';
import { lonLatToMeters } from '../../geo/mercator';
import { webMercatorQuadGrid, type GpkgGrid, type GpkgTileSource } from './grid';
import { writeGeopackage, type GpkgWriteStats } from './write';

/** The grids `--grid` knows, by name. */
export const GPKG_GRIDS = ['WebMercatorQuad'] as const;
export type GpkgGridName = (typeof GPKG_GRIDS)[number];

export interface GpkgExportOptions {
  pyramid: Pyramid;
  zooms: [number, number];
  grid: GpkgGridName;
  table: string;
}

/** The pyramid's own tiles as the source of the WebMercatorQuad grid; each tile's width is checked against the grid's. */
function storedTiles(reader: TileReader, pyramid: Pyramid, grid: GpkgGrid): GpkgTileSource {
  const width = grid.matrices[0].tileWidth;
  return async (z, col, row) => {
    const data = reader.tile(pyramid.name, z, col, row);
    if (data === undefined) return undefined;
    const got = imageWidth(data);
    if (got !== undefined && got !== width) throw new Error(`tile ${z}/${col}/${row} is ${got} px wide where pyramid ${pyramid.name} says ${width} px`);
    return data;
  };
}

/** Writes `opts.pyramid` of `reader` (zooms `opts.zooms`, on `opts.grid`) as the GeoPackage `out`. */
export async function exportGeopackage(reader: TileReader, out: string, opts: GpkgExportOptions): Promise<GpkgWriteStats & { grid: GpkgGrid }> {
  const { pyramid } = opts;
  const grid = webMercatorQuadGrid(pyramid.tileSize * pyramid.scale, opts.zooms[0], opts.zooms[1]);
  const [w, s, e, n] = pyramid.bounds;
  // Bounds across the antimeridian are no one range of columns: every column is asked for (absent tiles are skipped).
  const [x0, y0] = lonLatToMeters(w > e ? -180 : w, s);
  const [x1, y1] = lonLatToMeters(w > e ? 180 : e, n);
  const info = reader.info;
  const stats = await writeGeopackage(
    out,
    grid,
    { table: opts.table, identifier: info.name || `${info.kind}/${info.id}`, description: info.description, bounds: [x0, y0, x1, y1] },
    storedTiles(reader, pyramid, grid),
  );
  return { ...stats, grid };
}
