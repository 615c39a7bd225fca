import type { TileFormat } from '../../store/types';
import { assertInPyramid, parseTileAddress } from '../params';
import { badRequest, type Reply } from '../reply';
import type { Params, RequestContext } from '../route-table';
import { requireStore } from './stores';
import { tileReply } from './tile-reply';
import { formatFromExtension, rasterTiles } from './tiles';

const MAP_FORMATS: readonly TileFormat[] = ['png', 'jpg', 'webp', 'basis'];

/** `/maps/{mapId}/[256/]{z}/{x}/{y}[@2x].{format}`: a raster tile of the map's 512 px (default) or 256 px pyramid. */
export function mapTile(ctx: RequestContext, p: Params): Reply | Promise<Reply> {
  const store = requireStore(ctx, 'maps', p.mapId);
  const format = formatFromExtension(p.format ?? '');
  if (!format || !MAP_FORMATS.includes(format)) throw badRequest(`Invalid format: ${p.format ?? ''} (use png, jpg, webp or basis)`);
  if (p.scale !== undefined && p.scale !== '@2x') throw badRequest(`Invalid scale: ${p.scale} (only @2x)`);
  const a = parseTileAddress(p.z, p.x, p.y);
  const tileSize = p.size ? 256 : 512;
  const scale = p.scale ? 2 : 1;
  // Bounds and zooms come from the pyramid of that tile size when the map has one, else from the main pyramid.
  const sized = store.info.pyramids.find((q) => q.tileSize === tileSize) ?? store.info.pyramids[0];
  assertInPyramid(sized, a);
  const exact = rasterTiles.exactPyramid(store, { tileSize, scale, z: a.z, format });
  if (exact) return tileReply(store.tile(exact.name, a.z, a.x, a.y), format);
  if (format === 'basis') throw badRequest('Invalid format: basis tiles are not mirrored for this map');
  return rasterTiles.get(store, { tileSize, scale, ...a, format }).then((t) => tileReply(t?.data, format));
}
