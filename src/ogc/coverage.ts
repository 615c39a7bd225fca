// A store's coverage as the admin console draws it, in GeoJSON (lon/lat): the store's mirrored area and the tiles it
// has at one level. For a grid besides Web Mercator the tiles are those kept in the grid at one matrix
// (services/wms/kept-grid-tiles.ts), each a Polygon of its outline: the outline is sampled along its edges in the
// grid's CRS, the caller carries the points to lon/lat through PROJ, and an edge that is curved in lon/lat (a large
// tile of EPSG:3035) is drawn curved. Pure: the transform happens between gridTileOutlines and gridCoverage.

import { splitAtAntimeridian } from '../geo/antimeridian';
import type { Bounds } from '../geo/bounds';
import { gridTileBounds, type Grid, type GridMatrix } from '../geo/grids';

/** A closed ring of a lon/lat box. */
export function boxRing(b: readonly number[]): number[][] {
  return [
    [b[0], b[1]],
    [b[2], b[1]],
    [b[2], b[3]],
    [b[0], b[3]],
    [b[0], b[1]],
  ];
}

/** The feature of the store's mirrored area (its bounds). */
export function mirroredFeature(bounds: Bounds): CoverageFeature {
  return { type: 'Feature', properties: { type: 'mirrored' }, geometry: { type: 'Polygon', coordinates: [boxRing(bounds)] } };
}

export interface CoverageFeature {
  type: 'Feature';
  properties: Record<string, string | number>;
  /** A grid's tile that crosses the antimeridian is a MultiPolygon of its two sides. */
  geometry: { type: 'Polygon'; coordinates: number[][][] } | { type: 'MultiPolygon'; coordinates: number[][][][] };
}

/** A tile of a grid besides Web Mercator: its row and column in a matrix (row 0 at the top). */
export interface GridTileAddress {
  row: number;
  col: number;
}

/**
 * The matrix a grid's coverage shows when none is asked for: the deepest with at least one and at most `limit` tiles
 * kept; when every matrix with kept tiles holds more, the first of them (its first `limit` tiles are drawn); when
 * none is kept, the grid's first. `kept` counts the tiles per matrix, by the matrix's number.
 */
export function defaultGridMatrix(grid: Grid, kept: readonly { zoom: number; tiles: number }[], limit: number): GridMatrix {
  const count = new Map(kept.map((k) => [k.zoom, k.tiles]));
  const tilesOf = (m: GridMatrix): number => count.get(Number(m.id)) ?? 0;
  let deepest: GridMatrix | undefined;
  for (const m of grid.matrices) if (tilesOf(m) > 0 && tilesOf(m) <= limit) deepest = m;
  return deepest ?? grid.matrices.find((m) => tilesOf(m) > 0) ?? grid.matrices[0];
}

/**
 * Segments each edge of a tile's outline is cut into: a few large tiles get curved edges, many tiles (each small, its
 * edges all but straight in lon/lat) get their corners only, so an answer of 20,000 tiles stays a few megabytes.
 */
export function segmentsPerEdge(tiles: number): number {
  if (tiles <= 64) return 8;
  if (tiles <= 1024) return 4;
  return 1;
}

/** The points of tiles' outlines in the grid's CRS (easting first), `perTile` a tile, one tile after another. */
export interface GridOutlines {
  xs: Float64Array;
  ys: Float64Array;
  perTile: number;
}

/**
 * The outline of each tile in the grid's CRS: `segments` points an edge, anticlockwise from the south-west corner
 * (south edge west to east, east edge up, north edge east to west, west edge down), not closed.
 */
export function gridTileOutlines(grid: Grid, matrix: GridMatrix, tiles: readonly GridTileAddress[], segments = segmentsPerEdge(tiles.length)): GridOutlines {
  const perTile = 4 * segments;
  const xs = new Float64Array(tiles.length * perTile);
  const ys = new Float64Array(tiles.length * perTile);
  let i = 0;
  for (const t of tiles) {
    const [x0, y0, x1, y1] = gridTileBounds(grid, matrix, t.row, t.col);
    const corners = [
      [x0, y0],
      [x1, y0],
      [x1, y1],
      [x0, y1],
    ];
    for (let e = 0; e < 4; e++) {
      const [ax, ay] = corners[e];
      const [bx, by] = corners[(e + 1) % 4];
      for (let s = 0; s < segments; s++) {
        const f = s / segments;
        xs[i] = ax + f * (bx - ax);
        ys[i] = ay + f * (by - ay);
        i++;
      }
    }
  }
  return { xs, ys, perTile };
}

/** What a grid's coverage answers beside its features. */
export interface GridCoverageInput {
  grid: Grid;
  matrix: GridMatrix;
  /** The store's mirrored area (lon/lat). */
  bounds: Bounds;
  /** The kept tiles drawn (at most the answer's limit), in the order of the outlines. */
  tiles: readonly GridTileAddress[];
  /** Every tile kept at the matrix (more than `tiles` when they were cut to the limit). */
  kept: number;
  /** The tiles of the matrix over the store's area. */
  expected: number;
}

export interface GridCoverageDocument {
  type: 'FeatureCollection';
  grid: string;
  /** The grid's matrix identifiers, coarsest first. */
  matrices: string[];
  z: number;
  tiles: number;
  expected: number;
  truncated: boolean;
  features: CoverageFeature[];
}

/** Degrees to 1e-7 (about a centimetre): the answer's size, not its precision, is what the digits beyond cost. */
const round7 = (v: number): number => Math.round(v * 1e7) / 1e7;

/**
 * The coverage of kept grid tiles: the mirrored area, then each tile a Polygon of its outline in lon/lat (`lonLat`:
 * gridTileOutlines' points after PROJ, longitude in xs). A point PROJ could not transform (NaN) is left out of its
 * ring; a tile with fewer than three points left is not drawn (it is still counted). A tile across the antimeridian
 * (a UTM zone 60 or 1 grid) is cut there, a MultiPolygon of its two sides.
 */
export function gridCoverage(input: GridCoverageInput, outlines: GridOutlines, lonLat: { xs: Float64Array; ys: Float64Array }): GridCoverageDocument {
  const { grid, matrix, tiles } = input;
  const features: CoverageFeature[] = [mirroredFeature(input.bounds)];
  tiles.forEach((t, k) => {
    const ring: number[][] = [];
    for (let i = k * outlines.perTile; i < (k + 1) * outlines.perTile; i++) {
      const lon = lonLat.xs[i];
      const lat = lonLat.ys[i];
      if (Number.isFinite(lon) && Number.isFinite(lat)) ring.push([round7(lon), round7(lat)]);
    }
    if (ring.length < 3) return;
    ring.push([...ring[0]]);
    const parts = splitAtAntimeridian(ring).map((r) => r.map(([lon, lat]) => [round7(lon), round7(lat)]));
    const geometry: CoverageFeature['geometry'] = parts.length === 1 ? { type: 'Polygon', coordinates: parts } : { type: 'MultiPolygon', coordinates: parts.map((r) => [r]) };
    features.push({ type: 'Feature', properties: { type: 'tile', matrix: matrix.id, row: t.row, col: t.col }, geometry });
  });
  return {
    type: 'FeatureCollection',
    grid: grid.id,
    matrices: grid.matrices.map((m) => m.id),
    z: Number(matrix.id),
    tiles: Math.max(input.kept, tiles.length),
    expected: input.expected,
    truncated: input.kept > tiles.length,
    features,
  };
}
