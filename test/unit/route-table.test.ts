import { z } from 'zod';
import { compileIndexed, compilePattern, issueMessage, matchRoute, NO_PARAMS, route, type Handler } from '../../src/http/route-table';
import { routes } from '../../src/http/routes';
import { dataFeatures } from '../../src/http/routes/data';
import { imageJson, mapStyle, mapTileJson, mapTileset, mapViewer, tilesTileJson } from '../../src/http/routes/tileset-documents';
import { fontGlyphs } from '../../src/http/routes/fonts';
import { healthReady } from '../../src/http/routes/health';
import { health, home } from '../../src/http/routes/home';
import { metrics } from '../../src/http/routes/metrics';
import { mapTile } from '../../src/http/routes/maps';
import { ogcConformance, ogcLanding, ogcMapTile, ogcVectorTile } from '../../src/http/routes/ogc';
import { apiDocs, openApiDocument } from '../../src/http/routes/openapi';
import { mapSprite, sprite } from '../../src/http/routes/sprites';
import { staticMap } from '../../src/http/routes/static-maps';
import { imageTile, tilesTile } from '../../src/http/routes/tiles';
import { weatherLatest } from '../../src/http/routes/weather';
import { wmtsService } from '../../src/http/routes/wmts';

const h = () => ({ status: 200, cache: 'none' as const });
const DOC = { tag: 't', summary: 's', types: ['text/plain'] };

describe('route patterns', () => {
  test('optional segments and scale', () => {
    const re = compilePattern('/maps/:mapId/[:size(256)/]:z/:x/:y([^/.@]+)[:scale(@2x)].:format');
    expect(re.exec('/maps/a/256/1/2/3@2x.png')?.groups).toMatchObject({ mapId: 'a', size: '256', z: '1', x: '2', y: '3', scale: '@2x', format: 'png' });
    expect(re.exec('/maps/a/1/2/3.webp')?.groups).toMatchObject({ size: undefined, scale: undefined, format: 'webp' });
    expect(re.test('/maps/a/1/2/3')).toBe(false);
  });

  test('numbered matching (what the dispatcher uses) finds what the named pattern finds, for every route', () => {
    const paths = [
      '/maps/a/256/1/2/3@2x.png', '/maps/a/1/2/3.webp', '/maps/a.b/1/2/3.png', '/maps/a/static/1,2,3/10x10@2x.png', '/maps/a/style.json',
      '/tiles/t/1/2/3', '/tiles/t/1/2/3.pbf', '/tiles/t.x/1/2/3.a.b', '/images/i/0/0/0.png', '/fonts/A,B/0-255.pbf', '/data/d/features.json',
      '/coordinates/transform/1,2;3,4.json', '/geocoding/a.b.json', '/maps/a/1/2', '/wmts/1.0.0/WMTSCapabilities.xml', '/',
    ];
    let matched = 0;
    for (const r of routes) {
      const { regex, names } = compileIndexed(r.pattern);
      for (const p of paths) {
        const named = compilePattern(r.pattern).exec(p);
        const numbered = regex.exec(p);
        expect(!!numbered).toBe(!!named);
        if (!named || !numbered) continue;
        matched++;
        expect(Object.fromEntries(names.map((n, i) => [n, numbered[i + 1]]))).toEqual({ ...named.groups });
      }
    }
    expect(matched).toBeGreaterThan(10);
    expect(compileIndexed('/a/:x(b|c)/[:y/]:z').names).toEqual(['x', 'y', 'z']);
  });

  test('parameters are percent-decoded; bad encoding is reported', () => {
    const table = [route('/fonts/:fontstack/:range.pbf', z.object({ fontstack: z.string(), range: z.string() }), h, DOC)];
    const m = matchRoute(table, '/fonts/Noto%20Sans%20Regular,Open%20Sans/0-255.pbf');
    expect(m && 'params' in m && m.params.fontstack).toBe('Noto Sans Regular,Open Sans');
    expect(matchRoute(table, '/fonts/%E0%A4%A/0-255.pbf')).toMatchObject({ badEncoding: true });
  });

  test('a route whose schema lacks a path parameter of its pattern is refused when the table is built', () => {
    expect(() => route('/maps/:mapId/style.json', NO_PARAMS, h, DOC)).toThrow(/mapId/);
  });

  test('the route table sends each spec path to its handler', () => {
    const cases: [string, Handler<never>][] = [
      ['/maps/sample/', mapViewer],
      ['/maps/sample/style.json', mapStyle],
      ['/maps/sample/sprite@2x.png', mapSprite],
      ['/maps/sample/256/tiles.json', mapTileJson],
      ['/maps/sample/tiles.json', mapTileJson],
      ['/maps/sample/tiles', mapTileset],
      ['/maps/sample/256/1/2/3@2x.png', mapTile],
      ['/maps/sample/1/2/3.webp', mapTile],
      ['/maps/sample/static/auto/512x512@2x.png', staticMap],
      ['/maps/sample/static/1,2,3/512x512.png', staticMap],
      ['/tiles/t/1/2/3', tilesTile],
      ['/tiles/t/1/2/3.pbf', tilesTile],
      ['/tiles/t/tiles.json', tilesTileJson],
      ['/images/i/1/2/3', imageTile],
      ['/images/i/image.json', imageJson],
      ['/ogc/conformance', ogcConformance],
      ['/ogc', ogcLanding],
      ['/ogc/', ogcLanding],
      ['/ogc/collections/maps.sample/map/tiles/WebMercatorQuad/1/0/0', ogcMapTile],
      ['/ogc/collections/tiles.v/tiles/WebMercatorQuad/1/0/0', ogcVectorTile],
      ['/data/places/features.json', dataFeatures],
      ['/weather/latest.json', weatherLatest],
      ['/fonts/Noto%20Sans%20Regular/0-255.pbf', fontGlyphs],
      ['/sprites/sample/sprite@2x.png', sprite],
      ['/sprites/sample/sprite.json', sprite],
      ['/wmts', wmtsService],
      ['/', home],
      ['/health', health],
      ['/health/live', health],
      ['/health/ready', healthReady],
      ['/metrics', metrics],
      ['/openapi.json', openApiDocument],
      ['/docs', apiDocs],
    ];
    for (const [path, handler] of cases) {
      const found = matchRoute(routes, path);
      expect([path, found?.route.handler]).toEqual([path, handler]);
    }
  });
});

describe('the message of a bad parameter names it', () => {
  const messageOf = (schema: z.ZodType, input: unknown): string => {
    const r = schema.safeParse(input);
    if (r.success) throw new Error('expected a failure');
    return issueMessage(r.error);
  };

  test("zod's own messages get the parameter's name in front, whatever words they begin with", () => {
    expect(messageOf(z.object({ z: z.string().regex(/^\d+$/) }), { z: 'x' })).toMatch(/^Invalid z: Invalid string: must match pattern/);
    expect(messageOf(z.object({ format: z.enum(['png', 'jpg']) }), { format: 'gif' })).toMatch(/^Invalid format: Invalid option: expected one of/);
    expect(messageOf(z.object({ limit: z.number().max(5) }), { limit: 9 })).toMatch(/^Invalid limit: Too big/);
  });

  test('a message of our own schemas, which names the parameter already, is left as it is', () => {
    expect(messageOf(z.object({ format: z.enum(['png', 'json'], { error: 'Invalid format: png or json' }) }), { format: 'x' })).toBe('Invalid format: png or json');
    expect(messageOf(z.object({ type: z.string().refine(() => false, 'Invalid type: poi or address') }), { type: 'x' })).toBe('Invalid type: poi or address');
    expect(messageOf(z.object({ x: z.string().refine(() => false, 'Out of bounds: tile 3/9/9') }), { x: '9' })).toBe('Out of bounds: tile 3/9/9');
  });
});
