// `fonts/FONTSTACK`: every glyph range (0-255 ... 65280-65535) of each font of the stack, one store per font
// (`{data}/fonts/{Font Name}.mbtiles`, documents `{start}-{end}.pbf`), fetched with single-font requests
// (`/fonts/{Font Name}/{start}-{end}.pbf`) because the server combines stacks itself. A font the upstream lacks
// (404 for its first range) is reported and skipped; the other fonts of the stack are still mirrored.
// Ranges without glyphs are not stored: the server answers them exactly as the upstream does (an empty range).

import { decodeRawGlyphs, GLYPH_RANGE_SIZE, glyphRangePath, MAX_GLYPH_START, parseFontstack } from '../../../services/fonts/glyphs';
import type { MirrorOptions } from '../../engine/options';
import { dependencyLine, emptyResult, type MirrorResult } from '../../engine/result';
import { failureOf, judgeDocument, mirrorDocumentStore, pool, type CollectContext, type Collected, type EngineDeps, type FetchedDoc } from '../../engine/document-run';
import type { ResourceRef } from '../../resource';

const PROTOBUF = 'application/x-protobuf';

/** Starts of every glyph range of the Basic Multilingual Plane: 0, 256, ..., 65280. */
export const GLYPH_STARTS: readonly number[] = Array.from({ length: MAX_GLYPH_START / GLYPH_RANGE_SIZE + 1 }, (_, i) => i * GLYPH_RANGE_SIZE);

/** Upstream path of one range of one font. */
export function glyphPath(font: string, start: number): string {
  return `/fonts/${encodeURIComponent(font)}/${glyphRangePath(start)}`;
}

interface RangeAnswer {
  data: Buffer;
  glyphs: number;
  names: string[];
}

function judgeRange(res: Parameters<ReturnType<typeof judgeDocument>>[0]) {
  return judgeDocument((body) => {
    try {
      decodeRawGlyphs(body);
      return undefined;
    } catch (err) {
      return `not a glyph PBF: ${(err as Error).message}`;
    }
  })(res);
}

async function fetchRange(ctx: CollectContext, font: string, start: number): Promise<RangeAnswer | undefined> {
  const body = await ctx.client.request(ctx.client.resolve(glyphPath(font, start)), judgeRange, ctx.signal);
  ctx.onDocument?.();
  if (body === undefined) return undefined;
  const stacks = decodeRawGlyphs(body);
  return { data: body, glyphs: stacks.reduce((n, s) => n + s.glyphs.length, 0), names: stacks.map((s) => s.name) };
}

/** Collects one font's ranges. */
export async function collectFont(ref: ResourceRef, ctx: CollectContext): Promise<Collected> {
  const font = ref.id;
  const out: Collected = {
    header: { kind: 'fonts', name: font, pyramids: [] },
    documents: [],
    planned: GLYPH_STARTS.length,
    absent: 0,
    failures: [],
    notes: [],
  };
  // The first range tells whether the upstream has the font at all (a 404 there: it has not).
  const first = await fetchRange(ctx, font, 0);
  if (first === undefined) {
    out.missing = `the upstream has no font "${font}" (404)`;
    out.absent = GLYPH_STARTS.length;
    return out;
  }
  const named = first.names.find((n) => n !== '');
  if (named !== undefined && named !== font) {
    out.notes.push(`the upstream's glyphs for "${font}" are named "${named}": it may have answered with a fallback font`);
  }
  const found = new Map<number, RangeAnswer | undefined>([[0, first]]);
  let fatal = false;
  await pool(
    GLYPH_STARTS.slice(1),
    ctx.concurrency,
    async (start) => {
      try {
        found.set(start, await fetchRange(ctx, font, start));
      } catch (err) {
        out.failures.push(failureOf(glyphRangePath(start), err));
        const status = (err as { status?: number }).status;
        // A refused key will not get better for the next range.
        if (status === 401 || status === 403) fatal = true;
      }
    },
    () => fatal || !!ctx.signal?.aborted,
  );
  for (const start of GLYPH_STARTS) {
    const r = found.get(start);
    if (!found.has(start)) continue;
    if (!r || r.glyphs === 0) out.absent++;
    else out.documents.push({ path: glyphRangePath(start), contentType: PROTOBUF, data: r.data } satisfies FetchedDoc);
  }
  if (fatal) out.failures.push('the upstream refused the key: stopped');
  return out;
}

/** Font names of a fontstack resource id (`Noto Sans Regular,Noto Sans Bold`). */
export function fontsOf(ref: ResourceRef): string[] {
  return parseFontstack(ref.id);
}

/**
 * Mirrors every font of a fontstack, one store each. The stack's result is published when at least one font
 * was; fonts the upstream lacks are reported in its notes; any other failure of a font fails the stack's result.
 */
export async function mirrorFontstack(ref: ResourceRef, opts: MirrorOptions, deps: EngineDeps): Promise<MirrorResult> {
  const fonts = fontsOf(ref);
  const runFont = (name: string): Promise<MirrorResult> => mirrorDocumentStore({ kind: 'fonts', id: name }, { ...opts, resource: { kind: 'fonts', id: name } }, collectFont, deps);
  if (fonts.length === 1) return runFont(fonts[0]);
  const started = Date.now();
  const result = emptyResult(`fonts/${ref.id}`);
  const runs: MirrorResult[] = [];
  for (const name of fonts) {
    if (opts.signal?.aborted) break;
    const r = await runFont(name);
    runs.push(r);
    for (const k of ['planned', 'fetched', 'stored', 'empty', 'failed', 'requests', 'retries', 'bytes', 'writes'] as const) result[k] += r[k];
    result.failures.push(...r.failures.map((f) => `${name} ${f}`));
    result.notes.push(dependencyLine(r));
    if (r.status === 'interrupted') break;
  }
  result.dependencies = runs;
  const published = runs.filter((r) => r.status === 'published');
  const missing = runs.filter((r) => r.status === 'failed' && r.problems.every((p) => p.includes('the upstream has no font')));
  const broken = runs.filter((r) => r.status === 'failed' && !missing.includes(r));
  if (runs.some((r) => r.status === 'interrupted') || opts.signal?.aborted) {
    result.status = 'interrupted';
    result.exitCode = 3;
  } else if (published.length > 0 && broken.length === 0) {
    result.status = 'published';
    result.exitCode = 0;
    result.published = published.map((r) => r.published).join(', ');
  }
  for (const r of missing) result.notes.push(`not mirrored: ${r.problems.join('; ')}`);
  for (const r of broken) result.problems.push(`${r.resource}: ${r.problems.join('; ') || 'failed'}`);
  if (published.length === 0 && broken.length === 0 && result.status === 'failed') result.problems.push('the upstream has none of the fonts of this stack');
  result.elapsedMs = Date.now() - started;
  return result;
}

/** Style expression operators that can stand first in a `text-font` array of strings. */
const EXPRESSION_OPERATORS = new Set([
  'get', 'has', 'at', 'in', 'index-of', 'slice', 'length', 'var', 'let', 'literal', 'array', 'string', 'to-string', 'coalesce', 'case',
  'match', 'step', 'interpolate', 'feature-state', 'properties', 'id', 'geometry-type', 'zoom', 'concat', 'downcase', 'upcase', 'config', 'global-state',
]);

/**
 * Font names used by a style: every `text-font` of its layers (plain arrays, `["literal", [...]]` inside
 * expressions, legacy `{stops: [[z, [...]]]}` functions), as fontstacks (comma-joined) and as single fonts.
 */
export function styleFontstacks(style: unknown): { stacks: string[]; fonts: string[] } {
  const stacks: string[] = [];
  const add = (list: unknown): boolean => {
    if (!Array.isArray(list) || list.length === 0 || !list.every((f) => typeof f === 'string' && f.trim() !== '')) return false;
    // ["get", "font"] is an expression, not a font named "get" (fonts computed from data cannot be known).
    if (EXPRESSION_OPERATORS.has(list[0] as string)) return false;
    const stack = (list as string[]).join(',');
    if (!stacks.includes(stack)) stacks.push(stack);
    return true;
  };
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      if (v[0] === 'literal') {
        add(v[1]);
        return;
      }
      for (const x of v) walk(x);
    } else if (v && typeof v === 'object') {
      const stops = (v as { stops?: unknown }).stops;
      if (Array.isArray(stops)) for (const s of stops) if (Array.isArray(s) && !add(s[1])) walk(s[1]);
      const def = (v as { default?: unknown }).default;
      if (def !== undefined) walk(def);
    }
  };
  const layers = (style as { layers?: unknown } | null)?.layers;
  for (const layer of Array.isArray(layers) ? layers : []) {
    const tf = (layer as { layout?: Record<string, unknown> } | null)?.layout?.['text-font'];
    if (tf === undefined) continue;
    // A plain array of names is the value itself; anything else is an expression or function to look into.
    if (!add(tf)) walk(tf);
  }
  const fonts: string[] = [];
  for (const s of stacks) for (const f of s.split(',')) if (!fonts.includes(f.trim())) fonts.push(f.trim());
  return { stacks, fonts };
}
