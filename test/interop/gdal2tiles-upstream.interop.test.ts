// gdal2tiles output (Debian gdal-bin 3.6: /usr/bin/gdal2tiles.py --xyz, 512 px tiles) as the upstream of a mirror,
// described the way a user would by hand: a TileJSON with `tiles`, zooms and bounds, but neither `format` nor
// `tileSize` (test/interop/gdal2tiles.ts). The oracle is gdal2tiles' folder: every mirrored tile byte-identical to
// its file, the tile size the PNGs' own width (512, never the 256 a TileJSON without tileSize implies), then the
// mirror served by tilemirror and read through GDAL's WMTS driver at 512 px.
import path from 'node:path';
import { built } from '../helpers/dist';
import { startServer, type TestServer } from '../helpers/server';
import { gdalTranslateTile } from './helpers';
import { gatedTest } from '../helpers/clients';
import { expectSamePixels } from '../helpers/pixels';
import { assertOk, run } from '../helpers/run';
import { pickTile, tileBoundsLonLat } from '../helpers/stored-tiles';
import { BOUNDS, GDAL2TILES_CHECK, makeGdal2tilesSite, sha, TILE_SIZE, type Gdal2tilesSite } from './gdal2tiles';
import { metadata, storedTiles, storedTileSize } from './mapproxy';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-gdal2tiles-upstream-');

const clientTest = gatedTest('gdal2tiles as upstream', GDAL2TILES_CHECK);

describe('gdal2tiles --xyz output with a hand-made TileJSON', () => {
  let tmp: string;
  let site: Gdal2tilesSite | undefined;
  let served: TestServer | undefined;

  beforeAll(() => {
    tmp = tempDir();
  });
  afterAll(async () => {
    await served?.close();
    await site?.close();
    removeTempDirs();
  });

  clientTest('every tile byte-identical to its file, tile size measured as 512, GDAL reads it through tilemirror', async () => {
    site = await makeGdal2tilesSite(tmp);
    const { files } = site;
    expect(files.size).toBeGreaterThan(8);
    expect(new Set([...files.values()].map((b) => b.readUInt32BE(16)))).toEqual(new Set([TILE_SIZE])); // IHDR width

    const data = path.join(tmp, 'data');
    const r = assertOk(await run(process.execPath, [built('cli.js'), 'mirror', '-d', data, '--source-tilejson', `${site.url}/tiles.json`, '--id', 'g2t'], { timeoutMs: 120_000 }));
    expect(r.stdout).toMatch(/tiles planned: \d+ fetched and stored, \d+ empty, 0 already stored, 0 failed/);

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
    const out = path.join(tmp, 'gdal-g2t.png');
    await gdalTranslateTile(`WMTS:${served.url.replace(/\/+$/, '')}/tiles/g2t/WMTSCapabilities.xml?key=demo`, tile, TILE_SIZE, out);
    await expectSamePixels(out, files.get(`${tile.z}/${tile.x}/${tile.y}`)!, `g2t ${tile.z}/${tile.x}/${tile.y} through GDAL`);
  }, 240_000);
});
