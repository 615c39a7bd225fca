import { compileFastParser, FAIL } from '../../src/http/params';
import type { RawParams } from '../../src/http/route-table';
import { routes } from '../../src/http/routes';

// The hot tile routes parse valid parameters without zod (params.ts). zod is the oracle: over every combination of
// awkward segments, whatever the fast parser accepts zod accepts with the same values, and whatever zod accepts the
// fast parser accepts too (else the fast path would silently stop being used).

const INTEGERS = ['0', '1', '3', '7', '8', '31', '00', '007', '22', '23', '4294967295', '12345678901', '', '-1', '+1', '1e2', '1.0', ' 1', '0x1', 'a', '١'];
const FORMATS = ['png', 'PNG', 'jpg', 'jpeg', 'JPEG', 'webp', 'basis', 'pbf', 'mvt', 'gif', '', 'png ', 'pn'];
const SCALES = [undefined, '@2x', '@3x', '@1x', '@22x'];
const SIZES = [undefined, '256', '512', ''];
const EXTS = [undefined, 'png', 'pbf', 'gif', ''];
const IDS = ['sample', 'a%2Fb', 'x'];

/** Every combination of the pools for a route's parameter names (z, x, y vary together with the others). */
function* inputs(names: readonly string[]): Generator<RawParams> {
  const pools: Record<string, readonly (string | undefined)[]> = { z: INTEGERS, x: INTEGERS, y: INTEGERS, format: FORMATS, scale: SCALES, size: SIZES, ext: EXTS };
  const pick = (name: string): readonly (string | undefined)[] => pools[name] ?? IDS;
  // z, x, y: a cross product of a smaller pool keeps this to seconds while covering bounds (z 0..22, x and y at 2^z).
  const small = ['0', '1', '3', '7', '8', '22', '23', '00', '-1', 'a', '4294967295', '12345678901'];
  const rest = names.filter((n) => !['z', 'x', 'y'].includes(n));
  const combos: RawParams[] = [{}];
  for (const n of rest) {
    const next: RawParams[] = [];
    for (const c of combos) for (const v of pick(n)) next.push({ ...c, [n]: v });
    combos.splice(0, combos.length, ...next);
  }
  // Every other combination at a few addresses in and out of bounds; every address at a few combinations.
  const triples = [['0', '0', '0'], ['3', '7', '7'], ['3', '8', '0'], ['22', '4194303', '0'], ['23', '0', '0'], ['1', 'a', '0'], ['00', '01', '1'], ['-1', '0', '0']];
  for (const c of combos) for (const [z, x, y] of triples) yield { ...c, z, x, y };
  for (const c of combos.filter((_, i) => i % 97 === 0)) for (const z of small) for (const x of small) for (const y of small) yield { ...c, z, x, y };
  for (const z of INTEGERS) yield { ...combos[0], z, x: '0', y: '0' };
}

describe('fast parameter parsing of the hot tile routes agrees with zod', () => {
  const fast = routes.filter((r) => compileFastParser(r.params));

  test('the three tile routes have a fast parser, and only they', () => {
    expect(fast.map((r) => r.pattern).sort()).toEqual(routes.filter((r) => /:z\/:x\/:y/.test(r.pattern) && !r.pattern.includes('/static/') && r.queryParams.length === 0).map((r) => r.pattern).sort());
    expect(fast.map((r) => r.pattern.split('/')[1]).sort()).toEqual(['images', 'maps', 'tiles']);
  });

  test.each(routes.filter((r) => compileFastParser(r.params)).map((r) => [r.pattern, r] as const))('%s', (_pattern, r) => {
    const fast = compileFastParser(r.params)!;
    let accepted = 0;
    let refused = 0;
    const differ: unknown[] = [];
    for (const raw of inputs(r.pathParams)) {
      const byZod = r.params.safeParse(raw);
      const byFast = fast(raw);
      const expected = byZod.success ? byZod.data : FAIL;
      if (byZod.success) accepted++;
      else refused++;
      // Compared as zod's output would be (keys it writes as undefined are absent alike).
      if (JSON.stringify(byFast) !== JSON.stringify(expected) || (byFast === FAIL) !== (expected === FAIL)) differ.push({ raw, byFast, expected });
    }
    expect(differ.slice(0, 5)).toEqual([]);
    // Both kinds were seen, so neither branch passed by not running.
    expect(accepted).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(50);
  });
});
