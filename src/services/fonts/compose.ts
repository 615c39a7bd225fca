// Glyph ranges of a fontstack, from the mirrored font stores: one store per font, documents `0-255.pbf` ...

import type { DocumentStore } from '../../store/mbtiles/document-store';
import { digestTag } from '../../store/bytes/etag';
import { ByteLru } from '../../store/bytes/lru';
import { combineGlyphs, decodeRawGlyphs, glyphRangePath } from './glyphs';

/** Finds the store of a mirrored font (`catalog.documents('fonts', name)`). */
export type FontLookup = (name: string) => Pick<DocumentStore, 'version' | 'document'> | undefined;

export interface GlyphAnswer {
  data: Buffer;
  /** Cheap entity tag: the versions of the stores used and the range. */
  etag: string;
  /** Fonts whose store was found, in the order they were tried (the stack's own, then the fallback ones). */
  fonts: string[];
  /** True when one store's bytes are served unchanged. */
  unchanged: boolean;
}

/**
 * Answers glyph ranges of fontstacks. The stack's own fonts are tried in order, then the fallback fonts;
 * a font that is not mirrored is skipped, and a store without the range gives no glyphs. Each glyph comes from
 * the first font that has it. `undefined` only when no font of the stack nor of the fallback is mirrored.
 *
 * Fast path: a single-font stack whose store has the range, or any stack where only one found store has the
 * range, is answered with that store's bytes unchanged. Combined answers are cached, keyed by store versions.
 */
export class GlyphComposer {
  private readonly cache: ByteLru;

  constructor(cacheBytes = 16 * 1024 * 1024) {
    this.cache = new ByteLru(cacheBytes);
  }

  compose(lookup: FontLookup, stack: readonly string[], fallback: readonly string[], start: number): GlyphAnswer | undefined {
    const path = glyphRangePath(start);
    const range = path.slice(0, -'.pbf'.length);
    const names = [...stack];
    for (const f of fallback) if (!names.includes(f)) names.push(f);
    const found: { name: string; store: NonNullable<ReturnType<FontLookup>> }[] = [];
    for (const name of names) {
      const store = lookup(name);
      if (store) found.push({ name, store });
    }
    if (found.length === 0) return undefined;
    const fonts = found.map((f) => f.name);

    if (stack.length === 1 && found[0].name === stack[0]) {
      const doc = found[0].store.document(path);
      if (doc) return { data: doc.data, etag: `${found[0].store.version}-${range}`, fonts, unchanged: true };
    }
    const withRange = found
      .map((f) => ({ ...f, doc: f.store.document(path) }))
      .filter((f): f is typeof f & { doc: NonNullable<typeof f.doc> } => f.doc !== undefined);
    if (withRange.length === 1) {
      const only = withRange[0];
      return { data: only.doc.data, etag: `${only.store.version}-${range}`, fonts, unchanged: true };
    }

    const name = stack.join(',');
    const key = `${JSON.stringify(withRange.map((f) => [f.name, f.store.version]))}|${name}|${range}`;
    const etag = digestTag(key);
    const hit = this.cache.get(key);
    if (hit) return { data: hit, etag, fonts, unchanged: false };
    // A damaged range in one store must not break the others: such a source gives no glyphs.
    const sources = withRange.map((f) => f.doc.data).filter(decodes);
    const data = combineGlyphs(sources, name, range);
    this.cache.set(key, data);
    return { data, etag, fonts, unchanged: false };
  }
}

function decodes(data: Uint8Array): boolean {
  try {
    decodeRawGlyphs(data);
    return true;
  } catch {
    return false;
  }
}
