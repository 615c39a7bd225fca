// What a GeoPackage tile pyramid is laid on (OGC 12-128r18, clauses 2.2.6-2.2.7): a CRS, the extent of the tile
// matrix set in it, and one tile matrix per zoom. The writer (write.ts) knows nothing else of a grid, so another
// grid (another CRS, matrices that are not a quadtree) is another value of GpkgGrid with a tile source of its own.
// WebMercatorQuad is the grid of the stores' own tiles; its tiles are the stored ones.

import type { Grid } from '../../geo/grids';
import { ORIGIN_SHIFT, resolution } from '../../geo/mercator';

/** A row of gpkg_spatial_ref_sys. */
export interface GpkgSrs {
  srsId: number;
  name: string;
  organization: string;
  organizationCoordsysId: number;
  /** WKT 1 (OGC 01-009), as the base GeoPackage (without the gpkg_crs_wkt extension) stores it. */
  definition: string;
  description: string;
}

/** One row of gpkg_tile_matrix: tile_row counts from the top (north) of the matrix set's extent. */
export interface GpkgTileMatrix {
  zoom: number;
  matrixWidth: number;
  matrixHeight: number;
  tileWidth: number;
  tileHeight: number;
  /** CRS units per pixel: (max_x - min_x) / (matrixWidth * tileWidth). */
  pixelXSize: number;
  pixelYSize: number;
}

export interface GpkgGrid {
  /** The name `--grid` takes (an OGC 2D-TMS identifier where there is one). */
  name: string;
  srs: GpkgSrs;
  /** The whole matrix set's extent in the CRS: [minX, minY, maxX, maxY] (gpkg_tile_matrix_set). */
  extent: [number, number, number, number];
  /** The matrices written, one per zoom, ascending. */
  matrices: GpkgTileMatrix[];
}

/** A tile of the grid by zoom, column and row (from the top): its encoded image, or undefined where there is none. */
export type GpkgTileSource = (zoom: number, column: number, row: number) => Promise<Buffer | undefined>;

/** EPSG:4326, one of the three rows every GeoPackage holds (requirement 11). */
export const SRS_4326: GpkgSrs = {
  srsId: 4326,
  name: 'WGS 84 geodetic',
  organization: 'EPSG',
  organizationCoordsysId: 4326,
  definition:
    'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],' +
    'PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]]',
  description: 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid',
};

/** EPSG:3857 as PROJ's proj.db gives it in WKT 1 (`projinfo EPSG:3857 -o WKT1_GDAL`), the form GDAL writes too. */
export const SRS_3857: GpkgSrs = {
  srsId: 3857,
  name: 'WGS 84 / Pseudo-Mercator',
  organization: 'EPSG',
  organizationCoordsysId: 3857,
  definition:
    'PROJCS["WGS 84 / Pseudo-Mercator",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],' +
    'AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],' +
    'AUTHORITY["EPSG","4326"]],PROJECTION["Mercator_1SP"],PARAMETER["central_meridian",0],PARAMETER["scale_factor",1],' +
    'PARAMETER["false_easting",0],PARAMETER["false_northing",0],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],' +
    'AXIS["Northing",NORTH],EXTENSION["PROJ4","+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m ' +
    '+nadgrids=@null +wktext +no_defs"],AUTHORITY["EPSG","3857"]]',
  description: 'Web Mercator: the XYZ tile grid of the stores',
};

export const WEB_MERCATOR_QUAD = 'WebMercatorQuad';

/**
 * WebMercatorQuad for tile images of `tileWidth` px, zooms minzoom..maxzoom: 2^z x 2^z tiles over the whole Web
 * Mercator square at zoom z, whatever the tile size (a 512 px tile covers what a 256 px one of the same z does).
 */
export function webMercatorQuadGrid(tileWidth: number, minzoom: number, maxzoom: number): GpkgGrid {
  const matrices: GpkgTileMatrix[] = [];
  for (let z = minzoom; z <= maxzoom; z++) {
    const size = resolution(z, tileWidth);
    matrices.push({ zoom: z, matrixWidth: 2 ** z, matrixHeight: 2 ** z, tileWidth, tileHeight: tileWidth, pixelXSize: size, pixelYSize: size });
  }
  return { name: WEB_MERCATOR_QUAD, srs: SRS_3857, extent: [-ORIGIN_SHIFT, -ORIGIN_SHIFT, ORIGIN_SHIFT, ORIGIN_SHIFT], matrices };
}

/**
 * A grid besides Web Mercator (geo/grids.ts) as a GeoPackage lays it out: the extent is the whole first matrix's,
 * which every finer matrix of a quadtree (or of an operator's grid cut from one origin) shares; zoom levels are the
 * matrices' identifiers; `srs` is the grid CRS's row (its WKT 1 from PROJ).
 */
export function gpkgGridOf(grid: Grid, srs: GpkgSrs, zooms: [number, number]): GpkgGrid {
  const first = grid.matrices[0];
  const extent: [number, number, number, number] = [
    grid.origin[0],
    grid.origin[1] - first.matrixHeight * grid.tileSize * first.cellSize,
    grid.origin[0] + first.matrixWidth * grid.tileSize * first.cellSize,
    grid.origin[1],
  ];
  const matrices = grid.matrices
    .filter((m) => Number(m.id) >= zooms[0] && Number(m.id) <= zooms[1])
    .map((m) => ({
      zoom: Number(m.id),
      matrixWidth: m.matrixWidth,
      matrixHeight: m.matrixHeight,
      tileWidth: grid.tileSize,
      tileHeight: grid.tileSize,
      pixelXSize: (extent[2] - extent[0]) / (m.matrixWidth * grid.tileSize),
      pixelYSize: (extent[3] - extent[1]) / (m.matrixHeight * grid.tileSize),
    }));
  return { name: grid.id, srs, extent, matrices };
}
