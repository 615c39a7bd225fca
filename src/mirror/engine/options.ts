// What a run of `runMirror` is asked to do: the resource, the upstream and its key, the zooms and areas, the
// limits, and the callbacks that watch it.

import type { Bounds } from '../../geo/bounds';
import type { TileTask } from '../../geo/tile-bands';
import type { TileFormat } from '../../store/types';
import type { PolygonArea } from '../area';
import type { GenericSource } from '../discovery/sources';
import type { ProgressSnapshot } from '../progress';
import type { ResourceRef } from '../resource';
import type { RequestBudget } from '../upstream/request-budget';
import type { RetryPolicy } from '../upstream/retry';

export { DEFAULT_CONCURRENCY } from '../../config/mirror-defaults';

/**
 * A map's raster pyramids: `mirror` fetches their tiles; `render` describes them without fetching any (the server
 * renders their tiles from the style, whose tile sets, fonts and sprites are then mirrored as dependencies).
 */
export type RasterMode = 'mirror' | 'render';
export const RASTER_MODES: readonly RasterMode[] = ['mirror', 'render'];

export interface MirrorOptions {
  /** Upstream base URL, e.g. https://api.maptiler.com (a key in it is ignored: use `key`). */
  upstream: string;
  dataDir: string;
  /** `tiles/ID`, `maps/ID`, `images/ID`, `fonts/FONTSTACK`, `sprites/ID`, `data/ID`, `weather`, `ogc`. */
  resource: string | ResourceRef;
  /**
   * Maps: also mirror what the style needs offline, after the map: its tile sets, its fonts (every font of every
   * `text-font`) and its sprite. Default false: the run's notes name them (the weather catalog's keyframe tile
   * sets are part of `weather` and always mirrored).
   */
  withDependencies?: boolean;
  /**
   * Maps: `render` fetches none of the raster pyramids' tiles (they are described, and the store is marked for the
   * server to render them) and implies withDependencies; default `mirror`. A UsageError for any other kind.
   */
  raster?: RasterMode;
  /**
   * Tile sets a rendered map draws from (set for its dependencies): zooms asked wholly above the source's plan its
   * deepest zoom, which the renderer overzooms, instead of being a usage error.
   */
  overzoom?: boolean;
  /** Maps: pixel ratios to mirror, e.g. [1, 2] adds the @2x pyramids (default [1]). */
  scales?: number[];
  /** Maps: tile formats to mirror, e.g. ['png', 'webp'] (default: the upstream TileJSON's format). */
  formats?: TileFormat[];
  key?: string;
  /** Inclusive zoom range; default: the upstream's. */
  zoom?: [number, number];
  /** Areas in degrees; default: the upstream's bounds. */
  bboxes?: Bounds[];
  /** GeoJSON polygon areas (see area.ts); with bboxes, the plan is the union of all of them. */
  areas?: PolygonArea[];
  /** A generic source (any TileJSON or WMTS capabilities URL) for a `tiles/ID` resource; `upstream` is then its origin. */
  source?: GenericSource;
  /** Most requests in flight (default DEFAULT_CONCURRENCY); fewer while the adaptive limit finds no gain in more. */
  concurrency?: number;
  /** Offer HTTP/2 to a TLS upstream (default: HTTP/1.1 only, over as many connections as requests in flight). */
  http2?: boolean;
  /** Requests per second (default: unlimited). */
  rate?: number;
  /** Per-request timeout (ms, default 30 s). */
  timeoutMs?: number;
  retry?: RetryPolicy;
  /**
   * The upstream requests the run may spend (its own cap and its upstream's month), shared by its stores and
   * dependencies; the caller makes it and closes it. Without one nothing is counted or capped.
   */
  budget?: RequestBudget;
  /** Tiles that may fail (after their retries) before the run stops; default 100. */
  failureBudget?: number;
  /**
   * Seconds a stored tile stays current (default 7 days): older ones are revalidated with a conditional request
   * (If-None-Match / If-Modified-Since) and rewritten only when they changed; 0 revalidates every tile.
   */
  maxAge?: number;
  /** Aborting stops the run gracefully: requests in flight finish and are stored, nothing new starts. */
  signal?: AbortSignal;
  /** Human-readable lines (already redacted). */
  log?: (line: string) => void;
  /** Called about once a second and at the end. */
  onProgress?: (p: ProgressSnapshot) => void;
  /** Called after each planned tile is settled (tests use it to interrupt a run midway). */
  onTile?: (task: TileTask, outcome: 'stored' | 'empty' | 'skipped' | 'failed') => void;
  batchSize?: number;
  batchMs?: number;
}
