// MapProxy (Debian python3-mapproxy 1.15) as the XYZ and WMS upstream people type in: `--source-xyz` against its
// KVP-free `/tiles/LAYER/GRID/{z}/{x}/{y}.png` path (rows from the north; `?origin=sw` counts them from the south)
// and `--source-wms` against its WMS (GetMap 1.1.1 and 1.3.0 per tile in EPSG:3857, 256 and 512 px). The oracles
// are MapProxy's own answers, fetched by the test: every XYZ tile byte-identical to its /tiles answer, every WMS
// tile pixel-identical to its GetMap for the tile's box (computed here, not by the mirror). The mirrored stores
// are then served by tilemirror and read through GDAL's WMTS driver at the right tile size, bounds and zooms.
//
// MapProxy's `/tms/1.0.0/` path is not used as an XYZ template: on a global Web Mercator grid it follows the TMS
// global-mercator profile, whose level 0 has 2x2 tiles (its level L is zoom L+1), which no {z} can express.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../src/mirror/errors';
import { runMirror } from '../../src/mirror/engine/run';
import type { MirrorOptions } from '../../src/mirror/engine/options';
import type { MirrorResult } from '../../src/mirror/engine/result';
import { sourceBase, type GenericSource } from '../../src/mirror/discovery/sources';
import { built } from '../helpers/dist';
import { startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { gdalinfo, gdalTranslateTile } from './helpers';
import { fetchJson, fetchOk } from '../helpers/fetch';
import { decodeRGBA, expectSamePixels, isUniform } from '../helpers/pixels';
import { tileBounds3857 } from '../helpers/stored-tiles';
import { mapproxyTest, metadata, startMapProxy, storedTiles, storedTileSize, type MapProxy } from './mapproxy';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-mapproxy-xyz-wms-');

const clientTest = mapproxyTest('MapProxy XYZ and WMS as upstream');

const WORLD_3857 = 20037508.342789244;
const ATTRIBUTION = 'Sample data (c) tilemirror test';

/**
 * MapProxy's configuration: the sample at 256 px (GLOBAL_WEBMERCATOR) and 512 px (a grid of its own), a layer
 * drawn only between 1:50,000,000 and 1:300,000,000, and one whose source is unreachable (every GetMap a
 * ServiceException, HTTP 200).
 */
function mapproxyConfig(upstream: string, dir: string): string {
  const cache = (name: string) => ({ type: 'file', directory: path.join(dir, name) });
  return JSON.stringify({
    services: {
      tms: { use_grid_names: true },
      wms: { versions: ['1.1.1', '1.3.0'], srs: ['EPSG:3857', 'EPSG:900913', 'EPSG:4326'], image_formats: ['image/png', 'image/jpeg'], md: { title: 'MapProxy test WMS' } },
    },
    layers: [
      { name: 'sample', title: 'Sample 256', sources: ['cache256'], md: { attribution: { title: ATTRIBUTION } } },
      { name: 'sample512', title: 'Sample 512', sources: ['cache512'] },
      { name: 'scaled', title: 'Scaled', sources: ['cache256'], min_scale: 50_000_000, max_scale: 300_000_000 },
      { name: 'broken', title: 'Broken', sources: ['cachebroken'] },
    ],
    caches: {
      cache256: { grids: ['GLOBAL_WEBMERCATOR'], format: 'image/png', sources: ['tiles256'], cache: cache('c256') },
      cache512: { grids: ['wm512'], format: 'image/png', sources: ['tiles512'], cache: cache('c512') },
      cachebroken: { grids: ['GLOBAL_WEBMERCATOR'], format: 'image/png', sources: ['tilesbroken'], disable_storage: true },
    },
    sources: {
      tiles256: { type: 'tile', url: `${upstream}/maps/sample/256/%(z)s/%(x)s/%(y)s.png?key=demo`, grid: 'GLOBAL_WEBMERCATOR' },
      tiles512: { type: 'tile', url: `${upstream}/maps/sample/%(z)s/%(x)s/%(y)s.png?key=demo`, grid: 'wm512' },
      // Port 9 (discard) on loopback: refused at once.
      tilesbroken: { type: 'tile', url: 'http://127.0.0.1:9/%(z)s/%(x)s/%(y)s.png', grid: 'GLOBAL_WEBMERCATOR' },
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

/** MapProxy's own GetMap of one tile's box (the oracle), built here from the tile address. */
function getMapUrl(base: string, o: { version: '1.1.1' | '1.3.0'; layer: string; z: number; x: number; y: number; size: number }): string {
  const bbox = tileBounds3857({ z: o.z, x: o.x, y: o.y }).join(',');
  const crs = o.version === '1.3.0' ? 'CRS' : 'SRS';
  return `${base}/service?SERVICE=WMS&VERSION=${o.version}&REQUEST=GetMap&LAYERS=${o.layer}&STYLES=&${crs}=EPSG:3857&BBOX=${bbox}&WIDTH=${o.size}&HEIGHT=${o.size}&FORMAT=image/png&TRANSPARENT=TRUE`;
}

const tilesOf = (zs: number[]): number => zs.reduce((n, z) => n + 4 ** z, 0);
/** A store's tiles as `z/x/y sha256` lines (Jest compares Buffers byte by byte, slowly: 85 tiles took a minute). */
const digests = (file: string): string[] => storedTiles(file).map((t) => `${t.z}/${t.x}/${t.y} ${createHash('sha256').update(t.data).digest('hex')}`);
const resolutionAt = (z: number, tileSize: number): number => (2 * Math.PI * 6378137) / tileSize / 2 ** z;

describe('MapProxy 1.15 XYZ (/tiles) and WMS mirrored with --source-xyz and --source-wms', () => {
  let upstream: TestServer;
  let served: TestServer | undefined;
  let mapproxy: MapProxy;
  let second: MapProxy | undefined;
  let tmp: string;
  let data: string;
  let config: string;

  beforeAll(async () => {
    tmp = tempDir();
    data = path.join(tmp, 'data');
    upstream = await startServer();
    config = path.join(tmp, 'mapproxy.yaml');
    writeFileSync(config, mapproxyConfig(upstream.url.replace(/\/+$/, ''), tmp)); // JSON is YAML
    mapproxy = await startMapProxy(config, { logRequests: true });
  }, 60_000);
  afterAll(async () => {
    mapproxy?.proc.kill();
    second?.proc.kill();
    await served?.close();
    await upstream?.close();
    removeTempDirs();
  });

  const mirror = (id: string, source: GenericSource, zoom?: [number, number], extra: Partial<MirrorOptions> = {}): Promise<MirrorResult> =>
    runMirror({ upstream: sourceBase(source), source, dataDir: data, resource: { kind: 'tiles', id }, concurrency: 4, zoom, log: () => undefined, ...extra });
  const store = (id: string): string => path.join(data, 'tiles', `${id}.mbtiles`);
  const xyz = (layer: string, grid: string, rows = '{y}', query = ''): string => `${mapproxy.url}/tiles/${layer}/${grid}/{z}/{x}/${rows}.png${query}`;

  clientTest('XYZ: every tile byte-identical to MapProxy\'s /tiles answer, 256 px measured', async () => {
    const r = await mirror('mp-xyz', { type: 'xyz', url: xyz('sample', 'GLOBAL_WEBMERCATOR') }, [0, 3]);
    expect({ status: r.status, failed: r.failed, stored: r.stored }).toEqual({ status: 'published', failed: 0, stored: tilesOf([0, 1, 2, 3]) });
    expect(r.mirrored).toEqual([{ pyramid: 'main', minzoom: 0, maxzoom: 3, bounds: [-180, -85.0511287798066, 180, 85.0511287798066] }]);
    expect(r.notes.join('\n')).toContain('256 px tiles (measured)');
    expect(storedTileSize(store('mp-xyz'))).toBe(256);
    expect(metadata(store('mp-xyz'))).toMatchObject({ format: 'png', minzoom: '0', maxzoom: '3' });
    const tiles = storedTiles(store('mp-xyz'));
    expect(tiles).toHaveLength(tilesOf([0, 1, 2, 3]));
    for (const t of tiles) {
      const theirs = await fetchOk(`${mapproxy.url}/tiles/sample/GLOBAL_WEBMERCATOR/${t.z}/${t.x}/${t.y}.png`);
      expect({ tile: `${t.z}/${t.x}/${t.y}`, same: theirs.body.equals(t.data) }).toEqual({ tile: `${t.z}/${t.x}/${t.y}`, same: true });
    }
  }, 120_000);

  clientTest('XYZ: {-y} and --scheme tms on rows counted from the south give the same store as {y} from the north', async () => {
    const north = digests(store('mp-xyz'));
    const flipped = await mirror('mp-xyz-flip', { type: 'xyz', url: xyz('sample', 'GLOBAL_WEBMERCATOR', '{-y}', '?origin=sw') }, [0, 3]);
    const tms = await mirror('mp-xyz-tms', { type: 'xyz', url: xyz('sample', 'GLOBAL_WEBMERCATOR', '{y}', '?origin=sw'), scheme: 'tms' }, [0, 3]);
    expect(flipped.notes.join('\n') + tms.notes.join('\n')).toMatch(/\{-y\}.*\(scheme tms\)/s);
    expect([flipped.status, tms.status]).toEqual(['published', 'published']);
    // A wrong row order would store the tiles under mirrored rows: compare every tile, not only counts.
    expect(digests(store('mp-xyz-flip'))).toEqual(north);
    expect(digests(store('mp-xyz-tms'))).toEqual(north);
    // Without the flip, the south-counted rows land upside down: the test can tell.
    const wrong = await mirror('mp-xyz-unflipped', { type: 'xyz', url: xyz('sample', 'GLOBAL_WEBMERCATOR', '{y}', '?origin=sw') }, [1, 1]);
    expect(digests(store('mp-xyz-unflipped'))).not.toEqual(north.filter((t) => t.startsWith('1/')));
    expect(wrong.status).toBe('published');
  }, 120_000);

  clientTest('XYZ: {s} spreads the tiles over the subdomain hosts, the same store', async () => {
    // A second MapProxy on 127.0.0.2 at the first one's port: http://127.0.0.{s}:PORT/ with subdomains 1,2.
    second = await startMapProxy(config, { host: '127.0.0.2', port: mapproxy.port, logRequests: true });
    const before = mapproxy.requests.length;
    const template = `http://127.0.0.{s}:${mapproxy.port}/tiles/sample/GLOBAL_WEBMERCATOR/{z}/{x}/{y}.png`;
    const r = await mirror('mp-xyz-s', { type: 'xyz', url: template, subdomains: ['1', '2'] }, [0, 3]);
    expect(r.status).toBe('published');
    expect(digests(store('mp-xyz-s'))).toEqual(digests(store('mp-xyz')));
    // (x + y) mod 2: tiles with an even sum go to 127.0.0.1, odd ones to 127.0.0.2; the probe (z0, stored, not
    // fetched again) went to the first.
    // The servers' request lines arrive on their stdout pipes independently of the answers: wait for all of them.
    const count = () => ({ firstHost: mapproxy.requests.slice(before).filter((p) => p.startsWith('/tiles/')).length, secondHost: second!.requests.filter((p) => p.startsWith('/tiles/')).length });
    await waitFor(`the request lines of both servers (${JSON.stringify(count())} so far)`, () => count().firstHost + count().secondHost >= 1 + tilesOf([1, 2, 3]));
    const { firstHost, secondHost } = count();
    expect({ firstHost, secondHost }).toEqual({ firstHost: 1 + tilesOf([1, 2, 3]) / 2, secondHost: tilesOf([1, 2, 3]) / 2 });
  }, 120_000);

  clientTest('XYZ: a 512 px source is measured as 512', async () => {
    const r = await mirror('mp-xyz-512', { type: 'xyz', url: xyz('sample512', 'wm512') }, [0, 2]);
    expect(r.status).toBe('published');
    expect(storedTileSize(store('mp-xyz-512'))).toBe(512);
    for (const t of storedTiles(store('mp-xyz-512'))) {
      const theirs = await fetchOk(`${mapproxy.url}/tiles/sample512/wm512/${t.z}/${t.x}/${t.y}.png`);
      expect({ tile: `${t.z}/${t.x}/${t.y}`, same: theirs.body.equals(t.data) }).toEqual({ tile: `${t.z}/${t.x}/${t.y}`, same: true });
    }
  }, 120_000);

  const wmsCases: { id: string; version: '1.1.1' | '1.3.0'; layer: string; size: 256 | 512 }[] = [
    { id: 'mp-wms111', version: '1.1.1', layer: 'sample', size: 256 },
    { id: 'mp-wms130', version: '1.3.0', layer: 'sample', size: 256 },
    { id: 'mp-wms130-512', version: '1.3.0', layer: 'sample512', size: 512 },
  ];

  clientTest.each(wmsCases)('WMS $version $layer at $size px: every tile pixel-identical to MapProxy\'s GetMap of its box', async ({ id, version, layer, size }) => {
    const r = await mirror(id, { type: 'wms', url: `${mapproxy.url}/service`, layers: layer, version, tileSize: size }, [0, 2]);
    expect({ status: r.status, failed: r.failed, stored: r.stored }).toEqual({ status: 'published', failed: 0, stored: tilesOf([0, 1, 2]) });
    expect(storedTileSize(store(id))).toBe(size);
    let sameBytes = 0;
    const tiles = storedTiles(store(id));
    for (const t of tiles) {
      const theirs = await fetchOk(getMapUrl(mapproxy.url, { version, layer, ...t, size }));
      await expectSamePixels(t.data, theirs.body, `${id} ${t.z}/${t.x}/${t.y}`);
      if (theirs.body.equals(t.data)) sameBytes++;
    }
    // MapProxy encodes a GetMap deterministically: the bytes are its own too.
    expect(sameBytes).toBe(tiles.length);
  }, 120_000);

  clientTest('WMS: the capabilities\' attribution is published in the TileJSON with the tile size, bounds and zooms', async () => {
    const r = await mirror('mp-wms-bbox', { type: 'wms', url: `${mapproxy.url}/service`, layers: 'sample' }, [1, 3], { bboxes: [[0, 0, 90, 60]] });
    expect(r.status).toBe('published');
    served = await startServer({ dataDir: data });
    const tj = await fetchJson<Record<string, unknown>>(`${served.url.replace(/\/+$/, '')}/tiles/mp-wms-bbox/tiles.json?key=demo`);
    expect(tj).toMatchObject({ attribution: ATTRIBUTION, tileSize: 256, minzoom: 1, maxzoom: 3, bounds: [0, 0, 90, 60], format: 'png' });
  }, 120_000);

  clientTest('WMS: the layer\'s scale range narrows the zooms, and says so; MapProxy draws nothing outside it', async () => {
    const r = await mirror('mp-wms-scaled', { type: 'wms', url: `${mapproxy.url}/service`, layers: 'scaled' }, [0, 5]);
    expect(r.status).toBe('published');
    // 1:300,000,000 to 1:50,000,000 at 256 px: z1 (1:279,541,132) to z3 (1:69,885,283).
    expect(r.mirrored?.[0]).toMatchObject({ minzoom: 1, maxzoom: 3 });
    expect(r.notes.join('\n')).toMatch(/scale range \(scaled 1:50000000 to 1:300000000\) draws them at z1-3/);
    expect(r.notes.join('\n')).toContain('zooms 0-5 requested, the source has 1-3: mirrored 1-3');
    // The oracle: MapProxy's GetMap outside the range is blank.
    for (const t of [{ z: 0, x: 0, y: 0 }, { z: 4, x: 8, y: 5 }]) {
      const img = await decodeRGBA((await fetchOk(getMapUrl(mapproxy.url, { version: '1.3.0', layer: 'scaled', ...t, size: 256 }))).body);
      expect({ tile: t, blank: isUniform(img) }).toEqual({ tile: t, blank: true });
    }
    const inside = await decodeRGBA((await fetchOk(getMapUrl(mapproxy.url, { version: '1.3.0', layer: 'scaled', z: 2, x: 2, y: 1, size: 256 }))).body);
    expect(isUniform(inside)).toBe(false);
    // Without --zoom the range is the zooms.
    const own = await mirror('mp-wms-scaled-own', { type: 'wms', url: `${mapproxy.url}/service`, layers: 'scaled' });
    expect(own.mirrored?.[0]).toMatchObject({ minzoom: 1, maxzoom: 3 });
  }, 120_000);

  clientTest('WMS: a bad layer and an unoffered format are usage errors naming what exists; a ServiceException tile without a code is retried, then fails', async () => {
    const url = `${mapproxy.url}/service`;
    await expect(mirror('mp-bad', { type: 'wms', url, layers: 'nope' }, [0, 1])).rejects.toThrow(UsageError);
    await expect(mirror('mp-bad', { type: 'wms', url, layers: 'nope' }, [0, 1])).rejects.toThrow(/no layer "nope" \(its layers: sample, sample512, scaled, broken\)/);
    await expect(mirror('mp-bad', { type: 'wms', url, layers: 'sample', format: 'image/gif' }, [0, 1])).rejects.toThrow(/does not offer --format image\/gif for GetMap \(offered: image\/png, image\/jpeg\)/);

    const r = await mirror('mp-broken', { type: 'wms', url, layers: 'broken' }, [0, 1]);
    expect(r.status).toBe('failed');
    expect(r.exitCode).toBe(1);
    // MapProxy's "Could not get any sources" has no code: its own source is down, which may pass, so every tile is
    // tried 1 + 8 times (DEFAULT_RETRY) and the summary says a rerun may help.
    expect({ failed: r.failed, permanently: r.failedPermanently, retries: r.retries }).toEqual({ failed: 5, permanently: 0, retries: 40 });
    expect(r.failures[0]).toMatch(/the server answered with an OGC exception: Could not get any sources/);
    expect(r.problems).toContain('5 tiles failed; run the same command again to retry them');
  }, 120_000);

  clientTest('the CLI: exit 2 with the layers named for a bad layer, exit 1 and the exception in the summary for a ServiceException', () => {
    const cli = (args: string[]) => spawnSync(process.execPath, [built('cli.js'), 'mirror', '-d', data, ...args], { encoding: 'utf8', timeout: 60_000 });
    const bad = cli(['--source-wms', `${mapproxy.url}/service`, '--layers', 'nope', '--id', 'cli-bad', '-z', '0-1']);
    expect({ code: bad.status, err: bad.stderr }).toEqual({ code: 2, err: expect.stringContaining('the WMS has no layer "nope" (its layers: sample, sample512, scaled, broken)') });
    const gif = cli(['--source-wms', `${mapproxy.url}/service`, '--layers', 'sample', '--format', 'image/gif', '--id', 'cli-gif', '-z', '0-1']);
    expect({ code: gif.status, err: gif.stderr }).toEqual({ code: 2, err: expect.stringContaining('offered: image/png, image/jpeg') });
    const broken = cli(['--source-wms', `${mapproxy.url}/service`, '--layers', 'broken', '--id', 'cli-broken', '-z', '0-0']);
    expect(broken.status).toBe(1);
    expect(broken.stdout).toContain('the server answered with an OGC exception: Could not get any sources');
    expect(broken.stdout).toContain('run the same command again to retry');
    const noZoom = cli(['--source-xyz', xyz('sample', 'GLOBAL_WEBMERCATOR'), '--id', 'cli-xyz']);
    expect({ code: noZoom.status, err: noZoom.stderr }).toEqual({ code: 2, err: expect.stringContaining('give --zoom MIN-MAX') });
    const both = cli(['--source-xyz', xyz('sample', 'GLOBAL_WEBMERCATOR', '{-y}'), '--scheme', 'tms', '--id', 'cli-xyz', '-z', '0-1']);
    expect({ code: both.status, err: both.stderr }).toEqual({ code: 2, err: expect.stringContaining('give either {-y} in the template or scheme tms') });
  }, 120_000);

  const gdalCases: { id: string; source: () => GenericSource; tileSize: number; layer: string }[] = [
    { id: 'gdal-xyz-256', source: () => ({ type: 'xyz', url: xyz('sample', 'GLOBAL_WEBMERCATOR') }), tileSize: 256, layer: 'sample' },
    { id: 'gdal-wms-512', source: () => ({ type: 'wms', url: `${mapproxy.url}/service`, layers: 'sample512', tileSize: 512 }), tileSize: 512, layer: 'sample512' },
  ];

  clientTest.each(gdalCases)('GDAL\'s WMTS driver reads $id from tilemirror at $tileSize px, with its bounds and zooms', async ({ id, source, tileSize, layer }) => {
    const r = await mirror(id, source(), [1, 3], { bboxes: [[0, 0, 90, 60]] });
    expect(r.status).toBe('published');
    served ??= await startServer({ dataDir: data });
    const caps = `WMTS:${served.url.replace(/\/+$/, '')}/tiles/${id}/WMTSCapabilities.xml?key=demo`;
    const info = await gdalinfo(caps);
    // The finest level's pixel is that of z3 at this tile size (a 256/512 mix-up doubles or halves it).
    expect(info.geoTransform[1]).toBeCloseTo(resolutionAt(3, tileSize), 6);
    // The extent is the bounds' (0°E to 90°E, 0° to 60°N), to a pixel (GDAL aligns its origin to the pixel grid).
    const res = resolutionAt(3, tileSize);
    const north = 6378137 * Math.log(Math.tan(Math.PI / 4 + (60 * Math.PI) / 360));
    const extent = { west: info.geoTransform[0], north: info.geoTransform[3], east: info.geoTransform[0] + info.size[0] * res, south: info.geoTransform[3] - info.size[1] * res };
    for (const [k, v] of Object.entries({ west: 0, north, east: WORLD_3857 / 2, south: 0 })) expect({ edge: k, off: Math.abs(extent[k as keyof typeof extent] - v) <= res }).toEqual({ edge: k, off: true });
    const tile = { z: 3, x: 5, y: 3 };
    const out = path.join(tmp, `${id}.png`);
    await gdalTranslateTile(caps, tile, tileSize, out);
    const theirs = await fetchOk(getMapUrl(mapproxy.url, { version: '1.3.0', layer, ...tile, size: tileSize }));
    await expectSamePixels(out, theirs.body, `${id} ${tile.z}/${tile.x}/${tile.y} through GDAL`);
  }, 120_000);
});
