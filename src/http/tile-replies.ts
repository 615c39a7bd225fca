// The reply of a tile buffer, built once. Tile ETags name the bytes, not the store version: a republished store
// whose tile did not change keeps its ETag, so a mirror refreshing from this server gets 304 for it. The reply
// (its ETag hashed once, its media type) is remembered per buffer: buffers served from the tile cache are the same
// objects, so a hot tile's request allocates no reply, and the WeakMap forgets them when the cache does. Replies
// are never mutated. One instance per server, owned by the composition root (service-root.ts).

import { digestTag } from '../store/bytes/etag';
import { isGzip, mediaType } from '../store/bytes/formats';
import type { TileFormat } from '../store/types';
import { answer, noContent, type Reply } from './reply';

/** The ETag of an absent tile: the same for every empty answer, so a tile that stays absent revalidates as 304. */
export const EMPTY_TILE_ETAG = 'empty';

/** An absent tile inside the bounds: no content (presumed empty). */
const EMPTY_TILE: Reply = Object.freeze(noContent({ cache: 'tile', etag: EMPTY_TILE_ETAG }));

export class TileReplies {
  private readonly replies = new WeakMap<Buffer, Reply>();

  /**
   * The answer for one tile: its bytes with the right media type, or no content when a tile inside the bounds is
   * absent. `headers`: the same object for every tile of a kind (kept grid tiles' X-Tilemirror-Source), part of the
   * reply built once.
   */
  of(data: Buffer | undefined, format: TileFormat, headers?: Readonly<Record<string, string>>): Reply {
    if (!data || data.length === 0) return EMPTY_TILE;
    const type = mediaType(format);
    let reply = this.replies.get(data);
    // One buffer is one store's tile, of one format; the check keeps it right should a buffer ever be shared.
    if (reply === undefined || reply.type !== type || reply.headers !== headers) {
      reply = answer({ body: data, type, gzipped: format === 'pbf' && isGzip(data), cache: 'tile', etag: digestTag(data), ...(headers && { headers: headers as Record<string, string> }) });
      this.replies.set(data, reply);
    }
    return reply;
  }
}
