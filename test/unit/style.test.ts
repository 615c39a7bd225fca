// Styles: local URLs resolved to this server with the key (template braces kept), the sprite id of a stored style,
// the automatic style of a tile set (labels when a layer has names), and the sample style's references.

import { autoStyle } from '../../src/http/viewer';
import { glyphsUrl, LOCAL_GLYPHS_URL, localSpriteId, localSpriteUrl, resolveLocalUrls } from '../../src/ogc/style';
import { SAMPLE_FONT, sampleStyle, SPRITE_ICONS, SPRITE_ID } from '../../src/sample';
import type { TilesetInfo } from '../../src/store/types';

const BASE = 'http://127.0.0.1:8080';

describe('resolveLocalUrls', () => {
  test('glyphs keep {fontstack}/{range} and get the key after them', () => {
    const doc = resolveLocalUrls({ glyphs: LOCAL_GLYPHS_URL }, BASE, 'demo');
    expect(doc.glyphs).toBe(`${BASE}/fonts/{fontstack}/{range}.pbf?key=demo`);
    expect(glyphsUrl(BASE, 'demo')).toBe(doc.glyphs);
  });

  test('a sprite URL ends with the query, so MapLibre can insert @2x.png / .json into the path', () => {
    const doc = resolveLocalUrls({ sprite: localSpriteUrl('sample') }, BASE, 'demo');
    expect(doc.sprite).toBe(`${BASE}/sprites/sample/sprite?key=demo`);
    // What MapLibre does with it (normalizeSpriteURL): the path grows, the query stays.
    const u = new URL(doc.sprite);
    u.pathname += '@2x.png';
    expect(u.toString()).toBe(`${BASE}/sprites/sample/sprite@2x.png?key=demo`);
  });

  test('keys are encoded, a trailing slash of the base is dropped, other URLs are untouched', () => {
    const doc = resolveLocalUrls(
      { sources: { a: { url: 'tilemirror://tiles/x/tiles.json' }, b: { tiles: ['tilemirror://tiles/x/{z}/{x}/{y}?v=1'] }, c: { url: 'https://example.com/t.json' } } },
      `${BASE}/`,
      'a&b=c',
    );
    expect(doc.sources.a.url).toBe(`${BASE}/tiles/x/tiles.json?key=a%26b%3Dc`);
    expect(doc.sources.b.tiles[0]).toBe(`${BASE}/tiles/x/{z}/{x}/{y}?v=1&key=a%26b%3Dc`);
    expect(doc.sources.c.url).toBe('https://example.com/t.json');
  });
});

describe('localSpriteId', () => {
  test('reads the mirrored sprite of a style', () => {
    expect(localSpriteId({ sprite: 'tilemirror://sprites/sample/sprite' })).toBe('sample');
    expect(localSpriteId({ sprite: localSpriteUrl('my icons') })).toBe('my icons');
    expect(localSpriteId({ sprite: [{ id: 'other', url: 'tilemirror://sprites/b/sprite' }, { id: 'default', url: 'tilemirror://sprites/a/sprite' }] })).toBe('a');
    expect(localSpriteId({ sprite: [{ id: 'x', url: 'tilemirror://sprites/b/sprite' }] })).toBe('b');
  });

  test('undefined without a local sprite', () => {
    expect(localSpriteId({})).toBeUndefined();
    expect(localSpriteId(null)).toBeUndefined();
    expect(localSpriteId({ sprite: 'https://example.com/sprite' })).toBeUndefined();
    expect(localSpriteId({ sprite: 'tilemirror://sprites/a/b/sprite' })).toBeUndefined();
    expect(localSpriteId({ sprite: 'tilemirror://sprites/%E0%A4%A/sprite' })).toBeUndefined();
    expect(localSpriteId({ sprite: 42 })).toBeUndefined();
  });
});

describe('autoStyle', () => {
  const info = (format: 'pbf' | 'png'): TilesetInfo => ({
    kind: 'tiles',
    id: 't',
    name: 'T',
    description: '',
    attribution: '',
    type: 'baselayer',
    format,
    minzoom: 0,
    maxzoom: 5,
    bounds: [-180, -85, 180, 85],
    center: [0, 0, 1],
    pyramids: [{ name: 'main', tileSize: 512, scale: 1, format, minzoom: 0, maxzoom: 5, bounds: [-180, -85, 180, 85] }],
    vectorLayers:
      format === 'pbf'
        ? [
            { id: 'countries', fields: { name: 'String', id: 'String' } },
            { id: 'coastline', fields: {} },
            { id: 'places', fields: { name: 'String' } },
          ]
        : undefined,
    version: 'v',
  });
  const labels = { glyphsUrl: glyphsUrl(BASE, 'demo'), font: 'Noto Sans Regular' };
  type Layer = { id: string; type: string; layout?: Record<string, unknown>; 'source-layer'?: string };

  test('vector: glyphs on this server and a label layer per layer with names, above the rest', () => {
    const style = autoStyle(info('pbf'), `${BASE}/tiles/t/tiles.json?key=demo`, labels) as { glyphs: string; layers: Layer[] };
    expect(style.glyphs).toBe(`${BASE}/fonts/{fontstack}/{range}.pbf?key=demo`);
    const symbols = style.layers.filter((l) => l.type === 'symbol');
    expect([...new Set(symbols.map((l) => l['source-layer']))].sort()).toEqual(['countries', 'places']);
    for (const s of symbols) expect(s.layout!['text-font']).toEqual(['Noto Sans Regular']);
    // Point and line labels are placed before polygon labels (later in the stack means placed first).
    const ids = symbols.map((l) => l.id);
    expect(ids.indexOf('countries-area-label')).toBeLessThan(ids.indexOf('countries-label'));
    expect(ids.indexOf('places-area-label')).toBeLessThan(ids.indexOf('countries-line-label'));
    expect(symbols.find((l) => l.id === 'places-line-label')!.layout!['symbol-placement']).toBe('line');
    const firstSymbol = style.layers.findIndex((l) => l.type === 'symbol');
    expect(style.layers.slice(firstSymbol).every((l) => l.type === 'symbol')).toBe(true);
  });

  test('without label options, or for raster tiles: no glyphs, no symbols', () => {
    const plain = autoStyle(info('pbf'), 'u') as { glyphs?: string; layers: Layer[] };
    expect(plain.glyphs).toBeUndefined();
    expect(plain.layers.some((l) => l.type === 'symbol')).toBe(false);
    const raster = autoStyle(info('png'), 'u', labels) as { glyphs?: string; layers: Layer[] };
    expect(raster.glyphs).toBeUndefined();
    expect(raster.layers.map((l) => l.type)).toEqual(['background', 'raster']);
  });
});

describe('sample style', () => {
  const style = sampleStyle() as {
    glyphs: string;
    sprite: string;
    sources: Record<string, { url: string }>;
    layers: { id: string; type: string; layout?: Record<string, unknown>; 'source-layer'?: string }[];
  };

  test('uses the sample font, sprite and vector tiles through local URLs', () => {
    expect(style.glyphs).toBe('tilemirror://fonts/{fontstack}/{range}.pbf');
    expect(style.sprite).toBe(`tilemirror://sprites/${SPRITE_ID}/sprite`);
    expect(style.sources['sample-vector'].url).toBe('tilemirror://tiles/sample-vector/tiles.json');
  });

  test('labels the countries in Noto Sans, with an icon of the sprite', () => {
    const symbols = style.layers.filter((l) => l.type === 'symbol');
    expect(symbols.length).toBeGreaterThanOrEqual(2);
    for (const s of symbols) {
      expect(s['source-layer']).toBe('country_label');
      expect(s.layout!['text-font']).toEqual([SAMPLE_FONT]);
    }
    const icons = symbols.map((s) => s.layout!['icon-image']).filter((i) => i !== undefined);
    expect(icons.length).toBeGreaterThan(0);
    for (const i of icons) expect(SPRITE_ICONS as readonly unknown[]).toContain(i);
  });
});
