'use strict';
// The accuracy oracle of the wms benchmark: gdalwarp (Debian's gdal-bin) warping the same 512 px Web Mercator
// tiles, read through GDAL's TMS description from the tilemirror server's XYZ route at one level only (-ovr NONE),
// to the request's CRS, bounds and size, with the same kernel and -et 0.125; and the mean absolute difference of an
// image against it, per channel, over the pixels both cover (alpha 255 in both, the 1 px border left out).

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ensureDebianCommand } = require('./anchors');

const HALF = Math.PI * 6378137;
const GDAL_KERNEL = { nearest: 'near', bilinear: 'bilinear', cubic: 'cubic' };

function gdalVersion(gdalwarp) {
  const r = spawnSync(gdalwarp, ['--version'], { encoding: 'utf8' });
  return (r.stdout || '').trim();
}

/** The gdalwarp image (GeoTIFF path) of `req` from level `z` of the 512 px tiles at `tileUrl` (${z}/${x}/${y}). */
function gdalwarpOracle({ dir, tileUrl, z, crs, te, width, height, resampling }) {
  const w = ensureDebianCommand('gdalwarp', 'gdal-bin');
  if (w.reason) throw new Error(w.reason);
  fs.mkdirSync(dir, { recursive: true });
  const xml = `<GDAL_WMS><Service name="TMS"><ServerUrl>${tileUrl.replace(/&/g, '&amp;')}</ServerUrl></Service>
<DataWindow><UpperLeftX>${-HALF}</UpperLeftX><UpperLeftY>${HALF}</UpperLeftY><LowerRightX>${HALF}</LowerRightX><LowerRightY>${-HALF}</LowerRightY><TileLevel>${z}</TileLevel><TileCountX>1</TileCountX><TileCountY>1</TileCountY><YOrigin>top</YOrigin></DataWindow>
<Projection>EPSG:3857</Projection><BlockSizeX>512</BlockSizeX><BlockSizeY>512</BlockSizeY><BandsCount>4</BandsCount><ZeroBlockHttpCodes>204,404</ZeroBlockHttpCodes><Cache/></GDAL_WMS>`;
  const src = path.join(dir, `source-z${z}.xml`);
  fs.writeFileSync(src, xml);
  const out = path.join(dir, `gdalwarp-${crs.replace(':', '')}-z${z}.tif`);
  fs.rmSync(out, { force: true });
  const args = ['-q', '-ovr', 'NONE', '-t_srs', crs, '-te', ...te.map(String), '-ts', String(width), String(height), '-r', GDAL_KERNEL[resampling], '-et', '0.125', '-of', 'GTiff', src, out];
  const r = spawnSync(w.path, args, { encoding: 'utf8', timeout: 120000, env: { ...process.env, GDAL_DEFAULT_WMS_CACHE_PATH: path.join(dir, 'gdalwmscache') } });
  if (r.status !== 0) throw new Error(`gdalwarp failed: ${r.stderr}`);
  return { file: out, gdal: gdalVersion(w.path), command: `gdalwarp ${args.slice(0, -2).join(' ')}` };
}

async function rgba(input) {
  const sharp = require('sharp');
  const { data, info } = await sharp(input).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

/** Mean absolute difference of image `a` against `oracle` per colour channel (0-255), and the pixels compared. */
async function meanAbsDiff(a, oracle) {
  const A = await rgba(a);
  const B = await rgba(oracle);
  if (A.width !== B.width || A.height !== B.height) throw new Error(`size ${A.width}x${A.height} vs the oracle's ${B.width}x${B.height}`);
  const sum = [0, 0, 0];
  let n = 0;
  for (let y = 1; y < A.height - 1; y++) {
    for (let x = 1; x < A.width - 1; x++) {
      const i = (y * A.width + x) * 4;
      if (A.data[i + 3] !== 255 || B.data[i + 3] !== 255) continue;
      for (let c = 0; c < 3; c++) sum[c] += Math.abs(A.data[i + c] - B.data[i + c]);
      n++;
    }
  }
  const perChannel = sum.map((s) => s / Math.max(1, n));
  return { r: perChannel[0], g: perChannel[1], b: perChannel[2], mean: (perChannel[0] + perChannel[1] + perChannel[2]) / 3, pixels: n, ofPixels: (A.width - 2) * (A.height - 2) };
}

module.exports = { gdalwarpOracle, meanAbsDiff };
