import type { Bounds } from '../../geo/bounds';
import type { StoreHeader } from '../../store/writer';
import type { Pyramid, ResourceKind, StoreKind, TileFormat } from '../../store/types';
import type { UpstreamClient } from '../upstream/client';
import type { ZoomLimits } from '../plan';
import type { TileTask } from '../../geo/tile-bands';

/** A resource to mirror: `tiles/ID`, `maps/ID`, `images/ID`, `fonts/FONTSTACK`, `sprites/ID`, `data/ID`, `weather`, `ogc`. */
export interface ResourceRef {
  kind: StoreKind;
  id: string;
  /**
   * Upstream path the documents come from when it is not the kind's own: a map style's sprite lives at
   * `/maps/{mapId}/sprite` upstream and is stored as `sprites/{mapId}` (only set for dependencies).
   */
  source?: string;
}

/** One pyramid as the upstream offers it, with the key-free absolute URL template of its tiles. */
export interface PyramidSource {
  pyramid: Pyramid;
  template: string;
  /** The value `{z}` stands for at each zoom when it is not the zoom itself (a WMTS TileMatrix identifier, URL-encoded). */
  matrixIds?: Record<number, string>;
  /** The upstream's own tile limits per zoom (WMTS TileMatrixSetLimits): the plan stays inside them. */
  limits?: ZoomLimits;
  /** What `{s}` in the template stands for, one per tile (an XYZ template's hosts a, b, c). */
  subdomains?: string[];
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
  /** Other resources this one needs to work offline (a map style's fonts and sprite), mirrored on request. */
  dependencies?: ResourceRef[];
}

export interface DiscoverContext {
  client: UpstreamClient;
  signal?: AbortSignal;
  /** The format an existing store of this resource recorded (saves probing a tile again). */
  knownFormat?: string;
  /** Maps: pixel ratios to mirror (1 and/or 2 for @2x); default [1]. */
  scales?: number[];
  /** Maps: tile formats to mirror; default the upstream TileJSON's format only. */
  formats?: TileFormat[];
  /** The zooms asked for (--zoom): sources that do not say their own zooms (XYZ templates, WMS) need them. */
  zoom?: [number, number];
  /** The areas asked for (--bbox, areas' boxes): where sources without bounds of their own probe a first tile. */
  bboxes?: Bounds[];
}
