// Tiles of the configured grids other than Web Mercator (geo/grids.ts): each is a GetMap of the tile's bounds in the
// grid's CRS at the tile's size, drawn from the layer's Web Mercator tiles by WmsMaps (same warp, same kernel, same
// pixel budget). The grids are resolved once from the configuration: a registered one by its id, an operator's from
// its definition and PROJ's registry (axis order, area of use). Tiles are drawn on each request.

import { ServiceError } from '../../errors';
import { areasMeet, definedGrid, gridTileBounds, registeredGrid, type Grid, type GridMatrix } from '../../geo/grids';
import type { BaseTiles } from '../static-maps';
import type { GetMapResult, WmsMaps } from './get-map';

/** zlib level of the PNG tiles kept or exported. */
const STORED_PNG_LEVEL = 9;

/** A grid as the configuration names it: a registered id, or an operator's definition. */
export type GridConfig =
  | string
  | { id: string; title?: string; crs: number; origin: [number, number]; extent: [number, number, number, number]; tileSize: number; resolutions: number[] };

export interface CrsFacts {
  northFirst: boolean;
  area: [number, number, number, number];
  geographic: boolean;
}

/** The grids of the configuration; an operator's grid whose CRS the registry does not know is reported and left out. */
export function resolveGrids(configured: readonly GridConfig[], facts: ((code: number) => CrsFacts | undefined) | undefined, warn: (message: string) => void): Grid[] {
  const out: Grid[] = [];
  for (const g of configured) {
    if (typeof g === 'string') {
      const grid = registeredGrid(g);
      if (grid) out.push(grid);
      continue;
    }
    const f = facts?.(g.crs);
    if (!f) {
      warn(`grid ${g.id}: EPSG:${g.crs} is not known here (or the coordinates index is not built): the grid is not offered`);
      continue;
    }
    out.push(definedGrid({ ...g, ...f }));
  }
  return out;
}

export class GridTiles {
  constructor(
    readonly grids: readonly Grid[],
    private readonly maps: WmsMaps,
  ) {}

  /** The grids a layer of these lon/lat bounds is offered in. */
  gridsFor(bounds: readonly number[]): Grid[] {
    return this.grids.filter((g) => areasMeet(g.area, bounds));
  }

  grid(id: string): Grid | undefined {
    return this.grids.find((g) => g.id === id);
  }

  /**
   * One tile of `grid`, drawn from `base` (transparent where nothing is), encoded as `format`, and the level it was
   * drawn from. `stored`: the tile is written to a file and sent many times, so a PNG is compressed harder (zlib 9:
   * 10-35 % smaller than the default level, for ~5 ms more once on a 512 px tile).
   */
  tile(layer: { name: string; base: BaseTiles }, grid: Grid, matrix: GridMatrix, row: number, col: number, format: 'png' | 'jpeg' | 'webp', opts: { signal?: AbortSignal; stored?: boolean } = {}): Promise<GetMapResult> {
    if (!(row >= 0 && row < matrix.matrixHeight && col >= 0 && col < matrix.matrixWidth)) throw new ServiceError('invalid', `No tile ${matrix.id}/${row}/${col} in ${grid.id}`);
    const bbox = gridTileBounds(grid, matrix, row, col);
    const pngLevel = opts.stored ? STORED_PNG_LEVEL : undefined;
    return this.maps.draw({ layers: [layer], crs: grid.epsg, bbox, width: grid.tileSize, height: grid.tileSize, format, transparent: true, background: [255, 255, 255], pngLevel }, opts.signal);
  }
}
