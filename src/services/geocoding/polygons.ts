// Polygons as the gazetteer stores them (pure): one row per polygon part, its rings' vertex counts and the vertices
// as Float32 pairs (~1 m at the equator), and the point-in-polygon test the builder and reverse geocoding share.

export type Ring = number[][];
export type PolygonCoords = Ring[];
export type BBox = [number, number, number, number];

/** Every polygon part of a GeoJSON Feature, FeatureCollection, array of features, or geometry. */
export function polygonParts(json: unknown): PolygonCoords[] {
  const out: PolygonCoords[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== 'object') return;
    const o = v as { type?: string; features?: unknown; geometry?: unknown; geometries?: unknown; coordinates?: unknown };
    if (o.type === 'FeatureCollection') return visit(o.features);
    if (o.type === 'Feature') return visit(o.geometry);
    if (o.type === 'GeometryCollection') return visit(o.geometries);
    if (o.type === 'Polygon') out.push(o.coordinates as PolygonCoords);
    if (o.type === 'MultiPolygon') out.push(...(o.coordinates as PolygonCoords[]));
  };
  visit(json);
  return out.filter((p) => p.length > 0 && p[0].length >= 4);
}

export function bboxOf(parts: PolygonCoords[]): BBox {
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  for (const p of parts)
    for (const [x, y] of p[0]) {
      if (x < w) w = x;
      if (x > e) e = x;
      if (y < s) s = y;
      if (y > n) n = y;
    }
  return [w, s, e, n];
}

/** Encodes one polygon part: ring vertex counts (JSON) and vertices (Float32 little-endian). */
export function encodePolygon(p: PolygonCoords): { rings: string; coords: Buffer } {
  const counts = p.map((r) => r.length);
  const arr = new Float32Array(counts.reduce((a, b) => a + b, 0) * 2);
  let i = 0;
  for (const r of p)
    for (const [x, y] of r) {
      arr[i++] = x;
      arr[i++] = y;
    }
  return { rings: JSON.stringify(counts), coords: Buffer.from(arr.buffer) };
}

export interface StoredPolygon {
  rings: number[];
  coords: Float32Array;
}

export function decodePolygon(rings: string, coords: Buffer): StoredPolygon {
  const copy = new Uint8Array(coords.byteLength);
  copy.set(coords);
  return { rings: JSON.parse(rings) as number[], coords: new Float32Array(copy.buffer) };
}

/** GeoJSON coordinates of a stored part, rounded to 5 decimals (the Float32 precision). */
export function polygonCoordinates(p: StoredPolygon): PolygonCoords {
  const out: PolygonCoords = [];
  let i = 0;
  const r5 = (v: number): number => Math.round(v * 1e5) / 1e5;
  for (const n of p.rings) {
    const ring: Ring = [];
    for (let k = 0; k < n; k++, i += 2) ring.push([r5(p.coords[i]), r5(p.coords[i + 1])]);
    out.push(ring);
  }
  return out;
}

/** Even-odd test over every ring (holes included) of a stored part. */
export function storedContains(p: StoredPolygon, x: number, y: number): boolean {
  let inside = false;
  let start = 0;
  const c = p.coords;
  for (const n of p.rings) {
    for (let i = 0, j = n - 1; i < n; j = i++) {
      const xi = c[(start + i) * 2], yi = c[(start + i) * 2 + 1];
      const xj = c[(start + j) * 2], yj = c[(start + j) * 2 + 1];
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
    }
    start += n;
  }
  return inside;
}

/** Even-odd test over GeoJSON rings. */
export function contains(p: PolygonCoords, x: number, y: number): boolean {
  let inside = false;
  for (const ring of p)
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i];
      const [xj, yj] = ring[j];
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
    }
  return inside;
}

/** Great-circle distance in metres. */
export function haversine(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const R = 6371008.8;
  const toRad = Math.PI / 180;
  const dLat = (lat2 - lat1) * toRad;
  const dLon = (lon2 - lon1) * toRad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * toRad) * Math.cos(lat2 * toRad) * Math.sin(dLon / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** A representative point: the area centroid of the largest part's outer ring (its bbox center if degenerate). */
export function representativePoint(parts: PolygonCoords[]): [number, number] {
  let best: { area: number; x: number; y: number } | undefined;
  for (const p of parts) {
    const ring = p[0];
    let a = 0, cx = 0, cy = 0;
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const f = ring[j][0] * ring[i][1] - ring[i][0] * ring[j][1];
      a += f;
      cx += (ring[j][0] + ring[i][0]) * f;
      cy += (ring[j][1] + ring[i][1]) * f;
    }
    if (a === 0) continue;
    const area = Math.abs(a / 2);
    if (!best || area > best.area) best = { area, x: cx / (3 * a), y: cy / (3 * a) };
  }
  if (best) return [best.x, best.y];
  const [w, s, e, n] = bboxOf(parts);
  return [(w + e) / 2, (s + n) / 2];
}
