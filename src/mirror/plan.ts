// What a run fetches: areas (bboxes) ∩ the upstream pyramid's bounds, per zoom, as tile rectangles from
// geo/mercator tileRange. Overlapping areas are merged into disjoint "bands" (rows sharing the same set of
// column intervals), so a tile is planned once however many areas cover it, counts are exact sums of
// rectangles, and the tiles themselves are only ever produced one at a time by a generator: a plan of a
// million tiles costs a few numbers per zoom, not a million objects.

import { createHash } from 'node:crypto';
import { MAX_ZOOM, tileRange, type TileRange } from '../geo/mercator';
import { bandCount, rangesToBands, type PyramidPlan, type ZoomPlan } from '../geo/tile-bands';
import type { Bounds } from '../geo/bounds';
import { coverZoom, type PolygonArea } from './area';
import { RASTER_MODE_KEY, type Pyramid } from '../store/types';
import type { StoreHeader } from '../store/mbtiles/writer';
import type { Discovered, ZoomLimits } from './discovery/types';
import type { ResourceRef } from './resource';
import { UsageError } from './errors';


/** `W,S,E,N` in degrees; W > E crosses the antimeridian. */
export function parseBBox(text: string): Bounds {
  const parts = text.split(',').map((s) => s.trim());
  const nums = parts.map(Number);
  if (parts.length !== 4 || parts.some((p) => p === '') || !nums.every(Number.isFinite)) {
    throw new UsageError(`invalid bbox "${text}": expected W,S,E,N in degrees`);
  }
  const [w, s, e, n] = nums;
  if (w < -180 || w > 180 || e < -180 || e > 180) throw new UsageError(`invalid bbox "${text}": longitudes must lie in -180..180`);
  if (s < -90 || n > 90 || s > n) throw new UsageError(`invalid bbox "${text}": need -90 <= S <= N <= 90`);
  return [w, s, e, n];
}

/** `MIN-MAX` or a single zoom `Z`. */
export function parseZoomRange(text: string): [number, number] {
  const m = /^\s*(\d{1,2})\s*(?:-\s*(\d{1,2})\s*)?$/.exec(text);
  if (!m) throw new UsageError(`invalid zoom range "${text}": expected MIN-MAX, e.g. 0-8`);
  const lo = Number(m[1]);
  const hi = m[2] === undefined ? lo : Number(m[2]);
  if (lo > hi || hi > MAX_ZOOM) throw new UsageError(`invalid zoom range "${text}": need 0 <= MIN <= MAX <= ${MAX_ZOOM}`);
  return [lo, hi];
}

/** A box crossing the antimeridian (W > E) as the two boxes on either side of it. */
export function splitAntimeridian(b: Bounds): Bounds[] {
  return b[0] <= b[2] ? [b] : [[b[0], b[1], 180, b[3]], [-180, b[1], b[2], b[3]]];
}

function intersectRanges(a: TileRange, b: TileRange): TileRange | undefined {
  const r = { minX: Math.max(a.minX, b.minX), minY: Math.max(a.minY, b.minY), maxX: Math.min(a.maxX, b.maxX), maxY: Math.min(a.maxY, b.maxY) };
  return r.minX <= r.maxX && r.minY <= r.maxY ? r : undefined;
}

/**
 * Tiles at zoom z inside any of the areas (boxes, and GeoJSON polygons: see area.ts) and inside the upstream
 * bounds (and inside `limit`, the upstream's own tile limits at z, e.g. WMTS TileMatrixSetLimits; null: none).
 */
export function planZoom(areas: Bounds[], upstreamBounds: Bounds, z: number, polygons: PolygonArea[] = [], limit?: TileRange | null): ZoomPlan {
  let limits = splitAntimeridian(upstreamBounds).map((b) => tileRange(b, z));
  if (limit === null) return { z, bands: [], count: 0 };
  if (limit) limits = limits.map((l) => intersectRanges(l, limit)).filter((l): l is TileRange => !!l);
  if (polygons.length > 0) return coverZoom({ areas: polygons, bboxes: areas, within: limits }, z);
  const ranges: TileRange[] = [];
  for (const area of areas.flatMap(splitAntimeridian)) {
    const r = tileRange(area, z);
    for (const lim of limits) {
      const i = intersectRanges(r, lim);
      if (i) ranges.push(i);
    }
  }
  const bands = rangesToBands(ranges);
  return { z, bands, count: bands.reduce((n, b) => n + bandCount(b), 0) };
}

export interface PyramidExtent {
  minzoom: number;
  maxzoom: number;
  bounds: Bounds;
}

/**
 * The plan of one pyramid: requested zooms ∩ the pyramid's zooms, areas (boxes and polygons) ∩ its bounds
 * (no areas: all of it) ∩ its per-zoom limits, if any.
 */
export function planPyramid(
  name: string,
  extent: PyramidExtent,
  areas: Bounds[] = [],
  zooms?: [number, number],
  polygons: PolygonArea[] = [],
  limits?: ZoomLimits,
): PyramidPlan {
  const lo = Math.max(extent.minzoom, zooms?.[0] ?? extent.minzoom);
  const hi = Math.min(extent.maxzoom, zooms?.[1] ?? extent.maxzoom);
  const wanted = areas.length || polygons.length ? areas : [extent.bounds];
  const out: ZoomPlan[] = [];
  for (let z = lo; z <= hi; z++) out.push(planZoom(wanted, extent.bounds, z, polygons, limits?.[z]));
  return { pyramid: name, zooms: out, count: out.reduce((n, zp) => n + zp.count, 0) };
}

/** The degree box around the areas clipped to the upstream bounds: the bounds the mirrored pyramid advertises. */
export function planBounds(extent: Bounds, areas: Bounds[]): Bounds {
  if (areas.length === 0) return extent;
  const boxes = areas
    .flatMap(splitAntimeridian)
    .map((a): Bounds => [Math.max(a[0], extent[0]), Math.max(a[1], extent[1]), Math.min(a[2], extent[2]), Math.min(a[3], extent[3])])
    .filter((b) => b[0] <= b[2] && b[1] <= b[3]);
  // Nothing in common: keep the upstream's own bounds (the plan is then empty anyway).
  if (boxes.length === 0 || extent[0] > extent[2]) return extent;
  return [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))];
}

/** A short, stable description of a plan (its rectangles): part of the staging fingerprint. */
export function planSignature(plans: PyramidPlan[]): string {
  return JSON.stringify(plans.map((p) => [p.pyramid, p.zooms.map((z) => [z.z, z.bands.map((b) => [b.y0, b.y1, b.xs])])]));
}

export interface Planned {
  ref: ResourceRef;
  discovered: Discovered;
  plans: PyramidPlan[];
  /** The header to write: pyramids narrowed to the planned zooms and areas. */
  header: StoreHeader;
  total: number;
  /** What the request narrowed or could not have (zooms or areas beyond the upstream's), for the summary. */
  notes: string[];
  /**
   * A map planned with `raster: render`: the plans of its raster pyramids, which the header describes but the run
   * does not fetch (the server renders their tiles). Their count is what the mode saves.
   */
  rendered?: PyramidPlan[];
}

const boxesMeet = (a: Bounds, b: Bounds): boolean =>
  splitAntimeridian(a).some((x) => splitAntimeridian(b).some((y) => x[0] <= y[2] && y[0] <= x[2] && x[1] <= y[3] && y[1] <= x[3]));

const fmtBox = (b: Bounds): string => `[${b.map((v) => Math.round(v * 1e4) / 1e4).join(', ')}]`;

/** The header's centre kept inside the mirrored bounds and zooms (a narrowed mirror must not open elsewhere). */
export function centreWithin(c: [number, number, number], bounds: Bounds, minzoom: number, maxzoom: number): [number, number, number] {
  const z = Math.min(maxzoom, Math.max(minzoom, c[2]));
  if (boxesMeet([c[0], c[1], c[0], c[1]], bounds)) return [c[0], c[1], z];
  const lon = bounds[0] <= bounds[2] ? (bounds[0] + bounds[2]) / 2 : ((bounds[0] + bounds[2] + 360) / 2 + 180) % 360 - 180;
  return [lon, (bounds[1] + bounds[3]) / 2, z];
}

/**
 * Pyramids narrowed to what the plan holds (the served TileJSON and bounds checks then describe the mirror).
 * Throws UsageError when the request has nothing in common with the upstream pyramids (zooms or areas).
 */
export function planDiscovered(d: Discovered, zoom?: [number, number], bboxes: Bounds[] = [], areas: PolygonArea[] = []): Omit<Planned, 'ref'> {
  const plans: PyramidPlan[] = [];
  const pyramids: Pyramid[] = [];
  const notes: string[] = [];
  const what = `${d.kind}/${d.id}`;
  const wanted = [...bboxes, ...areas.map((a) => a.bbox)];
  // Degree boxes first: at low zooms a far-away box and the upstream's bounds share a tile, which would be "mirrored".
  if (wanted.length > 0) {
    const upstreamBounds = d.pyramids.map((u) => u.pyramid.bounds);
    const missing = wanted.filter((w) => !upstreamBounds.some((b) => boxesMeet(w, b)));
    if (missing.length === wanted.length) {
      throw new UsageError(`${what}: the requested area ${wanted.map(fmtBox).join(', ')} misses the source's bounds ${upstreamBounds.map(fmtBox).join(', ')}`);
    }
    for (const m of missing) notes.push(`the area ${fmtBox(m)} misses the source's bounds: nothing mirrored for it`);
  }
  for (const u of d.pyramids) {
    const plan = planPyramid(u.pyramid.name, u.pyramid, bboxes, zoom, areas, u.limits);
    if (plan.zooms.length === 0) continue;
    plans.push(plan);
    pyramids.push({
      ...u.pyramid,
      minzoom: plan.zooms[0].z,
      maxzoom: plan.zooms[plan.zooms.length - 1].z,
      bounds: planBounds(u.pyramid.bounds, wanted),
    });
  }
  if (plans.length === 0) {
    const offered = d.pyramids.map((u) => `${u.pyramid.minzoom}-${u.pyramid.maxzoom}`).join(', ');
    throw new UsageError(`${what}: the requested zooms ${zoom?.join('-')} are outside the upstream's (${offered})`);
  }
  const main = pyramids[0];
  if (zoom && (zoom[0] < main.minzoom || zoom[1] > main.maxzoom)) {
    notes.push(`zooms ${zoom[0]}-${zoom[1]} requested, the source has ${d.pyramids[0].pyramid.minzoom}-${d.pyramids[0].pyramid.maxzoom}: mirrored ${main.minzoom}-${main.maxzoom}`);
  }
  const header: StoreHeader = {
    ...d.header,
    pyramids,
    // Without one, the store's reader takes the middle of the bounds.
    center: d.header.center && centreWithin(d.header.center, main.bounds, main.minzoom, main.maxzoom),
  };
  return { discovered: d, plans, header, total: plans.reduce((n, p) => n + p.count, 0), notes };
}

/**
 * A map's plan under `raster: render`: its pyramids stay in the header exactly as planned (names, zooms, bounds,
 * format) and the store is marked for the server to render them; their tiles leave the plan, so none is fetched
 * and the staging store is pruned of any it held. The plans go to `rendered`: what the mode saves.
 */
export function renderRaster(p: Omit<Planned, 'ref'>): Omit<Planned, 'ref'> {
  const described = p.header.pyramids.map((py) => `${py.name} (z${py.minzoom}-${py.maxzoom})`).join(', ');
  return {
    ...p,
    plans: [],
    total: 0,
    rendered: p.plans,
    header: { ...p.header, extraMetadata: { ...p.header.extraMetadata, [RASTER_MODE_KEY]: 'render' } },
    notes: [...p.notes, `raster: render: the pyramids ${described} are described, their ${p.total} tiles not fetched: the server renders them from the style, whose tile sets, fonts and sprites are mirrored with the map`],
  };
}

/**
 * The zooms to plan of a tile set a rendered map draws from: asked zooms wholly above the source's deepest start at
 * that deepest zoom, whose tiles the renderer overzooms, instead of planning nothing (a usage error).
 */
export function overzoomed(zoom: [number, number], d: Discovered): [number, number] {
  const deepest = Math.max(...d.pyramids.map((u) => u.pyramid.maxzoom));
  return zoom[0] > deepest ? [deepest, zoom[1]] : zoom;
}

/** The tiles a `raster: render` plan does not fetch (0 for any other plan). */
export const renderedTiles = (p: Pick<Planned, 'rendered'>): number => (p.rendered ?? []).reduce((n, plan) => n + plan.count, 0);

/**
 * Identifies the upstream resource a store mirrors: staging or published files of another one are not reused.
 * A map rendered (`raster: render`) is told apart from the same map mirrored: a run switching between the two
 * starts a new file instead of copying one whose raster tiles it would only delete (SQLite keeps a file's size).
 */
export function fingerprintOf(base: string, d: Discovered, rendered = false): string {
  const pyramids = d.pyramids.map((u) => [u.pyramid.name, u.pyramid.format, u.pyramid.tileSize, u.pyramid.scale, u.template]);
  return fingerprint([base, d.kind, d.id, pyramids, ...(rendered ? ['raster:render'] : [])]);
}

/** The fingerprint of a planned tile store (see fingerprintOf). */
export const plannedFingerprint = (base: string, p: Pick<Planned, 'discovered' | 'rendered'>): string => fingerprintOf(base, p.discovered, p.rendered !== undefined);

/** The fingerprint of what a store mirrors (tile and document stores alike): SHA-256 of the parts as JSON. */
export function fingerprint(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}
