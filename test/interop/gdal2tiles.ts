// gdal2tiles output as an upstream (Debian gdal-bin 3.6: /usr/bin/gdal2tiles.py --xyz, 512 px tiles): a small
// GeoTIFF made with python3-gdal, cut by gdal2tiles, its folder served by a static node:http server beside a TileJSON
// written by hand (no format, no tileSize), as a user would. Shared by the interop test that mirrors it and the
// browser test that draws the mirror with MapLibre.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { type ClientCheck, GDAL_CHECK, SYSTEM_PYTHON } from '../helpers/clients';
import { assertOk, run } from '../helpers/run';

export const GDAL2TILES_CHECK: ClientCheck = {
  ...GDAL_CHECK,
  bins: [...(GDAL_CHECK.bins ?? []), 'gdal2tiles.py'],
  pythonModules: ['osgeo.gdal'],
  packages: ['gdal-bin', 'python3-gdal'],
};

/** The raster's extent in degrees (west, south, east, north): what the hand-made TileJSON says. */
export const BOUNDS: [number, number, number, number] = [0, 0, 45, 40];
export const TILE_SIZE = 512;

/** A 450 x 400 px RGB GeoTIFF in EPSG:4326 over BOUNDS: two gradients and a checkerboard, so every tile differs. */
const MAKE_TIFF = `
import sys
from osgeo import gdal, osr
w, h = 450, 400
ds = gdal.GetDriverByName('GTiff').Create(sys.argv[1], w, h, 3, gdal.GDT_Byte)
ds.SetGeoTransform([${BOUNDS[0]}, 0.1, 0, ${BOUNDS[3]}, 0, -0.1])
srs = osr.SpatialReference(); srs.ImportFromEPSG(4326); ds.SetProjection(srs.ExportToWkt())
bands = [bytes(x * 255 // w for y in range(h) for x in range(w)),
         bytes(y * 255 // h for y in range(h) for x in range(w)),
         bytes(((x // 25 + y // 25) % 2) * 200 for y in range(h) for x in range(w))]
for i, b in enumerate(bands):
    ds.GetRasterBand(i + 1).WriteRaster(0, 0, w, h, b)
ds = None
`;

/** Every PNG gdal2tiles wrote, as "z/x/y" → its bytes (XYZ numbering: folders z/x, files y.png). */
export function tileFiles(root: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const z of readdirSync(root).filter((n) => /^\d+$/.test(n))) {
    for (const x of readdirSync(path.join(root, z)).filter((n) => /^\d+$/.test(n))) {
      for (const f of readdirSync(path.join(root, z, x)).filter((n) => /^\d+\.png$/.test(n))) {
        out.set(`${z}/${x}/${f.slice(0, -4)}`, readFileSync(path.join(root, z, x, f)));
      }
    }
  }
  return out;
}

export const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** A static file server over `root` (a tiles folder and the TileJSON): 404 for anything missing, nothing else. */
export function serveFolder(root: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
    const file = path.join(root, rel);
    if (rel.includes('..') || !existsSync(file) || !/\.(png|json)$/.test(file)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': file.endsWith('.json') ? 'application/json' : 'image/png' }).end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })));
}

export interface Gdal2tilesSite {
  server: Server;
  /** Base URL of the static server: the TileJSON is `${url}/tiles.json`, the tiles `${url}/tiles/{z}/{x}/{y}.png`. */
  url: string;
  /** Every PNG gdal2tiles wrote, by "z/x/y". */
  files: Map<string, Buffer>;
  close(): Promise<void>;
}

/** Makes the GeoTIFF in `dir`, cuts it with gdal2tiles (z0-4, 512 px), serves the folder and writes the hand-made TileJSON. */
export async function makeGdal2tilesSite(dir: string): Promise<Gdal2tilesSite> {
  const tif = path.join(dir, 'src.tif');
  const site = path.join(dir, 'site');
  const tiles = path.join(site, 'tiles');
  assertOk(await run(SYSTEM_PYTHON, ['-c', MAKE_TIFF, tif]));
  assertOk(await run('gdal2tiles.py', ['--xyz', '-z', '0-4', '--tilesize', String(TILE_SIZE), '--webviewer', 'none', '--processes', '1', tif, tiles], { timeoutMs: 120_000 }));
  const { server, url } = await serveFolder(site);
  // As a user writes it: no format, no tileSize.
  writeFileSync(
    path.join(site, 'tiles.json'),
    JSON.stringify({ tilejson: '2.2.0', name: 'gdal2tiles sample', tiles: [`${url}/tiles/{z}/{x}/{y}.png`], minzoom: 0, maxzoom: 4, bounds: BOUNDS }),
  );
  return { server, url, files: tileFiles(tiles), close: () => new Promise((r) => server.close(() => r())) };
}
