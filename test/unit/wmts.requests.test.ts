import { parseWmtsKvp, resolveWmtsLayer } from '../../src/ogc/wmts';

const tile = {
  SERVICE: 'WMTS',
  REQUEST: 'GetTile',
  VERSION: '1.0.0',
  LAYER: 'maps/sample',
  STYLE: 'default',
  TILEMATRIXSET: 'GoogleMapsCompatible512-z0-5',
  TILEMATRIX: '3',
  TILEROW: '2',
  TILECOL: '4',
  FORMAT: 'image/png',
  key: 'K',
};

describe('parseWmtsKvp', () => {
  test('GetTile', () => {
    expect(parseWmtsKvp(tile)).toEqual({
      request: 'GetTile',
      layer: 'maps/sample',
      style: 'default',
      tileMatrixSet: 'GoogleMapsCompatible512-z0-5',
      z: 3,
      x: 4,
      y: 2,
      format: 'image/png',
    });
  });

  test('parameter names and REQUEST/SERVICE values are case-insensitive; unknown ones ignored', () => {
    const q = {
      service: 'wmts',
      request: 'gettile',
      Layer: 'tiles/v3',
      TileMatrixSet: 'X',
      TileMatrix: '0',
      TileRow: '0',
      TileCol: '0',
      f: 'json',
    };
    expect(parseWmtsKvp(q)).toEqual({ request: 'GetTile', layer: 'tiles/v3', tileMatrixSet: 'X', z: 0, x: 0, y: 0 });
  });

  test('GetCapabilities, including OWSLib-style extra parameters', () => {
    expect(parseWmtsKvp({ SERVICE: 'WMTS', REQUEST: 'GetCapabilities' })).toEqual({ request: 'GetCapabilities' });
    expect(parseWmtsKvp({ service: 'WMTS', request: 'GetCapabilities', version: '1.0.0', key: 'K' })).toEqual({
      request: 'GetCapabilities',
    });
  });

  test('repeated parameters use the first value', () => {
    expect(parseWmtsKvp({ ...tile, TILEROW: ['1', '7'] })).toMatchObject({ y: 1 });
  });

  test.each([
    ['1.5'],
    ['1e2'],
    ['-1'],
    [' 3'],
    ['3 '],
    ['0x3'],
    ['03'],
    ['+3'],
    [''],
    ['abc'],
    ['99999999999'],
  ])('TILEMATRIX %p is rejected', (v) => {
    const r = parseWmtsKvp({ ...tile, TILEMATRIX: v });
    expect(r).toHaveProperty('error');
    expect((r as { error: string }).error).toMatch(/TILEMATRIX/);
  });

  test.each([
    ['TILEROW', '1.0'],
    ['TILECOL', '1e1'],
    ['TILEROW', '8'],
    ['TILECOL', '8'],
  ])('%s=%p is rejected', (name, v) => {
    const r = parseWmtsKvp({ ...tile, [name]: v });
    expect((r as { error: string }).error).toMatch(new RegExp(name));
  });

  test('out-of-range zoom', () => {
    expect((parseWmtsKvp({ ...tile, TILEMATRIX: '31', TILEROW: '0', TILECOL: '0' }) as { error: string }).error).toMatch(
      /TILEMATRIX/,
    );
  });

  test.each([
    [{ ...tile, SERVICE: 'WMS' }, /SERVICE/],
    [{ SERVICE: 'WMTS' }, /REQUEST/],
    [{ ...tile, REQUEST: 'GetFeatureInfo' }, /REQUEST/],
    [{ ...tile, VERSION: '2.0.0' }, /VERSION/],
    [{ ...tile, LAYER: undefined }, /LAYER/],
    [{ ...tile, LAYER: '' }, /LAYER/],
    [{ ...tile, STYLE: 'fancy' }, /STYLE/],
    [{ ...tile, TILEMATRIXSET: undefined }, /TILEMATRIXSET/],
    [{ ...tile, TILEROW: undefined }, /TILEROW/],
    [{ ...tile, TILECOL: undefined }, /TILECOL/],
  ])('bad request %# names the parameter', (q, re) => {
    const r = parseWmtsKvp(q);
    expect(r).toHaveProperty('error');
    expect((r as { error: string }).error).toMatch(re);
  });

  test('an empty STYLE means default', () => {
    expect(parseWmtsKvp({ ...tile, STYLE: '' })).not.toHaveProperty('error');
  });
});

describe('resolveWmtsLayer', () => {
  test.each([
    ['maps/sample', { kind: 'maps', id: 'sample', pyramidName: '512' }],
    ['maps/sample/256', { kind: 'maps', id: 'sample', pyramidName: '256' }],
    ['tiles/v3', { kind: 'tiles', id: 'v3', pyramidName: 'main' }],
    ['images/scan', { kind: 'images', id: 'scan', pyramidName: 'main' }],
  ])('%s', (id, expected) => {
    expect(resolveWmtsLayer(id)).toEqual(expected);
  });

  test.each([['maps'], ['maps/'], ['maps/a/512'], ['maps/a/256/x'], ['tiles/a/256'], ['data/a'], [''], ['images/a/b']])(
    '%p is not a layer',
    (id) => {
      expect(resolveWmtsLayer(id)).toBeUndefined();
    },
  );
});
