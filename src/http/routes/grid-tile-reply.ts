import type { Grid, GridMatrix } from '../../geo/grids';
import { mediaTypeOf } from '../../ogc/urls';
import type { GridTileFormat, GridTileSource } from '../../services/wms/kept-grid-tiles';
import { answer, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

// A tile of a grid besides Web Mercator (geo/grids.ts), for every protocol that offers one (WMTS, OGC API Tiles):
// kept once drawn (services/wms/kept-grid-tiles.ts), drawn from the resource's Web Mercator tiles (a map's: its
// mirrored pyramids and renders) by the WMS warp. `X-Tilemirror-Source` names the levels it was drawn from, or
// `kept` when it was read from the kept tiles.

export type { GridTileFormat } from '../../services/wms/kept-grid-tiles';

const KEPT: Readonly<Record<string, string>> = Object.freeze({ 'X-Tilemirror-Source': 'kept' });

/** Tile `row`/`col` of `matrix` in `grid`, of `source`'s pyramid, as `format`. */
export function gridTileReply(ctx: RequestContext, source: GridTileSource, grid: Grid, matrix: GridMatrix, row: number, col: number, format: GridTileFormat): Reply | Promise<Reply> {
  // A kept tile's buffer is the same object while it stays hot: its reply (ETag, media type, header) is built once,
  // and a hot one is answered at once (no abort signal made for it: only a drawing needs one).
  const hot = ctx.services.keptGridTiles.hot(source, grid, matrix, row, col, format);
  if (hot) return ctx.services.tileReplies.of(hot, format, KEPT);
  return ctx.services.keptGridTiles.tile(source, grid, matrix, row, col, format, ctx.signal).then(({ data, levels, kept }) =>
    kept ? ctx.services.tileReplies.of(data, format, KEPT) : answer({ body: data, type: mediaTypeOf(format), cache: 'tile', headers: { 'X-Tilemirror-Source': levels.join(', ') } }),
  );
}
