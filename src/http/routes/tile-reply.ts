import { digestTag } from '../../store/etag';
import { isGzip, mediaType } from '../../store/formats';
import type { TileFormat } from '../../store/types';
import type { Reply } from '../reply';

// Tile ETags name the bytes, not the store version: a republished store whose tile did not change keeps its
// ETag, so a mirror refreshing from this server gets 304 for it. Hashing runs once per tile buffer: buffers
// served from the tile cache are the same objects, and the WeakMap forgets them when the cache does.
const etags = new WeakMap<Buffer, string>();

function contentTag(data: Buffer): string {
  let tag = etags.get(data);
  if (tag === undefined) {
    tag = digestTag(data);
    etags.set(data, tag);
  }
  return tag;
}

/** The ETag of an absent tile: the same for every empty answer, so a tile that stays absent revalidates as 304. */
export const EMPTY_TILE_ETAG = 'empty';

/** The answer for one tile: its bytes with the right media type, or 204 when a tile inside the bounds is absent (presumed empty). */
export function tileReply(data: Buffer | undefined, format: TileFormat): Reply {
  if (!data || data.length === 0) return { status: 204, cache: 'tile', etag: EMPTY_TILE_ETAG };
  return { status: 200, body: data, type: mediaType(format), gzipped: format === 'pbf' && isGzip(data), cache: 'tile', etag: contentTag(data) };
}
