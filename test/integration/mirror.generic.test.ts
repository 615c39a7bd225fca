// Generic sources end to end: a tilemirror serving the sample is the source; its TileJSON, its WMTS capabilities
// (RESTful ResourceURL) and a copy of them without ResourceURL (KVP GetTile only, served by a tiny static server
// that forwards every other request to the upstream) are mirrored into tiles/ID stores, served by a second
// tilemirror, and every tile is compared byte for byte with the upstream's. Areas (GeoJSON) narrow a plan.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { tileRange, WORLD_BOUNDS } from '../../src/geo/mercator';
import { coverSet, parseArea } from '../../src/mirror/area';
import { runMirror } from '../../src/mirror/engine/run';
import type { MirrorOptions } from '../../src/mirror/engine/options';
import { planReport } from '../../src/mirror/plan-report';
import { sourceBase, splitSourceKey, type GenericSource } from '../../src/mirror/discovery/sources';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { waitForStatus } from '../helpers/wait';
import { gwcCapabilities } from '../fixtures/gwc-capabilities';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-generic-');

const SECRET = 'tm-generic-Secret-3d8a61f0c2';

let upstream: TestServer;
let mirrorSrv: TestServer;
let proxy: http.Server;
let proxyUrl: string;
let data: string;
const logs: string[] = [];
const proxied: string[] = [];

/** A GeoWebCache-style capabilities document for one layer over the sample's 256 px pyramid, z0-3 (limits on z0-3, levels to z5). */
function sampleGwcCapabilities(base: string): string {
  const whole = (z: number): { z: number; rows: [number, number]; cols: [number, number] } => ({ z, rows: [0, 2 ** z - 1], cols: [0, 2 ** z - 1] });
  return gwcCapabilities({
    id: 'topp:sample',
    title: 'sample',
    format: 'image/png',
    bbox: [-180.0, -85.0511287798066, 180.0, 85.0511287798066],
    levels: [0, 1, 2, 3, 4, 5],
    limits: [0, 1, 2, 3].map(whole),
    template: `${base}/gwc/rest/{Style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}?format=image/png&amp;time={Time}`,
  });
}

/** A copy of the upstream's capabilities for maps/sample with every ResourceURL removed and its URLs pointing at the proxy. */
let kvpCaps = '';

beforeAll(async () => {
  upstream = await startServer({ config: { keys: [{ key: KEY, plan: 'paid' }, { key: SECRET, plan: 'paid' }] } });
  data = tempDir();
  mirrorSrv = await startServer({ dataDir: data });
  proxy = http.createServer((req, res) => {
    const url = req.url ?? '/';
    proxied.push(url);
    // A server as tileserver-gl-light and object stores are: a TileJSON without format or tileSize whose tiles
    // name another host (localhost, not the 127.0.0.1 of the source URL) with the key in the URL, and 512 px PNG
    // tiles gzipped in transport and labelled application/octet-stream.
    if (url.startsWith('/foreign/tiles.json')) {
      const body = Buffer.from(JSON.stringify({ tilejson: '2.2.0', name: 'Foreign', minzoom: 0, maxzoom: 3, bounds: [-180, -85.0511, 180, 85.0511], tiles: [`${proxyUrl.replace('127.0.0.1', 'localhost')}/foreign/{z}/{x}/{y}.png?key=${SECRET}`] }));
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      res.end(body);
      return;
    }
    const foreign = /^\/foreign\/(\d+)\/(\d+)\/(\d+)\.png/.exec(url);
    if (foreign) {
      rawGet(`${upstream.url}/maps/sample/${foreign[1]}/${foreign[2]}/${foreign[3]}.png?key=${KEY}`).then((r) => {
        const body = gzipSync(r.body);
        res.writeHead(r.status, { 'Content-Type': 'application/octet-stream', 'Content-Encoding': 'gzip', 'Content-Length': body.length });
        res.end(body);
      });
      return;
    }
    // A GeoWebCache-shaped WMTS (what GeoServer's /gwc/service/wmts answers): other identifiers (topp:sample,
    // EPSG:900913, EPSG:900913:z), a geographic set listed first, Style and Time placeholders, limits on some
    // levels, an absolute ResourceURL; its tiles are the upstream's 256 px pyramid under GWC's REST layout.
    if (url.startsWith('/gwc/service/wmts')) {
      const body = Buffer.from(sampleGwcCapabilities(proxyUrl));
      res.writeHead(200, { 'Content-Type': 'application/vnd.ogc.wmts_xml', 'Content-Length': body.length });
      res.end(body);
      return;
    }
    const gwc = /^\/gwc\/rest\/fancy\/EPSG:900913\/EPSG:900913:(\d+)\/(\d+)\/(\d+)\?format=image\/png&time=2024-01-01/.exec(decodeURIComponent(url));
    if (gwc) {
      rawGet(`${upstream.url}/maps/sample/256/${gwc[1]}/${gwc[3]}/${gwc[2]}.png?key=${KEY}`).then((r) => {
        res.writeHead(r.status, { 'Content-Type': 'image/png', 'Content-Length': r.body.length });
        res.end(r.body);
      });
      return;
    }
    if (url.startsWith('/static/WMTSCapabilities.xml')) {
      const body = Buffer.from(kvpCaps);
      res.writeHead(200, { 'Content-Type': 'text/xml', 'Content-Length': body.length });
      res.end(body);
      return;
    }
    rawGet(`${upstream.url}${url}`, { 'Accept-Encoding': String(req.headers['accept-encoding'] ?? '') }).then(
      (r) => {
        const headers: Record<string, string> = {};
        for (const h of ['content-type', 'content-encoding', 'content-length', 'etag']) if (r.headers[h]) headers[h] = String(r.headers[h]);
        res.writeHead(r.status, headers);
        res.end(r.body);
      },
      () => {
        res.writeHead(502);
        res.end();
      },
    );
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const caps = (await rawGet(`${upstream.url}/maps/sample/WMTSCapabilities.xml?key=${SECRET}`)).body.toString('utf8');
  kvpCaps = caps
    .replace(/<ResourceURL[^>]*\/>/g, '')
    .split(upstream.url)
    .join(proxyUrl)
    .split(`key=${SECRET}`)
    .join('key=');
});

afterAll(async () => {
  await mirrorSrv?.close();
  await upstream?.close();
  await new Promise((r) => proxy?.close(r));
  removeTempDirs();
});

/** runMirror options as the CLI builds them from a source URL that carries the key. */
function sourceOptions(id: string, raw: GenericSource, extra: Partial<MirrorOptions> = {}): MirrorOptions {
  const { source, key } = splitSourceKey(raw);
  return { upstream: sourceBase(source), source, key, dataDir: data, resource: { kind: 'tiles', id }, concurrency: 8, log: (l) => logs.push(l), ...extra };
}

async function waitServed(path: string): Promise<void> {
  await waitForStatus(`${mirrorSrv.url}${path}?key=${KEY}`);
}

/** Every tile z0..maxz: the mirror's /tiles/{id}/z/x/y equals the upstream's path, byte for byte. */
async function compareAll(id: string, upstreamPrefix: string, suffix: string, maxz: number): Promise<number> {
  await waitServed(`/tiles/${id}/0/0/0`);
  let n = 0;
  for (let z = 0; z <= maxz; z++) {
    // The whole grid: 2^z columns and rows (not src/geo's tileRange, the code under test).
    const jobs: Promise<void>[] = [];
    for (let x = 0; x < 2 ** z; x++)
      for (let y = 0; y < 2 ** z; y++) {
        jobs.push(
          Promise.all([rawGet(`${upstream.url}${upstreamPrefix}/${z}/${x}/${y}${suffix}?key=${KEY}`), rawGet(`${mirrorSrv.url}/tiles/${id}/${z}/${x}/${y}?key=${KEY}`)]).then(([a, b]) => {
            expect({ z, x, y, status: b.status }).toEqual({ z, x, y, status: a.status });
            expect(b.headers['content-type']).toBe(a.headers['content-type']);
            expect(Buffer.compare(a.body, b.body)).toBe(0);
            n++;
          }),
        );
      }
    await Promise.all(jobs);
  }
  return n;
}

describe('generic sources', () => {
  test('a TileJSON URL is mirrored into tiles/ID and served byte for byte', async () => {
    const t0 = Date.now();
    const r = await runMirror(sourceOptions('tj-sample', { type: 'tilejson', url: `${upstream.url}/maps/sample/256/tiles.json?key=${SECRET}` }, { zoom: [0, 3] }));
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ status: 'published', planned: 85, failed: 0 });
    expect(await compareAll('tj-sample', '/maps/sample/256', '.png', 3)).toBe(85);
    // Served like any other tile set: TileJSON and WMTS capabilities point at this server.
    const tj = JSON.parse((await rawGet(`${mirrorSrv.url}/tiles/tj-sample/tiles.json?key=${KEY}`)).body.toString());
    expect(tj).toMatchObject({ format: 'png', minzoom: 0, maxzoom: 3, tileSize: 256, name: 'Sample map' });
    expect(tj.tiles[0]).toContain(`${mirrorSrv.url}/tiles/tj-sample/`);
    const wmts = await rawGet(`${mirrorSrv.url}/tiles/tj-sample/WMTSCapabilities.xml?key=${KEY}`);
    expect(wmts.status).toBe(200);
    expect(wmts.body.toString()).toContain('<ows:Identifier>tiles/tj-sample</ows:Identifier>');
    logs.push(`[test] tilejson: ${r.planned} tiles in ${Date.now() - t0} ms`);
  });

  test('a foreign TileJSON (no format or tileSize, tiles on another host with the key, gzipped PNGs as octet-stream): format and 512 px measured, byte for byte', async () => {
    const r = await runMirror(sourceOptions('foreign', { type: 'tilejson', url: `${proxyUrl}/foreign/tiles.json?key=${SECRET}` }, { zoom: [0, 3] }));
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ status: 'published', planned: 85, failed: 0 });
    expect(await compareAll('foreign', '/maps/sample', '.png', 3)).toBe(85);
    const tj = JSON.parse((await rawGet(`${mirrorSrv.url}/tiles/foreign/tiles.json?key=${KEY}`)).body.toString());
    expect(tj).toMatchObject({ format: 'png', tileSize: 512, maxzoom: 3 });
  });

  test('a WMTS layer through its RESTful ResourceURL (512 px set, identifiers mapped by scale)', async () => {
    const r = await runMirror(
      sourceOptions('wmts-rest', { type: 'wmts', url: `${upstream.url}/maps/sample/WMTSCapabilities.xml?key=${SECRET}`, layer: 'maps/sample' }, { zoom: [0, 3] }),
    );
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ status: 'published', planned: 85 });
    expect(r.notes.join()).toMatch(/RESTful, tile matrix set GoogleMapsCompatible512-z0-5, 512 px/);
    expect(await compareAll('wmts-rest', '/maps/sample', '.png', 3)).toBe(85);
    const tj = JSON.parse((await rawGet(`${mirrorSrv.url}/tiles/wmts-rest/tiles.json?key=${KEY}`)).body.toString());
    expect(tj).toMatchObject({ tileSize: 512, format: 'png', maxzoom: 3 });
  });

  test('a WMTS layer through KVP GetTile when the capabilities have no ResourceURL', async () => {
    expect(kvpCaps).not.toContain('ResourceURL');
    proxied.length = 0;
    const r = await runMirror(
      sourceOptions('wmts-kvp', { type: 'wmts', url: `${proxyUrl}/static/WMTSCapabilities.xml?key=${SECRET}`, layer: 'maps/sample/256' }, { zoom: [0, 3] }),
    );
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ status: 'published', planned: 85 });
    expect(r.notes.join()).toMatch(/KVP/);
    const tileRequests = proxied.filter((u) => /REQUEST=GetTile/.test(u));
    expect(tileRequests.length).toBe(85);
    expect(tileRequests[0]).toMatch(/LAYER=maps%2Fsample%2F256&STYLE=default&TILEMATRIXSET=GoogleMapsCompatible256-z0-5&TILEMATRIX=\d&TILEROW=\d+&TILECOL=\d+&FORMAT=image%2Fpng/);
    expect(tileRequests.every((u) => u.endsWith(`key=${SECRET}`))).toBe(true);
    expect(await compareAll('wmts-kvp', '/maps/sample/256', '.png', 3)).toBe(85);
  });

  test('a GeoWebCache-shaped WMTS (EPSG:900913 identifiers, Style and Time placeholders, limits, a geographic set first) mirrors byte for byte', async () => {
    proxied.length = 0;
    const r = await runMirror(sourceOptions('gwc', { type: 'wmts', url: `${proxyUrl}/gwc/service/wmts?REQUEST=GetCapabilities`, layer: 'topp:sample' }));
    expect(r.problems).toEqual([]);
    // The limits end at EPSG:900913:3 although the set goes to 5: z0-3, every tile.
    expect(r).toMatchObject({ status: 'published', planned: 85, failed: 0 });
    expect(r.notes.join()).toMatch(/EPSG:900913/);
    const tileRequests = proxied.filter((u) => u.startsWith('/gwc/rest/'));
    expect(tileRequests.length).toBe(85);
    expect(decodeURIComponent(tileRequests[0])).toMatch(/^\/gwc\/rest\/fancy\/EPSG:900913\/EPSG:900913:\d\/\d+\/\d+\?format=image\/png&time=2024-01-01$/);
    expect(await compareAll('gwc', '/maps/sample/256', '.png', 3)).toBe(85);
    const tj = JSON.parse((await rawGet(`${mirrorSrv.url}/tiles/gwc/tiles.json?key=${KEY}`)).body.toString());
    expect(tj).toMatchObject({ format: 'png', tileSize: 256, minzoom: 0, maxzoom: 3 });
  });

  test('areas narrow a generic source: plan counts equal the cover and the run stores exactly it', async () => {
    const tri = parseArea(
      {
        type: 'Feature',
        properties: {},
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [-47.3, -12.9],
              [61.7, 8.4],
              [3.1, 71.2],
              [-47.3, -12.9],
            ],
          ],
        },
      },
      'triangle',
    );
    const opts = sourceOptions('area-sample', { type: 'tilejson', url: `${upstream.url}/maps/sample/256/tiles.json?key=${SECRET}` }, { zoom: [0, 5], areas: [tri], bboxes: [[100, -40, 150, -10]] });
    const expected = [0, 1, 2, 3, 4, 5].map((z) => coverSet({ areas: [tri], bboxes: [[100, -40, 150, -10]], within: [tileRange(WORLD_BOUNDS, z)] }, z).size);
    const p = await planReport({ ...opts, sample: 0 });
    expect(p.pyramids[0].zooms.map((z) => z.tiles)).toEqual(expected);
    const r = await runMirror(opts);
    expect(r).toMatchObject({ status: 'published', planned: expected.reduce((a, b) => a + b, 0) });
    expect(r.stored + r.empty).toBe(r.planned);
    await waitServed('/tiles/area-sample/0/0/0');
    // A tile of the triangle is served; one far outside it is not.
    const inside = [...coverSet({ areas: [tri] }, 5)][0];
    expect((await rawGet(`${mirrorSrv.url}/tiles/area-sample/5/${inside}?key=${KEY}`)).status).toBe(200);
    expect((await rawGet(`${mirrorSrv.url}/tiles/area-sample/5/31/0?key=${KEY}`)).status).not.toBe(200);
  });

  test('refusals name the reason: unknown layer, a set that is not Web Mercator', async () => {
    const bad = await runMirror(sourceOptions('wmts-bad', { type: 'wmts', url: `${upstream.url}/maps/sample/WMTSCapabilities.xml?key=${SECRET}`, layer: 'nope' }));
    expect(bad.status).toBe('failed');
    expect(bad.problems.join()).toMatch(/no layer "nope" \(layers: maps\/sample, maps\/sample\/256\)/);
    const wrongSet = await runMirror(
      sourceOptions('wmts-bad', { type: 'wmts', url: `${upstream.url}/maps/sample/WMTSCapabilities.xml?key=${SECRET}`, layer: 'maps/sample', matrixSet: 'WorldCRS84Quad' }),
    );
    expect(wrongSet.problems.join()).toMatch(/not offered in tile matrix set "WorldCRS84Quad"/);
  });

  test('the key is in no stored byte and no log line', () => {
    for (const f of readdirSync(join(data, 'tiles'))) {
      const b = readFileSync(join(data, 'tiles', f));
      expect({ f, found: b.includes(SECRET) }).toEqual({ f, found: false });
    }
    expect(logs.filter((l) => l.includes(SECRET))).toEqual([]);
  });
});
