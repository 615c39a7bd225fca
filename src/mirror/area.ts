// GeoJSON areas (Polygon, MultiPolygon, Feature, FeatureCollection of those; lon/lat) as tile covers, per zoom,
// exactly: a tile is in when the polygon overlaps it with a positive area (tiles only touched along an edge or at
// a corner stay out, as with bboxes in geo/mercator tileRange), holes included. Vertices are projected to Web
// Mercator and edges are straight lines there (as drawn on a map, and as @mapbox/tile-cover does it).
//
// The cover of one zoom is computed row by row with a sweep over the polygon edges (an active-edge list, so a
// row costs the edges crossing it, not all of them) and comes out as the plan's bands: rows with their column
// intervals, adjacent identical rows merged. A country at z14 is some thousands of small rows, never a list of
// its million tiles. For one row (the strip between two tile edges) the columns are the x-extent of
// polygon ∩ strip, which is the x-extent of its boundary: the polygon edges clipped to the strip, plus the
// polygon's intervals on the strip's two bounding lines (an even-odd scanline, which also handles holes).
//
// Antimeridian: a ring must not jump across it (RFC 7946 §3.1.9 says to split such polygons). Either split the
// polygon at ±180, or write longitudes continuing past 180 (e.g. 170..190 or -190..-170): such rings are
// covered in an extended column space and their columns wrapped around, so both forms work. A ring with a
// longitude jump of more than 180° between two vertices is refused with a message saying so.

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { tileRange, type TileRange } from '../geo/mercator';
import type { Bounds } from '../geo/bounds';
import type { Band, ZoomPlan } from '../geo/tile-bands';
import { UsageError } from './errors';

/** A polygon area: polygons (outer ring, then holes) in lon/lat degrees. */
export interface PolygonArea {
  /** For messages (the file name, or the feature's name). */
  name: string;
  /** Polygons as GeoJSON coordinates: rings of [lon, lat] positions, the first one the outer ring. */
  polygons: [number, number][][][];
  /** West, south, east, north around all polygons (W > E when it crosses the antimeridian). */
  bbox: Bounds;
}

/** Closed-set slack in tile units: edges on a tile edge do not pull the neighbour in (like tileRange's snap). */
const EPS = 1e-9;
/** Latitudes beyond this are projected as this (the Mercator y of ±90 is infinite); rows are clipped anyway. */
const POLE_LAT = 89.99999;

type Position = [number, number];

function isPosition(p: unknown): p is Position {
  return Array.isArray(p) && p.length >= 2 && typeof p[0] === 'number' && typeof p[1] === 'number' && Number.isFinite(p[0]) && Number.isFinite(p[1]);
}

function checkRing(ring: unknown, where: string): Position[] {
  if (!Array.isArray(ring) || !ring.every(isPosition)) throw new UsageError(`${where}: a ring must be an array of [lon, lat] positions`);
  const pts = ring.map((p) => [p[0], p[1]] as Position);
  // GeoJSON rings are closed (first == last); tolerate an open one.
  if (pts.length > 1 && pts[0][0] === pts[pts.length - 1][0] && pts[0][1] === pts[pts.length - 1][1]) pts.pop();
  if (pts.length < 3) throw new UsageError(`${where}: a ring needs at least 3 distinct positions`);
  for (const [lon, lat] of pts) {
    if (lat < -90 || lat > 90) throw new UsageError(`${where}: latitude ${lat} is outside -90..90 (positions are [lon, lat])`);
    if (lon < -540 || lon > 540) throw new UsageError(`${where}: longitude ${lon} is out of range`);
  }
  for (let i = 0; i < pts.length; i++) {
    const a = pts[i];
    const b = pts[(i + 1) % pts.length];
    if (Math.abs(a[0] - b[0]) > 180) {
      throw new UsageError(
        `${where}: the ring jumps ${Math.abs(a[0] - b[0]).toFixed(1)}° in longitude between [${a.join(', ')}] and [${b.join(', ')}]: ` +
          'split a polygon crossing the antimeridian at ±180 (RFC 7946 §3.1.9), or continue its longitudes past 180',
      );
    }
  }
  return pts;
}

function polygonsOf(geometry: unknown, where: string): Position[][][] {
  const g = geometry as { type?: unknown; coordinates?: unknown; geometries?: unknown } | null;
  if (!g || typeof g !== 'object') throw new UsageError(`${where}: not a GeoJSON object`);
  const polygon = (coords: unknown, at: string): Position[][] => {
    if (!Array.isArray(coords) || coords.length === 0) throw new UsageError(`${at}: a Polygon needs at least an outer ring`);
    return coords.map((r, i) => checkRing(r, `${at} ring ${i}`));
  };
  switch (g.type) {
    case 'Polygon':
      return [polygon(g.coordinates, where)];
    case 'MultiPolygon':
      if (!Array.isArray(g.coordinates)) throw new UsageError(`${where}: MultiPolygon coordinates must be an array`);
      return g.coordinates.map((c, i) => polygon(c, `${where} polygon ${i}`));
    case 'GeometryCollection':
      if (!Array.isArray(g.geometries)) throw new UsageError(`${where}: GeometryCollection needs geometries`);
      return g.geometries.flatMap((x, i) => polygonsOf(x, `${where} geometry ${i}`));
    case 'Feature':
      return polygonsOf((g as { geometry?: unknown }).geometry, where);
    case 'FeatureCollection': {
      const features = (g as { features?: unknown }).features;
      if (!Array.isArray(features)) throw new UsageError(`${where}: FeatureCollection needs features`);
      return features.flatMap((f, i) => polygonsOf(f, `${where} feature ${i}`));
    }
    default:
      throw new UsageError(`${where}: ${typeof g.type === 'string' ? `a ${g.type}` : 'this'} is not an area: expected a Polygon or MultiPolygon (or a Feature or FeatureCollection of them)`);
  }
}

/** The lon/lat box around polygons; longitudes past ±180 give a box crossing the antimeridian (W > E). */
export function polygonsBBox(polygons: Position[][][]): Bounds {
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const poly of polygons)
    for (const [lon, lat] of poly[0]) {
      w = Math.min(w, lon);
      e = Math.max(e, lon);
      s = Math.min(s, lat);
      n = Math.max(n, lat);
    }
  if (e - w >= 360) return [-180, s, 180, n];
  const wrap = (lon: number): number => (lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon);
  return [wrap(w), s, wrap(e), n];
}

/** An area from a parsed GeoJSON object. Throws UsageError naming what is wrong. */
export function parseArea(geojson: unknown, name: string): PolygonArea {
  const polygons = polygonsOf(geojson, name);
  if (polygons.length === 0) throw new UsageError(`${name}: no polygon in it`);
  return { name, polygons, bbox: polygonsBBox(polygons) };
}

/** Reads a GeoJSON file as an area. Throws UsageError (unreadable, not JSON, not polygons). */
export function readAreaFile(file: string): PolygonArea {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read area file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`area file ${file} is not JSON: ${(err as Error).message}`);
  }
  return parseArea(json, basename(file));
}

// ---------------------------------------------------------------------------------------------------------
// Covering

/** An edge in world units (x, y in 0..1 across the Web Mercator square; x beyond for longitudes past ±180). */
interface Edge {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  ymin: number;
  ymax: number;
}

/** One polygon (outer ring and holes) projected once, its edges sorted by their top. */
interface Projected {
  edges: Edge[];
  ymin: number;
  ymax: number;
}

function project([lon, lat]: Position): [number, number] {
  const phi = (Math.max(-POLE_LAT, Math.min(POLE_LAT, lat)) * Math.PI) / 180;
  return [(lon + 180) / 360, (1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2];
}

const projectedCache = new WeakMap<PolygonArea, Projected[]>();

function projectArea(area: PolygonArea): Projected[] {
  let out = projectedCache.get(area);
  if (out) return out;
  out = area.polygons.map((rings) => {
    const edges: Edge[] = [];
    for (const ring of rings) {
      const pts = ring.map(project);
      for (let i = 0; i < pts.length; i++) {
        const [x0, y0] = pts[i];
        const [x1, y1] = pts[(i + 1) % pts.length];
        edges.push({ x0, y0, x1, y1, ymin: Math.min(y0, y1), ymax: Math.max(y0, y1) });
      }
    }
    edges.sort((a, b) => a.ymin - b.ymin);
    return { edges, ymin: edges.reduce((m, e) => Math.min(m, e.ymin), Infinity), ymax: edges.reduce((m, e) => Math.max(m, e.ymax), -Infinity) };
  });
  projectedCache.set(area, out);
  return out;
}

/** Sorted, merged, inclusive integer intervals (touching ones joined). */
function merge(intervals: [number, number][]): [number, number][] {
  if (intervals.length <= 1) return intervals;
  intervals.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [[intervals[0][0], intervals[0][1]]];
  for (let i = 1; i < intervals.length; i++) {
    const [lo, hi] = intervals[i];
    const last = out[out.length - 1];
    if (lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** Intersection of two sorted disjoint interval lists. */
function intersect(a: [number, number][], b: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const lo = Math.max(a[i][0], b[j][0]);
    const hi = Math.min(a[i][1], b[j][1]);
    if (lo <= hi) out.push([lo, hi]);
    if (a[i][1] < b[j][1]) i++;
    else j++;
  }
  return out;
}

/**
 * The sweep of one polygon down the rows of one zoom: `row(r)` gives the columns (fractional x-extents, in
 * tile units) of the polygon inside row r; rows must be asked in increasing order.
 */
class Sweep {
  private next = 0;
  private active: Edge[] = [];
  constructor(private readonly p: Projected, private readonly n: number) {}

  row(r: number): [number, number][] {
    const { n } = this;
    const top = r + EPS;
    const bottom = r + 1 - EPS;
    const edges = this.p.edges;
    while (this.next < edges.length && edges[this.next].ymin * n <= bottom) this.active.push(edges[this.next++]);
    this.active = this.active.filter((e) => e.ymax * n >= top);
    const spans: [number, number][] = [];
    // The polygon's intervals on the strip's two bounding lines (even-odd: holes are gaps).
    for (const line of [top, bottom]) {
      const xs: number[] = [];
      for (const e of this.active) {
        const y0 = e.y0 * n;
        const y1 = e.y1 * n;
        if (y0 <= line !== y1 <= line) xs.push(e.x0 * n + ((line - y0) / (y1 - y0)) * (e.x1 - e.x0) * n);
      }
      xs.sort((a, b) => a - b);
      for (let i = 0; i + 1 < xs.length; i += 2) spans.push([xs[i], xs[i + 1]]);
    }
    // The edges inside the strip, clipped to it.
    for (const e of this.active) {
      const y0 = e.y0 * n;
      const y1 = e.y1 * n;
      const x0 = e.x0 * n;
      const x1 = e.x1 * n;
      if (y0 === y1) {
        if (y0 >= top && y0 <= bottom) spans.push([Math.min(x0, x1), Math.max(x0, x1)]);
        continue;
      }
      const at = (y: number): number => x0 + ((y - y0) / (y1 - y0)) * (x1 - x0);
      const ya = Math.max(top, Math.min(y0, y1));
      const yb = Math.min(bottom, Math.max(y0, y1));
      if (ya > yb) continue;
      const xa = at(ya);
      const xb = at(yb);
      spans.push([Math.min(xa, xb), Math.max(xa, xb)]);
    }
    return spans;
  }
}

/** Columns of a row from fractional x-extents: those overlapping an extent by more than the slack, wrapped around the world. */
function columns(spans: [number, number][], n: number): [number, number][] {
  const out: [number, number][] = [];
  for (const [a, b] of spans) {
    const lo = Math.ceil(a - 1 + EPS);
    const hi = Math.floor(b - EPS);
    if (lo > hi) continue;
    if (hi - lo + 1 >= n) {
      out.push([0, n - 1]);
      continue;
    }
    // Extended columns (longitudes past ±180) wrap: at most two pieces since the span is narrower than the world.
    const l = ((lo % n) + n) % n;
    const h = l + (hi - lo);
    if (h < n) out.push([l, h]);
    else out.push([l, n - 1], [0, h - n]);
  }
  return out;
}

export interface CoverInput {
  /** Polygon areas. */
  areas: PolygonArea[];
  /** Box areas in degrees (tiles as geo/mercator tileRange gives them; W > E crosses the antimeridian). */
  bboxes?: Bounds[];
  /** The cover is clipped to the union of these tile rectangles (the upstream's bounds); none: no clipping. */
  within?: TileRange[];
}

/**
 * The cover of a zoom, row by row (increasing y, only rows with tiles): the union of the areas' and the
 * boxes' tiles ∩ `within`. A generator: one row at a time, nothing else is kept.
 */
export function* coverRows(input: CoverInput, z: number): Generator<{ y: number; xs: [number, number][] }> {
  const n = 2 ** z;
  const last = n - 1;
  const boxes: TileRange[] = (input.bboxes ?? []).flatMap((b) => (b[0] <= b[2] ? [b] : ([[b[0], b[1], 180, b[3]], [-180, b[1], b[2], b[3]]] as Bounds[]))).map((b) => tileRange(b, z));
  const polys = input.areas.flatMap(projectArea).filter((p) => p.edges.length > 0);
  // Polygons by their first row; a sweep is created when its first row comes and dropped after its last.
  polys.sort((a, b) => a.ymin - b.ymin);
  const rowOf = (y: number): number => Math.min(last, Math.max(0, Math.floor(y * n + EPS)));
  let y0 = Infinity;
  let y1 = -Infinity;
  for (const p of polys) {
    y0 = Math.min(y0, rowOf(p.ymin));
    y1 = Math.max(y1, Math.min(last, Math.max(0, Math.ceil(p.ymax * n - EPS) - 1)));
  }
  for (const b of boxes) {
    y0 = Math.min(y0, b.minY);
    y1 = Math.max(y1, b.maxY);
  }
  if (input.within) {
    y0 = Math.max(y0, Math.min(...input.within.map((w) => w.minY)));
    y1 = Math.min(y1, Math.max(...input.within.map((w) => w.maxY)));
  }
  let started = 0;
  let sweeps: { sweep: Sweep; lastRow: number }[] = [];
  for (let r = y0; r <= y1; r++) {
    while (started < polys.length && rowOf(polys[started].ymin) <= r) {
      const p = polys[started++];
      sweeps.push({ sweep: new Sweep(p, n), lastRow: Math.ceil(p.ymax * n - EPS) - 1 });
    }
    sweeps = sweeps.filter((s) => s.lastRow >= r);
    const pieces: [number, number][] = [];
    for (const s of sweeps) pieces.push(...columns(s.sweep.row(r), n));
    for (const b of boxes) if (b.minY <= r && r <= b.maxY) pieces.push([b.minX, b.maxX]);
    let xs = merge(pieces);
    if (input.within) xs = intersect(xs, merge(input.within.filter((w) => w.minY <= r && r <= w.maxY).map((w): [number, number] => [w.minX, w.maxX])));
    if (xs.length) yield { y: r, xs };
  }
}

/** The cover of a zoom as the plan's bands (adjacent rows with the same columns merged) and its tile count. */
export function coverZoom(input: CoverInput, z: number): ZoomPlan {
  const bands: Band[] = [];
  let count = 0;
  for (const { y, xs } of coverRows(input, z)) {
    count += xs.reduce((k, [lo, hi]) => k + hi - lo + 1, 0);
    const prev = bands[bands.length - 1];
    if (prev && prev.y1 + 1 === y && sameIntervals(prev.xs, xs)) prev.y1 = y;
    else bands.push({ y0: y, y1: y, xs });
  }
  return { z, bands, count };
}

function sameIntervals(a: [number, number][], b: [number, number][]): boolean {
  return a.length === b.length && a.every(([lo, hi], i) => lo === b[i][0] && hi === b[i][1]);
}

/** The tiles of a zoom as a set of `x/y` keys: for tests and small zooms only. */
export function coverSet(input: CoverInput, z: number): Set<string> {
  const out = new Set<string>();
  for (const { y, xs } of coverRows(input, z)) for (const [lo, hi] of xs) for (let x = lo; x <= hi; x++) out.add(`${x}/${y}`);
  return out;
}
