// The pure parts of mirroring the document kinds: resource parsing, style fontstacks and sprites, sprite,
// GeoJSON and weather catalog validation, map variant templates.

import sharp from 'sharp';
import { parseResource } from '../../src/mirror/resource';
import { checkFeatureCollection } from '../../src/mirror/discovery/kinds/data';
import { GLYPH_STARTS, glyphPath, styleFontstacks } from '../../src/mirror/discovery/kinds/fonts';
import { localiseSprites, variantName, variantTemplate } from '../../src/mirror/discovery/kinds/maps';
import { checkConformance } from '../../src/mirror/discovery/kinds/ogc';
import { checkSprite, parseSpriteIndex, pngSize, spriteUpstreamPath } from '../../src/mirror/discovery/kinds/sprites';
import { checkWeatherCatalog, keyframeIds } from '../../src/mirror/discovery/kinds/weather';
import { UsageError } from '../../src/mirror/errors';
import { weatherCatalog } from '../fixtures/document-stores';

describe('resources', () => {
  test('every kind of the spec parses; singletons get their store id', () => {
    expect(parseResource('fonts/Noto Sans Regular,Noto Sans Bold')).toEqual({ kind: 'fonts', id: 'Noto Sans Regular,Noto Sans Bold' });
    expect(parseResource('sprites/basic')).toEqual({ kind: 'sprites', id: 'basic' });
    expect(parseResource('data/abc-123')).toEqual({ kind: 'data', id: 'abc-123' });
    expect(parseResource('weather')).toEqual({ kind: 'weather', id: 'latest' });
    expect(parseResource('weather/latest')).toEqual({ kind: 'weather', id: 'latest' });
    expect(parseResource('ogc')).toEqual({ kind: 'ogc', id: 'conformance' });
  });

  test('bad ones are usage errors', () => {
    for (const bad of ['nope/x', 'weather/other', 'fonts/', 'fonts/A,,B', 'fonts/.hidden', 'data/../x', 'sprites/a/b', 'ogc/x']) {
      expect(() => parseResource(bad)).toThrow(UsageError);
    }
  });
});

describe('fonts', () => {
  test('256 ranges per font, fetched with single-font requests', () => {
    expect(GLYPH_STARTS.length).toBe(256);
    expect(GLYPH_STARTS[255]).toBe(65280);
    expect(glyphPath('Noto Sans Regular', 65280)).toBe('/fonts/Noto%20Sans%20Regular/65280-65535.pbf');
  });

  test('text-font values of a style: arrays, literals inside expressions, legacy stops', () => {
    const style = {
      layers: [
        { id: 'a', layout: { 'text-font': ['Noto Sans Regular'] } },
        { id: 'b', layout: { 'text-font': ['step', ['zoom'], ['literal', ['Noto Sans Bold', 'Noto Sans Regular']], 10, ['literal', ['Open Sans Italic']]] } },
        { id: 'c', layout: { 'text-font': { stops: [[0, ['Roboto Medium']], [8, ['Noto Sans Regular']]] } } },
        { id: 'd', layout: { 'text-font': ['case', ['has', 'x'], ['literal', ['Noto Sans Regular']], ['literal', ['Noto Sans Bold', 'Noto Sans Regular']]] } },
        { id: 'e', layout: { 'text-field': '{name}' } },
        { id: 'f', paint: {} },
        { id: 'g', layout: { 'text-font': ['get', 'font'] } },
      ],
    };
    expect(styleFontstacks(style)).toEqual({
      stacks: ['Noto Sans Regular', 'Noto Sans Bold,Noto Sans Regular', 'Open Sans Italic', 'Roboto Medium'],
      fonts: ['Noto Sans Regular', 'Noto Sans Bold', 'Open Sans Italic', 'Roboto Medium'],
    });
    expect(styleFontstacks({})).toEqual({ stacks: [], fonts: [] });
    expect(styleFontstacks(null)).toEqual({ stacks: [], fonts: [] });
  });
});

describe('sprites', () => {
  test('a map style sprite becomes a sprite store named after the map; local ones stay', () => {
    const style: Record<string, unknown> = { sprite: 'tilemirror://maps/streets-v2/sprite' };
    expect(localiseSprites(style)).toEqual([{ kind: 'sprites', id: 'streets-v2', upstreamPath: '/maps/streets-v2/sprite' }]);
    expect(style.sprite).toBe('tilemirror://sprites/streets-v2/sprite');
    const many: Record<string, unknown> = {
      sprite: [
        { id: 'default', url: 'tilemirror://sprites/basic/sprite' },
        { id: 'other', url: 'https://example.com/sprite' },
      ],
    };
    expect(localiseSprites(many)).toEqual([{ kind: 'sprites', id: 'basic' }]);
    expect(many.sprite).toEqual([
      { id: 'default', url: 'tilemirror://sprites/basic/sprite' },
      { id: 'other', url: 'https://example.com/sprite' },
    ]);
    expect(localiseSprites({ sprite: 'https://elsewhere.org/sprite' })).toEqual([]);
    expect(spriteUpstreamPath({ kind: 'sprites', id: 'a b' })).toBe('/sprites/a%20b/sprite');
    expect(spriteUpstreamPath({ kind: 'sprites', id: 'm', upstreamPath: '/maps/m/sprite' })).toBe('/maps/m/sprite');
  });

  test('index and sheet are validated: json shape, png magic and size, icons inside the sheet', async () => {
    const png = await sharp({ create: { width: 64, height: 32, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer();
    expect(pngSize(png)).toEqual({ width: 64, height: 32 });
    expect(pngSize(Buffer.from('GIF89a...'))).toMatch(/not a PNG/);
    expect(pngSize(png.subarray(0, png.length - 20))).toMatch(/truncated/);
    const index = parseSpriteIndex({ a: { x: 0, y: 0, width: 32, height: 32, pixelRatio: 1 }, b: { x: 32, y: 0, width: 32, height: 32 } });
    expect(typeof index).toBe('object');
    expect(checkSprite(index as never, { width: 64, height: 32 })).toBeUndefined();
    expect(checkSprite(index as never, { width: 63, height: 32 })).toMatch(/icon "b"/);
    expect(parseSpriteIndex([])).toMatch(/not a JSON object/);
    expect(parseSpriteIndex({ a: { x: 0, y: 0, width: 'x', height: 1 } })).toMatch(/icon "a"/);
    expect(parseSpriteIndex({})).toEqual({});
  });
});

describe('data, weather, ogc', () => {
  test('features.json must be a FeatureCollection of Features', () => {
    expect(checkFeatureCollection({ type: 'FeatureCollection', features: [] })).toBeUndefined();
    expect(checkFeatureCollection({ type: 'FeatureCollection', features: [{ type: 'Feature', geometry: null, properties: {} }] })).toBeUndefined();
    expect(checkFeatureCollection({ type: 'Feature' })).toMatch(/not a FeatureCollection/);
    expect(checkFeatureCollection({ type: 'FeatureCollection' })).toMatch(/no features/);
    expect(checkFeatureCollection({ type: 'FeatureCollection', features: [1] })).toMatch(/not a Feature/);
    expect(checkFeatureCollection([])).toMatch(/not a JSON object/);
  });

  test('weather catalogs name keyframe tilesets', () => {
    const c = weatherCatalog(['kf-a', 'kf-b']);
    expect(checkWeatherCatalog(c)).toBeUndefined();
    expect(keyframeIds(c)).toEqual(['kf-a', 'kf-b']);
    expect(keyframeIds({ variables: [{ keyframes: [{ id: 'x' }, { id: 'y' }] }, { keyframes: [{ id: 'x' }] }] })).toEqual(['x', 'y']);
    expect(checkWeatherCatalog({})).toMatch(/no variables/);
    expect(checkWeatherCatalog({ variables: [{}] })).toMatch(/no keyframes/);
    expect(checkWeatherCatalog({ variables: [{ keyframes: [{ id: '../etc' }] }] })).toMatch(/no usable id/);
  });

  test('a conformance declaration lists URIs', () => {
    expect(checkConformance({ conformsTo: ['http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/core'] })).toBeUndefined();
    expect(checkConformance({ conformsTo: [1] })).toMatch(/conformsTo/);
    expect(checkConformance(null)).toMatch(/not a JSON object/);
  });
});

describe('map variants', () => {
  test('@2x and other formats from the TileJSON template', () => {
    const t = 'https://api.maptiler.com/maps/streets/{z}/{x}/{y}.png';
    expect(variantTemplate(t, 2, 'png')).toBe('https://api.maptiler.com/maps/streets/{z}/{x}/{y}@2x.png');
    expect(variantTemplate(t, 1, 'webp')).toBe('https://api.maptiler.com/maps/streets/{z}/{x}/{y}.webp');
    expect(variantTemplate('https://h/maps/s/256/{z}/{x}/{y}.jpg?lang=de', 2, 'webp')).toBe('https://h/maps/s/256/{z}/{x}/{y}@2x.webp?lang=de');
    expect(variantTemplate('https://h/t/{z}/{x}/{y}', 2, 'png')).toBeUndefined();
    expect(variantTemplate(t, 2, 'pbf')).toBeUndefined();
    expect(variantName('512', 1, 'png', 'png')).toBe('512');
    expect(variantName('512', 2, 'png', 'png')).toBe('512@2x');
    expect(variantName('256', 2, 'webp', 'png')).toBe('256@2x.webp');
  });
});
