// The seam services read tiles through (like Martin's Source trait or PMTiles' Source): what the source holds,
// a tile by pyramid and XYZ address, and the documents kept beside the tiles. MbtilesStore and PmtilesStore
// are the two; the catalog hands out TileStores. `info.version` changes whenever the source's content does.
//
// Reads are synchronous: SQLite answers synchronously, and a PMTiles archive is read with positioned reads
// (readSync) of a few KB on a local file, so a read never interleaves with a close and no caller changes.

import type { StoredDocument } from './document-store';
import type { Pyramid, TilesetInfo } from './types';

export interface TileSource {
  readonly info: TilesetInfo;
  /** A tile addressed in XYZ; undefined when the source has none. */
  tile(pyramid: string, z: number, x: number, y: number): Buffer | undefined;
  /** A document stored with the tiles (a map's style.json); undefined when there is none. */
  document(path: string): StoredDocument | undefined;
}

/** A tile source held open by the catalog: one file of the data directory. */
export interface TileStore extends TileSource {
  readonly file: string;
  /** Identifies this version of the file (inode, size, mtime): part of every ETag. */
  readonly signature: string;
  pyramid(name: string): Pyramid | undefined;
  /** The tile without its gzip transport encoding; throws DamagedTileError when the stored gzip is broken. */
  plainTile(pyramid: string, z: number, x: number, y: number): Buffer | undefined;
  close(): void;
}
