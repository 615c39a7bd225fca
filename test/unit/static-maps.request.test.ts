import { decodePolyline, encodePolyline } from '../../src/geo/polyline';
import { DEFAULTS, parseColor, parseMarkers, parsePath, parseStaticMapRequest, StaticMapError } from '../../src/services/static-maps';

const q = (s: string) => new URLSearchParams(s);
const parse = (area: string, query = '', size = '100x100', format = 'png', scale?: string) => parseStaticMapRequest({ area, size, format, scale }, q(query));
const defaults = { stroke: DEFAULTS.stroke, fill: DEFAULTS.fill, width: 1, shortest: false };
const err = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StaticMapError);
    return (e as Error).message;
  }
  throw new Error('did not throw');
};

describe('areas, sizes, formats', () => {
  test('the three kinds', () => {
    expect(parse('8.5,47.3,3.25').area).toEqual({ kind: 'center', lon: 8.5, lat: 47.3, zoom: 3.25 });
    expect(parse('-10,35,30,60').area).toEqual({ kind: 'bounds', bounds: [-10, 35, 30, 60] });
    expect(parse('auto', 'markers=1,2').area).toEqual({ kind: 'auto' });
  });
  test('sizes 1-2048, @2x, formats (jpeg is jpg)', () => {
    const r = parse('0,0,1', '', '2048x1', 'jpeg', '@2x');
    expect([r.width, r.height, r.scale, r.format]).toEqual([2048, 1, 2, 'jpg']);
    expect(err(() => parse('0,0,1', '', '2049x1'))).toMatch(/width 2049/);
    expect(err(() => parse('0,0,1', '', '+1x1'))).toMatch(/Invalid image size/);
  });
  test('numbers are plain decimals only', () => {
    for (const bad of ['1e1', '0x1', 'Infinity', '-Infinity', 'NaN', '', ' ', '1.2.3', '--1', '1_0']) {
      expect(err(() => parse(`${bad},0,1`))).toMatch(/Invalid longitude/);
    }
    expect(parse('+1.,-.5,0').area).toEqual({ kind: 'center', lon: 1, lat: -0.5, zoom: 0 });
  });
  test('defaults', () => {
    const r = parse('0,0,1');
    expect([r.padding, r.attribution, r.shortest, r.paths, r.markers]).toEqual([0.1, 'bottomright', false, [], []]);
    expect(parse('0,0,1', 'attribution=1').attribution).toBe('bottomright');
    expect(parse('0,0,1', 'attribution=false').attribution).toBe(false);
  });
});

describe('path grammar', () => {
  test('pairs, prefixes, enc', () => {
    const p = parsePath('fill:red|stroke:rgba(0,0,255,0.5)|width:3|shortest:true|1,2|3,4|5.5,-6', false, defaults);
    expect(p.coordinates).toEqual([[1, 2], [3, 4], [5.5, -6]]);
    expect(p.fill).toEqual({ r: 255, g: 0, b: 0, a: 1 });
    expect(p.stroke).toEqual({ r: 0, g: 0, b: 255, a: 0.5 });
    expect([p.width, p.shortest]).toEqual([3, true]);
    // Google's example polyline (latitude first in the encoding): [lon, lat] here.
    const e = parsePath('stroke:red|enc:_p~iF~ps|U_ulLnnqC_mqNvxq`@', false, defaults);
    expect(e.coordinates).toEqual([[-120.2, 38.5], [-120.95, 40.7], [-126.453, 43.252]]);
    expect(e.stroke.r).toBe(255);
  });
  test('defaults: stroke rgba(0,64,255,0.7), width 1, no fill; latlng swaps pairs (not enc)', () => {
    const r = parse('0,0,1', 'path=10,20|30,40&latlng=true');
    expect(r.paths[0]).toEqual({ coordinates: [[20, 10], [40, 30]], stroke: { r: 0, g: 64, b: 255, a: 0.7 }, fill: { r: 0, g: 0, b: 0, a: 0 }, width: 1, shortest: false });
  });
  test('deprecated encodedpath is a polygon with fill rgba(255,255,255,0.4); deprecated stroke/width/fill style paths too', () => {
    const r = parse('0,0,1', 'encodedpath=_p~iF~ps|U_ulLnnqC_mqNvxq`@&stroke=red&width=2&path=1,1|2,2');
    expect(r.paths[1].fill).toEqual({ r: 255, g: 255, b: 255, a: 0.4 });
    expect(r.paths[1].stroke).toEqual({ r: 255, g: 0, b: 0, a: 1 });
    expect(r.paths[0].fill.a).toBe(0);
    expect([r.paths[0].width, r.paths[0].stroke.r]).toEqual([2, 255]);
  });
  test('errors name the bad part', () => {
    expect(err(() => parsePath('1,1', false, defaults))).toBe('Invalid path: expected at least two coordinate pairs');
    expect(err(() => parsePath('foo:1|1,1|2,2', false, defaults))).toMatch(/Invalid path prefix "foo"/);
    expect(err(() => parsePath('enc:abc', false, defaults))).toMatch(/not an encoded polyline/);
  });
  test('at most 10,000 coordinates per request', () => {
    const big = Array.from({ length: 5001 }, () => '1,1').join('|');
    expect(err(() => parse('0,0,1', `path=${big}&path=${big}`))).toMatch(/Too many coordinates/);
    expect(parse('0,0,1', `path=${big}`).paths[0].coordinates).toHaveLength(5001);
  });
});

describe('markers grammar', () => {
  test('prefixes and entries; the text is a colour or a label', () => {
    const m = parseMarkers('icon:harbor|anchor:top-left|scale:1.5|1,2|3,4,green|5,6,rgba(1,2,3,0.5)|7,8,Café, bar', false);
    expect(m.map((x) => [x.lon, x.lat, x.label])).toEqual([[1, 2, undefined], [3, 4, undefined], [5, 6, undefined], [7, 8, 'Café, bar']]);
    expect(m[0]).toMatchObject({ icon: { kind: 'named', name: 'harbor' }, anchor: 'topleft', scale: 1.5, color: DEFAULTS.marker });
    expect(m[1].color).toEqual({ r: 0, g: 128, b: 0, a: 1 });
    expect(m[2].color).toEqual({ r: 1, g: 2, b: 3, a: 0.5 });
    expect(parseMarkers('1,2', false)[0]).toMatchObject({ icon: { kind: 'pin' }, anchor: 'bottom', scale: 1 });
    expect(parseMarkers('icon:images/logo|1,2', false)[0].icon).toEqual({ kind: 'image', imageId: 'logo' });
    expect(parseMarkers('10,20', true)[0]).toMatchObject({ lon: 20, lat: 10 });
  });
  test('errors', () => {
    expect(err(() => parseMarkers('foo:1|1,1', false))).toBe('Invalid markers prefix "foo" (use icon, anchor, scale)');
    expect(err(() => parseMarkers('icon:http://x/y.png|1,1', false))).toMatch(/never fetched from URLs/);
    expect(err(() => parseMarkers('1,1,' + 'x'.repeat(101), false))).toMatch(/longer than 100/);
  });
});

describe('colours and polylines', () => {
  test('CSS colours', () => {
    expect(parseColor('#f00')).toEqual({ r: 255, g: 0, b: 0, a: 1 });
    expect(parseColor('#00ff0080')).toEqual({ r: 0, g: 255, b: 0, a: 0.502 });
    expect(parseColor('RebeccaPurple')).toEqual({ r: 102, g: 51, b: 153, a: 1 });
    expect(parseColor('rgb(10%, 20, 30)')).toEqual({ r: 26, g: 20, b: 30, a: 1 });
    expect(parseColor('none')?.a).toBe(0);
    for (const bad of ['#ff', 'rgb(1,2)', 'rgba(1,2,3,2)', 'rgb(300,0,0)', 'blurple', 'red"/><script>']) expect(parseColor(bad)).toBeUndefined();
  });
  test('polyline round trip and strict decoding', () => {
    const pts: Array<[number, number]> = [[-120.2, 38.5], [-120.95, 40.7], [179.99999, -85]];
    expect(decodePolyline(encodePolyline(pts))).toEqual(pts);
    expect(() => decodePolyline('_p~iF~ps|U_')).toThrow(/cut short/);
    expect(() => decodePolyline('_p~iF')).toThrow(/odd number/);
    expect(() => decodePolyline('abc def')).toThrow(/alphabet/);
  });
});
