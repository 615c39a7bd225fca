// services/renderer/metatile.ts: which tiles a render draws and the view MapLibre is given for them. Oracles: the
// Web Mercator formulas written out here, and MapLibre's own rule (512 px tiles at its zoom).
import { maplibreZoom, metatileEdge, metatileOf, splitArea, viewOf } from '../../src/services/renderer/metatile';

const base = { mapId: 'm', styleVersion: 'v', format: 'png' as const };
const lat = (y: number, z: number): number => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / 2 ** z))) * 180) / Math.PI;
const lon = (x: number, z: number): number => (x / 2 ** z) * 360 - 180;

test('a 512 px tile at z is MapLibre zoom z, a 256 px one z - 1', () => {
  expect([maplibreZoom(5, 512), maplibreZoom(5, 256), maplibreZoom(0, 256)]).toEqual([5, 4, -1]);
});

test('the metatile edge is the configured one, fewer where the tiles are big in device pixels (2048 at most)', () => {
  expect([metatileEdge(4, 256, 1), metatileEdge(4, 256, 2), metatileEdge(4, 512, 1), metatileEdge(4, 512, 2), metatileEdge(8, 512, 2), metatileEdge(1, 512, 2)]).toEqual([4, 4, 4, 2, 2, 1]);
});

test('metatiles are aligned on multiples of their edge and clipped to the matrix', () => {
  const t = { ...base, tileSize: 256 as const, scale: 1 as const };
  expect(metatileOf({ ...t, z: 5, x: 9, y: 14 }, 4)).toMatchObject({ z: 5, x0: 8, y0: 12, cols: 4, rows: 4 });
  expect(metatileOf({ ...t, z: 1, x: 1, y: 0 }, 4)).toMatchObject({ x0: 0, y0: 0, cols: 2, rows: 2 });
  // An edge that does not divide 2^z: the last block is narrower.
  expect(metatileOf({ ...t, z: 3, x: 7, y: 7 }, 3)).toMatchObject({ x0: 6, y0: 6, cols: 2, rows: 2 });
  expect(splitArea({ ...t, z: 4, x0: 0, y0: 0, cols: 5, rows: 2 }, 2).map((m) => `${m.x0},${m.y0} ${m.cols}x${m.rows}`)).toEqual(['0,0 2x2', '2,0 2x2', '4,0 1x2']);
});

test('the view: the block and its margin, centred on the block, the clip on the tiles', () => {
  const m = { ...base, tileSize: 256 as const, scale: 2 as const, z: 5, x0: 8, y0: 12, cols: 4, rows: 4 };
  const v = viewOf(m, 128);
  expect(v).toMatchObject({ width: 1280, height: 1280, pixelRatio: 2, zoom: 4, clip: { x: 128, y: 128, width: 1024, height: 1024 } });
  expect(v.center[0]).toBeCloseTo(lon(10, 5), 9);
  expect(v.center[1]).toBeCloseTo(lat(14, 5), 9);
});

test('no margin beyond the top or bottom of the world (MapLibre would shift the picture): the centre moves with it', () => {
  const top = viewOf({ ...base, tileSize: 512, scale: 1, z: 3, x0: 4, y0: 0, cols: 4, rows: 4 }, 128);
  expect(top).toMatchObject({ width: 2304, height: 2176, clip: { x: 128, y: 0, width: 2048, height: 2048 } });
  // The canvas spans world pixels 0 .. 2048 + 128 at z3 (512 px tiles): its middle is at 1088 px.
  expect(top.center[1]).toBeCloseTo(lat(1088 / 512, 3), 9);
  const world = viewOf({ ...base, tileSize: 256, scale: 1, z: 0, x0: 0, y0: 0, cols: 1, rows: 1 }, 128);
  expect(world).toMatchObject({ width: 512, height: 256, clip: { x: 128, y: 0, width: 256, height: 256 } });
  expect(world.center[1]).toBeCloseTo(0, 9);
});
