// Natural Earth data as it ships in the world-atlas package (TopoJSON, public domain), turned into
// GeoJSON once per process.

import { feature, mesh } from 'topojson-client';
import type { Topology, GeometryCollection } from 'topojson-specification';
import type { Feature, FeatureCollection, MultiLineString, MultiPolygon, Polygon, Position } from 'geojson';
import { MAX_LAT } from '../geo/mercator';

export type Resolution = '110m' | '50m';

export interface Country {
  /** ISO 3166-1 numeric code as in world-atlas ('004'), undefined for a few disputed areas. */
  iso?: string;
  name: string;
  geometry: Polygon | MultiPolygon;
}

export interface NaturalEarth {
  countries: Country[];
  /** Land borders between two different countries. */
  borders: Position[][];
  /** Outer edges of the countries (coasts), without the artificial cuts along the antimeridian and the pole. */
  coasts: Position[][];
}

const cache = new Map<Resolution, NaturalEarth>();

function loadTopology(res: Resolution): Topology {
  // Required lazily (not imported) so a build that does not need 50m data never parses it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return res === '50m' ? require('world-atlas/countries-50m.json') : require('world-atlas/countries-110m.json');
}

/** True for a segment that is an artificial edge of the data (along ±180° or south of -85°), not a coast. */
function artificial(a: Position, b: Position): boolean {
  const onCut = (lon: number) => Math.abs(Math.abs(lon) - 180) < 0.001;
  if (onCut(a[0]) && onCut(b[0]) && Math.abs(a[0] - b[0]) < 0.001) return true;
  return a[1] < -85 && b[1] < -85;
}

/** Splits lines where they run along an artificial edge. */
function dropArtificial(lines: Position[][]): Position[][] {
  const out: Position[][] = [];
  for (const line of lines) {
    let cur: Position[] = [line[0]];
    for (let i = 1; i < line.length; i++) {
      if (artificial(line[i - 1], line[i])) {
        if (cur.length > 1) out.push(cur);
        cur = [line[i]];
      } else cur.push(line[i]);
    }
    if (cur.length > 1) out.push(cur);
  }
  return out;
}

/**
 * Makes the longitudes of a line continuous: world-atlas rings and arcs may jump from +180 to -180
 * where they cross the antimeridian; after this they run on past ±180 instead (planar renderers then
 * draw them once more shifted by ∓360°, geojson-vt wraps them itself). A closed ring that goes once
 * around a pole (Antarctica) is closed along the pole instead of across the whole world.
 */
export function unwrap(line: Position[], closedRing: boolean): Position[] {
  const out: Position[] = [];
  let prev = NaN;
  for (const p of line) {
    let lon = p[0];
    if (!Number.isNaN(prev)) {
      while (lon - prev > 180) lon -= 360;
      while (lon - prev < -180) lon += 360;
    }
    out.push([lon, p[1]]);
    prev = lon;
  }
  if (closedRing && out.length > 2) {
    const first = out[0];
    const last = out[out.length - 1];
    const turn = last[0] - first[0];
    if (Math.abs(turn) > 180) {
      const pole = out.reduce((s, q) => s + q[1], 0) < 0 ? -90 : 90;
      out.push([last[0], pole], [first[0], pole], [first[0], first[1]]);
    }
  }
  return out;
}

/** Longitude shifts (0, and ±360 when the line runs past the antimeridian) a planar renderer draws it at. */
export function wrapOffsets(line: Position[]): number[] {
  let min = Infinity;
  let max = -Infinity;
  for (const p of line) {
    if (p[0] < min) min = p[0];
    if (p[0] > max) max = p[0];
  }
  const offsets = [0];
  if (min < -180) offsets.push(360);
  if (max > 180) offsets.push(-360);
  return offsets;
}

/** Twice the signed area of a ring on the lon/lat plane (positive when counter-clockwise). */
function signedArea2(ring: Position[]): number {
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) a += (ring[j][0] - ring[i][0]) * (ring[j][1] + ring[i][1]);
  return a;
}

/** Even-odd point in ring on the lon/lat plane. */
function inRing(ring: Position[], x: number, y: number): boolean {
  let c = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) c = !c;
  }
  return c;
}

/** True for a ring no Web Mercator map shows: every vertex beyond ±MAX_LAT (e.g. world-atlas' ring around the south pole). */
const beyondMercator = (ring: Position[]): boolean => ring.every((p) => Math.abs(p[1]) > MAX_LAT);

/**
 * The planar polygons (GeoJSON, RFC 7946 winding: exterior rings counter-clockwise, holes clockwise) of one
 * spherical world-atlas polygon. world-atlas is made for spherical renderers (d3-geo): its rings are only
 * meaningful on the sphere, where a polygon that covers a pole may have as its first ("exterior") ring a tiny
 * circle around the pole and its coast as a "hole" (Antarctica in the 1:50m set). On the plane, after `unwrap`
 * has closed pole-circling rings along the pole, the area a polygon covers is the even-odd union of its rings;
 * this returns exactly that area, each ring given the role its nesting on the plane implies (even depth:
 * exterior, odd: a hole of the innermost exterior around it). Rings beyond Web Mercator's latitudes are dropped.
 * Planar consumers that trust ring roles (geojson-vt, then MVT's exterior/interior winding) need this; an
 * even-odd renderer draws the same area from either form.
 */
export function planarPolygons(polygon: Position[][]): Position[][][] {
  const rings = polygon.map((r) => unwrap(r, true)).filter((r) => r.length >= 4 && !beyondMercator(r) && signedArea2(r) !== 0);
  if (rings.length === 1) return [[orient(rings[0], true)]];
  // A vertex of each ring off the pole closure that `unwrap` may have added, to test containment with.
  const probe = rings.map((r) => r.find((p) => Math.abs(p[1]) < 90) ?? r[0]);
  const containers = rings.map((_, i) => rings.map((_r, j) => j).filter((j) => j !== i && inRing(rings[j], probe[i][0], probe[i][1])));
  const depth = containers.map((c) => c.length);
  const out: Position[][][] = [];
  const indexOfExterior = new Map<number, number>();
  rings.forEach((r, i) => {
    if (depth[i] % 2 !== 0) return;
    indexOfExterior.set(i, out.length);
    out.push([orient(r, true)]);
  });
  rings.forEach((r, i) => {
    if (depth[i] % 2 === 0) return;
    const parent = containers[i].find((j) => depth[j] === depth[i] - 1);
    const at = parent === undefined ? undefined : indexOfExterior.get(parent);
    if (at === undefined) throw new Error('planarPolygons: a hole outside every exterior ring');
    out[at].push(orient(r, false));
  });
  return out;
}

/** The ring wound counter-clockwise (exterior) or clockwise (hole) on the lon/lat plane. */
function orient(ring: Position[], exterior: boolean): Position[] {
  return signedArea2(ring) > 0 === exterior ? ring : [...ring].reverse();
}

function planarGeometry(g: Polygon | MultiPolygon): Polygon | MultiPolygon {
  const polygons = (g.type === 'Polygon' ? [g.coordinates] : g.coordinates).flatMap(planarPolygons);
  return polygons.length === 1 ? { type: 'Polygon', coordinates: polygons[0] } : { type: 'MultiPolygon', coordinates: polygons };
}

export function naturalEarth(res: Resolution): NaturalEarth {
  const hit = cache.get(res);
  if (hit) return hit;
  const topo = loadTopology(res);
  const obj = topo.objects.countries as GeometryCollection<{ name: string }>;
  const fc = feature(topo, obj) as FeatureCollection<Polygon | MultiPolygon, { name: string }>;
  const countries: Country[] = fc.features
    .filter((f: Feature<Polygon | MultiPolygon, { name: string }>) => f.geometry !== null)
    .map((f) => ({ iso: f.id === undefined ? undefined : String(f.id), name: f.properties.name, geometry: planarGeometry(f.geometry) }));
  const borders = (mesh(topo, obj, (a, b) => a !== b) as MultiLineString).coordinates.map((l) => unwrap(l, false));
  const coasts = dropArtificial((mesh(topo, obj, (a, b) => a === b) as MultiLineString).coordinates.map((l) => unwrap(l, false)));
  const ne = { countries, borders, coasts };
  cache.set(res, ne);
  return ne;
}

/** Outer rings and holes of a country, as a list of rings. */
export function rings(g: Polygon | MultiPolygon): Position[][] {
  return g.type === 'Polygon' ? g.coordinates : g.coordinates.flat();
}
