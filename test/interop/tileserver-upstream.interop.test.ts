// tileserver-gl-light 5 (npm, in .bench/tileserver; test/run.sh installs it) as the upstream of a mirror: a server
// nobody here wrote, which gzips every data tile, PNG included (`Content-Encoding: gzip`), and whose TileJSON
// (/data/ID.json) has no tileSize. One of the sample's MBTiles is served by it and mirrored with the CLI's
// --source-tilejson; the oracle is the MBTiles itself: every tile byte-identical once the transport gzip is undone,
// the tile size the PNGs' own width, then the mirror served by tilemirror and read through GDAL's WMTS driver.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { built } from '../helpers/dist';
import { rawGet, startServer, type TestServer } from '../helpers/server';
import { gdalTranslateTile, MIRROR_DIR } from './helpers';
import { expectSamePixels } from '../helpers/pixels';
import { assertOk, run } from '../helpers/run';
import { pickTile, type TileAddress } from '../helpers/stored-tiles';
import { metadata, storedTiles, storedTileSize } from './mapproxy';
import { startTileserver, tileserverTest, type Tileserver } from './tileserver';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-tileserver-upstream-');

const clientTest = tileserverTest('tileserver-gl-light as upstream');

const SOURCE = path.join(MIRROR_DIR, 'images', 'sample-image.mbtiles');

/** Each tile of a store as "z/x/y" → sha256 of its bytes (Jest's deep Buffer equality is slow on many tiles). */
function digests(file: string): Record<string, string> {
  return Object.fromEntries(storedTiles(file).map((t) => [`${t.z}/${t.x}/${t.y}`, createHash('sha256').update(t.data).digest('hex')]));
}

/** A PNG's width from its IHDR chunk (bytes 16-19), read here rather than by the code under test. */
function pngWidth(png: Buffer): number {
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  return png.readUInt32BE(16);
}

describe('tileserver-gl-light 5 mirrored through its TileJSON', () => {
  let ts: Tileserver;
  let served: TestServer | undefined;
  let tmp: string;
  let upstreamFile: string;
  let data: string;

  beforeAll(async () => {
    tmp = tempDir();
    data = path.join(tmp, 'data');
    mkdirSync(path.join(tmp, 'upstream'));
    upstreamFile = path.join(tmp, 'upstream', 'img.mbtiles');
    copyFileSync(SOURCE, upstreamFile);
  });
  afterAll(async () => {
    await served?.close();
    await ts?.stop();
    removeTempDirs();
  });

  clientTest('every tile byte-identical to the MBTiles after the transport gzip, tile size measured, GDAL reads it through tilemirror', async () => {
    ts = await startTileserver(tmp, 'img', upstreamFile);

    // What makes this upstream hard: its PNG tiles come gzipped, and its TileJSON gives no tileSize.
    const raw = await rawGet(`${ts.url}/data/img/0/0/0.png`, { 'Accept-Encoding': 'gzip' });
    expect({ status: raw.status, type: raw.headers['content-type'], encoding: raw.headers['content-encoding'] }).toEqual({ status: 200, type: 'image/png', encoding: 'gzip' });
    const tilejson = JSON.parse((await rawGet(`${ts.url}/data/img.json`)).body.toString('utf8')) as Record<string, unknown>;
    expect(tilejson.tileSize).toBeUndefined();

    const r = assertOk(
      await run(process.execPath, [built('cli.js'), 'mirror', '-d', data, '--source-tilejson', `${ts.url}/data/img.json`, '--id', 'ts-img'], { timeoutMs: 120_000 }),
    );
    expect(r.stdout).toContain('57 tiles planned: 57 fetched and stored, 0 empty, 0 already stored, 0 failed');

    const file = path.join(data, 'tiles', 'ts-img.mbtiles');
    const expected = digests(upstreamFile);
    expect(Object.keys(expected)).toHaveLength(57);
    expect(digests(file)).toEqual(expected);

    const upstreamMeta = metadata(upstreamFile);
    expect(metadata(file)).toMatchObject({ format: 'png', minzoom: upstreamMeta.minzoom, maxzoom: upstreamMeta.maxzoom });
    const widths = new Set(storedTiles(upstreamFile).map((t) => pngWidth(t.data)));
    expect([...widths]).toEqual([256]);
    expect(storedTileSize(file)).toBe(256);

    served = await startServer({ dataDir: data });
    const tile: TileAddress = pickTile(upstreamFile, 2);
    const out = path.join(tmp, 'gdal-ts.png');
    await gdalTranslateTile(`WMTS:${served.url.replace(/\/+$/, '')}/tiles/ts-img/WMTSCapabilities.xml?key=demo`, tile, 256, out);
    const original = storedTiles(upstreamFile).find((t) => t.z === tile.z && t.x === tile.x && t.y === tile.y);
    await expectSamePixels(out, original!.data, `ts-img ${tile.z}/${tile.x}/${tile.y} through GDAL`);
  }, 240_000);
});
