// MapProxy (Debian python3-mapproxy 1.15) as the upstream of a mirror: a server nobody here wrote, with its own
// WMTS capabilities (zero-padded TileMatrix identifiers, its own grid names), RESTful and KVP. MapProxy caches a
// tile source (a tilemirror serving the sample, at 256 and 512 px) and its WMTS is mirrored with --source-wmts.
// Every mirrored tile must be byte-identical to MapProxy's own GetTile answer (fetched by the test, the oracle);
// the mirror is then served by tilemirror and read through GDAL's WMTS driver at the right tile size.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { runMirror } from '../../src/mirror/engine/run';
import type { MirrorOptions } from '../../src/mirror/engine/options';
import { sourceBase, type GenericSource } from '../../src/mirror/discovery/sources';
import { startServer, type TestServer } from '../helpers/server';
import { gdalTranslateTile } from './helpers';
import { fetchOk } from '../helpers/fetch';
import { expectSamePixels } from '../helpers/pixels';
import { mapproxyTest, metadata, startMapProxy, storedTiles, type MapProxy } from './mapproxy';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-mapproxy-upstream-');

const clientTest = mapproxyTest('MapProxy as upstream');

const WORLD_3857 = 20037508.342789244;

/** MapProxy's configuration: the sample at 256 px on its GLOBAL_WEBMERCATOR grid and at 512 px on a grid of its own. */
function mapproxyConfig(upstream: string, dir: string): string {
  return JSON.stringify({
    services: { wmts: { restful: true, kvp: true } },
    layers: [
      { name: 'sample', title: 'Sample 256', sources: ['cache256'] },
      { name: 'sample512', title: 'Sample 512', sources: ['cache512'] },
    ],
    caches: {
      cache256: { grids: ['GLOBAL_WEBMERCATOR'], format: 'image/png', sources: ['tiles256'], cache: { type: 'file', directory: path.join(dir, 'c256') } },
      cache512: { grids: ['wm512'], format: 'image/png', sources: ['tiles512'], cache: { type: 'file', directory: path.join(dir, 'c512') } },
    },
    sources: {
      tiles256: { type: 'tile', url: `${upstream}/maps/sample/256/%(z)s/%(x)s/%(y)s.png?key=demo`, grid: 'GLOBAL_WEBMERCATOR' },
      tiles512: { type: 'tile', url: `${upstream}/maps/sample/%(z)s/%(x)s/%(y)s.png?key=demo`, grid: 'wm512' },
    },
    grids: {
      wm512: {
        srs: 'EPSG:3857', bbox: [-WORLD_3857, -WORLD_3857, WORLD_3857, WORLD_3857], bbox_srs: 'EPSG:3857', origin: 'nw',
        tile_size: [512, 512], min_res: (2 * WORLD_3857) / 512, num_levels: 6,
      },
    },
    globals: { cache: { base_dir: dir, lock_dir: path.join(dir, 'locks') } },
  });
}

describe('MapProxy 1.15 WMTS mirrored (RESTful and KVP)', () => {
  let upstream: TestServer;
  let served: TestServer;
  let mapproxy: MapProxy;
  let tmp: string;
  let data: string;

  beforeAll(async () => {
    tmp = tempDir();
    data = path.join(tmp, 'data');
    upstream = await startServer();
    const config = path.join(tmp, 'mapproxy.yaml');
    writeFileSync(config, mapproxyConfig(upstream.url.replace(/\/+$/, ''), tmp)); // JSON is YAML
    mapproxy = await startMapProxy(config);
  }, 60_000);
  afterAll(async () => {
    mapproxy?.proc.kill();
    await served?.close();
    await upstream?.close();
    removeTempDirs();
  });

  const mirror = (id: string, source: GenericSource, zoom: [number, number]) => {
    const opts: MirrorOptions = { upstream: sourceBase(source), source, dataDir: data, resource: { kind: 'tiles', id }, concurrency: 4, zoom, log: () => undefined };
    return runMirror(opts);
  };

  const cases: { id: string; layer: string; grid: string; tileSize: number; kvp: boolean }[] = [
    { id: 'mp-rest', layer: 'sample', grid: 'GLOBAL_WEBMERCATOR', tileSize: 256, kvp: false },
    { id: 'mp-kvp', layer: 'sample', grid: 'GLOBAL_WEBMERCATOR', tileSize: 256, kvp: true },
    { id: 'mp-512', layer: 'sample512', grid: 'wm512', tileSize: 512, kvp: false },
  ];

  clientTest.each(cases)('$id: every tile byte-identical to MapProxy GetTile, tile size $tileSize, zooms and bounds as mirrored', async ({ id, layer, grid, tileSize, kvp }) => {
    const caps = kvp ? `${mapproxy.url}/service?SERVICE=WMTS&REQUEST=GetCapabilities` : `${mapproxy.url}/wmts/1.0.0/WMTSCapabilities.xml`;
    const r = await mirror(id, { type: 'wmts', url: caps, layer }, [0, 3]);
    expect(r.status).toBe('published');
    const expected = [0, 1, 2, 3].reduce((n, z) => n + 4 ** z, 0);
    expect(r.stored).toBe(expected);
    expect(r.failed).toBe(0);
    expect(r.mirrored).toEqual([{ pyramid: 'main', minzoom: 0, maxzoom: 3, bounds: [-180, -85.0511287798066, 180, 85.0511287798066] }]);

    const file = path.join(data, 'tiles', `${id}.mbtiles`);
    const meta = metadata(file);
    expect(meta).toMatchObject({ format: 'png', minzoom: '0', maxzoom: '3' });
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare("SELECT tile_size FROM tilemirror_pyramids WHERE name = 'main'").get()).toEqual({ tile_size: tileSize });
    } finally {
      db.close();
    }
    const tiles = storedTiles(file);
    expect(tiles).toHaveLength(expected);
    for (const t of tiles) {
      // MapProxy's RESTful GetTile takes the zoom as its TileMatrix identifier without the padding of its capabilities.
      const theirs = await fetchOk(`${mapproxy.url}/wmts/${layer}/${grid}/${t.z}/${t.x}/${t.y}.png`);
      expect({ tile: `${t.z}/${t.x}/${t.y}`, same: theirs.body.equals(t.data) }).toEqual({ tile: `${t.z}/${t.x}/${t.y}`, same: true });
    }
  }, 120_000);

  clientTest('GDAL reads a mirrored 512 px layer through tilemirror\'s WMTS at 512 px', async () => {
    const r = await mirror('mp-512-gdal', { type: 'wmts', url: `${mapproxy.url}/wmts/1.0.0/WMTSCapabilities.xml`, layer: 'sample512' }, [2, 2]);
    expect(r.status).toBe('published');
    served = await startServer({ dataDir: data });
    const tile = { z: 2, x: 2, y: 1 };
    const out = path.join(tmp, 'gdal-512.png');
    await gdalTranslateTile(`WMTS:${served.url.replace(/\/+$/, '')}/tiles/mp-512-gdal/WMTSCapabilities.xml?key=demo`, tile, 512, out);
    const theirs = await fetchOk(`${mapproxy.url}/wmts/sample512/wm512/${tile.z}/${tile.x}/${tile.y}.png`);
    await expectSamePixels(out, theirs.body, 'mp-512 z2/2/1 through GDAL');
  }, 120_000);
});
