// The seam every reader of tiles goes through (like Martin's Source trait or PMTiles' Source): what a tile set
// holds, a tile by pyramid and XYZ address, the documents kept beside the tiles, and every tile in turn (scan) for
// readers of a whole set (the label index). MbtilesStore and PmtilesStore are the two; the catalog hands out
// TileStores. `info.version` changes whenever the set's content does.
//
// Reads are synchronous: SQLite answers synchronously, and a PMTiles archive is read with positioned reads
// (readSync) of a few KB on a local file, so a read never interleaves with a close and no caller changes.

import type { ByteLru } from './bytes/lru';
import type { Pyramid, TilesetInfo } from './types';

/** A document kept beside the tiles (or in a document store): its bytes and their media type. */
export interface StoredDocument {
  contentType: string;
  data: Buffer;
}

/** One tile as a scan hands it over: its XYZ address and its stored bytes (gzip included). */
export interface ScannedTile {
  z: number;
  x: number;
  y: number;
  data: Buffer;
}

/** Zooms a scan covers (inclusive; each bound defaults to the pyramid's). */
export interface ScanZooms {
  minzoom?: number;
  maxzoom?: number;
}

/** Where a store's content came from: the upstream a mirror run recorded, an imported file, the bundled sample. */
export type StoreOrigin = { type: 'upstream'; url: string } | { type: 'imported' } | { type: 'sample' };

/** What an operator is told of a store beyond what it serves (its zooms and version are in its `info`). */
export interface StoreFacts {
  /** Tiles held (every pyramid); null when the file could not say (it is asked again on the next call). */
  tiles: number | null;
  /** The file's bytes on disk. */
  bytes: number;
  origin: StoreOrigin;
}

export interface TileReader {
  readonly info: TilesetInfo;
  /** A tile addressed in XYZ; undefined when the set has none. */
  tile(pyramid: string, z: number, x: number, y: number): Buffer | undefined;
  /** A document stored with the tiles (a map's style.json); undefined when there is none. */
  document(path: string): StoredDocument | undefined;
  /**
   * Every tile of `pyramid` (within `zooms`) in turn, zoom by zoom in an order fixed by the file (the same on every
   * scan of one version), each once, without holding more than a few tiles in memory. The scan bypasses the tile
   * cache (it would evict the hot tiles) and holds nothing open between two tiles, so the caller may pause it
   * (await between tiles) while the set keeps serving; once the set is closed, the next step throws.
   */
  scan(pyramid: string, zooms?: ScanZooms): Iterable<ScannedTile>;
  /**
   * The set's facts, read once per reader (a reader serves one version of its file; counting a country's tiles
   * reads its whole index) and again only after a read that failed.
   */
  facts(): StoreFacts;
}

/** A tile reader held open by the catalog: one file of the data directory. */
export interface TileStore extends TileReader {
  readonly file: string;
  /** Identifies this version of the file (inode, size, mtime): part of every ETag. */
  readonly signature: string;
  pyramid(name: string): Pyramid | undefined;
  /** The tile without its gzip transport encoding; throws DamagedTileError when the stored gzip is broken. */
  plainTile(pyramid: string, z: number, x: number, y: number): Buffer | undefined;
  close(): void;
}

/** What a tile store shares with the others of a catalog. */
export interface TileStoreOptions {
  /** Tile bytes shared by all stores, keyed by the opened file: a replaced store never answers from the old file. */
  cache?: ByteLru;
  /** Told once per tile of this store version whose gzip cannot be decompressed. */
  onDamagedTile?: (tile: string, error: Error) => void;
}
