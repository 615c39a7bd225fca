// JSON encoding of a tile matrix set carrying two generations of keys at once:
// - OGC 2D-TMS 2.0 (17-083r4): id, uri, crs, orderedAxes, tileMatrices[{id, cellSize, cornerOfOrigin, pointOfOrigin}]
// - OGC 17-083r2 (TMS 1.0), which GDAL 3.6 reads: type TileMatrixSetType, identifier, supportedCRS,
//   boundingBox{lowerCorner, upperCorner}, tileMatrix[{type TileMatrixType, identifier, topLeftCorner}]
// GDAL >= 3.7 switches to the 2.0 keys when both "crs" and "tileMatrices" exist; 3.6 needs the old
// ones ("Invalid tiling matrix set name" otherwise). Extra keys are ignored by both readers.

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
  orderedAxes: ['X', 'Y'];
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
