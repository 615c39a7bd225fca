// Glyph range PBFs (the `glyphs.proto` of Mapbox/MapLibre SDF fonts), read and combined without I/O.
//
//   message glyphs    { repeated fontstack stacks = 1; }
//   message fontstack { required string name = 1; required string range = 2; repeated glyph glyphs = 3; }
//   message glyph     { required uint32 id = 1; optional bytes bitmap = 2; required uint32 width = 3;
//                       required uint32 height = 4; required sint32 left = 5; required sint32 top = 6;
//                       required uint32 advance = 7; }
//
// Combining keeps each glyph message byte for byte (only its id is read), so nothing a font generator put
// into a glyph is lost or re-encoded.

import Pbf from 'pbf';

/** Glyphs per range file: ranges are `start-(start+255)` with start a multiple of 256. */
export const GLYPH_RANGE_SIZE = 256;
/** Start of the last range of the Basic Multilingual Plane (65280-65535). */
export const MAX_GLYPH_START = 65280;
/** Most font names accepted in one fontstack. */
export const MAX_FONTSTACK_FONTS = 10;
/** Longest font name accepted (characters). */
export const MAX_FONT_NAME_LENGTH = 200;

export interface GlyphRange {
  start: number;
  end: number;
}

/**
 * `start-end` as in `/fonts/{fontstack}/{start}-{end}.pbf`: non-negative integers, start a multiple of 256,
 * end = start + 255, start at most 65280. Undefined for anything else.
 */
export function parseGlyphRange(range: string): GlyphRange | undefined {
  const m = /^(\d{1,5})-(\d{1,5})$/.exec(range);
  if (!m) return undefined;
  const start = Number(m[1]);
  const end = Number(m[2]);
  if (start % GLYPH_RANGE_SIZE !== 0 || start > MAX_GLYPH_START || end !== start + GLYPH_RANGE_SIZE - 1) return undefined;
  return { start, end };
}

/** Path of a range inside a font store: `0-255.pbf`. */
export function glyphRangePath(start: number): string {
  return `${start}-${start + GLYPH_RANGE_SIZE - 1}.pbf`;
}

/**
 * The font names of a (decoded) fontstack: split at commas, trimmed, duplicates dropped (the first one counts).
 * Throws a RangeError with a short message on an empty name, a name too long or too many names.
 */
export function parseFontstack(fontstack: string): string[] {
  const names: string[] = [];
  for (const part of fontstack.split(',')) {
    const name = part.trim();
    if (name === '') throw new RangeError('Empty font name in the fontstack');
    if (name.length > MAX_FONT_NAME_LENGTH) throw new RangeError('Font name too long');
    if (/[\x00-\x1f/\\]/.test(name)) throw new RangeError('Invalid character in a font name');
    if (!names.includes(name)) names.push(name);
  }
  if (names.length > MAX_FONTSTACK_FONTS) throw new RangeError(`At most ${MAX_FONTSTACK_FONTS} fonts in a fontstack`);
  return names;
}

/** One glyph: its codepoint and its message exactly as stored. */
export interface RawGlyph {
  id: number;
  raw: Uint8Array;
}

/** A glyph with its fields decoded (tests and tools; combining needs only RawGlyph). */
export interface Glyph {
  id: number;
  bitmap?: Uint8Array;
  width: number;
  height: number;
  left: number;
  top: number;
  advance: number;
}

export interface DecodedFontstack<G> {
  name: string;
  range: string;
  glyphs: G[];
}

function readRawGlyph(pbf: Pbf): RawGlyph {
  const end = pbf.readVarint() + pbf.pos;
  const start = pbf.pos;
  let id = -1;
  pbf.readFields((tag: number, _r: unknown, p?: Pbf) => {
    if (tag === 1) id = p!.readVarint();
    else p!.skip(p!.type);
  }, undefined, end);
  return { id, raw: pbf.buf.subarray(start, end) };
}

function readFieldsOfGlyph(tag: number, result?: Glyph, pbf?: Pbf): void {
  const g = result!;
  const p = pbf!;
  if (tag === 1) g.id = p.readVarint();
  else if (tag === 2) g.bitmap = p.readBytes();
  else if (tag === 3) g.width = p.readVarint();
  else if (tag === 4) g.height = p.readVarint();
  else if (tag === 5) g.left = p.readSVarint();
  else if (tag === 6) g.top = p.readSVarint();
  else if (tag === 7) g.advance = p.readVarint();
  else p.skip(p.type);
}

function decodeStacks<G>(data: Uint8Array, readGlyph: (pbf: Pbf) => G): DecodedFontstack<G>[] {
  const stacks: DecodedFontstack<G>[] = [];
  const pbf = new Pbf(data);
  pbf.readFields((tag: number, _r: unknown, p?: Pbf) => {
    if (tag !== 1) return p!.skip(p!.type);
    const stack: DecodedFontstack<G> = { name: '', range: '', glyphs: [] };
    const end = p!.readVarint() + p!.pos;
    p!.readFields((t: number, _s: unknown, q?: Pbf) => {
      if (t === 1) stack.name = q!.readString();
      else if (t === 2) stack.range = q!.readString();
      else if (t === 3) stack.glyphs.push(readGlyph(q!));
      else q!.skip(q!.type);
    }, undefined, end);
    stacks.push(stack);
  }, undefined);
  return stacks;
}

/** Every fontstack of a glyph PBF with each glyph kept as its raw message. Throws on a malformed buffer. */
export function decodeRawGlyphs(data: Uint8Array): DecodedFontstack<RawGlyph>[] {
  return decodeStacks(data, readRawGlyph);
}

/** Every fontstack of a glyph PBF with the glyph fields decoded. */
export function decodeGlyphs(data: Uint8Array): DecodedFontstack<Glyph>[] {
  return decodeStacks(data, (p) => p.readMessage(readFieldsOfGlyph, { id: 0, width: 0, height: 0, left: 0, top: 0, advance: 0 } as Glyph));
}

/** Encodes decoded glyphs (tests and tools). */
export function encodeGlyphs(name: string, range: string, glyphs: Glyph[]): Buffer {
  const pbf = new Pbf();
  pbf.writeMessage(1, (_: unknown, p?: Pbf) => {
    p!.writeStringField(1, name);
    p!.writeStringField(2, range);
    for (const g of glyphs) {
      p!.writeMessage(3, (_g: unknown, q?: Pbf) => {
        q!.writeVarintField(1, g.id);
        if (g.bitmap) q!.writeBytesField(2, g.bitmap);
        q!.writeVarintField(3, g.width);
        q!.writeVarintField(4, g.height);
        q!.writeSVarintField(5, g.left);
        q!.writeSVarintField(6, g.top);
        q!.writeVarintField(7, g.advance);
      }, g);
    }
  }, null);
  return Buffer.from(pbf.finish());
}

/**
 * Combines glyph range PBFs of several fonts, in order: each codepoint comes from the first source that has
 * it. The answer holds one fontstack named `name` for `range`, its glyphs sorted by id, each glyph message
 * copied unchanged. A source that is not a valid glyph PBF throws.
 */
export function combineGlyphs(sources: readonly Uint8Array[], name: string, range: string): Buffer {
  const chosen = new Map<number, Uint8Array>();
  for (const src of sources) {
    for (const stack of decodeRawGlyphs(src)) {
      for (const g of stack.glyphs) if (g.id >= 0 && !chosen.has(g.id)) chosen.set(g.id, g.raw);
    }
  }
  const ids = [...chosen.keys()].sort((a, b) => a - b);
  const pbf = new Pbf();
  pbf.writeMessage(1, (_: unknown, p?: Pbf) => {
    p!.writeStringField(1, name);
    p!.writeStringField(2, range);
    for (const id of ids) p!.writeBytesField(3, chosen.get(id)!);
  }, null);
  return Buffer.from(pbf.finish());
}
