import { latToPixelY, lonToPixelX, WORLD_BOUNDS } from '../../src/geo/mercator';
import { attributionText, chooseLevel, fitBox, placeView, zoomRange } from '../../src/services/static-maps';
import { shortestArc } from '../../src/geo/arc';
import { clippedLine, clippedPolygon, overlaySvg } from '../../src/services/static-maps/overlay';
import { parseStaticMapRequest } from '../../src/services/static-maps';
import type { Pyramid } from '../../src/store/types';

const pyr = (name: string, tileSize: number, minzoom: number, maxzoom: number, scale = 1): Pyramid => ({ name, tileSize, scale, format: 'png', minzoom, maxzoom, bounds: WORLD_BOUNDS });
const SAMPLE = [pyr('512', 512, 0, 5), pyr('256', 256, 0, 5)];

describe('choosing the stored level', () => {
  test('an integer zoom at 1x is the 512 px pyramid at that zoom (pixel for pixel)', () => {
    for (let z = 0; z <= 5; z++) expect(chooseLevel(SAMPLE, z, 1)).toMatchObject({ pyramid: { name: '512' }, z, worldPx: 512 * 2 ** z });
  });
  test('fractional zooms round to the nearest level (resized by 0.71..1.41)', () => {
    expect(chooseLevel(SAMPLE, 2.4, 1)).toMatchObject({ pyramid: { name: '512' }, z: 2 });
    expect(chooseLevel(SAMPLE, 2.6, 1)).toMatchObject({ pyramid: { name: '512' }, z: 3 });
    // @2x wants twice the pixels: the next zoom (ties go to the main pyramid).
    expect(chooseLevel(SAMPLE, 2, 2)).toMatchObject({ pyramid: { name: '512' }, z: 3 });
    // Below the 512 pyramid's zoom 0 the 256 px pyramid's zoom 0 is a better fit.
    expect(chooseLevel(SAMPLE, -1, 1)).toMatchObject({ pyramid: { name: '256' }, z: 0 });
    // Beyond the deepest zoom: the deepest level, upscaled.
    expect(chooseLevel(SAMPLE, 7, 2)).toMatchObject({ pyramid: { name: '512' }, z: 5 });
    // A 256 px pyramid alone: zoom z of the 512 pyramid is its z+1.
    expect(chooseLevel([pyr('main', 256, 0, 10)], 3, 1)).toMatchObject({ z: 4, worldPx: 4096 });
    // A 256 @2x pyramid is 512 px images.
    expect(chooseLevel([pyr('256@2x', 256, 0, 10, 2)], 3, 1)).toMatchObject({ z: 3, worldPx: 4096 });
  });
  test('zoom range in 512 px terms', () => {
    expect(zoomRange(SAMPLE)).toEqual({ coarsest: -1, finest: 5 });
    expect(zoomRange([pyr('main', 256, 3, 12)])).toEqual({ coarsest: 2, finest: 11 });
  });
});

describe('fitting', () => {
  test('a box fits with the padding on the tighter axis, centred', () => {
    const box: [number, number, number, number] = [0.25, 0.4, 0.5, 0.45];
    const f = fitBox({ box, width: 600, height: 400, padding: 0.1, minZoom: -2, maxZoom: 20 });
    const world = 512 * 2 ** f.zoom;
    const left = (box[0] - f.cx) * world + 300;
    const right = (box[2] - f.cx) * world + 300;
    const top = (box[1] - f.cy) * world + 200;
    const bottom = (box[3] - f.cy) * world + 200;
    expect(left).toBeCloseTo(60, 6);
    expect(right).toBeCloseTo(540, 6);
    expect(top).toBeGreaterThanOrEqual(40);
    expect(bottom).toBeLessThanOrEqual(360);
    expect(top + bottom).toBeCloseTo(400, 6);
  });
  test('a point fits at the maximum zoom; icon extents shift the centre', () => {
    const f = fitBox({ box: [0.5, 0.5, 0.5, 0.5], width: 200, height: 200, padding: 0.1, minZoom: 0, maxZoom: 5, extents: { left: 12, right: 12, top: 36, bottom: 0 } });
    expect(f.zoom).toBe(5);
    const world = 512 * 32;
    // The point sits 18 px below the centre, so the 36 px pin above it is centred.
    expect((0.5 - f.cy) * world + 100).toBeCloseTo(118, 6);
  });
  test('auto with markers keeps them and their pins inside the padding', () => {
    const req = parseStaticMapRequest({ area: 'auto', size: '400x300', format: 'png' }, new URLSearchParams('markers=-20,10|30,40'));
    const v = placeView(req, { coarsest: 0, finest: 10 }, [{ left: 12, right: 12, top: 36, bottom: 0 }]);
    const world = 512 * 2 ** v.zoom;
    for (const [lon, lat] of [[-20, 10], [30, 40]]) {
      const x = lonToPixelX(lon, world) - v.cx * world + 200;
      const y = latToPixelY(lat, world) - v.cy * world + 150;
      expect(x - 12).toBeGreaterThanOrEqual(40 - 1e-6);
      expect(x + 12).toBeLessThanOrEqual(360 + 1e-6);
      expect(y - 36).toBeGreaterThanOrEqual(30 - 1e-6);
      expect(y).toBeLessThanOrEqual(270 + 1e-6);
    }
  });
  test('the shortest arc over the dateline', () => {
    expect(shortestArc([[0.1, 0.2], [0.3, 0.3]])).toEqual([0.1, 0.3]);
    const [a, b] = shortestArc([[0.95, 0.95], [0.02, 0.02]]);
    expect(a).toBeCloseTo(0.95, 9);
    expect(b).toBeCloseTo(1.02, 9);
    expect(shortestArc([[0.97, 1.03]])).toEqual([0.97, 1.03]);
    expect(shortestArc([[0, 1.5]])).toEqual([0, 1]);
  });
});

describe('overlay', () => {
  const rect: [number, number, number, number] = [0, 0, 100, 100];
  test('lines are clipped to the image, runs split where they leave it', () => {
    expect(clippedLine([[-50, 50], [150, 50]], rect)).toBe('M0,50L100,50');
    expect(clippedLine([[10, 10], [20, 20], [30, 10]], rect)).toBe('M10,10L20,20L30,10');
    expect(clippedLine([[10, 10], [200, 10], [200, 20], [10, 20]], rect)).toBe('M10,10L100,10M100,20L10,20');
    expect(clippedLine([[1e12, -1e12], [2e12, 1e12]], rect)).toBe('');
  });
  test('polygons are clipped to the image', () => {
    expect(clippedPolygon([[-10, -10], [110, -10], [110, 110], [-10, 110]], rect)).toBe('M0,100L0,0L100,0L100,100Z');
    expect(clippedPolygon([[200, 200], [300, 200], [300, 300]], rect)).toBe('');
  });
  test('text of a request reaches the SVG escaped, colours as numbers', () => {
    const req = parseStaticMapRequest({ area: '0,0,1', size: '100x100', format: 'png' }, new URLSearchParams(`markers=0,0,${encodeURIComponent('<b>"&\'x')}`));
    const svg = overlaySvg({ x0: 462, y0: 462, world: 1024, width: 100, height: 100, scale: 1 }, req.paths, req.markers, [undefined]) as string;
    expect(svg).toContain('&lt;b&gt;&quot;&amp;&apos;x');
    expect(svg).not.toContain('<b>');
  });
  test('attribution text: tags stripped, entities decoded', () => {
    expect(attributionText('<a href="https://www.naturalearthdata.com/" target="_blank">&copy; Natural Earth</a> <a>&#169;&nbsp;OSM &amp; co</a>')).toBe('© Natural Earth © OSM & co');
  });
});
