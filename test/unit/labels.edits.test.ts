// The label index's shortcuts give the answers of the general rules: ASCII words split without the Unicode passes,
// and the typo lookup's bounded comparison (labels-text.ts withinEdits) answers as the general edit distance
// (text.ts editDistance) does, for every budget the lookup uses and more, on words that share most letters (where
// the band and the swaps matter), of unequal lengths, with accents and letters beyond the BMP.
import { withinEdits, words } from '../../src/services/geocoding/labels-text';
import { editDistance } from '../../src/services/geocoding/text';

/** A seeded PRNG (mulberry32), so a failure names a reproducible pair. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LETTERS = ['a', 'b', 'c', 'e', 'é', 'l', 'v', 'i', '𝔞', '中'];

/** A word and a neighbour of it: up to four random edits (change, insert, delete, swap of neighbours). */
function pair(rand: () => number): [string, string] {
  const pick = () => LETTERS[Math.floor(rand() * LETTERS.length)];
  const a = Array.from({ length: Math.floor(rand() * 12) }, pick);
  const b = [...a];
  for (let k = Math.floor(rand() * 5); k > 0; k--) {
    const i = Math.floor(rand() * (b.length + 1));
    const op = Math.floor(rand() * 4);
    if (op === 0 && i < b.length) b[i] = pick();
    else if (op === 1) b.splice(i, 0, pick());
    else if (op === 2 && i < b.length) b.splice(i, 1);
    else if (op === 3 && i + 1 < b.length) [b[i], b[i + 1]] = [b[i + 1], b[i]];
  }
  return [a.join(''), b.join('')];
}

test('withinEdits answers as editDistance <= max, for max 0 to 3', () => {
  const rand = prng(31);
  let within = 0;
  for (let n = 0; n < 20_000; n++) {
    const [a, b] = pair(rand);
    for (let max = 0; max <= 3; max++) {
      const expected = editDistance(a, b, max) <= max;
      if (withinEdits(a, b, max) !== expected) throw new Error(`withinEdits(${JSON.stringify(a)}, ${JSON.stringify(b)}, ${max}) !== ${expected}`);
      if (expected) within++;
    }
  }
  // Both answers occur often: the pairs test the bound, not one side of it.
  expect(within).toBeGreaterThan(10_000);
  expect(within).toBeLessThan(70_000);
});

test('withinEdits: words longer than its buffers, and the examples of the typo budget', () => {
  const long = 'x'.repeat(300);
  expect(withinEdits(long, `${long}y`, 1)).toBe(true);
  expect(withinEdits(long, `y${long}yy`, 2)).toBe(false);
  expect(withinEdits('selomoville', 'senomoville', 1)).toBe(true);
  expect(withinEdits('main', 'mian', 1)).toBe(true);
  expect(withinEdits('main', 'mina', 1)).toBe(false);
  expect(withinEdits('', 'ab', 2)).toBe(true);
});

test('words of ASCII text are those of the Unicode rule (NFKD, marks dropped, lower case, split on non-letters)', () => {
  const rand = prng(7);
  const unicodeRule = (text: string) =>
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 0);
  for (let n = 0; n < 5_000; n++) {
    const text = Array.from({ length: Math.floor(rand() * 30) }, () => String.fromCharCode(Math.floor(rand() * 128))).join('');
    expect(words(text)).toEqual(unicodeRule(text));
  }
  expect(words('12 Rue du Café-Noir')).toEqual(['12', 'rue', 'du', 'cafe', 'noir']);
});
