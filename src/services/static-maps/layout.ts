// A static map worked out before it is drawn: where it looks (its view: centre and zoom, fitted for bounds and
// auto), which stored level its pixels come from, the marker icons, the attribution, and the ETag of the image.
// Reads stores and decodes icons; draws nothing (render.ts does).

import { shortestArc } from '../../geo/arc';
import { digestTag } from '../../store/bytes/etag';
import type { TileReader } from '../../store/tile-reader';
import type { Pyramid } from '../../store/types';
import type { Icon, MarkerIcons } from './icons';
import { attributionText, markerExtents, pathWorld, type Window } from './overlay';
import { StaticMapError, type StaticMapRequest } from './request';
import { chooseLevel, fitBox, OVERZOOM, UNDERZOOM, worldX, worldY, zoomRange, type Extents, type Level } from './view';

/** Bumped when the same request would render differently: part of every ETag. */
const RENDERER_VERSION = 'static-1';
/**
 * Where a static map's base pixels come from: the map's mirrored pyramids, and the pyramids drawn here from its
 * style when it can be rendered (rendered-tiles.ts). `version` changes whenever a tile would.
 */
export interface BaseTiles {
  pyramids: readonly Pyramid[];
  version: string;
  tile(pyramid: string, z: number, x: number, y: number): Buffer | undefined | Promise<Buffer | undefined>;
}

/** The stored pyramids of a store as a base: all of them, or the one named. */
export function storedBase(store: TileReader, pyramidName?: string): BaseTiles {
  const pyramids = pyramidName === undefined ? store.info.pyramids : store.info.pyramids.filter((p) => p.name === pyramidName);
  return { pyramids, version: store.info.version, tile: (p, z, x, y) => store.tile(p, z, x, y) };
}

export interface StaticMapLayout {
  request: StaticMapRequest;
  store: TileReader;
  /** The pixels under the image: `level` names one of its pyramids. */
  base: BaseTiles;
  /** 512 px-pyramid zoom of the image (computed for bounds and auto). */
  zoom: number;
  /** Centre in world fractions (x in 0..1). */
  center: [number, number];
  level: Level;
  window: Window;
  icons: Array<Icon | undefined>;
  attribution: string;
  /** Identifies the image this layout renders (store version, icons, request). */
  etag: string;
  mediaType: string;
}

const MEDIA: Record<StaticMapRequest['format'], string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };

const round6 = (v: number): number => Math.round(v * 1e6) / 1e6;

/** The zoom and centre of the image, from the request's view (center, bounds, or every path and marker). */
export function placeView(
  req: StaticMapRequest,
  range: { coarsest: number; finest: number },
  extents: Extents[],
): { zoom: number; cx: number; cy: number } {
  const minFit = range.coarsest - UNDERZOOM;
  const maxFit = Math.max(minFit, range.finest);
  const { area: view } = req;
  if (view.kind === 'center') {
    const lo = Math.max(0, range.coarsest - UNDERZOOM);
    const hi = range.finest + OVERZOOM;
    if (view.zoom < lo || view.zoom > hi) {
      throw new StaticMapError(`Out of bounds: zoom ${view.zoom} is outside ${round6(lo)}..${round6(hi)} for this map (mirrored to zoom ${round6(range.finest)})`);
    }
    return { zoom: view.zoom, cx: worldX(view.lon), cy: worldY(view.lat) };
  }
  const fit = { width: req.width, height: req.height, padding: req.padding, minZoom: minFit, maxZoom: maxFit };
  if (view.kind === 'bounds') {
    const [w, s, e, n] = view.bounds;
    return fitBox({ ...fit, box: [worldX(w), worldY(n), worldX(e), worldY(s)] });
  }
  // auto: every path vertex and marker; across the dateline when shortest paths are asked for.
  const intervals: Array<[number, number]> = [];
  let minY = Infinity;
  let maxY = -Infinity;
  for (const p of req.paths) {
    let a = Infinity;
    let b = -Infinity;
    for (const [x, y] of pathWorld(p)) {
      a = Math.min(a, x);
      b = Math.max(b, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
    intervals.push([a, b]);
  }
  for (const m of req.markers) {
    const x = worldX(m.lon);
    const y = worldY(m.lat);
    intervals.push([x, x]);
    minY = Math.min(minY, y);
    maxY = Math.max(maxY, y);
  }
  let x0: number;
  let x1: number;
  if (req.shortest || req.paths.some((p) => p.shortest)) [x0, x1] = shortestArc(intervals);
  else [x0, x1] = [Math.min(...intervals.map((i) => i[0])), Math.max(...intervals.map((i) => i[1]))];
  const room: Extents = { left: 0, right: 0, top: 0, bottom: 0 };
  for (const e of extents) {
    room.left = Math.max(room.left, e.left);
    room.right = Math.max(room.right, e.right);
    room.top = Math.max(room.top, e.top);
    room.bottom = Math.max(room.bottom, e.bottom);
  }
  return fitBox({ ...fit, box: [x0, minY, x1, maxY], extents: room });
}

/** Resolves icons and the view; throws StaticMapError (`invalid`, or `not-found` for a map without raster tiles). */
export async function layoutStaticMap(store: TileReader, req: StaticMapRequest, markerIcons: MarkerIcons, base: BaseTiles = storedBase(store)): Promise<StaticMapLayout> {
  const range = zoomRange(base.pyramids);
  const pending = new Map<string, Promise<Icon>>();
  const icons = await Promise.all(
    req.markers.map((m) => {
      if (m.icon.kind === 'pin') return undefined;
      const deviceScale = req.scale * m.scale;
      const key = `${JSON.stringify(m.icon)}@${deviceScale}`;
      let p = pending.get(key);
      if (!p) pending.set(key, (p = markerIcons.resolve(store, m.icon, deviceScale)));
      return p;
    }),
  );
  const extents = req.markers.map((m, i) => markerExtents(m, icons[i]));
  const view = placeView(req, range, extents);
  const cx = view.cx - Math.floor(view.cx);
  const cy = view.cy;
  const outW = req.width * req.scale;
  const outH = req.height * req.scale;
  const world = 512 * 2 ** view.zoom * req.scale;
  // The window's origin is a whole device pixel: at an integer zoom the stored tiles land pixel for pixel
  // (the centre moves by at most half a pixel); the overlay uses the same origin, so it is exact on the map.
  const window: Window = { x0: Math.round(cx * world - outW / 2), y0: Math.round(cy * world - outH / 2), world, width: outW, height: outH, scale: req.scale };
  const level = chooseLevel(base.pyramids, view.zoom, req.scale);
  const attribution = req.attribution === false ? '' : attributionText(store.info.attribution);
  const etag = digestTag(JSON.stringify([RENDERER_VERSION, store.info.id, base.version, icons.map((i) => i?.version ?? ''), req]));
  return { request: req, store, base, zoom: view.zoom, center: [cx, cy], level, window, icons, attribution, etag, mediaType: MEDIA[req.format] };
}
