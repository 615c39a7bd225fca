// Raster tiles of maps drawn here: what a map's mirrored pyramids do not hold (a map mirrored with `raster: render`,
// a zoom beyond its pyramid) is rendered from its style by the map renderer (services/renderer/) and kept in the
// map's render store (store/renders/), so each tile is drawn once per render version. The version is a digest of
// the map's store and of the tile sets its style's sources read: a new style or new data never serves old renders,
// and the stores of older versions are deleted when a newer one is opened.

import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync } from 'node:fs';
import { ServiceError } from '../errors';
import { LOCAL_SCHEME } from '../ogc/style';
import type { Catalog } from '../store/catalog/catalog';
import { ByteLru } from '../store/bytes/lru';
import { createRenderStore, pruneRenderStores, RenderStore, renderPyramidName, renderStorePath, type KeptRender, type RenderVariant } from '../store/renders/render-store';
import type { TileStore } from '../store/tile-reader';
import type { Pyramid } from '../store/types';
import { storedBase, type BaseTiles } from './static-maps';
import type { MapRenderer, RenderedTile, RenderTile } from './renderer/types';



/** A tile of a map asked for by its served address. */
export interface MapTileAsk extends RenderVariant {
  z: number;
  x: number;
  y: number;
}

/** Names of the rendered levels a static map's base lists beside the mirrored pyramids. */
const RENDERED_PREFIX = 'rendered:';

/** How often an open render store checks that its file was not replaced (a render job's publish). */
const RECHECK_MS = 1000;

interface StyleFacts {
  /** The render version: a digest of the map's store and its sources' files. */
  version: string;
  /** The tile sets the style's sources read, by id. */
  sources: TileStore[];
  /** The zooms the sources hold, as 512 px map zooms (a 256 px tile reads one zoom less). */
  minzoom: number;
  maxzoom: number;
}

export interface RenderedTilesOptions {
  catalog: Catalog;
  renderer?: MapRenderer;
  /** Keep renders on disk (`render.keep`), when the data directory is writable. */
  keep: boolean;
  /** Says once why renders are not kept (a read-only data directory). */
  warn?: (message: string) => void;
}

export class RenderedTiles {
  /** Open render stores by map id: the one of the current render version. */
  private readonly stores = new Map<string, { version: string; store: RenderStore; checked: number }>();
  /** Kept renders read lately (the same buffers each time: their replies are built once). */
  private readonly bytes = new ByteLru(32 * 1024 * 1024);
  private readonly styles = new WeakMap<TileStore, { ids: string[]; signatures: string; facts: StyleFacts | undefined }>();
  private writable: boolean | undefined;

  constructor(private readonly options: RenderedTilesOptions) {}

  /** Whether this server renders at all (a renderer is wired and on). */
  get enabled(): boolean {
    return !!this.options.renderer?.state().enabled;
  }

  /** The style's sources and zooms of a map, or undefined when it has no style or its style reads no mirrored tile set. */
  style(map: TileStore): StyleFacts | undefined {
    let known = this.styles.get(map);
    if (!known) {
      // A store object is one version of its file: its style is read once.
      known = { ids: styleSourceIds(map), signatures: '', facts: undefined };
      this.styles.set(map, known);
    }
    const sources = known.ids.map((id) => this.options.catalog.get('tiles', id)).filter((s): s is TileStore => !!s);
    const signatures = sources.map((s) => s.signature).join('|');
    if (known.signatures === signatures && (known.facts || signatures === '')) return known.facts;
    known.signatures = signatures;
    known.facts = sources.length
      ? {
          version: renderVersion(map, sources),
          sources,
          minzoom: Math.min(...sources.map((s) => s.info.minzoom)),
          maxzoom: Math.max(...sources.map((s) => s.info.maxzoom)),
        }
      : undefined;
    return known.facts;
  }

  /**
   * The zooms at which a tile of `tileSize` px can be rendered for `map` (undefined when it cannot be: no
   * renderer, no style, or no mirrored source): 0 to the sources' highest zoom (one more for 256 px tiles).
   */
  drawable(map: TileStore, tileSize: 256 | 512): { minzoom: number; maxzoom: number } | undefined {
    if (!this.enabled) return undefined;
    const s = this.style(map);
    if (!s) return undefined;
    return { minzoom: 0, maxzoom: s.maxzoom + (tileSize === 256 ? 1 : 0) };
  }

  /** Why `map` cannot be rendered now, in words for a client. */
  private whyNot(map: TileStore): string {
    const state = this.options.renderer?.state();
    if (!state) return 'rendering is not available on this server';
    if (!state.enabled) return `rendering is off: ${state.reason ?? 'disabled'}`;
    return this.style(map) ? 'cannot be rendered now' : 'its style reads no mirrored tile set (mirror its dependencies)';
  }

  /** A kept render, or undefined. Read through a byte cache, as mirrored tiles are. */
  kept(map: TileStore, t: MapTileAsk): Buffer | undefined {
    const facts = this.style(map);
    if (!facts) return undefined;
    const key = `${facts.version}/${renderPyramidName(t)}/${t.z}/${t.x}/${t.y}`;
    const hit = this.bytes.get(key);
    if (hit) return hit;
    const data = this.storeOf(map, facts, false)?.get(t, t.z, t.x, t.y);
    if (data) this.bytes.set(key, data);
    return data;
  }

  /**
   * The tile `t` of `map`: kept, or rendered now (its metatile's other tiles kept too). ServiceError `not-found`
   * when the map has no style over mirrored tile sets; the renderer's errors otherwise (`unavailable`, `too-busy`).
   */
  async tile(map: TileStore, t: MapTileAsk, signal?: AbortSignal): Promise<Buffer> {
    const { renderer } = this.options;
    const facts = this.style(map);
    if (!facts) throw new ServiceError('unavailable', `Map ${map.info.id} cannot be rendered: its style reads no mirrored tile set (mirror its dependencies)`);
    const keptTile = this.kept(map, t);
    if (keptTile) return keptTile;
    if (!renderer?.state().enabled) throw new ServiceError('unavailable', `Map ${map.info.id} is drawn here and ${this.whyNot(map)}`);
    const ask: RenderTile = { mapId: map.info.id, styleVersion: map.info.version, ...t };
    const store = this.options.keep ? this.storeOf(map, facts, true) : undefined;
    if (!store?.writable) return renderer.render(ask, { signal });
    const keep = (tiles: RenderedTile[]): void => {
      try {
        store.put(tiles.map((r): KeptRender => ({ tileSize: r.tile.tileSize, scale: r.tile.scale, format: r.tile.format, z: r.tile.z, x: r.tile.x, y: r.tile.y, data: r.data })));
      } catch (err) {
        this.options.warn?.(`renders of ${map.info.id} not kept: ${(err as Error).message}`);
      }
    };
    // The renderer hands the metatile's other tiles to `keep`; the one asked for is kept here.
    const data = await renderer.render(ask, { signal, keep });
    keep([{ tile: ask, data }]);
    return data;
  }

  /**
   * The render store of `map` at its current version: opened (created when `create` and writable), the stores of
   * older versions closed and deleted. Undefined when there is none to read.
   */
  private storeOf(map: TileStore, facts: StyleFacts, create: boolean): RenderStore | undefined {
    const { version } = facts;
    const id = map.info.id;
    const open = this.stores.get(id);
    if (open && open.version === version) {
      const now = Date.now();
      if (now - open.checked < RECHECK_MS) return open.store;
      open.checked = now;
      if (open.store.current()) return open.store;
      open.store.close();
      this.stores.delete(id);
    } else if (open) {
      open.store.close();
      this.stores.delete(id);
    }
    const dataDir = this.options.catalog.dataDir;
    const file = renderStorePath(dataDir, id, version);
    const writable = this.canWrite(dataDir);
    if (!existsSync(file)) {
      if (!create || !writable) return undefined;
      createRenderStore(file, { name: map.info.name, attribution: map.info.attribution, version });
    }
    if (writable) pruneRenderStores(dataDir, id, version);
    const store = new RenderStore(file, writable);
    this.stores.set(id, { version, store, checked: Date.now() });
    return store;
  }

  private canWrite(dataDir: string): boolean {
    if (this.writable === undefined) {
      try {
        accessSync(dataDir, constants.W_OK);
        this.writable = true;
      } catch {
        this.writable = false;
        this.options.warn?.(`the data directory ${dataDir} is not writable: renders are served, not kept`);
      }
    }
    return this.writable;
  }

  /**
   * Where a reprojected image (WMS GetMap, a tile of another grid) of a layer takes its pixels: a map's static-map
   * base (mirrored pyramids, then renders), any other store's pyramid `pyramidName` as stored.
   */
  rasterBase(store: TileStore, pyramidName: string): BaseTiles {
    return store.info.kind === 'maps' ? this.staticBase(store) : storedBase(store, pyramidName);
  }

  /**
   * Where a static map of `map` takes its base pixels: its mirrored pyramids first (a tie in chooseLevel goes to
   * them), then, when it can be rendered, 512 px renders at 1x and 2x to the zooms its style draws.
   */
  staticBase(map: TileStore): BaseTiles {
    const stored = storedBase(map);
    const zooms = this.drawable(map, 512);
    const facts = this.style(map);
    if (!zooms || !facts) {
      if (map.info.raster !== 'render') return stored;
      throw new ServiceError('unavailable', `Map ${map.info.id} is drawn here and ${this.whyNot(map)}`);
    }
    // The @2x level stops a zoom short of the 1x one: both then end at the same detail (a @2x tile at z is a 1x tile
    // at z+1), so the renders add no zoom a static map may ask for beyond what the style draws, and at a mirrored
    // zoom a rendered level never lies nearer in scale than the mirrored one (chooseLevel takes the mirrored on a tie).
    const rendered: Pyramid[] = ([1, 2] as const).map((scale) => ({
      name: `${RENDERED_PREFIX}${renderPyramidName({ tileSize: 512, scale, format: 'png' })}`,
      tileSize: 512,
      scale,
      format: 'png',
      minzoom: zooms.minzoom,
      maxzoom: Math.max(zooms.minzoom, zooms.maxzoom - (scale - 1)),
      bounds: map.info.bounds,
    }));
    return {
      pyramids: [...(map.info.raster === 'render' ? [] : map.info.pyramids), ...rendered],
      version: `${map.info.version}+${facts.version}`,
      tile: (pyramid, z, x, y) => {
        if (!pyramid.startsWith(RENDERED_PREFIX)) return map.tile(pyramid, z, x, y);
        const scale = pyramid.includes('@2x') ? 2 : 1;
        return this.tile(map, { tileSize: 512, scale, format: 'png', z, x, y });
      },
    };
  }

  /** Closes the open render stores. */
  close(): void {
    for (const { store } of this.stores.values()) store.close();
    this.stores.clear();
  }
}

/** The render version of a map: a digest of its store's file and of its sources' files (inode, size, mtime). */
function renderVersion(map: TileStore, sources: readonly TileStore[]): string {
  const h = createHash('sha256').update(map.signature);
  for (const s of sources) h.update(`|${s.info.id}:${s.signature}`);
  return h.digest('hex').slice(0, 16);
}

/** The ids of the mirrored tile sets a map's stored style reads (`tilemirror://tiles/{id}/tiles.json` sources). */
function styleSourceIds(map: TileStore): string[] {
  const doc = map.document('style.json');
  if (!doc) return [];
  let style: { sources?: Record<string, { url?: unknown } | null> };
  try {
    style = JSON.parse(doc.data.toString('utf8')) as typeof style;
  } catch {
    return [];
  }
  const local = new RegExp(`^${LOCAL_SCHEME}tiles/([^/?#]+)/tiles\\.json$`);
  const ids = Object.values(style.sources ?? {}).flatMap((source) => {
    const m = typeof source?.url === 'string' ? local.exec(source.url) : null;
    if (!m) return [];
    try {
      return [decodeURIComponent(m[1])];
    } catch {
      return [];
    }
  });
  return [...new Set(ids)];
}
