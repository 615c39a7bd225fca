// How well a name matches the query, and how a candidate ranks (pure). Relevance is the text score (0..1); the
// rank multiplies it with the feature's importance (population, admin level) and, with `proximity`, its distance.

import { editDistance } from './text';

/** Typos tolerated for a query of this many characters. */
export function maxTypos(length: number): number {
  return length < 4 ? 0 : length <= 7 ? 1 : 2;
}

/**
 * Text score of a normalised name for a normalised query: 1 exact; 0.9 the query's words are the name's first words
 * (or their prefixes, with autocomplete); 0.7 they occur later in the name; with fuzzy matching, 0.85/0.75 per typo
 * less 0.1. Zero when no rule matches.
 */
export function textScore(norm: string, query: string, opts: { prefix: boolean; fuzzy: boolean }): number {
  if (norm === query) return 1;
  const cover = query.length / norm.length;
  if (norm.startsWith(query) && (opts.prefix || norm[query.length] === ' ')) return 0.75 + 0.2 * cover;
  const words = norm.split(' ');
  const q = query.split(' ');
  const wordMatch = (w: string, t: string, last: boolean): boolean => w === t || (last && opts.prefix && w.startsWith(t));
  for (let start = 1; start + q.length <= words.length; start++)
    if (q.every((t, i) => wordMatch(words[start + i], t, i === q.length - 1))) return 0.6 + 0.2 * cover;
  if (opts.fuzzy) {
    const max = maxTypos(query.length);
    if (max > 0) {
      const d = editDistance(norm, query, max);
      if (d <= max) return 0.88 - 0.12 * d;
      if (opts.prefix && norm.length > query.length) {
        const dp = editDistance(norm.slice(0, query.length), query, max);
        if (dp <= max) return 0.7 - 0.12 * dp;
      }
    }
  }
  return 0;
}

/** Proximity factor: 1 at the point, halving about every 150 km, never below 0.15. */
export function proximityFactor(meters: number): number {
  return 0.15 + 0.85 * Math.exp(-meters / 200000);
}

/** The rank of a candidate: text weighs most, then importance (0..1), then proximity (factor 0.15..1). */
export function rankScore(text: number, importance: number, proximity = 1): number {
  return text ** 3 * (0.3 + 0.7 * importance) * proximity;
}
