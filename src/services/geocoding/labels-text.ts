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
