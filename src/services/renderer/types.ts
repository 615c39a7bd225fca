// What the rest of the server asks of the map renderer (services/renderer/): raster tiles drawn here, by MapLibre GL
// JS in headless Chromium, from a map's stored style and the mirrored tile sets, fonts and sprites it names. Routes,
// static maps and the render job depend on this contract only, never on the browser pool behind it.

import type { RenderFormat } from '../../store/renders/render-store';

/** Formats a render is encoded in (by sharp, from the browser's pixels): the render store's. */
export type { RenderFormat };

/** One raster tile of a map, addressed as the served paths address it (`/maps/{id}/[256/]{z}/{x}/{y}[@2x].{fmt}`). */
export interface RenderTile {
  mapId: string;
  /** The style's version (the map store's `info.version`): renders of another version are not this tile. */
  styleVersion: string;
  /** Edge of the tile in CSS pixels: 512 (the map's main pyramid) or 256 (`/maps/{id}/256/`). */
  tileSize: 256 | 512;
  /** Pixel ratio: a @2x tile of 256 px is a 512 px image. */
  scale: 1 | 2;
  z: number;
  x: number;
  y: number;
  format: RenderFormat;
}

/** A tile and its encoded image, as a metatile's render hands them out. */
export interface RenderedTile {
  tile: RenderTile;
  data: Buffer;
}

/** Why the renderer cannot render now: disabled in the config, or no browser found (the message names the package). */
export interface RendererState {
  enabled: boolean;
  /** The reason rendering is off (absent when on): answered with 503 by every render. */
  reason?: string;
  /** The browser executable in use (absent when off). */
  browser?: string;
  /** Browser processes running now, renders in flight and waiting, and totals since start. */
  browsers: number;
  inFlight: number;
  waiting: number;
  rendered: number;
  failed: number;
  restarts: number;
}

export interface MapRenderer {
  /** Whether renders can be asked now, and what the pool is doing. */
  state(): RendererState;
  /**
   * The tile `tile`, rendered as part of its metatile (with a margin, so that labels and lines cross the tile's
   * edges as in the viewer). The metatile's other tiles are handed to `keep` (when given) as they are cut, so a
   * caller can store them. Throws a ServiceError: `unavailable` when rendering is off (the message says why and
   * names the browser package), `too-busy` with retryAfterSeconds when the queue is full, `not-found` when the map
   * has no style, `conflict` when `styleVersion` is no longer the map's, `invalid` off the zoom's matrix or beyond
   * MapLibre's zooms, `abandoned` when `signal` fires first (other callers of the same metatile still get theirs).
   */
  render(tile: RenderTile, options?: { signal?: AbortSignal; keep?: (tiles: RenderedTile[]) => void }): Promise<Buffer>;
  /**
   * Every tile of one metatile (the render job's unit): `n` × `n` tiles from (`x0`, `y0`) at `z`, clipped to the
   * zoom's matrix, in every format asked.
   */
  renderMetatile(
    area: Omit<RenderTile, 'x' | 'y' | 'format'> & { x0: number; y0: number; n: number; formats: RenderFormat[] },
    signal?: AbortSignal,
  ): Promise<RenderedTile[]>;
  /** Stops every browser; renders in flight are rejected as `unavailable`. */
  close(): Promise<void>;
}
