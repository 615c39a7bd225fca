import { digestTag } from '../../store/bytes/etag';
import { isGzip, mediaType } from '../../store/bytes/formats';
import { mediaTypeOf } from '../../ogc/urls';
import type { TileStore } from '../../store/tile-reader';
import type { TileFormat } from '../../store/types';
import { acceptsGzip } from '../headers';
import type { TileAddress } from '../params';
import type { Reply } from '../reply';
import type { RequestContext } from '../route-table';

// Tile ETags name the bytes, not the store version: a republished store whose tile did not change keeps its
// ETag, so a mirror refreshing from this server gets 304 for it. The reply of a tile buffer (its ETag hashed once,
// its media type) is built once: buffers served from the tile cache are the same objects, so a hot tile's
// request allocates no reply, and the WeakMap forgets them when the cache does. Replies are never mutated.
const replies = new WeakMap<Buffer, Reply>();

/** The ETag of an absent tile: the same for every empty answer, so a tile that stays absent revalidates as 304. */
export const EMPTY_TILE_ETAG = 'empty';

const EMPTY_TILE: Reply = Object.freeze({ status: 204, cache: 'tile', etag: EMPTY_TILE_ETAG });

/** The answer for one tile: its bytes with the right media type, or 204 when a tile inside the bounds is absent (presumed empty). */
export function tileReply(data: Buffer | undefined, format: TileFormat): Reply {
  if (!data || data.length === 0) return EMPTY_TILE;
  const type = mediaType(format);
  let reply = replies.get(data);
  // One buffer is one store's tile, of one format; the check keeps it right should a buffer ever be shared.
  if (reply === undefined || reply.type !== type) {
    reply = { status: 200, body: data, type, gzipped: format === 'pbf' && isGzip(data), cache: 'tile', etag: digestTag(data) };
    replies.set(data, reply);
  }
  return reply;
}

const PROTOBUF = mediaType('pbf');
const VECTOR_TILE = mediaTypeOf('pbf');

/**
 * A tile answer as WMTS capabilities and OGC API links advertise it: a vector tile under its registered media type
 * (`application/vnd.mapbox-vector-tile`), where the cloud API's own tile routes answer `application/x-protobuf`.
 */
export function advertisedTile(reply: Reply): Reply {
  return reply.type === PROTOBUF ? { ...reply, type: VECTOR_TILE } : reply;
}

/**
 * A stored tile as the client can take it: gzip as stored when it accepts gzip, else decompressed (once per tile
 * and store version: the store caches the copy). A tile whose gzip is damaged throws the store's DamagedTileError
 * (`damaged`: answered 500 "Damaged tile", the store reports it once); the process serves on.
 */
export function storedTileReply(ctx: RequestContext, store: TileStore, pyramid: string, a: TileAddress, format: TileFormat): Reply {
  const reply = tileReply(store.tile(pyramid, a.z, a.x, a.y), format);
  if (!reply.gzipped || acceptsGzip(ctx.headers['accept-encoding'])) return reply;
  return { ...reply, plain: store.plainTile(pyramid, a.z, a.x, a.y) };
}
