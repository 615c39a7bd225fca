import { z } from 'zod';
import type { TileFormat } from '../../store/types';
import { assertInPyramid, fastObject, formatFromExtension, id, optionalText, tileAddress, type TileAddress } from '../params';
import { badRequest, type Reply } from '../reply';
import type { RequestContext } from '../route-table';
import { requireStore } from './stores';
import { storedTileReply, tileReply } from './tile-reply';

const RASTER: readonly TileFormat[] = ['png', 'jpg', 'webp'];

const xyz = tileAddress({ z: 'z', x: 'x', y: 'y' });
const ext = optionalText(
  z
    .string()
    .optional()
    .meta({ type: 'string', enum: ['png', 'jpg', 'jpeg', 'webp', 'pbf', 'mvt', 'basis'], description: 'the stored format, or another raster format of a raster tile set' }),
);

export const tilesTileParams = fastObject(z.object({ tilesId: id('tile set id'), ...xyz.shape, ext }).superRefine(xyz.refine), xyz.valid);
export const imageTileParams = fastObject(z.object({ imageId: id('image id'), ...xyz.shape, ext }).superRefine(xyz.refine), xyz.valid);

/** A stored tile (tile set or image) by its validated address; `ext` asks for another raster format. */
export function serveStoredTile(ctx: RequestContext, kind: 'tiles' | 'images', storeId: string, a: TileAddress, ext?: string): Reply | Promise<Reply> {
  const store = requireStore(ctx, kind, storeId);
  const main = store.info.pyramids[0];
  let format = main.format;
  if (ext !== undefined) {
    const asked = formatFromExtension(ext);
    const convertible = asked && RASTER.includes(asked) && RASTER.includes(main.format);
    if (!asked || (asked !== main.format && !convertible)) throw badRequest(`Invalid format: ${ext} (this ${kind === 'tiles' ? 'tileset' : 'image'} holds ${main.format})`);
    format = asked;
  }
  assertInPyramid(main, a);
  if (format === main.format) return storedTileReply(ctx, store, main.name, a, format);
  return ctx.services.rasterTiles
    .get(store, { tileSize: main.tileSize, scale: 1, ...a, format })
    .then((t) => tileReply(ctx, t?.data, format));
}

/** `/tiles/{tilesId}/{z}/{x}/{y}[.ext]` (and the same under `/images/{imageId}/`): the stored tile as it is (any media type), or a raster tile in another raster format. */
export const tilesTile = (ctx: RequestContext, p: z.output<typeof tilesTileParams>): Reply | Promise<Reply> =>
  serveStoredTile(ctx, 'tiles', p.tilesId, p, p.ext);

/** `/images/{imageId}/{z}/{x}/{y}`: a tile of the image pyramid. */
export const imageTile = (ctx: RequestContext, p: z.output<typeof imageTileParams>): Reply | Promise<Reply> =>
  serveStoredTile(ctx, 'images', p.imageId, p, p.ext);
