// JSON encoding of a tile matrix set carrying two generations of keys at once:
// - OGC 2D-TMS 2.0 (17-083r4): id, uri, crs, orderedAxes, tileMatrices[{id, cellSize, cornerOfOrigin, pointOfOrigin}]
// - OGC 17-083r2 (TMS 1.0), which GDAL 3.6 reads: type TileMatrixSetType, identifier, supportedCRS,
//   boundingBox{lowerCorner, upperCorner}, tileMatrix[{type TileMatrixType, identifier, topLeftCorner}]
// GDAL >= 3.7 switches to the 2.0 keys when both "crs" and "tileMatrices" exist; 3.6 needs the old
// ones ("Invalid tiling matrix set name" otherwise). Extra keys are ignored by both readers.
// Points (pointOfOrigin, topLeftCorner, the bounding box's corners) are in the CRS's axis order, as both versions
// ask: northing first for EPSG:3035, which GDAL swaps back for such a CRS.

import type { Grid, GridMatrix } from '../geo/grids';
import type { TileMatrix, TileMatrixSet } from '../geo/tile-matrix-set';

export interface TileMatrixJson {
  type: 'TileMatrixType';
  id: string;
  identifier: string;
  scaleDenominator: number;
  cellSize: number;
  cornerOfOrigin: 'topLeft';
  pointOfOrigin: [number, number];
  topLeftCorner: [number, number];
  tileWidth: number;
  tileHeight: number;
  matrixWidth: number;
  matrixHeight: number;
}

export interface TileMatrixSetJson {
  type: 'TileMatrixSetType';
  id: string;
  identifier: string;
  title: string;
  uri?: string;
  crs: string;
  supportedCRS: string;
  orderedAxes: [string, string];
  wellKnownScaleSet?: string;
  boundingBox: {
    type: 'BoundingBoxType';
    crs: string;
    lowerCorner: [number, number];
    upperCorner: [number, number];
    lowerLeft: [number, number];
    upperRight: [number, number];
  };
  tileMatrices: TileMatrixJson[];
  tileMatrix: TileMatrixJson[];
}

function matrixJson(m: TileMatrix): TileMatrixJson {
  return {
    type: 'TileMatrixType',
    id: m.id,
    identifier: m.id,
    scaleDenominator: m.scaleDenominator,
    cellSize: m.cellSize,
    cornerOfOrigin: 'topLeft',
    pointOfOrigin: [...m.pointOfOrigin],
    topLeftCorner: [...m.pointOfOrigin],
    tileWidth: m.tileWidth,
    tileHeight: m.tileHeight,
    matrixWidth: m.matrixWidth,
    matrixHeight: m.matrixHeight,
  };
}

export function tileMatrixSetJson(tms: TileMatrixSet): TileMatrixSetJson {
  const [xmin, ymin, xmax, ymax] = tms.boundingBox;
  const doc: TileMatrixSetJson = {
    type: 'TileMatrixSetType',
    id: tms.id,
    identifier: tms.id,
    title: tms.title,
    crs: tms.crs,
    supportedCRS: tms.crs,
    orderedAxes: ['X', 'Y'],
    boundingBox: {
      type: 'BoundingBoxType',
      crs: tms.crs,
      lowerCorner: [xmin, ymin],
      upperCorner: [xmax, ymax],
      lowerLeft: [xmin, ymin],
      upperRight: [xmax, ymax],
    },
    tileMatrices: tms.tileMatrices.map(matrixJson),
    tileMatrix: tms.tileMatrices.map(matrixJson),
  };
  if (tms.uri) doc.uri = tms.uri;
  if (tms.wellKnownScaleSet) doc.wellKnownScaleSet = tms.wellKnownScaleSet;
  return doc;
}

/** A point given easting (or longitude) first, in the grid's CRS's axis order. */
const inAxisOrder = (grid: Grid, x: number, y: number): [number, number] => (grid.northFirst ? [y, x] : [x, y]);

function gridMatrixJson(grid: Grid, m: GridMatrix): TileMatrixJson {
  const { id, scaleDenominator, cellSize, matrixWidth, matrixHeight } = m;
  const pointOfOrigin = inAxisOrder(grid, grid.origin[0], grid.origin[1]);
  return matrixJson({ id, zoom: Number(id), scaleDenominator, cellSize, pointOfOrigin, tileWidth: grid.tileSize, tileHeight: grid.tileSize, matrixWidth, matrixHeight });
}

/**
 * A grid besides Web Mercator (geo/grids.ts) in the same two generations of keys. Its bounding box is what its
 * matrices cover from the origin (the largest of them: an operator's matrices each cover the extent rounded up to
 * whole tiles).
 */
export function gridTileMatrixSetJson(grid: Grid): TileMatrixSetJson {
  const [minX, maxY] = grid.origin;
  const span = (m: GridMatrix, n: number): number => n * m.cellSize * grid.tileSize;
  const maxX = minX + Math.max(...grid.matrices.map((m) => span(m, m.matrixWidth)));
  const minY = maxY - Math.max(...grid.matrices.map((m) => span(m, m.matrixHeight)));
  const lower = inAxisOrder(grid, minX, minY);
  const upper = inAxisOrder(grid, maxX, maxY);
  const doc: TileMatrixSetJson = {
    type: 'TileMatrixSetType',
    id: grid.id,
    identifier: grid.id,
    title: grid.title,
    crs: grid.crsUri,
    supportedCRS: grid.crsUri,
    orderedAxes: [...grid.orderedAxes],
    boundingBox: { type: 'BoundingBoxType', crs: grid.crsUri, lowerCorner: lower, upperCorner: upper, lowerLeft: [...lower], upperRight: [...upper] },
    tileMatrices: grid.matrices.map((m) => gridMatrixJson(grid, m)),
    tileMatrix: grid.matrices.map((m) => gridMatrixJson(grid, m)),
  };
  if (grid.uri) doc.uri = grid.uri;
  if (grid.wellKnownScaleSet) doc.wellKnownScaleSet = grid.wellKnownScaleSet.uri;
  return doc;
}
