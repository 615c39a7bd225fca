import type { Grid, GridMatrix } from '../../geo/grids';
import { mediaTypeOf } from '../../ogc/urls';
import type { TileStore } from '../../store/tile-reader';
import { answer, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

// A tile of a grid besides Web Mercator (geo/grids.ts), for every protocol that offers one (WMTS, OGC API Tiles):
// drawn from the resource's Web Mercator tiles (a map's: its mirrored pyramids and renders) by the WMS warp, the
// level it was drawn from named in `X-Tilemirror-Source`.

export type GridTileFormat = 'png' | 'jpg' | 'webp';

/** Tile `row`/`col` of `matrix` in `grid`, of `store`'s pyramid `pyramidName`, drawn as `format`; `name` names the layer in logs. */
export async function gridTileReply(
  ctx: RequestContext,
  source: { store: TileStore; pyramidName: string; name: string },
  grid: Grid,
  matrix: GridMatrix,
  row: number,
  col: number,
  format: GridTileFormat,
): Promise<Reply> {
  const base = ctx.services.renderedTiles.rasterBase(source.store, source.pyramidName);
  const encoding = format === 'jpg' ? 'jpeg' : format;
  const { data, levels } = await ctx.services.gridTiles.tile({ name: source.name, base }, grid, matrix, row, col, encoding, ctx.signal);
  return answer({ body: data, type: mediaTypeOf(format), cache: 'tile', headers: { 'X-Tilemirror-Source': levels.join(', ') } });
}
