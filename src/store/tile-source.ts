// The seam services read tiles through (like Martin's Source trait or PMTiles' Source): what the source holds,
// a tile by pyramid and XYZ address, and the documents kept beside the tiles. MbtilesStore is one; PMTiles and
// the location services' sources are next. `info.version` changes whenever the source's content does.

import type { StoredDocument } from './document-store';
import type { TilesetInfo } from './types';

export interface TileSource {
  readonly info: TilesetInfo;
  /** A tile addressed in XYZ; undefined when the source has none. */
  tile(pyramid: string, z: number, x: number, y: number): Buffer | undefined;
  /** A document stored with the tiles (a map's style.json); undefined when there is none. */
  document(path: string): StoredDocument | undefined;
}
