import { z } from 'zod';
import type { TileFormat } from '../../store/types';
import { assertInPyramid, fastObject, id, optionalLiteral, scale2x, tileAddress, tileFormat, type TileAddress } from '../params';
import { badRequest, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { requireStore } from './stores';
import { storedTileReply, tileReply } from './tile-reply';

const MAP_FORMATS = ['png', 'jpg', 'webp', 'basis'] as const satisfies readonly TileFormat[];
const xyz = tileAddress({ z: 'z', x: 'x', y: 'y' });

export const mapTileParams = fastObject(
  z
    .object({
      mapId: id('map id'),
      size: optionalLiteral('256', '`256`: the 256 px pyramid (default 512 px)'),
      ...xyz.shape,
      scale: scale2x('only @2x'),
      format: tileFormat(MAP_FORMATS, 'use png, jpg, webp or basis', 'image format'),
    })
    .superRefine(xyz.refine),
  xyz.valid,
);

export interface MapTileRequest extends TileAddress {
  tileSize: 256 | 512;
  scale: 1 | 2;
  format: (typeof MAP_FORMATS)[number];
}

/**
 * A raster tile of a map's 512 px (default) or 256 px pyramid, at scale 1 or 2, by its validated address: from the
 * mirrored pyramid when it holds the tile's zoom, else rendered here from the map's style (a map mirrored with
 * `raster: render` renders every tile; a mirrored one renders the zooms beyond its pyramid that its style can draw,
 * unless `beyond` is `pyramid`: the zooms a protocol's document advertises are the pyramid's).
 */
export function serveMapTile(ctx: RequestContext, mapId: string, t: MapTileRequest, beyond: 'render' | 'pyramid' = 'render'): Reply | Promise<Reply> {
  const store = requireStore(ctx, 'maps', mapId);
  const { tileSize, scale, format } = t;
  const a = { z: t.z, x: t.x, y: t.y };
  // Bounds and zooms come from the pyramid of that tile size when the map has one, else from the main pyramid.
  const sized = store.info.pyramids.find((q) => q.tileSize === tileSize) ?? store.info.pyramids[0];
  const { rasterTiles, renderedTiles } = ctx.services;
  const mirrored = store.info.raster !== 'render' && a.z >= sized.minzoom && a.z <= sized.maxzoom;
  if (mirrored || store.info.raster === 'render') assertInPyramid(sized, a);
  else {
    // Beyond the mirrored zooms: rendered when the style can draw the zoom, else the pyramid's own answer (400).
    // WMTS and OGC API keep to the zooms their documents advertise (the pyramid's): `beyond: 'pyramid'`.
    const zooms = beyond === 'render' ? renderedTiles.drawable(store, tileSize) : undefined;
    if (!zooms || a.z > zooms.maxzoom) assertInPyramid(sized, a);
  }
  if (format === 'basis') {
    if (!mirrored) throw badRequest('Invalid format: basis tiles are not rendered');
    const exact = rasterTiles.exactPyramid(store, { tileSize, scale, z: a.z, format });
    if (!exact) throw badRequest('Invalid format: basis tiles are not mirrored for this map');
    return storedTileReply(ctx, store, exact.name, a, format);
  }
  if (!mirrored) {
    const ask = { tileSize, scale, format, ...a };
    const kept = renderedTiles.kept(store, ask);
    if (kept) return tileReply(ctx, kept, format);
    return renderedTiles.tile(store, ask, ctx.signal).then((data) => tileReply(ctx, data, format));
  }
  const exact = rasterTiles.exactPyramid(store, { tileSize, scale, z: a.z, format });
  if (exact) return storedTileReply(ctx, store, exact.name, a, format);
  return rasterTiles.get(store, { tileSize, scale, ...a, format }).then((r) => tileReply(ctx, r?.data, format));
}

/** `/maps/{mapId}/[256/]{z}/{x}/{y}[@2x].{format}` */
export const mapTile = (ctx: RequestContext, p: z.output<typeof mapTileParams>): Reply | Promise<Reply> =>
  serveMapTile(ctx, p.mapId, { z: p.z, x: p.x, y: p.y, tileSize: p.size ? 256 : 512, scale: p.scale ? 2 : 1, format: p.format });
