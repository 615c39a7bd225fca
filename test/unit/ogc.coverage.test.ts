// src/ogc/coverage.ts against literal values: the coverage of a grid besides Web Mercator as the admin console draws
// it. A small grid of the tests' own (1,000 units a tile at matrix 0) stands for a real one; the lon/lat points are
// given as PROJ would answer them (here: the outline's own points, one of them untransformable).

import { definedGrid } from '../../src/geo/grids';
import { boxRing, defaultGridMatrix, gridCoverage, gridTileOutlines, mirroredFeature, segmentsPerEdge } from '../../src/ogc/coverage';

const grid = definedGrid({
  id: 'Small',
  crs: 2056,
  origin: [0, 2000],
  extent: [0, 0, 2000, 2000],
  tileSize: 100,
  resolutions: [10, 5, 2.5, 1],
  northFirst: false,
  area: [5, 45, 11, 48],
  geographic: false,
});
const m0 = grid.matrices[0];

test('the mirrored area: a closed ring of its bounds', () => {
  expect(boxRing([-10, -5, 10, 5])).toEqual([
    [-10, -5],
    [10, -5],
    [10, 5],
    [-10, 5],
    [-10, -5],
  ]);
  expect(mirroredFeature([-10, -5, 10, 5])).toEqual({ type: 'Feature', properties: { type: 'mirrored' }, geometry: { type: 'Polygon', coordinates: [boxRing([-10, -5, 10, 5])] } });
});

test('the default matrix: the deepest with 1 to `limit` tiles kept; else the first with any; else the grid\'s first', () => {
  expect(defaultGridMatrix(grid, [], 10).id).toBe('0');
  expect(defaultGridMatrix(grid, [{ zoom: 0, tiles: 1 }, { zoom: 1, tiles: 4 }, { zoom: 2, tiles: 16 }], 10).id).toBe('1');
  expect(defaultGridMatrix(grid, [{ zoom: 1, tiles: 4 }, { zoom: 3, tiles: 10 }], 10).id).toBe('3');
  // Every matrix with tiles holds more than are drawn: the coarsest of them.
  expect(defaultGridMatrix(grid, [{ zoom: 2, tiles: 16 }, { zoom: 3, tiles: 100 }], 10).id).toBe('2');
});

test('edges cut into 8 segments for up to 64 tiles, 4 up to 1,024, corners only beyond', () => {
  expect([1, 64, 65, 1024, 1025, 20_000].map(segmentsPerEdge)).toEqual([8, 8, 4, 4, 1, 1]);
});

test('a tile\'s outline in the grid\'s CRS: anticlockwise from the south-west corner, `segments` points an edge, not closed', () => {
  // Matrix 0: 1,000 units a tile; row 0, column 1 is x 1000-2000, y 1000-2000.
  const o = gridTileOutlines(grid, m0, [{ row: 0, col: 1 }], 2);
  expect(o.perTile).toBe(8);
  expect([...o.xs]).toEqual([1000, 1500, 2000, 2000, 2000, 1500, 1000, 1000]);
  expect([...o.ys]).toEqual([1000, 1000, 1000, 1500, 2000, 2000, 2000, 1500]);
  // Two tiles: one after the other; by default 8 segments an edge for so few.
  const two = gridTileOutlines(grid, m0, [{ row: 0, col: 0 }, { row: 1, col: 1 }]);
  expect(two.perTile).toBe(32);
  expect(two.xs.length).toBe(64);
  expect([two.xs[32], two.ys[32]]).toEqual([1000, 0]);
});

test('the document: a polygon per tile from its points in lon/lat, NaN left out, a tile without three points not drawn', () => {
  const tiles = [
    { row: 0, col: 0 },
    { row: 0, col: 1 },
  ];
  const o = gridTileOutlines(grid, m0, tiles, 1);
  // "PROJ's answer": the points scaled to degrees, the second point of the first tile untransformable, and only
  // two points of the second tile transformable.
  const xs = Float64Array.from(o.xs, (v) => v / 1000 + 0.123456789);
  const ys = Float64Array.from(o.ys, (v) => v / 1000 + 45);
  xs[1] = Number.NaN;
  ys[5] = Number.NaN;
  xs[6] = Number.NaN;
  const doc = gridCoverage({ grid, matrix: m0, bounds: [5, 45, 11, 48], tiles, kept: 3, expected: 4 }, o, { xs, ys });
  expect(doc).toMatchObject({ type: 'FeatureCollection', grid: 'Small', matrices: ['0', '1', '2', '3'], z: 0, tiles: 3, expected: 4, truncated: true });
  expect(doc.features).toHaveLength(2);
  expect(doc.features[0]).toEqual(mirroredFeature([5, 45, 11, 48]));
  expect(doc.features[1]).toEqual({
    type: 'Feature',
    properties: { type: 'tile', matrix: '0', row: 0, col: 0 },
    geometry: {
      type: 'Polygon',
      // Rounded to 1e-7 degrees; the south-east corner (NaN) left out.
      coordinates: [
        [
          [0.1234568, 46],
          [1.1234568, 47],
          [0.1234568, 47],
          [0.1234568, 46],
        ],
      ],
    },
  });
  // Not truncated when every tile kept is listed.
  expect(gridCoverage({ grid, matrix: m0, bounds: [5, 45, 11, 48], tiles: [], kept: 0, expected: 4 }, gridTileOutlines(grid, m0, []), { xs: new Float64Array(0), ys: new Float64Array(0) })).toMatchObject({
    tiles: 0,
    truncated: false,
    features: [mirroredFeature([5, 45, 11, 48])],
  });
});

test('a tile across the antimeridian (UTM zone 60\'s east edge) is a MultiPolygon of its two sides', () => {
  const tiles = [{ row: 0, col: 0 }];
  const o = gridTileOutlines(grid, m0, tiles, 1);
  // "PROJ's answer" for the four corners (south-west, south-east, north-east, north-west): 179.5° E to 179.5° W.
  const xs = Float64Array.from([179.5, -179.5, -179.5, 179.5]);
  const ys = Float64Array.from([-10, -10, -9, -9]);
  expect(o.perTile).toBe(4);
  const doc = gridCoverage({ grid, matrix: m0, bounds: [179, -11, 181, -8], tiles, kept: 1, expected: 1 }, o, { xs, ys });
  expect(doc.features[1].geometry).toEqual({
    type: 'MultiPolygon',
    coordinates: [
      [
        [
          [179.5, -10],
          [180, -10],
          [180, -9],
          [179.5, -9],
          [179.5, -10],
        ],
      ],
      [
        [
          [-180, -10],
          [-179.5, -10],
          [-179.5, -9],
          [-180, -9],
          [-180, -10],
        ],
      ],
    ],
  });
});
