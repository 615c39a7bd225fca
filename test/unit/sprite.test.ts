// The sample sprite: packing (deterministic, no overlaps, in the sheet), 2x layout, and the drawn sheets
// (sizes match the index, icons are drawn where the index says, same bytes on every build).

import sharp from 'sharp';
import { buildSprite, ICON_SIZE, iconSvg, makiShapes, packSprite, scaleLayout, SPRITE_ICONS, type SpriteLayout } from '../../src/sample/sprite';

const boxes = (names: readonly string[], size = (i: number) => 10 + (i % 4) * 3) =>
  names.map((name, i) => ({ name, width: size(i), height: size(i + 1) }));

function noOverlap(layout: SpriteLayout): void {
  const entries = Object.values(layout.index);
  for (const e of entries) {
    expect(e.x).toBeGreaterThanOrEqual(0);
    expect(e.y).toBeGreaterThanOrEqual(0);
    expect(e.x + e.width).toBeLessThanOrEqual(layout.width);
    expect(e.y + e.height).toBeLessThanOrEqual(layout.height);
  }
  for (let i = 0; i < entries.length; i++) {
    for (let j = i + 1; j < entries.length; j++) {
      const a = entries[i];
      const b = entries[j];
      const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
      expect(apart).toBe(true);
    }
  }
}

describe('packSprite', () => {
  const names = ['star', 'airport', 'marker', 'circle', 'harbor', 'town', 'mountain', 'a', 'b', 'c'];

  test('same layout whatever the input order', () => {
    const first = packSprite(boxes(names));
    const shuffled = boxes(names);
    const reversed = [...shuffled].reverse();
    expect(packSprite(reversed)).toEqual(first);
    expect(JSON.stringify(packSprite(boxes(names)))).toBe(JSON.stringify(first));
  });

  test('icons do not overlap, stay inside the sheet, keep their sizes, and are listed by name', () => {
    const input = boxes(names);
    const layout = packSprite(input);
    noOverlap(layout);
    expect(Object.keys(layout.index)).toEqual([...names].sort());
    for (const i of input) expect(layout.index[i.name]).toMatchObject({ width: i.width, height: i.height, pixelRatio: 1 });
  });

  test('a one-pixel gap between icons', () => {
    const layout = packSprite(boxes(['a', 'b'], () => 5));
    const [a, b] = [layout.index.a, layout.index.b];
    const gapX = Math.max(b.x - (a.x + a.width), a.x - (b.x + b.width));
    const gapY = Math.max(b.y - (a.y + a.height), a.y - (b.y + b.height));
    expect(Math.max(gapX, gapY)).toBeGreaterThanOrEqual(2);
    expect(Math.min(a.x, a.y, b.x, b.y)).toBeGreaterThanOrEqual(1);
  });

  test('the 2x layout doubles every coordinate', () => {
    const layout = packSprite(boxes(names));
    const x2 = scaleLayout(layout, 2);
    expect([x2.width, x2.height]).toEqual([layout.width * 2, layout.height * 2]);
    for (const [n, e] of Object.entries(layout.index)) {
      expect(x2.index[n]).toEqual({ x: e.x * 2, y: e.y * 2, width: e.width * 2, height: e.height * 2, pixelRatio: 2 });
    }
  });
});

describe('sample sprite sheets', () => {
  let built: Awaited<ReturnType<typeof buildSprite>>;
  beforeAll(async () => {
    built = await buildSprite();
  });

  test('every icon of the list, at 1x and 2x, in the MapLibre sprite format', () => {
    const x1 = JSON.parse(built.x1.json);
    const x2 = JSON.parse(built.x2.json);
    expect(Object.keys(x1)).toEqual([...SPRITE_ICONS].sort());
    expect(Object.keys(x2)).toEqual(Object.keys(x1));
    expect(SPRITE_ICONS.length).toBeGreaterThanOrEqual(20);
    for (const n of ['marker', 'star', 'circle', 'triangle', 'airport', 'harbor', 'mountain', 'town']) {
      expect(x1[n]).toEqual({ x: expect.any(Number), y: expect.any(Number), width: ICON_SIZE, height: ICON_SIZE, pixelRatio: 1 });
      expect(x2[n]).toEqual({ x: x1[n].x * 2, y: x1[n].y * 2, width: ICON_SIZE * 2, height: ICON_SIZE * 2, pixelRatio: 2 });
    }
  });

  test('PNG sizes hold the index; icons are drawn where the index says, the gaps are transparent', async () => {
    for (const sheet of [built.x1, built.x2]) {
      const index = JSON.parse(sheet.json) as Record<string, { x: number; y: number; width: number; height: number }>;
      const { data, info } = await sharp(sheet.png).raw().toBuffer({ resolveWithObject: true });
      expect(info.channels).toBe(4);
      for (const e of Object.values(index)) {
        expect(e.x + e.width).toBeLessThanOrEqual(info.width);
        expect(e.y + e.height).toBeLessThanOrEqual(info.height);
      }
      const alpha = (x: number, y: number) => data[(y * info.width + x) * 4 + 3];
      // The centre of a filled circle is opaque; the pixel just left of each icon is transparent.
      const c = index.circle;
      expect(alpha(c.x + Math.floor(c.width / 2), c.y + Math.floor(c.height / 2))).toBe(255);
      for (const e of Object.values(index)) for (let y = e.y; y < e.y + e.height; y++) expect(alpha(e.x - 1, y)).toBe(0);
    }
  });

  test('the same bytes on every build', async () => {
    const again = await buildSprite();
    expect(again.x1.png.equals(built.x1.png)).toBe(true);
    expect(again.x2.png.equals(built.x2.png)).toBe(true);
    expect(again.x1.json).toBe(built.x1.json);
    expect(again.x2.json).toBe(built.x2.json);
  });

  test('icons come from Maki, drawn on its 15 px grid with a one-pixel halo', () => {
    expect(makiShapes('star')).toMatch(/<path/);
    const svg = iconSvg('marker', 2);
    expect(svg).toContain(`width="${ICON_SIZE * 2}"`);
    expect(svg).toContain(`viewBox="-1 -1 ${ICON_SIZE} ${ICON_SIZE}"`);
    expect(() => makiShapes('no-such-icon')).toThrow();
  });
});
