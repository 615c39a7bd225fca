// Pre-rendering a resource's tiles in a grid besides Web Mercator: every tile of the grid's matrices over the
// resource's area (or the areas asked for), drawn and kept as a request would draw and keep it (kept-grid-tiles.ts),
// so that clients of that grid never wait for a warp. A tile already kept is not drawn again: a stopped run resumes
// where it stopped, and a second run over the same version draws nothing. Each tile is written in its own
// transaction into the GeoPackage the server reads: there is no staging file to publish, the file is a cache whose
// every tile is whole.

import type { Grid, GridMatrix } from '../../geo/grids';
import type { Bounds, Pyramid } from '../../store/types';
import { boundsInGrid } from './grid-bounds';
import type { GridTileFormat, GridTileSource, KeptGridTiles } from './kept-grid-tiles';

const R = 6378137;
const METRES_PER_DEGREE = (R * 2 * Math.PI) / 360;

export interface GridPrerenderOptions {
  source: GridTileSource;
  grid: Grid;
  /** Matrix identifiers, first and last (inclusive). */
  zooms: [number, number];
  /** Areas (lon/lat); absent: the resource's bounds. */
  bboxes?: Bounds[];
  format: GridTileFormat;
  kept: KeptGridTiles;
  /** Tiles drawn at once (default 2: each warp takes a core). */
  parallel?: number;
  signal?: AbortSignal;
  /** After each tile: tiles done (drawn or already kept) of the total, and those drawn by this run. */
  progress?: (done: number, total: number, drawn: number) => void;
}

export interface GridPrerenderResult {
  /** Tiles of the plan. */
  tiles: number;
  /** Of them, drawn by this run (the others were kept already). */
  drawn: number;
  stopped: boolean;
}

/**
 * The latitude where the detail of Web Mercator tiles is compared with a grid's: the middle of the area both cover
 * (a world map drawn in a national grid is seen at that nation's latitude), else of the bounds.
 */
export function gridLatitude(grid: Grid, bounds: readonly number[]): number {
  const [south, north] = [Math.max(bounds[1], grid.area[1]), Math.min(bounds[3], grid.area[3])];
  return south <= north ? (south + north) / 2 : (bounds[1] + bounds[3]) / 2;
}

/** The grid's matrices from its first to the one whose cells are as fine as the pyramid's deepest tiles where the grid is. */
export function defaultGridZooms(grid: Grid, pyramid: Pyramid): [number, number] {
  const lat = gridLatitude(grid, pyramid.bounds);
  const finest = ((2 * Math.PI * R) / (pyramid.tileSize * pyramid.scale * 2 ** pyramid.maxzoom)) * Math.cos((lat * Math.PI) / 180);
  return [Number(grid.matrices[0].id), Number(matrixAsFineAs(grid, finest).id)];
}

/**
 * The grid's matrices as fine as Web Mercator zooms `zooms` of 512 px tiles at latitude `lat` (a render job's zooms
 * said in the grid): from the coarsest matrix at least as fine as the first zoom to the first as fine as the last.
 */
export function gridZoomsLike(grid: Grid, zooms: [number, number], lat: number): [number, number] {
  const metres = (z: number): number => ((2 * Math.PI * R) / (512 * 2 ** z)) * Math.cos((lat * Math.PI) / 180);
  const first = matrixAsFineAs(grid, metres(zooms[0]));
  const last = matrixAsFineAs(grid, metres(zooms[1]));
  return [Number(first.id), Math.max(Number(first.id), Number(last.id))];
}

/** The first matrix whose cells are at most `metres` (the finest when none is). */
function matrixAsFineAs(grid: Grid, metres: number): GridMatrix {
  const unit = grid.epsg === 4326 ? METRES_PER_DEGREE : 1;
  return grid.matrices.find((m) => m.cellSize * unit <= metres * (1 + 1e-9)) ?? grid.matrices[grid.matrices.length - 1];
}

/** Rows and columns of `m` covering `b` (in the grid's CRS), clamped to the matrix. */
export function matrixTileRange(grid: Grid, m: GridMatrix, b: readonly number[]): { minCol: number; maxCol: number; minRow: number; maxRow: number } {
  const span = grid.tileSize * m.cellSize;
  // An edge on a tile edge, come back from PROJ a hair off it, takes no neighbour.
  const snap = (v: number): number => (Math.abs(v - Math.round(v)) < 1e-9 ? Math.round(v) : v);
  const clamp = (v: number, hi: number): number => Math.min(hi, Math.max(0, v));
  const minCol = clamp(Math.floor(snap((b[0] - grid.origin[0]) / span)), m.matrixWidth - 1);
  const maxCol = clamp(Math.max(minCol, Math.ceil(snap((b[2] - grid.origin[0]) / span)) - 1), m.matrixWidth - 1);
  const minRow = clamp(Math.floor(snap((grid.origin[1] - b[3]) / span)), m.matrixHeight - 1);
  const maxRow = clamp(Math.max(minRow, Math.ceil(snap((grid.origin[1] - b[1]) / span)) - 1), m.matrixHeight - 1);
  return { minCol, maxCol, minRow, maxRow };
}

/** Every tile of the plan: matrix, row, column; each once, however many areas cover it. */
async function planTiles(o: GridPrerenderOptions): Promise<[GridMatrix, number, number][]> {
  const areas = o.bboxes?.length ? o.bboxes : [o.source.store.info.bounds];
  const inGrid = await Promise.all(areas.map((b) => boundsInGrid(o.kept.transform, o.grid, b)));
  const seen = new Set<string>();
  const out: [GridMatrix, number, number][] = [];
  for (const m of o.grid.matrices) {
    const z = Number(m.id);
    if (z < o.zooms[0] || z > o.zooms[1]) continue;
    for (const b of inGrid) {
      const r = matrixTileRange(o.grid, m, b);
      for (let row = r.minRow; row <= r.maxRow; row++) {
        for (let col = r.minCol; col <= r.maxCol; col++) {
          const key = `${m.id}/${row}/${col}`;
          if (seen.has(key)) continue;
          seen.add(key);
          out.push([m, row, col]);
        }
      }
    }
  }
  return out;
}

/** The number of tiles a run would cover (drawn or found kept). */
export async function gridPrerenderSize(o: GridPrerenderOptions): Promise<number> {
  return (await planTiles(o)).length;
}

/** Draws and keeps every tile of the plan not kept yet; stops between tiles at `signal`. */
export async function prerenderGrid(o: GridPrerenderOptions): Promise<GridPrerenderResult> {
  if (!o.kept.keeps()) throw new Error('tiles of other grids are not kept here (wms.keepGridTiles is false, or the data directory is read-only)');
  const plan = await planTiles(o);
  let next = 0;
  let done = 0;
  let drawn = 0;
  const lane = async (): Promise<void> => {
    while (next < plan.length && !o.signal?.aborted) {
      const [m, row, col] = plan[next++];
      // A tile kept already is read, not drawn: the answer says which.
      if (!(await o.kept.tile(o.source, o.grid, m, row, col, o.format, o.signal)).kept) drawn++;
      done++;
      o.progress?.(done, plan.length, drawn);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.parallel ?? 2) }, lane));
  return { tiles: plan.length, drawn, stopped: done < plan.length };
}
