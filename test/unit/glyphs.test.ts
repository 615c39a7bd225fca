// Glyph ranges: parsing the range and the fontstack, decoding and combining glyph PBFs, and choosing the
// fonts of a stack (order, fallback, missing fonts, unchanged bytes for a single font). PBFs are built here.

import fs from 'node:fs';
import path from 'node:path';
import Pbf from 'pbf';
import { GlyphComposer, type FontLookup } from '../../src/services/fonts/compose';
import {
  combineGlyphs,
  decodeGlyphs,
  encodeGlyphs,
  glyphRangePath,
  parseFontstack,
  parseGlyphRange,
  type Glyph,
} from '../../src/services/fonts/glyphs';

/** A glyph whose bitmap and metrics tell which font it came from. */
function glyph(id: number, font: number): Glyph {
  return { id, bitmap: Uint8Array.from([font, id & 255, 7]), width: 1 + font, height: 2, left: -font, top: -10, advance: 5 + font };
}
const pbf = (name: string, range: string, ids: number[], font: number) => encodeGlyphs(name, range, ids.map((id) => glyph(id, font)));
const ids = (data: Uint8Array) => decodeGlyphs(data).flatMap((s) => s.glyphs.map((g) => g.id));
const sourceOf = (data: Uint8Array) => Object.fromEntries(decodeGlyphs(data)[0].glyphs.map((g) => [g.id, g.bitmap![0]]));

describe('glyph range', () => {
  test.each([
    ['0-255', { start: 0, end: 255 }],
    ['256-511', { start: 256, end: 511 }],
    ['65280-65535', { start: 65280, end: 65535 }],
  ])('%s is valid', (range, expected) => {
    expect(parseGlyphRange(range)).toEqual(expected);
  });

  test.each(['0-256', '1-256', '255-510', '256-255', '65536-65791', '-256-0', '0_255', '0-255.pbf', 'a-b', '', '0 -255', '0x0-255', '00000000256-511', '256-511-767'])(
    '%j is invalid',
    (range) => {
      expect(parseGlyphRange(range)).toBeUndefined();
    },
  );

  test('path inside a font store', () => {
    expect(glyphRangePath(0)).toBe('0-255.pbf');
    expect(glyphRangePath(65280)).toBe('65280-65535.pbf');
  });
});

describe('fontstack', () => {
  test('comma-separated names, trimmed, duplicates dropped', () => {
    expect(parseFontstack('Noto Sans Regular')).toEqual(['Noto Sans Regular']);
    expect(parseFontstack('Open Sans Bold, Noto Sans Regular ,Open Sans Bold')).toEqual(['Open Sans Bold', 'Noto Sans Regular']);
  });

  test('rejects empty names, too many names, control characters and slashes', () => {
    expect(() => parseFontstack('')).toThrow(/Empty font name/);
    expect(() => parseFontstack('A,,B')).toThrow(/Empty font name/);
    expect(() => parseFontstack(' ,A')).toThrow(/Empty font name/);
    expect(() => parseFontstack(Array.from({ length: 11 }, (_, i) => `F${i}`).join(','))).toThrow(/At most 10/);
    expect(parseFontstack(Array.from({ length: 10 }, (_, i) => `F${i}`).join(','))).toHaveLength(10);
    expect(() => parseFontstack('a/b')).toThrow(RangeError);
    expect(() => parseFontstack('a\nb')).toThrow(RangeError);
    expect(() => parseFontstack('x'.repeat(201))).toThrow(/too long/);
  });
});

describe('glyph PBF', () => {
  test('encode and decode round-trip every field', () => {
    const g = [glyph(65, 1), { id: 32, width: 0, height: 0, left: 0, top: -26, advance: 6 }];
    const decoded = decodeGlyphs(encodeGlyphs('F', '0-255', g));
    expect(decoded).toHaveLength(1);
    expect(decoded[0].name).toBe('F');
    expect(decoded[0].range).toBe('0-255');
    expect(decoded[0].glyphs[0]).toEqual({ ...g[0], bitmap: expect.any(Uint8Array) });
    expect(Array.from(decoded[0].glyphs[0].bitmap!)).toEqual([1, 65, 7]);
    expect(decoded[0].glyphs[1]).toEqual(g[1]);
  });

  test('the Noto Sans glyphs of tileserver-gl-styles decode', () => {
    const file = path.join(path.dirname(require.resolve('tileserver-gl-styles/package.json')), 'fonts/Noto Sans Regular/0-255.pbf');
    const [stack] = decodeGlyphs(fs.readFileSync(file));
    expect(stack.name).toBe('Noto Sans Regular');
    expect(stack.range).toBe('0-255');
    const a = stack.glyphs.find((g) => g.id === 65)!;
    expect(a.advance).toBeGreaterThan(0);
    expect(a.bitmap!.length).toBe((a.width + 6) * (a.height + 6)); // SDF bitmaps have a 3 px border
  });
});

describe('combineGlyphs', () => {
  const a = pbf('A', '0-255', [65, 66, 70], 1);
  const b = pbf('B', '0-255', [66, 67], 2);
  const c = pbf('C', '0-255', [64, 67, 68], 3);

  test('each glyph from the first font that has it, sorted by id, named after the stack', () => {
    const out = combineGlyphs([a, b, c], 'A,B,C', '0-255');
    const [stack] = decodeGlyphs(out);
    expect(stack.name).toBe('A,B,C');
    expect(stack.range).toBe('0-255');
    expect(ids(out)).toEqual([64, 65, 66, 67, 68, 70]);
    expect(sourceOf(out)).toEqual({ 64: 3, 65: 1, 66: 1, 67: 2, 68: 3, 70: 1 });
  });

  test('order decides', () => {
    const out = combineGlyphs([c, b, a], 'C,B,A', '0-255');
    expect(sourceOf(out)).toEqual({ 64: 3, 65: 1, 66: 2, 67: 3, 68: 3, 70: 1 });
  });

  test('glyph messages are copied byte for byte', () => {
    const out = combineGlyphs([a], 'A', '0-255');
    expect(decodeGlyphs(out)).toEqual(decodeGlyphs(a));
    // Same bytes as the source when the name and range are the same.
    expect(Buffer.compare(out, a)).toBe(0);
  });

  test('unknown fields inside a glyph survive', () => {
    const p = new Pbf();
    p.writeMessage(1, (_: unknown, q?: Pbf) => {
      q!.writeStringField(1, 'X');
      q!.writeStringField(2, '0-255');
      q!.writeMessage(3, (_g: unknown, r?: Pbf) => {
        r!.writeVarintField(1, 88);
        r!.writeVarintField(3, 1);
        r!.writeVarintField(4, 1);
        r!.writeSVarintField(5, 0);
        r!.writeSVarintField(6, 0);
        r!.writeVarintField(7, 3);
        r!.writeStringField(15, 'extra');
      }, null);
    }, null);
    const src = Buffer.from(p.finish());
    const out = combineGlyphs([src], 'X', '0-255');
    expect(out.includes(Buffer.from('extra'))).toBe(true);
  });

  test('no sources: an empty fontstack', () => {
    const out = combineGlyphs([], 'A', '256-511');
    expect(decodeGlyphs(out)).toEqual([{ name: 'A', range: '256-511', glyphs: [] }]);
  });
});

describe('GlyphComposer', () => {
  /** Fake font stores: name -> ranges (start -> bytes). */
  function fonts(stores: Record<string, Record<number, Buffer>>, version = 'v1'): FontLookup & { calls: string[] } {
    const calls: string[] = [];
    const lookup = (name: string) => {
      calls.push(name);
      const ranges = stores[name];
      if (!ranges) return undefined;
      return {
        version: `${name}-${version}`,
        document: (p: string) => {
          const start = Number(p.split('-')[0]);
          return ranges[start] && p === glyphRangePath(start) ? { contentType: 'application/x-protobuf', data: ranges[start] } : undefined;
        },
      };
    };
    return Object.assign(lookup, { calls });
  }
  const A = pbf('A', '0-255', [65, 66], 1);
  const B = pbf('B', '0-255', [66, 67], 2);
  const F = pbf('F', '0-255', [65, 68], 9);
  const B256 = pbf('B', '256-511', [300], 2);
  const lookup = fonts({ A: { 0: A }, B: { 0: B, 256: B256 }, F: { 0: F } });

  test('a single font that has the range: its bytes unchanged (the same buffer)', () => {
    const r = new GlyphComposer().compose(lookup, ['A'], ['F'], 0)!;
    expect(r.data).toBe(A);
    expect(r.unchanged).toBe(true);
    expect(r.etag).toBe('A-v1-0-255');
  });

  test('several fonts: combined in order, then the fallback fonts', () => {
    const r = new GlyphComposer().compose(lookup, ['B', 'A'], ['F'], 0)!;
    expect(r.unchanged).toBe(false);
    expect(r.fonts).toEqual(['B', 'A', 'F']);
    expect(decodeGlyphs(r.data)[0].name).toBe('B,A');
    expect(sourceOf(r.data)).toEqual({ 65: 1, 66: 2, 67: 2, 68: 9 });
  });

  test('fonts that are not mirrored are skipped; the fallback fills in', () => {
    const r = new GlyphComposer().compose(lookup, ['Missing', 'A'], ['F'], 0)!;
    expect(r.fonts).toEqual(['A', 'F']);
    expect(sourceOf(r.data)).toEqual({ 65: 1, 66: 1, 68: 9 });
    const only = new GlyphComposer().compose(lookup, ['Missing'], ['F'], 0)!;
    expect(only.data).toBe(F);
    expect(only.fonts).toEqual(['F']);
  });

  test('a fallback font already in the stack is tried once, in the stack position', () => {
    const r = new GlyphComposer().compose(lookup, ['F', 'A'], ['F'], 0)!;
    expect(r.fonts).toEqual(['F', 'A']);
    expect(sourceOf(r.data)).toEqual({ 65: 9, 66: 1, 68: 9 });
  });

  test('a store without the range gives no glyphs; a single store with it is served unchanged', () => {
    const r = new GlyphComposer().compose(lookup, ['A', 'B'], ['F'], 256)!;
    expect(r.data).toBe(B256);
    const none = new GlyphComposer().compose(lookup, ['A'], ['F'], 512)!;
    expect(decodeGlyphs(none.data)).toEqual([{ name: 'A', range: '512-767', glyphs: [] }]);
  });

  test('undefined only when no font of the stack nor of the fallback is mirrored', () => {
    expect(new GlyphComposer().compose(lookup, ['X', 'Y'], ['Z'], 0)).toBeUndefined();
    expect(new GlyphComposer().compose(lookup, ['X'], [], 0)).toBeUndefined();
  });

  test('combined answers are cached by store versions', () => {
    const composer = new GlyphComposer();
    const first = composer.compose(lookup, ['A', 'B'], [], 0)!;
    const again = composer.compose(lookup, ['A', 'B'], [], 0)!;
    expect(again.data).toBe(first.data);
    expect(again.etag).toBe(first.etag);
    const B2 = pbf('B', '0-255', [66, 67, 99], 5);
    const changed = composer.compose(fonts({ A: { 0: A }, B: { 0: B2 } }, 'v2'), ['A', 'B'], [], 0)!;
    expect(changed.etag).not.toBe(first.etag);
    expect(ids(changed.data)).toEqual([65, 66, 67, 99]);
  });

  test('a damaged range in one store does not break the others', () => {
    const broken = Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]);
    const r = new GlyphComposer().compose(fonts({ A: { 0: A }, Bad: { 0: broken } }), ['Bad', 'A'], [], 0)!;
    expect(ids(r.data)).toEqual([65, 66]);
  });
});
