// WMS GetMap and WMTS tiles of other grids against an oracle we did not write: gdalwarp (Debian trixie's GDAL, in
// its chroot) warps the same Web Mercator tiles, read from this server through GDAL's TMS driver at the level the
// server drew from (its X-Tilemirror-Source header names it), to the same CRS, bounds, size, resampling and error
// threshold. The images must agree: the mean absolute difference is stated and bounded, and the geometry is checked
// by shifting ours by half and whole pixels: no shift may bring it closer to gdalwarp's than none (a feature off by
// more than half a pixel would).

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeRGBA, type RGBA } from '../helpers/pixels';
import { assertOk } from '../helpers/run';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';
import { chrootGdal, gdalTest, runGdal } from './helpers';
import { LV95 } from '../helpers/grids';

const gdal = chrootGdal();
const it = gdalTest(gdal);
const temps = tempDirs('tilemirror-wms-gdalwarp-', gdal.tempBase);
const HALF = Math.PI * 6378137;

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ config: { grids: ['WorldCRS84Quad', 'EuropeanETRS89_LAEAQuad', LV95] } });
});
afterAll(async () => {
  await srv?.close();
  temps.removeTempDirs();
});

/**
 * Mean absolute difference over the colour channels of pixels both images cover (alpha 255 in both). Written without
 * a global or an allocation in the loop: under jest each read of a global (Math) goes through the test context's
 * interceptor, and this loop runs over ~10^6 pixels nine times a case.
 */
function meanAbsDiff(a: RGBA, b: RGBA, dx = 0, dy = 0): { mad: number; pixels: number } {
  const { floor, abs } = Math;
  const ad = a.data;
  const bd = b.data;
  // a sampled at (x + dx, y + dy) bilinearly, b at (x, y): the same fractions at every pixel.
  const ox = floor(dx);
  const oy = floor(dy);
  const tx = dx - ox;
  const ty = dy - oy;
  const weights = [(1 - tx) * (1 - ty), tx * (1 - ty), (1 - tx) * ty, tx * ty];
  const corners = [0, 4, a.width * 4, a.width * 4 + 4];
  let sum = 0;
  let n = 0;
  for (let y = 1; y < a.height - 1; y++) {
    for (let x = 1; x < a.width - 1; x++) {
      const j = (y * b.width + x) * 4;
      if (bd[j + 3] !== 255) continue;
      const base = ((y + oy) * a.width + x + ox) * 4;
      let ok = true;
      let r = 0;
      let g = 0;
      let bl = 0;
      for (let k = 0; k < 4; k++) {
        const w = weights[k];
        if (w === 0) continue;
        const i = base + corners[k];
        if (ad[i + 3] !== 255) ok = false;
        r += ad[i] * w;
        g += ad[i + 1] * w;
        bl += ad[i + 2] * w;
      }
      if (!ok) continue;
      sum += abs(r - bd[j]) + abs(g - bd[j + 1]) + abs(bl - bd[j + 2]);
      n++;
    }
  }
  return { mad: sum / (3 * n), pixels: n };
}

/** gdalwarp of the server's 512 px Web Mercator tiles at zoom `z` (GDAL's TMS driver, -ovr NONE: that level only). */
async function gdalwarped(url: string, z: string, crs: string, te: number[], width: number, height: number, r: string): Promise<string> {
  const dir = temps.tempDir();
  const xml = `<GDAL_WMS><Service name="TMS"><ServerUrl>${url}/maps/sample/\${z}/\${x}/\${y}.png?key=${KEY}</ServerUrl></Service>
<DataWindow><UpperLeftX>${-HALF}</UpperLeftX><UpperLeftY>${HALF}</UpperLeftY><LowerRightX>${HALF}</LowerRightX><LowerRightY>${-HALF}</LowerRightY><TileLevel>${z}</TileLevel><TileCountX>1</TileCountX><TileCountY>1</TileCountY><YOrigin>top</YOrigin></DataWindow>
<Projection>EPSG:3857</Projection><BlockSizeX>512</BlockSizeX><BlockSizeY>512</BlockSizeY><BandsCount>4</BandsCount><ZeroBlockHttpCodes>204,404</ZeroBlockHttpCodes></GDAL_WMS>`;
  writeFileSync(path.join(dir, 'source.xml'), xml);
  const out = path.join(dir, 'warped.tif');
  assertOk(
    await runGdal(gdal, 'gdalwarp', ['-q', '-ovr', 'NONE', '-t_srs', crs, '-te', ...te.map(String), '-ts', String(width), String(height), '-r', r, '-et', '0.125', '-of', 'GTiff', gdal.pathFor(path.join(dir, 'source.xml')), gdal.pathFor(out)], dir),
  );
  return out;
}

/** Ours against gdalwarp's: the mean absolute difference stated and small, and no half or whole pixel shift closer. */
async function expectAgrees(mine: RGBA, oracle: RGBA, label: string): Promise<void> {
  expect([mine.width, mine.height]).toEqual([oracle.width, oracle.height]);
  const here = meanAbsDiff(mine, oracle);
  const shifts = [-1, -0.5, 0.5, 1].flatMap((d) => [meanAbsDiff(mine, oracle, d, 0).mad, meanAbsDiff(mine, oracle, 0, d).mad]);
  // eslint-disable-next-line no-console
  console.log(`${label}: mean absolute difference ${here.mad.toFixed(3)} over ${here.pixels} px; shifted by ±0.5/±1 px: ${shifts.map((s) => s.toFixed(2)).join(' ')}`);
  expect(here.pixels).toBeGreaterThan(mine.width * mine.height * 0.5);
  expect(here.mad).toBeLessThan(1.5);
  for (const s of shifts) expect(here.mad).toBeLessThan(s);
}

interface Case {
  crs: string;
  /** -te of gdalwarp: minX minY maxX maxY, easting or longitude first. */
  te: [number, number, number, number];
  /** The same bounds in the 1.3.0 BBOX (the CRS's own axis order). */
  bbox130: [number, number, number, number];
  width: number;
  height: number;
}

const CASES: Case[] = [
  // Europe in WGS 84: latitude first in 1.3.0.
  { crs: 'EPSG:4326', te: [-12, 34, 32, 62], bbox130: [34, -12, 62, 32], width: 880, height: 560 },
  // ETRS89-LAEA Europe: northing first in 1.3.0.
  { crs: 'EPSG:3035', te: [2500000, 1400000, 6500000, 5400000], bbox130: [1400000, 2500000, 5400000, 6500000], width: 800, height: 800 },
  // Swiss LV95 (easting first), 1024 x 768 as the bench asks.
  { crs: 'EPSG:2056', te: [2420000, 1030000, 2900000, 1390000], bbox130: [2420000, 1030000, 2900000, 1390000], width: 1024, height: 768 },
];

// Every CRS with the default kernel; the other two kernels on LAEA Europe (each kernel is its own server).
const RUNS = CASES.flatMap((c) => (c.crs === 'EPSG:3035' ? (['near', 'bilinear', 'cubic'] as const) : (['bilinear'] as const)).map((r) => [c, r] as const));

for (const [c, r] of RUNS) {
  {
    it(`${c.crs}, -r ${r}: GetMap agrees with gdalwarp of the same tiles`, async () => {
      const resampling = { near: 'nearest', bilinear: 'bilinear', cubic: 'cubic' }[r];
      // One server per kernel is costly; the kernel is a server setting, so ask a server configured for it.
      const server = r === 'bilinear' ? srv : await startServer({ config: { wms: { resampling } } });
      try {
        const q = new URLSearchParams({ key: KEY, SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.3.0', LAYERS: 'maps/sample', STYLES: '', CRS: c.crs, BBOX: c.bbox130.join(','), WIDTH: String(c.width), HEIGHT: String(c.height), FORMAT: 'image/png', TRANSPARENT: 'TRUE' });
        const ours = await rawGet(`${server.url}/wms?${q}`);
        expect(ours.status).toBe(200);
        const source = /^maps\/sample (\S+) (\d+)$/.exec(String(ours.headers['x-tilemirror-source']));
        expect(source).not.toBeNull();
        const [, pyramid, z] = source!;
        expect(pyramid).toBe('512');
        const out = await gdalwarped(server.url, z, c.crs, c.te, c.width, c.height, r);
        await expectAgrees(await decodeRGBA(ours.body), await decodeRGBA(out), `WMS ${c.crs} -r ${r} (source z${z})`);
      } finally {
        if (server !== srv) await server.close();
      }
    }, 120_000);
  }
}

// WMTS tiles of the other grids: 2 x 2 tiles side by side against one gdalwarp of their bounds.
const GRID_CASES = [
  // WorldCRS84Quad zoom 3 (0.087890625° a pixel): Europe, tiles 2-3 down, 8-9 across (-0.0 .. 45 E, 22.5 .. 67.5 N).
  { grid: 'WorldCRS84Quad', crs: 'EPSG:4326', origin: [-180, 90], cell: 0.087890625, z: 3, row: 1, col: 8 },
  // EuropeanETRS89_LAEAQuad zoom 3 (2197.265625 m): central Europe.
  { grid: 'EuropeanETRS89_LAEAQuad', crs: 'EPSG:3035', origin: [2000000, 5500000], cell: 2197.265625, z: 3, row: 2, col: 3 },
  // LV95 zoom 12 (1000 m, 2 x 2 tiles): Switzerland.
  { grid: 'LV95', crs: 'EPSG:2056', origin: [2420000, 1350000], cell: 1000, z: 12, row: 0, col: 0 },
];

for (const g of GRID_CASES) {
  it(`WMTS ${g.grid} (${g.crs}): 2 x 2 tiles agree with gdalwarp of the same tiles`, async () => {
    const tiles = await Promise.all(
      [0, 1].flatMap((dy) => [0, 1].map(async (dx) => {
        const r = await rawGet(`${srv.url}/wmts/1.0.0/maps/sample/default/${g.grid}/${g.z}/${g.row + dy}/${g.col + dx}.png?key=${KEY}`);
        expect(r.status).toBe(200);
        return { dx, dy, image: await decodeRGBA(r.body), source: String(r.headers['x-tilemirror-source']) };
      })),
    );
    const levels = [...new Set(tiles.map((t) => /^maps\/sample 512 (\d+)$/.exec(t.source)?.[1]))];
    expect(levels).toHaveLength(1);
    const mosaic: RGBA = { width: 512, height: 512, data: Buffer.alloc(512 * 512 * 4) };
    for (const t of tiles) for (let y = 0; y < 256; y++) t.image.data.copy(mosaic.data, ((t.dy * 256 + y) * 512 + t.dx * 256) * 4, y * 256 * 4, (y + 1) * 256 * 4);
    const span = g.cell * 256;
    const minX = g.origin[0] + g.col * span;
    const maxY = g.origin[1] - g.row * span;
    const out = await gdalwarped(srv.url, levels[0]!, g.crs, [minX, maxY - 2 * span, minX + 2 * span, maxY], 512, 512, 'bilinear');
    await expectAgrees(mosaic, await decodeRGBA(out), `WMTS ${g.grid} z${g.z} (source z${levels[0]})`);
  }, 120_000);
}
