// Decompressed copies of gzipped tiles, shared by every kind of tile store: a client that does not accept gzip
// gets the tile inflated once per store version (the copy lives in the tile cache), and a tile whose gzip is
// broken is reported once and answers DamagedTileError.

import { gunzipSync } from 'node:zlib';
import { isGzip } from './formats';
import type { ByteLru } from './lru';

/** Largest decompressed tile: beyond it the stored gzip is treated as damaged (a decompression bomb, not a tile). */
export const MAX_PLAIN_TILE_BYTES = 32 * 1024 * 1024;
/** Damaged tiles remembered (and logged) per store version; beyond it they still fail, unlogged. */
const MAX_DAMAGED_REMEMBERED = 4096;

/** A stored tile whose gzip cannot be decompressed: the store's own data is damaged (the edge answers 500). */
export class DamagedTileError extends Error {}

export class PlainTiles {
  private readonly damaged = new Set<string>();

  constructor(
    private readonly cache: ByteLru | undefined,
    private readonly onDamagedTile?: (tile: string, error: Error) => void,
  ) {}

  /** `data` (the stored bytes of `tile` in store version `version`) without gzip; other bytes as they are. */
  plain(version: string, tile: string, data: Buffer | undefined): Buffer | undefined {
    if (!data || !isGzip(data)) return data;
    const key = `plain/${version}/${tile}`;
    const cached = this.cache?.get(key);
    if (cached) return cached;
    if (this.damaged.has(tile)) throw new DamagedTileError(`damaged tile ${tile}`);
    let plain: Buffer;
    try {
      plain = gunzipSync(data, { maxOutputLength: MAX_PLAIN_TILE_BYTES });
    } catch (err) {
      this.reportDamaged(tile, err as Error);
      throw new DamagedTileError(`damaged tile ${tile}: ${(err as Error).message}`);
    }
    this.cache?.set(key, plain);
    return plain;
  }

  /** Reports a damaged tile once per store version (up to a bound). */
  reportDamaged(tile: string, error: Error): void {
    if (this.damaged.has(tile) || this.damaged.size >= MAX_DAMAGED_REMEMBERED) return;
    this.damaged.add(tile);
    this.onDamagedTile?.(tile, error);
  }
}
