import type { MbtilesStore } from '../../store/mbtiles';
import { isGzip, mediaType } from '../../store/formats';
import type { TileFormat } from '../../store/types';
import type { Reply } from '../reply';
import type { TileAddress } from '../params';

/**
 * The answer for one tile: its bytes with the right media type, or 204 when a tile inside the bounds is absent
 * (presumed empty). The ETag names the store version and the address, so it costs no hashing of the bytes.
 */
export function tileReply(store: MbtilesStore, variant: string, a: TileAddress, format: TileFormat, data: Buffer | undefined): Reply {
  const etag = `${store.info.version}-${variant}-${a.z}-${a.x}-${a.y}-${format}`;
  if (!data || data.length === 0) return { status: 204, cache: 'tile', etag };
  return { status: 200, body: data, type: mediaType(format), gzipped: format === 'pbf' && isGzip(data), cache: 'tile', etag };
}
