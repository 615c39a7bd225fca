// A GeoPackage of a raster pyramid in a registered grid besides Web Mercator (WorldCRS84Quad,
// EuropeanETRS89_LAEAQuad, UTMnnWGS84Quad): each tile drawn from the stored Web Mercator tiles exactly as the WMTS
// serves it in that grid (GridTiles: the WMS warp), written by the GeoPackage writer over the pyramid's area in the
// grid's CRS. Used by `tilemirror export --format gpkg --grid NAME`, outside any server: it opens PROJ itself.

import type { Grid } from '../../geo/grids';
import { gpkgGridOf } from '../../store/gpkg/grid';
import { writeGeopackage, type GpkgWriteStats } from '../../store/gpkg/write';
import type { TileReader } from '../../store/tile-reader';
import type { Pyramid } from '../../store/types';
import { CoordinatesService } from '../coordinates';
import { pixelBudget, storedBase } from '../static-maps';
import { WmsMaps } from './get-map';
import { boundsInGrid, gpkgSrsOf } from './grid-bounds';
import { defaultGridZooms } from './grid-prerender';
import { GridTiles } from './grid-tiles';

export interface GridExportOptions {
  pyramid: Pyramid;
  grid: Grid;
  /** Zooms (matrix identifiers) to write; absent: from the grid's first to the one as fine as the pyramid's deepest. */
  zooms?: [number, number];
  table: string;
  /** Where the EPSG index is (coordinates.sqlite). */
  indexDir: string;
}

/** Writes the pyramid of `reader` in `opts.grid` as the GeoPackage `out`. */
export async function exportGridGeopackage(reader: TileReader, out: string, opts: GridExportOptions): Promise<GpkgWriteStats & { grid: ReturnType<typeof gpkgGridOf>; zooms: [number, number] }> {
  const coordinates = CoordinatesService.open(opts.indexDir);
  if (!coordinates) throw new Error(`the coordinates index is not built in ${opts.indexDir} (npm run indexes): other grids need PROJ`);
  try {
    const { grid, pyramid } = opts;
    const zooms = opts.zooms ?? defaultGridZooms(grid, pyramid);
    const srs = await gpkgSrsOf(grid, (code) => coordinates.crsWkt1(code));
    const gpkgGrid = gpkgGridOf(grid, srs, zooms);
    const maps = new WmsMaps({ queue: pixelBudget(), maxWaiting: 64, resampling: 'bilinear', maxError: 0.125, transform: (xs, ys, s, t) => coordinates.transformXY(xs, ys, s, t) });
    const tiles = new GridTiles([grid], maps);
    const info = reader.info;
    const layer = { name: `${info.kind}/${info.id}`, base: storedBase(reader, pyramid.name) };
    const format = pyramid.format === 'jpg' ? 'jpeg' : 'png';
    const bounds = await boundsInGrid((xs, ys, s, t) => coordinates.transformXY(xs, ys, s, t), grid, pyramid.bounds);
    const stats = await writeGeopackage(out, gpkgGrid, { table: opts.table, identifier: info.name || layer.name, description: info.description, bounds }, async (z, col, row) => {
      const matrix = grid.matrices.find((m) => Number(m.id) === z);
      if (!matrix) return undefined;
      return (await tiles.tile(layer, grid, matrix, row, col, format, { stored: true })).data;
    });
    return { ...stats, grid: gpkgGrid, zooms };
  } finally {
    await coordinates.close();
  }
}
