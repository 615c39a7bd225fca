import type { Grid, GridMatrix } from '../../geo/grids';
import { mediaTypeOf } from '../../ogc/urls';
import type { GridTileFormat, GridTileSource } from '../../services/wms/kept-grid-tiles';
import { answer, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { tileReply } from './tile-reply';

// A tile of a grid besides Web Mercator (geo/grids.ts), for every protocol that offers one (WMTS, OGC API Tiles):
// kept once drawn (services/wms/kept-grid-tiles.ts), drawn from the resource's Web Mercator tiles (a map's: its
// mirrored pyramids and renders) by the WMS warp. `X-Tilemirror-Source` names the levels it was drawn from, or
// `kept` when it was read from the kept tiles.

export type { GridTileFormat } from '../../services/wms/kept-grid-tiles';

/** Tile `row`/`col` of `matrix` in `grid`, of `source`'s pyramid, as `format`. */
export async function gridTileReply(ctx: RequestContext, source: GridTileSource, grid: Grid, matrix: GridMatrix, row: number, col: number, format: GridTileFormat): Promise<Reply> {
  const { data, levels, kept } = await ctx.services.keptGridTiles.tile(source, grid, matrix, row, col, format, ctx.signal);
  // A kept tile's buffer is the same object while it stays hot: its reply (ETag, media type) is built once.
  const reply = kept ? tileReply(ctx, data, format) : answer({ body: data, type: mediaTypeOf(format), cache: 'tile' });
  return { ...reply, headers: { ...reply.headers, 'X-Tilemirror-Source': kept ? 'kept' : levels.join(', ') } };
}
