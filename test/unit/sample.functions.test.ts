// Pure helpers of the bundled sample: the synthetic terrain and its Terrain-RGB encoding, the pixel
// centre convention, the image pyramid geometry and the country label points. No store is built here.

import {
  countryLabelPoints,
  interiorPoint,
  labelMinzoom,
  decodeTerrainRgb,
  encodeTerrainRgb,
  imageFootprint,
  imageMaxZoom,
  imageSizeAtZoom,
  sampleTerrainElevation,
  terrainPixelCenter,
} from '../../src/sample';
import { naturalEarth } from '../../src/sample/natural-earth';

describe('sample terrain function', () => {
  it('is smooth relief between 0 and 4000 m over the sample area', () => {
    let min = Infinity;
    let max = -Infinity;
    for (let lon = 5.9; lon <= 10.5; lon += 0.01) {
      for (let lat = 45.8; lat <= 47.8; lat += 0.01) {
        const e = sampleTerrainElevation(lon, lat);
        min = Math.min(min, e);
        max = Math.max(max, e);
      }
    }
    expect(min).toBeGreaterThanOrEqual(0);
    expect(max).toBeLessThanOrEqual(4000);
    expect(max - min).toBeGreaterThan(2000);
    // smooth: neighbours 0.001° apart differ by little
    expect(Math.abs(sampleTerrainElevation(8, 46.5) - sampleTerrainElevation(8.001, 46.5))).toBeLessThan(30);
  });

  it('round-trips through Terrain-RGB to the 0.1 m step', () => {
    for (const e of [0, 0.05, 123.44, 123.46, 1999.99, 3750, -20.5, 8848.86]) {
      const [r, g, b] = encodeTerrainRgb(e);
      expect(Math.abs(decodeTerrainRgb(r, g, b) - e)).toBeLessThanOrEqual(0.05 + 1e-9);
    }
    expect(decodeTerrainRgb(0, 0, 0)).toBe(-10000);
    expect(encodeTerrainRgb(0)).toEqual([1, 134, 160]); // 100000 = 0x0186A0
  });

  it('puts pixel values at pixel centres in Web Mercator', () => {
    // z0: pixel (0,0) of the single 256 px tile has its centre half a pixel from the corner
    const [lon, lat] = terrainPixelCenter(0, 0, 0, 0, 0);
    expect(lon).toBeCloseTo(-180 + 0.5 * (360 / 256), 12);
    expect(lat).toBeCloseTo((Math.atan(Math.sinh(Math.PI * (1 - 1 / 256))) * 180) / Math.PI, 12);
    // the centre of the world lies between pixels 127 and 128
    const [l1] = terrainPixelCenter(1, 0, 0, 255, 255);
    const [l2] = terrainPixelCenter(1, 1, 1, 0, 0);
    expect(l1).toBeCloseTo(-360 / 1024, 12);
    expect(l2).toBeCloseTo(360 / 1024, 12);
  });
});

describe('sample image pyramid geometry', () => {
  it('shows the picture at full resolution at maxzoom', () => {
    expect(imageMaxZoom(2000, 1200)).toBe(3);
    expect(imageMaxZoom(256, 100)).toBe(0);
    expect(imageMaxZoom(257, 100)).toBe(1);
    expect(imageSizeAtZoom(2000, 1200, 3, 3)).toEqual([2000, 1200]);
    expect(imageSizeAtZoom(2000, 1200, 0, 3)).toEqual([250, 150]);
  });

  it('places the picture at the top-left of the Web Mercator square', () => {
    const [w, s, e, n] = imageFootprint(2000, 1200, 3, 256);
    expect(w).toBe(-180);
    expect(e).toBeCloseTo((2000 / 2048) * 360 - 180, 10);
    expect(n).toBeCloseTo(85.0511287798066, 10);
    const yFrac = 1200 / 2048;
    expect(s).toBeCloseTo((Math.atan(Math.sinh(Math.PI * (1 - 2 * yFrac))) * 180) / Math.PI, 10);
    // a square picture of the whole matrix covers the whole world
    expect(imageFootprint(512, 512, 1, 256)).toEqual([-180, expect.closeTo(-85.0511287798066, 10), 180, expect.closeTo(85.0511287798066, 10)]);
  });
});

describe('sample country label points', () => {
  test('the point farthest from the edges of a polygon, holes avoided', () => {
    const square: [number, number][] = [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]];
    const [x, y] = interiorPoint([square]);
    expect(x).toBeCloseTo(5, 0);
    expect(y).toBeCloseTo(5, 0);
    // An L shape: the centre of its bounding box lies outside it.
    const l: [number, number][] = [[0, 0], [10, 0], [10, 2], [2, 2], [2, 10], [0, 10], [0, 0]];
    const [lx, ly] = interiorPoint([l]);
    expect(lx < 2 || ly < 2).toBe(true);
    // A hole in the middle pushes the point away from the centre.
    const hole: [number, number][] = [[3, 3], [7, 3], [7, 7], [3, 7], [3, 3]];
    const [hx, hy] = interiorPoint([square, hole]);
    expect(hx < 3 || hx > 7 || hy < 3 || hy > 7).toBe(true);
  });

  test('zoom of a label by the area of its country', () => {
    expect(labelMinzoom(5000)).toBe(0);
    expect(labelMinzoom(100)).toBe(2);
    expect(labelMinzoom(0)).toBe(4);
  });

  test('one point per country, inside its largest part, big countries first', () => {
    const ne = naturalEarth('50m');
    const points = countryLabelPoints(ne.countries);
    expect(points).toHaveLength(ne.countries.length);
    const at = (name: string) => points.find((p) => p.name === name)!;
    const fr = at('France'); // mainland France, not French Guiana
    expect(fr.lon).toBeGreaterThan(-2);
    expect(fr.lon).toBeLessThan(6);
    expect(fr.lat).toBeGreaterThan(44);
    expect(fr.lat).toBeLessThan(49);
    const ch = at('Switzerland');
    expect(ch.lon).toBeGreaterThan(6);
    expect(ch.lon).toBeLessThan(10.5);
    expect(ch.lat).toBeGreaterThan(45.8);
    expect(ch.lat).toBeLessThan(47.8);
    expect(at('Russia').minzoom).toBe(0);
    expect(at('Switzerland').minzoom).toBe(4);
    for (const p of points) {
      expect(p.lon).toBeGreaterThanOrEqual(-180);
      expect(p.lon).toBeLessThanOrEqual(180);
      expect(Math.abs(p.lat)).toBeLessThanOrEqual(85);
    }
  });
});
