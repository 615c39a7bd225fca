// gdalwarp as the oracle of warpGrid + resample: a 64 x 64 RGBA image in EPSG:3857 (a gradient, a wave that tells
// the kernels apart, a sharp vertical edge, a transparent corner and a half-transparent one) warped to EPSG:4326 by gdalwarp with -r near, bilinear and
// cubic, and by our code with the closed-form inverse Mercator (exact for 3857 <-> 4326). The target extent reaches
// past the source on every side, so background pixels are compared too; it upsamples (about 1.4 x), where gdalwarp
// uses the same 2 x 2 and 4 x 4 kernels as ours (it widens them when shrinking by more than 5%).
// Both sides use the exact transform (gdalwarp -et 0, our maxError 0.01 px). Measured with GDAL 3.6.2: nearest
// identical; bilinear and cubic a mean absolute difference of 0.008 levels, no byte off by more than 1.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { resample, type Resampling } from '../../src/geo/resample';
import { warpGrid, type PointsTransform } from '../../src/geo/warp-grid';
import { gatedTest } from '../helpers/clients';
import { assertOk, clientEnv, run } from '../helpers/run';
import { tempDirs } from '../helpers/temp-dirs';

const gdalTest = gatedTest('gdalwarp', { bins: ['gdalwarp', 'gdal_translate'], packages: ['gdal-bin'] });
const { tempDir, removeTempDirs } = tempDirs('tm-resample-gdal-');
afterAll(removeTempDirs);

const R = 6378137;
const N = 64;
/** The source's top-left corner and pixel size in EPSG:3857 metres. */
const ULX = 0;
const ULY = 5_000_000;
const RES = 15_625;
/** Source column where the blue edge starts. */
const EDGE = 40;
/** Target extent (lon/lat) and size: past the source (lon 0..8.98, lat 33.76..40.85) on every side. */
const TE: [number, number, number, number] = [-0.5, 33.5, 9.5, 41.2];
const W = 100;
const H = 90;

function sourcePixels(): Buffer {
  const px = Buffer.alloc(N * N * 4);
  for (let j = 0; j < N; j++) {
    for (let i = 0; i < N; i++) {
      const alpha = i < 12 && j >= 50 ? 0 : i >= 56 && j < 8 ? 128 : 255;
      const wave = Math.round(128 + 100 * Math.sin(i / 2.5) * Math.cos(j / 3));
      px.set([i * 4, wave, i >= EDGE ? 255 : 0, alpha], (j * N + i) * 4);
    }
  }
  return px;
}

/** EPSG:4326 lon/lat to the source's pixels, in closed form. */
const toSource: PointsTransform = async (xs, ys) => {
  const ox = new Float64Array(xs.length);
  const oy = new Float64Array(xs.length);
  for (let k = 0; k < xs.length; k++) {
    const X = (R * xs[k] * Math.PI) / 180;
    const Y = R * Math.log(Math.tan(Math.PI / 4 + (ys[k] * Math.PI) / 360));
    ox[k] = (X - ULX) / RES;
    oy[k] = (ULY - Y) / RES;
  }
  return { xs: ox, ys: oy };
};

/** Where blue crosses 128 along row j (continuous target column, pixel centres at integers), NaN if it does not. */
function blueEdge(img: Buffer, j: number): number {
  for (let i = 0; i + 1 < W; i++) {
    const a = img[(j * W + i) * 4 + 2];
    const b = img[(j * W + i + 1) * 4 + 2];
    const opaque = img[(j * W + i) * 4 + 3] > 0 && img[(j * W + i + 1) * 4 + 3] > 0;
    if (opaque && a < 128 && b >= 128) return i + (128 - a) / (b - a);
  }
  return NaN;
}

gdalTest('warpGrid + resample match gdalwarp -t_srs EPSG:4326 for near, bilinear and cubic', async () => {
  const dir = tempDir();
  const src = sourcePixels();
  const png = join(dir, 'src.png');
  writeFileSync(png, await sharp(src, { raw: { width: N, height: N, channels: 4 } }).png().toBuffer());
  const vrt = join(dir, 'src.vrt');
  const ullr = [ULX, ULY, ULX + N * RES, ULY - N * RES].map(String);
  assertOk(await run('gdal_translate', ['-q', '-of', 'VRT', '-a_srs', 'EPSG:3857', '-a_ullr', ...ullr, png, vrt], { env: clientEnv() }));

  const grid = await warpGrid({ bbox: TE, width: W, height: H }, toSource, { maxError: 0.01 });
  // The edge's column in closed form: source x = EDGE is lon EDGE * RES / R radians.
  const edgeColumn = ((((EDGE * RES) / R) * 180) / Math.PI - TE[0]) / ((TE[2] - TE[0]) / W) - 0.5;

  const methods: [string, Resampling][] = [
    ['near', 'nearest'],
    ['bilinear', 'bilinear'],
    ['cubic', 'cubic'],
  ];
  for (const [r, method] of methods) {
    const out = join(dir, `out-${r}.tif`);
    const te = TE.map(String);
    assertOk(await run('gdalwarp', ['-q', '-et', '0', '-t_srs', 'EPSG:4326', '-te', ...te, '-ts', `${W}`, `${H}`, '-r', r, vrt, out], { env: clientEnv() }));
    const gdal = await sharp(out).ensureAlpha().raw().toBuffer();
    const ours = resample({ data: src, width: N, height: N }, grid, method, [0, 0, 0, 0]);
    expect(ours.length).toBe(gdal.length);

    let sum = 0;
    let max = 0;
    let alphaMismatches = 0;
    for (let k = 0; k < ours.length; k++) {
      const d = Math.abs(ours[k] - gdal[k]);
      sum += d;
      max = Math.max(max, d);
      if (k % 4 === 3 && d !== 0) alphaMismatches++;
    }
    // Rounding may differ by a level (our coordinates are float32); a wrong kernel is off by 0.19 on average and
    // by 12 at worst on this image (cubic against bilinear).
    const what = `${method}: mean ${(sum / ours.length).toFixed(4)}, max ${max}`;
    expect({ what, mean: sum / ours.length <= 0.05, max: max <= 2 }).toEqual({ what, mean: true, max: true });
    // Background, the transparent and half-transparent corners: the same pixels.
    expect({ method, alphaMismatches }).toEqual({ method, alphaMismatches: 0 });

    // The sharp edge: on every row it crosses, at the same column as gdalwarp's and as the closed form's.
    let rows = 0;
    for (let j = 0; j < H; j++) {
      const g = blueEdge(gdal, j);
      if (Number.isNaN(g)) continue;
      rows++;
      expect(Math.abs(blueEdge(ours, j) - g)).toBeLessThanOrEqual(0.5);
      expect(Math.abs(blueEdge(ours, j) - edgeColumn)).toBeLessThanOrEqual(1);
    }
    expect(rows).toBeGreaterThan(60);
  }
}, 60_000);
