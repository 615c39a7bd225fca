import type { StoreHeader } from '../../store/writer';
import type { Pyramid, ResourceKind } from '../../store/types';
import type { UpstreamClient } from '../client';
import type { TileTask } from '../plan';

/** One pyramid as the upstream offers it, with the key-free absolute URL template of its tiles. */
export interface PyramidSource {
  pyramid: Pyramid;
  template: string;
}

/** A document to store beside the tiles, already rewritten to local URLs. */
export interface StoredDoc {
  path: string;
  contentType: string;
  data: string;
}

/** What discovery learnt about one upstream resource: everything a run needs before its first tile. */
export interface Discovered {
  kind: ResourceKind;
  id: string;
  /** The store header with the pyramids at the upstream's full extent (the run narrows them to its plan). */
  header: StoreHeader;
  sources: PyramidSource[];
  documents: StoredDoc[];
  /** Lines for the operator (e.g. tile sets a style uses that are mirrored separately). */
  notes: string[];
  /** Tiles fetched during discovery (e.g. to learn an image's format), stored instead of fetched again. */
  prefetched: { task: TileTask; data: Buffer }[];
}

export interface DiscoverContext {
  client: UpstreamClient;
  signal?: AbortSignal;
  /** The format an existing store of this resource recorded (saves probing a tile again). */
  knownFormat?: string;
}
