// Where a resource lies in a grid's CRS, and the grid's CRS as a GeoPackage row: what a GeoPackage of its tiles in
// that grid needs (gpkg_contents' bounds, gpkg_spatial_ref_sys) besides the grid itself. PROJ answers both.

import type { Grid } from '../../geo/grids';
import { SRS_4326, type GpkgSrs } from '../../store/gpkg/grid';

/** Points from EPSG:s to EPSG:t, x/y in each CRS's usual order; NaN where PROJ cannot. */
export type TransformXY = (xs: Float64Array, ys: Float64Array, s: number, t: number) => Promise<{ xs: Float64Array; ys: Float64Array }>;

/** Lon/lat bounds in the grid's CRS: their edges, 33 points each, through PROJ; clamped to the grid's first matrix. */
export async function boundsInGrid(transform: TransformXY, grid: Grid, b: readonly number[]): Promise<[number, number, number, number]> {
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
  const t = grid.epsg === 4326 ? { xs: Float64Array.from(xs), ys: Float64Array.from(ys) } : await transform(Float64Array.from(xs), Float64Array.from(ys), 4326, grid.epsg);
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

/** The grid's CRS as a gpkg_spatial_ref_sys row: EPSG:4326 as every GeoPackage holds it, another with PROJ's WKT 1. */
export async function gpkgSrsOf(grid: Grid, wkt1: (code: number) => Promise<string>): Promise<GpkgSrs> {
  if (grid.epsg === 4326) return SRS_4326;
  return { srsId: grid.epsg, name: grid.title, organization: 'EPSG', organizationCoordsysId: grid.epsg, definition: await wkt1(grid.epsg), description: grid.title };
}
