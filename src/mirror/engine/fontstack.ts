// A fontstack `fonts/A,B` has no store of its own: it is mirrored font by font, and its result is what its
// fonts' runs add up to.

import { interrupted, published, type MirrorResult } from './result';

const SUMMED = ['planned', 'fetched', 'stored', 'empty', 'failed', 'requests', 'retries', 'hedges', 'bytes', 'writes'] as const;

/**
 * Sums the fonts' runs (in order) into the stack's result: published when at least one font was and none failed
 * for another reason than the upstream lacking it; fonts the upstream lacks are reported in its notes.
 */
export function sumFontstack(result: MirrorResult, runs: MirrorResult[], aborted: boolean): void {
  for (const r of runs) {
    for (const k of SUMMED) result[k] += r[k];
    result.failures.push(...r.failures.map((f) => `${r.resource.slice('fonts/'.length)} ${f}`));
  }
  result.dependencies = runs;
  const publishedFonts = runs.filter((r) => r.status === 'published');
  const missing = runs.filter((r) => r.status === 'failed' && r.problems.every((p) => p.includes('the upstream has no font')));
  const broken = runs.filter((r) => r.status === 'failed' && !missing.includes(r));
  if (runs.some((r) => r.status === 'interrupted') || aborted) {
    interrupted(result);
  } else if (publishedFonts.length > 0 && broken.length === 0) {
    published(result, publishedFonts.map((r) => r.published).join(', '));
  }
  for (const r of missing) result.notes.push(`not mirrored: ${r.problems.join('; ')}`);
  for (const r of broken) result.problems.push(`${r.resource}: ${r.problems.join('; ') || 'failed'}`);
  if (publishedFonts.length === 0 && broken.length === 0 && result.status === 'failed') result.problems.push('the upstream has none of the fonts of this stack');
}
