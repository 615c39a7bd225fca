import { compilePattern, matchRoute, route } from '../../src/http/route-table';
import { routes } from '../../src/http/routes';

const h = () => ({ status: 200, cache: 'none' as const });

describe('route patterns', () => {
  test('optional segments and scale', () => {
    const re = compilePattern('/maps/:mapId/[:size(256)/]:z/:x/:y([^/.@]+)[:scale(@2x)].:format');
    expect(re.exec('/maps/a/256/1/2/3@2x.png')?.groups).toMatchObject({ mapId: 'a', size: '256', z: '1', x: '2', y: '3', scale: '@2x', format: 'png' });
    expect(re.exec('/maps/a/1/2/3.webp')?.groups).toMatchObject({ size: undefined, scale: undefined, format: 'webp' });
    expect(re.test('/maps/a/1/2/3')).toBe(false);
  });

  test('parameters are percent-decoded; bad encoding is reported', () => {
    const table = [route('/fonts/:fontstack/:range.pbf', h)];
    const m = matchRoute(table, '/fonts/Noto%20Sans%20Regular,Open%20Sans/0-255.pbf');
    expect(m && 'params' in m && m.params.fontstack).toBe('Noto Sans Regular,Open Sans');
    expect(matchRoute(table, '/fonts/%E0%A4%A/0-255.pbf')).toMatchObject({ badEncoding: true });
  });

  test('the route table sends each spec path to one handler', () => {
    const cases: [string, string][] = [
      ['/maps/sample/', '/maps/:mapId/'],
      ['/maps/sample/style.json', '/maps/:mapId/style.json'],
      ['/maps/sample/256/tiles.json', '/maps/:mapId/[:size(256)/]tiles.json'],
      ['/maps/sample/tiles.json', '/maps/:mapId/[:size(256)/]tiles.json'],
      ['/maps/sample/tiles', '/maps/:mapId/tiles'],
      ['/tiles/t/1/2/3', '/tiles/:tilesId/:z/:x/:y([^/.@]+)[.:ext]'],
      ['/tiles/t/tiles.json', '/tiles/:tilesId/tiles.json'],
      ['/images/i/image.json', '/images/:imageId/image.json'],
      ['/ogc/conformance', '/ogc/conformance'],
      ['/ogc', '/ogc[/]'],
      ['/data/places/features.json', '/data/:dataId/features.json'],
      ['/weather/latest.json', '/weather/latest.json'],
      ['/fonts/Noto%20Sans%20Regular/0-255.pbf', '/fonts/:fontstack/:range.pbf'],
      ['/sprites/sample/sprite@2x.png', '/sprites/:spriteId/sprite[:scale(@\\d+x)].:format'],
      ['/maps/sample/static/auto/512x512@2x.png', '/maps/:mapId/static/:area/:size([^/.@]+)[:scale(@\\d+x)].:format'],
    ];
    for (const [path, pattern] of cases) expect(matchRoute(routes, path)?.route.pattern).toBe(pattern);
  });
});
