import { RasterTiles } from '../../services/raster-tiles';
import type { TileFormat } from '../../store/types';
import { assertInPyramid, parseTileAddress } from '../params';
import { badRequest, type Reply } from '../reply';
import type { Params, RequestContext } from '../route-table';
import { requireStore } from './stores';
import { tileReply } from './tile-reply';

export const rasterTiles = new RasterTiles();

const RASTER: readonly TileFormat[] = ['png', 'jpg', 'webp'];

/** Extension of a requested tile → format; `jpeg` and `mvt` are accepted spellings. */
export function formatFromExtension(ext: string): TileFormat | undefined {
  const e = ext.toLowerCase();
  if (e === 'jpeg' || e === 'jpg') return 'jpg';
  if (e === 'mvt' || e === 'pbf') return 'pbf';
  if (e === 'png' || e === 'webp' || e === 'basis') return e;
  return undefined;
}

/**
 * `/tiles/{tilesId}/{z}/{x}/{y}[.ext]` and `/images/{imageId}/{z}/{x}/{y}`: the stored tile as it is (any media type);
 * a raster tile set may also be asked for in another raster format by extension.
 */
export function storedTile(kind: 'tiles' | 'images') {
  return (ctx: RequestContext, p: Params): Reply | Promise<Reply> => {
    const store = requireStore(ctx, kind, kind === 'tiles' ? p.tilesId : p.imageId);
    const a = parseTileAddress(p.z, p.x, p.y);
    const main = store.info.pyramids[0];
    let format = main.format;
    if (p.ext !== undefined) {
      const asked = formatFromExtension(p.ext);
      const convertible = asked && RASTER.includes(asked) && RASTER.includes(main.format);
      if (!asked || (asked !== main.format && !convertible)) throw badRequest(`Invalid format: ${p.ext} (this ${kind === 'tiles' ? 'tileset' : 'image'} holds ${main.format})`);
      format = asked;
    }
    assertInPyramid(main, a);
    if (format === main.format) return tileReply(store.tile(main.name, a.z, a.x, a.y), format);
    return rasterTiles
      .get(store, { tileSize: main.tileSize, scale: 1, ...a, format })
      .then((t) => tileReply(t?.data, format));
  };
}
