// The static-map service: lays a request out over a map (layout.ts) and draws it (render.ts) in turn through the
// render queue. It owns what renders share: the queue and its budget of pixels, decoded tiles, attribution
// badges and marker icons. One per server: the budget stands for the process's memory.

import type { Catalog } from '../../store/catalog/catalog';
import type { TileReader } from '../../store/tile-reader';
import { MarkerIcons } from './icons';
import { layoutStaticMap, type BaseTiles, type StaticMapLayout } from './layout';
import { RenderQueue, type RenderCounts } from './queue';
import { drawStaticMap, renderCaches, renderWeight, type RenderCaches } from './render';
import type { StaticMapRequest } from './request';

/** Pixels the renders in flight may hold together (a bigger one waits; one alone may exceed it). */
const PIXEL_BUDGET = 48 * 1024 * 1024;

export interface StaticMapsOptions {
  /** Most renders waiting for their turn; beyond, RenderQueueFull (default: no bound). */
  maxWaiting?: number;
  /** The pixel budget, when shared with other image work of the process (the map renderer's metatiles). */
  queue?: RenderQueue;
}

/** A render queue over the pixel budget static maps use (the process's share for image work). */
export function pixelBudget(): RenderQueue {
  return new RenderQueue(PIXEL_BUDGET);
}

export class StaticMaps {
  private readonly icons: MarkerIcons;
  private readonly queue: RenderQueue;
  /** What this service's renders did in the queue (which other image work may share). */
  private readonly counts: RenderCounts = { started: 0, dropped: 0, stopped: 0, refused: 0 };
  private readonly caches: RenderCaches = renderCaches();
  private readonly maxWaiting: number;

  constructor(catalog: Catalog, options: StaticMapsOptions = {}) {
    this.icons = new MarkerIcons(catalog);
    this.maxWaiting = options.maxWaiting ?? Infinity;
    this.queue = options.queue ?? pixelBudget();
  }

  /** Resolves the icons and the view of `request` over `map`; throws StaticMapError (`invalid`, or `not-found`). */
  layout(map: TileReader, request: StaticMapRequest, base?: BaseTiles): Promise<StaticMapLayout> {
    return layoutStaticMap(map, request, this.icons, base);
  }

  /**
   * Draws a layout into its format's bytes when its turn in the queue comes: RenderQueueFull when too many wait,
   * RenderAbandoned when `signal` fires (the client went away) before or while it is drawn.
   */
  render(layout: StaticMapLayout, signal?: AbortSignal): Promise<Buffer> {
    return this.queue.run(renderWeight(layout), this.maxWaiting, signal, () => drawStaticMap(layout, this.caches, signal), this.counts);
  }

  /** What the render queue did since it was made, and how many renders wait now. */
  renderCounts(): Readonly<RenderCounts> & { waiting: number } {
    return { ...this.counts, waiting: this.queue.queued };
  }
}
