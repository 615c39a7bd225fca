// Text normalisation and edit distance shared by the index builder and the query side (pure).

/** Lower case, no diacritics, punctuation to spaces, single spaces. "Sant Julià de Lòria" → "sant julia de loria". */
export function normalize(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * Edit distance with adjacent transpositions counting one (optimal string alignment) over code points (a letter
 * outside the BMP is one edit, not two), giving up (returning max + 1) once it must exceed `max`.
 */
export function editDistance(a: string, b: string, max = 3): number {
  const s = [...a];
  const t = [...b];
  if (Math.abs(s.length - t.length) > max) return max + 1;
  let before: number[] = [];
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= t.length; j++) {
      let v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (s[i - 1] === t[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) v = Math.min(v, before[j - 2] + 1);
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    before = prev;
    prev = cur;
  }
  return prev[t.length];
}

/** An FTS5 phrase for one token (quotes doubled). */
export function ftsPhrase(token: string): string {
  return `"${token.replace(/"/g, '""')}"`;
}
