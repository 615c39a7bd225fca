// gdal2tiles output (Debian gdal-bin 3.6: /usr/bin/gdal2tiles.py --xyz, 512 px tiles) as the upstream of a mirror,
// described the way a user would by hand: a TileJSON with `tiles`, zooms and bounds, but neither `format` nor
// `tileSize`. A small GeoTIFF is made here (python3-gdal), cut by gdal2tiles, and its folder served by a static
// node:http server; the oracle is that folder: every mirrored tile byte-identical to its file, the tile size the
// PNGs' own width (512, never the 256 a TileJSON without tileSize implies), then the mirror served by tilemirror
// and read through GDAL's WMTS driver at 512 px.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { built } from '../helpers/dist';
import { startServer, type TestServer } from '../helpers/server';
import {
  assertOk,
  expectSamePixels,
  GDAL_CHECK,
  gatedTest,
  gdalTranslateTile,
  makeTempDir,
  pickTile,
  run,
  SYSTEM_PYTHON,
  tileBoundsLonLat,
} from './helpers';
import { metadata, storedTiles, storedTileSize } from './mapproxy';

const clientTest = gatedTest('gdal2tiles as upstream', {
  ...GDAL_CHECK,
  bins: [...(GDAL_CHECK.bins ?? []), 'gdal2tiles.py'],
  pythonModules: ['osgeo.gdal'],
  packages: ['gdal-bin', 'python3-gdal'],
});

/** The raster's extent in degrees (west, south, east, north): what the hand-made TileJSON says. */
const BOUNDS: [number, number, number, number] = [0, 0, 45, 40];
const TILE_SIZE = 512;

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
function tileFiles(root: string): Map<string, Buffer> {
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

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** A static file server over `root` (a tiles folder and the TileJSON): 404 for anything missing, nothing else. */
function serveFolder(root: string): Promise<{ server: Server; url: string }> {
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

describe('gdal2tiles --xyz output with a hand-made TileJSON', () => {
  let tmp: { dir: string; cleanup: () => void };
  let folder: { server: Server; url: string } | undefined;
  let served: TestServer | undefined;

  beforeAll(() => {
    tmp = makeTempDir('gdal2tiles-upstream');
  });
  afterAll(async () => {
    await served?.close();
    await new Promise((r) => (folder ? folder.server.close(r) : r(undefined)));
    tmp?.cleanup();
  });

  clientTest('every tile byte-identical to its file, tile size measured as 512, GDAL reads it through tilemirror', async () => {
    const tif = path.join(tmp.dir, 'src.tif');
    const tiles = path.join(tmp.dir, 'site', 'tiles');
    assertOk(await run(SYSTEM_PYTHON, ['-c', MAKE_TIFF, tif]));
    assertOk(
      await run('gdal2tiles.py', ['--xyz', '-z', '0-4', '--tilesize', String(TILE_SIZE), '--webviewer', 'none', '--processes', '1', tif, tiles], { timeoutMs: 120_000 }),
    );
    const files = tileFiles(tiles);
    expect(files.size).toBeGreaterThan(20);
    expect(new Set([...files.values()].map((b) => b.readUInt32BE(16)))).toEqual(new Set([TILE_SIZE])); // IHDR width

    folder = await serveFolder(path.join(tmp.dir, 'site'));
    // As a user writes it: no format, no tileSize.
    writeFileSync(
      path.join(tmp.dir, 'site', 'tiles.json'),
      JSON.stringify({ tilejson: '2.2.0', name: 'gdal2tiles sample', tiles: [`${folder.url}/tiles/{z}/{x}/{y}.png`], minzoom: 0, maxzoom: 4, bounds: BOUNDS }),
    );

    const data = path.join(tmp.dir, 'data');
    const r = assertOk(await run(process.execPath, [built('cli.js'), 'mirror', '-d', data, '--source-tilejson', `${folder.url}/tiles.json`, '--id', 'g2t'], { timeoutMs: 120_000 }));
    expect(r.stdout).not.toMatch(/failed [1-9]/);

    const file = path.join(data, 'tiles', 'g2t.mbtiles');
    const stored = new Map(storedTiles(file).map((t) => [`${t.z}/${t.x}/${t.y}`, sha(t.data)]));
    // Nothing invented: every stored tile is gdal2tiles' file of that address, byte for byte ...
    for (const [addr, digest] of stored) expect({ addr, digest }).toEqual({ addr, digest: files.has(addr) ? sha(files.get(addr)!) : 'no such file' });
    // ... and nothing lost: every file whose tile overlaps the TileJSON's bounds (more than along an edge) is stored.
    const inside = [...files.keys()].filter((addr) => {
      const [z, x, y] = addr.split('/').map(Number);
      const [w, s, e, n] = tileBoundsLonLat({ z, x, y });
      return w < BOUNDS[2] && e > BOUNDS[0] && s < BOUNDS[3] && n > BOUNDS[1];
    });
    expect(inside).toHaveLength(1 + 1 + 1 + 1 + 4); // z0-3: the one tile holding 0..45E 0..40N; z4: 0..45E x 0..40N is 2 x 2
    expect(inside.filter((addr) => !stored.has(addr))).toEqual([]);

    expect(metadata(file)).toMatchObject({ format: 'png', minzoom: '0', maxzoom: '4' });
    expect(storedTileSize(file)).toBe(TILE_SIZE);

    served = await startServer({ dataDir: data });
    const tile = pickTile(file, 4, { inside: BOUNDS });
    const out = path.join(tmp.dir, 'gdal-g2t.png');
    await gdalTranslateTile(`WMTS:${served.url.replace(/\/+$/, '')}/tiles/g2t/WMTSCapabilities.xml?key=demo`, tile, TILE_SIZE, out);
    await expectSamePixels(out, files.get(`${tile.z}/${tile.x}/${tile.y}`)!, `g2t ${tile.z}/${tile.x}/${tile.y} through GDAL`);
  }, 240_000);
});
