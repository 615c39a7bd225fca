// splitAtAntimeridian against rings cut by hand: a ring that stays within -180..180 is itself; one that crosses is
// cut at ±180 into the part on each side (the crossing points interpolated along its edges), each closed.
import { splitAtAntimeridian } from '../../src/geo/antimeridian';

/** The rings as sets of points (a ring's start and direction are the algorithm's, not the test's subject). */
const sorted = (rings: number[][][]): string[] => rings.map((r) => JSON.stringify(r.slice(0, -1).map((p) => p.join(',')).sort())).sort();

describe('splitAtAntimeridian', () => {
  test('a ring that does not cross is returned as it is, even one touching ±180', () => {
    const ring = [
      [170, 10],
      [180, 10],
      [180, 20],
      [170, 20],
      [170, 10],
    ];
    expect(splitAtAntimeridian(ring)).toEqual([ring]);
    const west = ring.map(([lon, lat]) => [-lon, lat]);
    expect(splitAtAntimeridian(west)).toEqual([west]);
  });

  test('a box from 179° E to 179° W: a part up to 180 and a part from -180, each closed', () => {
    const parts = splitAtAntimeridian([
      [179, 10],
      [-179, 10],
      [-179, 20],
      [179, 20],
      [179, 10],
    ]);
    expect(parts).toHaveLength(2);
    for (const p of parts) expect(p[p.length - 1]).toEqual(p[0]);
    expect(sorted(parts)).toEqual(
      sorted([
        [[179, 10], [180, 10], [180, 20], [179, 20], [179, 10]],
        [[-180, 10], [-179, 10], [-179, 20], [-180, 20], [-180, 10]],
      ]),
    );
  });

  test('a slanted edge is cut where it meets the meridian; a ring starting in the west is cut the same way', () => {
    // From (178, 0) to (-178, 4): 4° of longitude east, so 180 is met half way, at latitude 2.
    const ring = [
      [178, 0],
      [-178, 4],
      [-178, 10],
      [178, 10],
      [178, 0],
    ];
    const expected = sorted([
      [[178, 0], [180, 2], [180, 10], [178, 10], [178, 0]],
      [[-180, 2], [-178, 4], [-178, 10], [-180, 10], [-180, 2]],
    ]);
    expect(sorted(splitAtAntimeridian(ring))).toEqual(expected);
    const fromWest = [...ring.slice(1, 4), ring[0], ring[1]];
    expect(sorted(splitAtAntimeridian(fromWest))).toEqual(expected);
  });

  test('a ring written past 180 (181°) is brought back: the part beyond is at -179', () => {
    const parts = splitAtAntimeridian([
      [180, 0],
      [181, 0],
      [181, 1],
      [180, 1],
      [180, 0],
    ]);
    // Only a line is left on the near side (180 itself): one part.
    expect(parts).toEqual([
      [
        [-180, 0],
        [-179, 0],
        [-179, 1],
        [-180, 1],
        [-180, 0],
      ],
    ]);
  });
});
