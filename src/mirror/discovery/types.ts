// What discovery gives the engine: a plain description of one resource (what to fetch, what to store as it is,
// what it depends on), the same whether kind discovery read the cloud API's own resource or source discovery
// read a generic source.

import type { Bounds } from '../../geo/bounds';
import type { TileRange } from '../../geo/mercator';
import type { TileTask } from '../../geo/tile-bands';
import type { Pyramid, StoreKind, TileFormat } from '../../store/types';
import type { StoreHeader } from '../../store/mbtiles/writer';
import type { ResourceRef } from '../resource';
import type { UpstreamClient } from '../upstream/client';

/** The upstream's tile limits per zoom (WMTS TileMatrixSetLimits): a range, or null when it has no tiles at z. */
export type ZoomLimits = Record<number, TileRange | null>;

/** One pyramid as the upstream offers it, with the key-free absolute URL template of its tiles. */
export interface UpstreamPyramid {
  pyramid: Pyramid;
  template: string;
  /** The value `{z}` stands for at each zoom when it is not the zoom itself (a WMTS TileMatrix identifier, URL-encoded). */
  matrixIds?: Record<number, string>;
  /** The upstream's own tile limits per zoom (WMTS TileMatrixSetLimits): the plan stays inside them. */
  limits?: ZoomLimits;
  /** What `{s}` in the template stands for, one per tile (an XYZ template's hosts a, b, c). */
  subdomains?: string[];
}

/** A document to store as it is (a tile set's TileJSON, a style, a weather catalog), its URLs already rewritten to local ones. */
export interface DocumentToStore {
  path: string;
  contentType: string;
  data: string | Buffer;
}

/** One document the engine fetches for a document store (a glyph range, a sprite file). */
export interface DocumentToFetch {
  /** Upstream path, resolved against the upstream base. */
  url: string;
  /** Its path in the store, e.g. `0-255.pbf`: the key of its answer, and its name in the failures. */
  path: string;
  /** Why a body (a 200's, any gzip undone) is not this document: a failed attempt, tried again. Undefined when it is. */
  check: (body: Buffer) => string | undefined;
}

/** The answer to a document: its checked body, undefined for a 404 (or 204), or the error it failed with after its retries. */
export type DocumentAnswer = Buffer | undefined | Error;

/** Answers by store path, in the order they arrived. */
export type DocumentAnswers = ReadonlyMap<string, DocumentAnswer>;

/** What a document store's answers add up to. */
export interface AssembledDocuments {
  documents: DocumentToStore[];
  /** Asked for but not there (404, a glyph range without glyphs): not stored, served as the upstream does. */
  absent: number;
  /** Documents that could not be fetched or failed validation: the store is not published. */
  failures: string[];
  notes: string[];
  /** Why there is nothing to publish: the upstream has no such resource. */
  missing?: string;
}

/** The documents of a document store that the engine fetches, and the kind's rules for what they add up to. */
export interface DocumentFetches {
  /** Fetched group after group; a group's documents at once (up to the run's concurrency). */
  groups: DocumentToFetch[][];
  /** Whether the answers so far settle the store (a font without its first range, a refused key): nothing more is asked for. */
  settled: (answers: DocumentAnswers) => boolean;
  /** The store's documents from the answers (a document not answered, the fetching having stopped, is left out). */
  assemble: (answers: DocumentAnswers) => AssembledDocuments;
}

/** What discovery learnt about one upstream resource: everything a run needs before its first tile or document. */
export interface Discovered {
  kind: StoreKind;
  id: string;
  /** The store header with the pyramids at the upstream's full extent (the run narrows them to its plan). */
  header: StoreHeader;
  /** The pyramids of a tile store, as the upstream offers them; none for a document store. */
  pyramids: UpstreamPyramid[];
  /** Documents stored as they are, fetched with the description. */
  documents: DocumentToStore[];
  /** Document stores: the documents the engine fetches. */
  fetches?: DocumentFetches;
  /** Documents asked for during discovery that the upstream does not have (404). */
  absent?: number;
  /** Why there is nothing to publish: the upstream has no such resource (e.g. 404 for a dataset's features.json). */
  missing?: string;
  /** Lines for the operator (e.g. tile sets a style uses that are mirrored separately). */
  notes: string[];
  /** Tiles fetched during discovery (e.g. to learn an image's format), stored instead of fetched again. */
  prefetched?: { task: TileTask; data: Buffer }[];
  /**
   * Dependencies the resource uses offline (a map style's tile sets, fonts and sprite): each its own store,
   * mirrored after this one when the run asks for its dependencies.
   */
  dependencies?: ResourceRef[];
  /**
   * Dependencies the resource names (a weather catalog's keyframe tile sets): always mirrored, and published
   * before this store, which is published only when all of them are.
   */
  prerequisites?: ResourceRef[];
}

export interface DiscoverContext {
  client: UpstreamClient;
  signal?: AbortSignal;
  /** The format an existing store of this resource recorded (saves probing a tile again). */
  knownFormat?: string;
  /** The published store of this resource when there is one (read-only): e.g. the keyframes the last weather run named. */
  published?: string;
  /** Maps: pixel ratios to mirror (1 and/or 2 for @2x); default [1]. */
  scales?: number[];
  /** Maps: tile formats to mirror; default the upstream TileJSON's format only. */
  formats?: TileFormat[];
  /** The zooms asked for (--zoom): sources that do not say their own zooms (XYZ templates, WMS) need them. */
  zoom?: [number, number];
  /** The areas asked for (--bbox, areas' boxes): where sources without bounds of their own probe a first tile. */
  bboxes?: Bounds[];
}
