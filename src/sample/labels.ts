// Label points of the sample countries: one point per country, inside its largest polygon, as far from the
// polygon's edges as a grid search finds (a pole of inaccessibility), computed on the Web Mercator plane so the
// point looks central on the map. Each point gets the zoom from which its label has room.

import type { MultiPolygon, Polygon, Position } from 'geojson';
import type { Country } from './natural-earth';

export interface LabelPoint {
  name: string;
  /** ISO 3166-1 numeric code, when the country has one. */
  iso?: string;
  lon: number;
  lat: number;
  /** First zoom (512 px tiles) the label is put into the tiles at. */
  minzoom: number;
  /** Area of the largest polygon on the plane (square degrees of longitude). */
  area: number;
}

const MAX_LAT = 85;
const DEG = 180 / Math.PI;

/** Latitude to a Web Mercator y in degrees of longitude (clamped at ±85°, so polar rings stay finite). */
const mercY = (lat: number): number => DEG * Math.asinh(Math.tan((Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * Math.PI) / 180));
const mercLat = (y: number): number => DEG * Math.atan(Math.sinh(y / DEG));

type Ring = [number, number][];

function ringArea(r: Ring): number {
  let a = 0;
  for (let i = 0, j = r.length - 1; i < r.length; j = i++) a += (r[j][0] - r[i][0]) * (r[j][1] + r[i][1]);
  return a / 2;
}

function inside(rings: Ring[], x: number, y: number): boolean {
  let c = false;
  for (const r of rings) {
    for (let i = 0, j = r.length - 1; i < r.length; j = i++) {
      const [xi, yi] = r[i];
      const [xj, yj] = r[j];
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) c = !c;
    }
  }
  return c;
}

function edgeDistance(rings: Ring[], x: number, y: number): number {
  let best = Infinity;
  for (const r of rings) {
    for (let i = 0, j = r.length - 1; i < r.length; j = i++) {
      const [ax, ay] = r[j];
      const [bx, by] = r[i];
      const dx = bx - ax;
      const dy = by - ay;
      const len = dx * dx + dy * dy;
      const t = len === 0 ? 0 : Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / len));
      const ex = ax + t * dx - x;
      const ey = ay + t * dy - y;
      const d = ex * ex + ey * ey;
      if (d < best) best = d;
    }
  }
  return Math.sqrt(best);
}

/** The point of a polygon (rings on the plane) farthest from its edges, by a grid search refined three times. */
export function interiorPoint(rings: Ring[]): [number, number] {
  const outer = rings[0];
  let [minx, miny, maxx, maxy] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of outer) {
    minx = Math.min(minx, x);
    miny = Math.min(miny, y);
    maxx = Math.max(maxx, x);
    maxy = Math.max(maxy, y);
  }
  let best: [number, number] = [(minx + maxx) / 2, (miny + maxy) / 2];
  let bestD = inside(rings, best[0], best[1]) ? edgeDistance(rings, best[0], best[1]) : -1;
  let [cx, cy, w, h] = [best[0], best[1], maxx - minx, maxy - miny];
  for (const n of [24, 8, 8, 8]) {
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const x = cx - w / 2 + ((i + 0.5) * w) / n;
        const y = cy - h / 2 + ((j + 0.5) * h) / n;
        if (!inside(rings, x, y)) continue;
        const d = edgeDistance(rings, x, y);
        if (d > bestD) {
          bestD = d;
          best = [x, y];
        }
      }
    }
    if (bestD < 0) {
      // A sliver thinner than the grid: any vertex's neighbourhood will do.
      return [outer[0][0], outer[0][1]];
    }
    [cx, cy, w, h] = [best[0], best[1], (w / n) * 2, (h / n) * 2];
  }
  return best;
}

/** First zoom of a label, by the area of its polygon on the plane (the world is 360 x 360). */
export function labelMinzoom(area: number): number {
  if (area >= 1000) return 0;
  if (area >= 200) return 1;
  if (area >= 40) return 2;
  if (area >= 8) return 3;
  return 4;
}

function polygons(g: Polygon | MultiPolygon): Position[][][] {
  return g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
}

/** One label point per country, in the order of `countries`. */
export function countryLabelPoints(countries: readonly Country[]): LabelPoint[] {
  return countries.map((c) => {
    let best: Ring[] = [];
    let bestArea = -1;
    for (const poly of polygons(c.geometry)) {
      const rings = poly.map((r): Ring => r.map((p) => [p[0], mercY(p[1])]));
      const area = Math.abs(ringArea(rings[0])) - rings.slice(1).reduce((s, r) => s + Math.abs(ringArea(r)), 0);
      if (area > bestArea) {
        bestArea = area;
        best = rings;
      }
    }
    const [x, y] = interiorPoint(best);
    const lon = x > 180 ? x - 360 : x < -180 ? x + 360 : x;
    const round = (v: number) => Math.round(v * 1e5) / 1e5;
    return { name: c.name, iso: c.iso, lon: round(lon), lat: round(mercLat(y)), minzoom: labelMinzoom(bestArea), area: Math.round(bestArea * 100) / 100 };
  });
}
