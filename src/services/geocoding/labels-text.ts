// Pure text rules of the label index, shared by the builder (what goes into FTS5) and the query side (what is
// asked): one normalisation (NFKD, marks dropped, lower case, split on anything not a letter or digit), a typo
// budget by word length, and the 0..1 text score of a name for a query.

import { editDistance } from './text';

const ASCII = /^[\x00-\x7f]*$/;

/** The words of a text, normalised: "Café  Zürich-Nord" → ["cafe", "zurich", "nord"]. */
export function words(text: string): string[] {
  // ASCII text as the rule below would make it, without its Unicode passes (NFKD leaves ASCII as it is, and ASCII
  // has no marks): most names and every house number, and the label build splits each label's names.
  if (ASCII.test(text)) return text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0);
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/** Edits allowed for a query word: none up to 3 letters, 1 up to 7, 2 beyond. */
export function typoBudget(word: string): number {
  const n = [...word].length;
  return n <= 3 ? 0 : n <= 7 ? 1 : 2;
}

export interface ScoreOptions {
  prefix: boolean;
  fuzzy: boolean;
}

/**
 * How well `name` answers `query`, 0..1: each query word counts 1 when it is a word of the name, 0.9 when it
 * starts one (only the last word, with `prefix`), 0.7 within the typo budget (with `fuzzy`), else 0; the mean over
 * the query's words, times 0.7 + 0.3 × (query words / name words) so a name with nothing more than the query
 * ranks first. 1 exactly when both hold the same words.
 */
export function textScore(query: string[], name: string[], opts: ScoreOptions): number {
  if (query.length === 0 || name.length === 0) return 0;
  let sum = 0;
  query.forEach((q, i) => {
    let best = 0;
    for (const w of name) {
      if (w === q) {
        best = 1;
        break;
      }
      if (opts.prefix && i === query.length - 1 && w.startsWith(q)) best = Math.max(best, 0.9);
      else if (opts.fuzzy && best < 0.7) {
        const budget = typoBudget(q);
        if (budget > 0 && editDistance(q, w, budget) <= budget) best = 0.7;
      }
    }
    sum += best;
  });
  const coverage = sum / query.length;
  return coverage * (0.7 + 0.3 * Math.min(1, query.length / name.length));
}

// Code points of the two words compared, and three rows of the band, reused from one call to the next (the typo
// lookup compares a query word with up to 3,000 vocabulary words).
let pointsA = new Int32Array(64);
let pointsB = new Int32Array(64);
let rowA = new Int32Array(66);
let rowB = new Int32Array(66);
let rowC = new Int32Array(66);

/** Code points of `text` into `out` (which holds text.length at least); returns their count. */
function codePoints(text: string, out: Int32Array): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.codePointAt(i) as number;
    if (c > 0xffff) i++;
    out[n++] = c;
  }
  return n;
}

/**
 * True when `a` and `b` are at most `max` edits apart, edits as `editDistance` (text.ts) counts them (a letter
 * added, removed or changed, two neighbours swapped; by code point), with the same answer. Only the cells within
 * `max` of the diagonal are computed (the others are more than `max` anyway), on reused typed arrays.
 */
export function withinEdits(a: string, b: string, max: number): boolean {
  if (pointsA.length < a.length) pointsA = new Int32Array(a.length);
  if (pointsB.length < b.length) pointsB = new Int32Array(b.length);
  const s = pointsA;
  const t = pointsB;
  const n = codePoints(a, s);
  const m = codePoints(b, t);
  if (n - m > max || m - n > max) return false;
  if (rowA.length < m + 2) {
    rowA = new Int32Array(m + 2);
    rowB = new Int32Array(m + 2);
    rowC = new Int32Array(m + 2);
  }
  const big = max + 1;
  let before = rowA;
  let prev = rowB;
  let cur = rowC;
  for (let j = 0; j <= m + 1; j++) prev[j] = j < big ? j : big;
  for (let i = 1; i <= n; i++) {
    const lo = i - max > 1 ? i - max : 1;
    const hi = i + max < m ? i + max : m;
    const si = s[i - 1];
    cur[0] = i < big ? i : big;
    let rowMin = big;
    if (lo === 1) rowMin = cur[0];
    else cur[lo - 1] = big;
    for (let j = lo; j <= hi; j++) {
      let v = prev[j - 1] + (si === t[j - 1] ? 0 : 1);
      if (prev[j] + 1 < v) v = prev[j] + 1;
      if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;
      if (i > 1 && j > 1 && si === t[j - 2] && s[i - 2] === t[j - 1] && before[j - 2] + 1 < v) v = before[j - 2] + 1;
      if (v > big) v = big;
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    cur[hi + 1] = big;
    if (rowMin > max) return false;
    const done = before;
    before = prev;
    prev = cur;
    cur = done;
  }
  return prev[m] <= max;
}
