// `fonts/FONT`: every glyph range (0-255 ... 65280-65535) of one font into `{data}/fonts/{Font Name}.mbtiles`
// (documents `{start}-{end}.pbf`), fetched with single-font requests (`/fonts/{Font Name}/{start}-{end}.pbf`)
// because the server combines stacks itself; a fontstack `fonts/A,B` is one store per font (resource.ts
// storesOf). The first range tells whether the upstream has the font at all (a 404: it has not, nothing more is
// asked for); the others follow at once. Ranges without glyphs are not stored: the server answers them exactly
// as the upstream does (an empty range). Also here: the fonts a style uses (styleFontstacks).

import { decodeRawGlyphs, GLYPH_RANGE_SIZE, glyphRangePath, MAX_GLYPH_START } from '../../../services/fonts/glyphs';
import type { ResourceRef } from '../../resource';
import { failureOf } from '../../upstream/documents';
import type { AssembledDocuments, Discovered, DocumentAnswer, DocumentAnswers, DocumentToFetch } from '../types';

const PROTOBUF = 'application/x-protobuf';

/** Starts of every glyph range of the Basic Multilingual Plane: 0, 256, ..., 65280. */
export const GLYPH_STARTS: readonly number[] = Array.from({ length: MAX_GLYPH_START / GLYPH_RANGE_SIZE + 1 }, (_, i) => i * GLYPH_RANGE_SIZE);

/** Upstream path of one range of one font. */
export function glyphPath(font: string, start: number): string {
  return `/fonts/${encodeURIComponent(font)}/${glyphRangePath(start)}`;
}

function checkRange(body: Buffer): string | undefined {
  try {
    decodeRawGlyphs(body);
    return undefined;
  } catch (err) {
    return `not a glyph PBF: ${(err as Error).message}`;
  }
}

/** A refused key (401, 403) will not get better for the next range. */
const refused = (a: DocumentAnswer): boolean => a instanceof Error && [401, 403].includes((a as { status?: number }).status ?? 0);

const FIRST = glyphRangePath(0);

/** The description of one font's store: its glyph ranges, the first alone, then all the others. */
export function discoverFont(ref: ResourceRef): Discovered {
  const font = ref.id;
  const range = (start: number): DocumentToFetch => ({ url: glyphPath(font, start), path: glyphRangePath(start), check: checkRange });
  return {
    kind: 'fonts',
    id: font,
    header: { kind: 'fonts', name: font, pyramids: [] },
    pyramids: [],
    documents: [],
    notes: [],
    fetches: {
      groups: [[range(0)], GLYPH_STARTS.slice(1).map(range)],
      settled: (answers) => (answers.has(FIRST) && !(answers.get(FIRST) instanceof Buffer)) || [...answers.values()].some(refused),
      assemble: (answers) => assembleFont(font, answers),
    },
  };
}

/** A font's ranges from their answers: the first one missing means the upstream has no such font. */
export function assembleFont(font: string, answers: DocumentAnswers): AssembledDocuments {
  const out: AssembledDocuments = { documents: [], absent: 0, failures: [], notes: [] };
  const first = answers.get(FIRST);
  if (first instanceof Error) throw first;
  if (first === undefined) {
    if (answers.has(FIRST)) {
      out.missing = `the upstream has no font "${font}" (404)`;
      out.absent = GLYPH_STARTS.length;
    }
    return out;
  }
  const named = decodeRawGlyphs(first).map((s) => s.name).find((n) => n !== '');
  if (named !== undefined && named !== font) {
    out.notes.push(`the upstream's glyphs for "${font}" are named "${named}": it may have answered with a fallback font`);
  }
  for (const [path, answer] of answers) if (answer instanceof Error) out.failures.push(failureOf(path, answer));
  for (const start of GLYPH_STARTS) {
    const path = glyphRangePath(start);
    const answer = answers.get(path);
    if (!answers.has(path) || answer instanceof Error) continue;
    if (!answer || decodeRawGlyphs(answer).reduce((n, s) => n + s.glyphs.length, 0) === 0) out.absent++;
    else out.documents.push({ path, contentType: PROTOBUF, data: answer });
  }
  if ([...answers.values()].some(refused)) out.failures.push('the upstream refused the key: stopped');
  return out;
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
