// A GeoPackage of a raster pyramid in a registered grid besides Web Mercator (WorldCRS84Quad,
// EuropeanETRS89_LAEAQuad, UTMnnWGS84Quad): each tile drawn from the stored Web Mercator tiles exactly as the WMTS
// serves it in that grid (GridTiles: the WMS warp), written by the GeoPackage writer over the pyramid's area in the
// grid's CRS. Used by `tilemirror export --format gpkg --grid NAME`, outside any server: it opens PROJ itself.

import type { Grid } from '../../geo/grids';
import { gpkgGridOf, SRS_4326, type GpkgSrs } from '../../store/gpkg/grid';
import { writeGeopackage, type GpkgWriteStats } from '../../store/gpkg/write';
import type { TileReader } from '../../store/tile-reader';
import type { Pyramid } from '../../store/types';
import { CoordinatesService } from '../coordinates';
import { pixelBudget, storedBase } from '../static-maps';
import { WmsMaps } from './get-map';
import { GridTiles } from './grid-tiles';

const R = 6378137;
const METRES_PER_DEGREE = (R * 2 * Math.PI) / 360;

export interface GridExportOptions {
  pyramid: Pyramid;
  grid: Grid;
  /** Zooms (matrix identifiers) to write; absent: from the grid's first to the one as fine as the pyramid's deepest. */
  zooms?: [number, number];
  table: string;
  /** Where the EPSG index is (coordinates.sqlite). */
  indexDir: string;
}

/** The grid's zooms from its first to the one whose cells are as fine as the pyramid's deepest tiles at its centre. */
export function defaultGridZooms(grid: Grid, pyramid: Pyramid): [number, number] {
  const lat = (pyramid.bounds[1] + pyramid.bounds[3]) / 2;
  const finest = ((2 * Math.PI * R) / (pyramid.tileSize * pyramid.scale * 2 ** pyramid.maxzoom)) * Math.cos((lat * Math.PI) / 180);
  const unit = grid.epsg === 4326 ? METRES_PER_DEGREE : 1;
  const last = grid.matrices.find((m) => m.cellSize * unit <= finest) ?? grid.matrices[grid.matrices.length - 1];
  return [Number(grid.matrices[0].id), Number(last.id)];
}

/** The pyramid's lon/lat bounds in the grid's CRS: its edges, 33 points each, through PROJ; clamped to the grid. */
async function boundsInGrid(coordinates: CoordinatesService, grid: Grid, b: readonly number[]): Promise<[number, number, number, number]> {
  const n = 33;
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < n; i++) {
    const f = i / (n - 1);
    const lon = b[0] + f * (b[2] - b[0]);
    const lat = b[1] + f * (b[3] - b[1]);
    xs.push(lon, lon, b[0], b[2]);
    ys.push(b[1], b[3], lat, lat);
  }
  const t = grid.epsg === 4326 ? { xs: Float64Array.from(xs), ys: Float64Array.from(ys) } : await coordinates.transformXY(Float64Array.from(xs), Float64Array.from(ys), 4326, grid.epsg);
  const m0 = grid.matrices[0];
  const extent = [grid.origin[0], grid.origin[1] - m0.matrixHeight * grid.tileSize * m0.cellSize, grid.origin[0] + m0.matrixWidth * grid.tileSize * m0.cellSize, grid.origin[1]];
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < t.xs.length; i++) {
    if (!Number.isFinite(t.xs[i]) || !Number.isFinite(t.ys[i])) continue;
    x0 = Math.min(x0, t.xs[i]);
    x1 = Math.max(x1, t.xs[i]);
    y0 = Math.min(y0, t.ys[i]);
    y1 = Math.max(y1, t.ys[i]);
  }
  if (!(x0 < x1 && y0 < y1)) return [extent[0], extent[1], extent[2], extent[3]];
  return [Math.max(x0, extent[0]), Math.max(y0, extent[1]), Math.min(x1, extent[2]), Math.min(y1, extent[3])];
}

/** Writes the pyramid of `reader` in `opts.grid` as the GeoPackage `out`. */
export async function exportGridGeopackage(reader: TileReader, out: string, opts: GridExportOptions): Promise<GpkgWriteStats & { grid: ReturnType<typeof gpkgGridOf>; zooms: [number, number] }> {
  const coordinates = CoordinatesService.open(opts.indexDir);
  if (!coordinates) throw new Error(`the coordinates index is not built in ${opts.indexDir} (npm run indexes): other grids need PROJ`);
  try {
    const { grid, pyramid } = opts;
    const zooms = opts.zooms ?? defaultGridZooms(grid, pyramid);
    const srs: GpkgSrs =
      grid.epsg === 4326
        ? SRS_4326
        : { srsId: grid.epsg, name: grid.title, organization: 'EPSG', organizationCoordsysId: grid.epsg, definition: await coordinates.crsWkt1(grid.epsg), description: grid.title };
    const gpkgGrid = gpkgGridOf(grid, srs, zooms);
    const maps = new WmsMaps({ queue: pixelBudget(), maxWaiting: 64, resampling: 'bilinear', maxError: 0.125, transform: (xs, ys, s, t) => coordinates.transformXY(xs, ys, s, t) });
    const tiles = new GridTiles([grid], maps);
    const info = reader.info;
    const layer = { name: `${info.kind}/${info.id}`, base: storedBase(reader, pyramid.name) };
    const format = pyramid.format === 'jpg' ? 'jpeg' : 'png';
    const bounds = await boundsInGrid(coordinates, grid, pyramid.bounds);
    const stats = await writeGeopackage(out, gpkgGrid, { table: opts.table, identifier: info.name || layer.name, description: info.description, bounds }, async (z, col, row) => {
      const matrix = grid.matrices.find((m) => Number(m.id) === z);
      if (!matrix) return undefined;
      return (await tiles.tile(layer, grid, matrix, row, col, format)).data;
    });
    return { ...stats, grid: gpkgGrid, zooms };
  } finally {
    await coordinates.close();
  }
}
