// WMS GetMap against an oracle we did not write: gdalwarp (Debian trixie's GDAL, in its chroot) warps the same Web
// Mercator tiles, read from this server through GDAL's TMS driver at the level the server drew from (its
// X-Tilemirror-Source header names it), to the same CRS, bounds, size, resampling and error threshold. The images
// must agree: the mean absolute difference is stated and bounded, and the geometry is checked by shifting ours by
// half and whole pixels: no shift may bring it closer to gdalwarp's than none (a feature off by more than half a
// pixel would).

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeRGBA, type RGBA } from '../helpers/pixels';
import { assertOk } from '../helpers/run';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';
import { chrootGdal, gdalTest, runGdal } from './helpers';

const gdal = chrootGdal();
const it = gdalTest(gdal);
const temps = tempDirs('tilemirror-wms-gdalwarp-', gdal.tempBase);
const HALF = Math.PI * 6378137;

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv?.close();
  temps.removeTempDirs();
});

/** Mean absolute difference over the colour channels of pixels both images cover (alpha 255 in both). */
function meanAbsDiff(a: RGBA, b: RGBA, dx = 0, dy = 0): { mad: number; pixels: number } {
  let sum = 0;
  let n = 0;
  for (let y = 1; y < a.height - 1; y++) {
    for (let x = 1; x < a.width - 1; x++) {
      // a sampled at (x + dx, y + dy) bilinearly, b at (x, y).
      const fx = x + dx;
      const fy = y + dy;
      const x0 = Math.floor(fx);
      const y0 = Math.floor(fy);
      const tx = fx - x0;
      const ty = fy - y0;
      const j = (y * b.width + x) * 4;
      if (b.data[j + 3] !== 255) continue;
      let ok = true;
      const v = [0, 0, 0];
      for (const [xx, yy, w] of [[x0, y0, (1 - tx) * (1 - ty)], [x0 + 1, y0, tx * (1 - ty)], [x0, y0 + 1, (1 - tx) * ty], [x0 + 1, y0 + 1, tx * ty]]) {
        if (w === 0) continue;
        const i = (yy * a.width + xx) * 4;
        if (a.data[i + 3] !== 255) ok = false;
        for (let c = 0; c < 3; c++) v[c] += a.data[i + c] * w;
      }
      if (!ok) continue;
      for (let c = 0; c < 3; c++) sum += Math.abs(v[c] - b.data[j + c]);
      n++;
    }
  }
  return { mad: sum / (3 * n), pixels: n };
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
        const dir = temps.tempDir();
        // GDAL's TMS driver over the server's 512 px tiles at exactly that level (-ovr NONE: no other level).
        const xml = `<GDAL_WMS><Service name="TMS"><ServerUrl>${server.url}/maps/sample/\${z}/\${x}/\${y}.png?key=${KEY}</ServerUrl></Service>
<DataWindow><UpperLeftX>${-HALF}</UpperLeftX><UpperLeftY>${HALF}</UpperLeftY><LowerRightX>${HALF}</LowerRightX><LowerRightY>${-HALF}</LowerRightY><TileLevel>${z}</TileLevel><TileCountX>1</TileCountX><TileCountY>1</TileCountY><YOrigin>top</YOrigin></DataWindow>
<Projection>EPSG:3857</Projection><BlockSizeX>512</BlockSizeX><BlockSizeY>512</BlockSizeY><BandsCount>4</BandsCount><ZeroBlockHttpCodes>204,404</ZeroBlockHttpCodes></GDAL_WMS>`;
        writeFileSync(path.join(dir, 'source.xml'), xml);
        const out = path.join(dir, 'warped.tif');
        assertOk(
          await runGdal(gdal, 'gdalwarp', ['-q', '-ovr', 'NONE', '-t_srs', c.crs, '-te', ...c.te.map(String), '-ts', String(c.width), String(c.height), '-r', r, '-et', '0.125', '-of', 'GTiff', gdal.pathFor(path.join(dir, 'source.xml')), gdal.pathFor(out)], dir),
        );
        const oracle = await decodeRGBA(out);
        const mine = await decodeRGBA(ours.body);
        expect([mine.width, mine.height]).toEqual([oracle.width, oracle.height]);
        const here = meanAbsDiff(mine, oracle);
        const shifts = [-1, -0.5, 0.5, 1].flatMap((d) => [meanAbsDiff(mine, oracle, d, 0).mad, meanAbsDiff(mine, oracle, 0, d).mad]);
        // eslint-disable-next-line no-console
        console.log(`${c.crs} -r ${r} (source z${z}): mean absolute difference ${here.mad.toFixed(3)} over ${here.pixels} px; shifted by ±0.5/±1 px: ${shifts.map((s) => s.toFixed(2)).join(' ')}`);
        expect(here.pixels).toBeGreaterThan(c.width * c.height * 0.5);
        expect(here.mad).toBeLessThan(1.5);
        for (const s of shifts) expect(here.mad).toBeLessThan(s);
      } finally {
        if (server !== srv) await server.close();
      }
    }, 120_000);
  }
}
