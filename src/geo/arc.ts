// Pure: intervals on a circle (longitudes, or world fractions of Web Mercator x), where the shortest way to cover
// them may cross the dateline.

/**
 * The shortest arc covering every interval on a circle of circumference `period` (1 for world fractions, 360 for
 * degrees counted from the dateline): [start, end] with start in [0, period) and end >= start (end may pass
 * `period`: the arc crosses the dateline). An interval as long as the circle, or intervals leaving no gap, cover it
 * all: [0, period].
 */
export function shortestArc(intervals: ReadonlyArray<readonly [number, number]>, period = 1): [number, number] {
  const parts: Array<[number, number]> = [];
  for (const [a, b] of intervals) {
    if (b - a >= period) return [0, period];
    const s = a - Math.floor(a / period) * period;
    const e = s + (b - a);
    if (e > period) parts.push([s, period], [0, e - period]);
    else parts.push([s, e]);
  }
  if (parts.length === 0) return [0, 0];
  parts.sort((p, q) => p[0] - q[0]);
  const merged: Array<[number, number]> = [];
  for (const p of parts) {
    const last = merged[merged.length - 1];
    if (last && p[0] <= last[1]) last[1] = Math.max(last[1], p[1]);
    else merged.push([p[0], p[1]]);
  }
  // The largest gap between merged intervals (the one across the dateline included) is what the arc leaves out.
  const n = merged.length - 1;
  let gap = merged[0][0] + period - merged[n][1];
  let arc: [number, number] = [merged[0][0], merged[n][1]];
  for (let i = 1; i < merged.length; i++) {
    const g = merged[i][0] - merged[i - 1][1];
    if (g > gap) [gap, arc] = [g, [merged[i][0], merged[i - 1][1] + period]];
  }
  return gap <= 0 ? [0, period] : arc;
}
