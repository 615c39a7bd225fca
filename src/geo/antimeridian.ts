// Pure: a lon/lat ring that crosses the antimeridian, cut there into rings that each stay within -180..180, as
// GeoJSON asks (RFC 7946 §3.1.9). A ring whose longitudes jump from 179 to -179 between two points would otherwise
// be drawn the long way round, across the whole world.

/**
 * The parts of a closed ring ([lon, lat] points, the last equal to the first) on each side of the antimeridian, each
 * a closed ring within -180..180; the ring itself when it does not cross. Consecutive points are taken to be less
 * than 180° of longitude apart (the short way between them), so a ring may wind past ±180 but not around a pole.
 */
export function splitAtAntimeridian(ring: readonly (readonly number[])[]): number[][][] {
  if (ring.length < 4) return [ring.map((p) => [...p])];
  // Longitudes made continuous: each within 180° of the one before.
  const unwrapped: number[][] = [[ring[0][0], ring[0][1]]];
  for (let i = 1; i < ring.length; i++) {
    let lon = ring[i][0];
    const before = unwrapped[i - 1][0];
    while (lon - before > 180) lon -= 360;
    while (lon - before < -180) lon += 360;
    unwrapped.push([lon, ring[i][1]]);
  }
  let min = Infinity;
  let max = -Infinity;
  for (const [lon] of unwrapped) {
    min = Math.min(min, lon);
    max = Math.max(max, lon);
  }
  if (min >= -180 && max <= 180) return [ring.map((p) => [...p])];
  // Shifted by whole turns so that the ring starts within -180..180; it then reaches past one of the edges.
  const turn = Math.floor((unwrapped[0][0] + 180) / 360) * 360;
  for (const p of unwrapped) p[0] -= turn;
  const edge = unwrapped.some((p) => p[0] > 180) ? 180 : -180;
  const inside = clipHalf(unwrapped, edge, edge > 0 ? -1 : 1);
  const beyond = clipHalf(unwrapped, edge, edge > 0 ? 1 : -1).map(([lon, lat]) => [lon - Math.sign(edge) * 360, lat]);
  return [inside, beyond].filter((r) => r.length >= 4);
}

/**
 * The part of a closed ring on one side of the meridian `at` (side -1: lon <= at, 1: lon >= at), closed again
 * (Sutherland-Hodgman against one line: exact for the convex outlines of tiles, and a valid cover for others).
 */
function clipHalf(ring: readonly number[][], at: number, side: -1 | 1): number[][] {
  const inside = (p: readonly number[]): boolean => (side < 0 ? p[0] <= at : p[0] >= at);
  const out: number[][] = [];
  // A point on the line is inside on both sides: the crossing found next to it is the same point, added once.
  const add = (lon: number, lat: number): void => {
    const last = out[out.length - 1];
    if (!last || last[0] !== lon || last[1] !== lat) out.push([lon, lat]);
  };
  for (let i = 0; i + 1 < ring.length; i++) {
    const a = ring[i];
    const b = ring[i + 1];
    if (inside(a)) add(a[0], a[1]);
    if (inside(a) !== inside(b)) {
      const t = (at - a[0]) / (b[0] - a[0]);
      add(at, a[1] + t * (b[1] - a[1]));
    }
  }
  if (out.length > 0) out.push([...out[0]]);
  return out;
}
