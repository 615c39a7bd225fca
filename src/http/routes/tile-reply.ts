import { mediaType } from '../../store/bytes/formats';
import { mediaTypeOf } from '../../ogc/urls';
import type { TileStore } from '../../store/tile-reader';
import type { TileFormat } from '../../store/types';
import { acceptsGzip } from '../headers';
import type { TileAddress } from '../params';
import type { Reply } from '../reply';
import type { RequestContext } from '../route-table';

/** The answer for one tile (../tile-replies.ts): its bytes with the right media type, or no content when a tile inside the bounds is absent. */
export function tileReply(ctx: RequestContext, data: Buffer | undefined, format: TileFormat): Reply {
  return ctx.services.tileReplies.of(data, format);
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
 * (`damaged`: the store reports it once); the process serves on.
 */
export function storedTileReply(ctx: RequestContext, store: TileStore, pyramid: string, a: TileAddress, format: TileFormat): Reply {
  const reply = ctx.services.tileReplies.of(store.tile(pyramid, a.z, a.x, a.y), format);
  if (!reply.gzipped || acceptsGzip(ctx.headers['accept-encoding'])) return reply;
  return { ...reply, plain: store.plainTile(pyramid, a.z, a.x, a.y) };
}
