// The mirror against the cloud API's own document shapes (issue 11, item 1), not a tilemirror's: a proxy in front
// of a tilemirror serving the sample rewrites every document the way the cloud writes them:
//  - style.json with absolute URLs on the API host, each carrying `?key=` (sources' TileJSON, glyphs template),
//    and the sprite as MapTiler writes it: `https://API/maps/{mapId}/sprite`, no key, no `/sprites/` path;
//  - TileJSON whose `tiles` templates point at another host (a tile CDN name, here 127.0.0.2) with `?key=`;
//  - every request without the key refused with 403 `Invalid key` (plain text), on both hosts.
// A map run mirrors the style with its tile set, fonts and sprite; a second tilemirror serves the result, whose
// style must hold neither the key nor either upstream host, and whose sprite, glyph and tile URLs must work.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { UpstreamClient } from '../../src/mirror/upstream/client';
import { createRedactor } from '../../src/mirror/upstream/redact';
import { runMirror } from '../../src/mirror/engine/run';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-cloud-shapes-');

const SECRET = 'tm-cloud-Shapes-Secret-5e7a1d';
const FONT = 'Noto Sans Regular';
const MAP = 'sample';

interface Cloud {
  api: string;
  cdn: string;
  /** Paths (with query) each host was asked for. */
  seen: { host: 'api' | 'cdn'; path: string }[];
  close(): Promise<void>;
}

function listen(server: Server, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve(`http://${host}:${(server.address() as { port: number }).port}`));
  });
}

/** The cloud-shaped API (127.0.0.1) and its tile CDN (127.0.0.2) in front of `origin`, a tilemirror accepting SECRET. */
async function startCloud(origin: string): Promise<Cloud> {
  const originBase = origin.replace(/\/+$/, '');
  const cloud: Cloud = { api: '', cdn: '', seen: [], close: async () => undefined };
  const handler = (host: 'api' | 'cdn') => (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    cloud.seen.push({ host, path: `${url.pathname}${url.search}` });
    if (url.searchParams.get('key') !== SECRET) {
      res.writeHead(403, { 'Content-Type': 'text/plain' }).end('Invalid key');
      return;
    }
    // MapTiler serves a map's sprite under the map: /maps/{mapId}/sprite{@2x}.{json,png}.
    const sprite = /^\/maps\/([^/]+)\/sprite(@2x)?\.(json|png)$/.exec(url.pathname);
    const path = sprite ? `/sprites/${sprite[1]}/sprite${sprite[2] ?? ''}.${sprite[3]}` : url.pathname;
    const up = request(`${originBase}${path}${url.search}`, { headers: { 'Accept-Encoding': path.endsWith('.json') ? 'identity' : (req.headers['accept-encoding'] ?? 'identity') } }, (ur) => {
      const type = String(ur.headers['content-type'] ?? '');
      const isDoc = type.includes('json') && /(style|tiles)\.json$/.test(url.pathname);
      if (!isDoc || ur.statusCode !== 200 || ur.headers['content-encoding']) {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      ur.on('data', (c: Buffer) => chunks.push(c));
      ur.on('end', () => {
        const doc = JSON.parse(Buffer.concat(chunks).toString('utf8').split(originBase).join(cloud.api)) as Record<string, unknown>;
        if (url.pathname.endsWith('/style.json')) {
          doc.sprite = `${cloud.api}/maps/${MAP}/sprite`;
          doc.glyphs = `${cloud.api}/fonts/{fontstack}/{range}.pbf?key=${SECRET}`;
        } else if (Array.isArray(doc.tiles)) {
          // On the CDN host, with the extension the cloud writes ({y}.pbf for vector tiles).
          doc.tiles = (doc.tiles as string[]).map((t) => t.split(cloud.api).join(cloud.cdn).replace(/\{y\}(?=\?)/, doc.format === 'pbf' ? '{y}.pbf' : '{y}'));
        }
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(doc));
      });
    });
    up.on('error', () => res.writeHead(502).end());
    up.end();
  };
  const api = createServer(handler('api'));
  const cdn = createServer(handler('cdn'));
  cloud.api = await listen(api, '127.0.0.1');
  cloud.cdn = await listen(cdn, '127.0.0.2');
  cloud.close = async () => {
    await new Promise((r) => api.close(r));
    await new Promise((r) => cdn.close(r));
  };
  return cloud;
}

let origin: TestServer;
let cloud: Cloud;
let mirrorSrv: TestServer | undefined;
let data: string;

beforeAll(async () => {
  origin = await startServer({ config: { keys: [{ key: KEY, plan: 'paid' }, { key: SECRET, plan: 'paid' }] } });
  cloud = await startCloud(origin.url);
  data = tempDir();
}, 30_000);

afterAll(async () => {
  await mirrorSrv?.close();
  await cloud?.close();
  await origin?.close();
  removeTempDirs();
});

const get = async (url: string) => rawGet(url);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

test('the fixture speaks as the cloud does: absolute URLs with the key, tiles on another host, the sprite under the map, 403 without key', async () => {
  const style = JSON.parse((await get(`${cloud.api}/maps/${MAP}/style.json?key=${SECRET}`)).body.toString('utf8'));
  expect(style.sprite).toBe(`${cloud.api}/maps/${MAP}/sprite`);
  expect(style.glyphs).toBe(`${cloud.api}/fonts/{fontstack}/{range}.pbf?key=${SECRET}`);
  const sourceUrls = Object.values(style.sources as Record<string, { url?: string }>).map((s) => s.url);
  expect(sourceUrls).toEqual([`${cloud.api}/tiles/sample-vector/tiles.json?key=${SECRET}`]);
  const tj = JSON.parse((await get(sourceUrls[0]!)).body.toString('utf8'));
  expect(tj.tiles[0]).toMatch(new RegExp(`^${cloud.cdn.replace(/\./g, '\\.')}/tiles/sample-vector/\\{z\\}/\\{x\\}/\\{y\\}\\.pbf\\?key=${SECRET}$`));
  expect((await get(`${cloud.api}/maps/${MAP}/sprite.json?key=${SECRET}`)).status).toBe(200);
  const refused = await get(`${cloud.cdn}/tiles/sample-vector/0/0/0.pbf`);
  expect({ status: refused.status, body: refused.body.toString() }).toEqual({ status: 403, body: 'Invalid key' });
});

test('a map run mirrors style, tile set, fonts and sprite; the served style is key-free and its sprite, glyph and tile URLs work', async () => {
  const logs: string[] = [];
  const r = await runMirror({ upstream: cloud.api, key: SECRET, dataDir: data, resource: `maps/${MAP}`, zoom: [0, 1], withDependencies: true, concurrency: 4, log: (l) => logs.push(l) });
  expect({ status: r.status, problems: r.problems, failures: r.failures }).toEqual({ status: 'published', problems: [], failures: [] });
  expect(r.dependencies?.map((d) => [d.resource, d.status, d.failed])).toEqual([
    ['tiles/sample-vector', 'published', 0],
    [`fonts/${FONT}`, 'published', 0],
    [`sprites/${MAP}`, 'published', 0],
  ]);
  // The CDN host was asked for the tiles (with the key it needs), not only the API host.
  expect(cloud.seen.filter((s) => s.host === 'cdn' && /^\/tiles\/sample-vector\/\d+\/\d+\/\d+\.pbf\?key=/.test(s.path)).length).toBeGreaterThan(0);

  // Nothing stored holds the key.
  for (const f of filesUnder(data)) expect({ f, hasKey: readFileSync(f).includes(SECRET) }).toEqual({ f, hasKey: false });

  mirrorSrv = await startServer({ dataDir: data });
  const base = mirrorSrv.url.replace(/\/+$/, '');
  const text = (await get(`${base}/maps/${MAP}/style.json?key=${KEY}`)).body.toString('utf8');
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(cloud.api);
  expect(text).not.toContain(cloud.cdn);
  const style = JSON.parse(text) as { sprite: string; glyphs: string; sources: Record<string, { url?: string }> };

  // The sprite URL as MapLibre uses it: `.json`/`.png` (and @2x) inserted before the query.
  const sprite = new URL(style.sprite);
  for (const suffix of ['.json', '.png', '@2x.json', '@2x.png']) {
    const u = new URL(sprite.href);
    u.pathname += suffix;
    const got = await get(u.href);
    const want = await get(`${cloud.api}/maps/${MAP}/sprite${suffix}?key=${SECRET}`);
    expect({ suffix, status: got.status, same: got.body.equals(want.body) }).toEqual({ suffix, status: 200, same: true });
  }
  const glyphUrl = style.glyphs.replace('{fontstack}', encodeURIComponent(FONT)).replace('{range}', '0-255');
  expect(glyphUrl.startsWith(base)).toBe(true);
  const glyph = await get(glyphUrl);
  const upstreamGlyph = await get(`${cloud.api}/fonts/${encodeURIComponent(FONT)}/0-255.pbf?key=${SECRET}`);
  expect({ status: glyph.status, same: glyph.body.equals(upstreamGlyph.body) }).toEqual({ status: 200, same: true });

  const sourceUrl = Object.values(style.sources)[0].url!;
  expect(sourceUrl.startsWith(base)).toBe(true);
  const tj = JSON.parse((await get(sourceUrl)).body.toString('utf8')) as { tiles: string[] };
  expect(tj.tiles[0].startsWith(base)).toBe(true);
  const tile = await get(tj.tiles[0].replace('{z}', '1').replace('{x}', '1').replace('{y}', '0'));
  expect(tile.status).toBe(200);
  expect(existsSync(join(data, 'maps', `${MAP}.mbtiles`))).toBe(true);
});

test('the key goes to a document\'s other host only when the upstream wrote our key there', async () => {
  // One recording server on two loopback names: what each asked-for URL carried.
  const got: string[] = [];
  const rec = createServer((req, res) => {
    got.push(`${req.headers.host} ${req.url}`);
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
  });
  const a = await listen(rec, '127.0.0.3');
  try {
    const client = new UpstreamClient({ base: cloud.api, key: SECRET, redact: createRedactor(SECRET) });
    client.trustKeyIn(`${a}/other/{z}/{x}/{y}.png?key=someone-elses`);
    client.trustKeyIn(`${a}/none/{z}/{x}/{y}.png`);
    await client.getOnce(client.resolve(`${a}/first.json`));
    client.trustKeyIn(`${a}/tiles/{z}/{x}/{y}.png?foo=1&key=${encodeURIComponent(SECRET)}`);
    await client.getOnce(client.resolve(`${a}/second.json`));
    const host = a.slice('http://'.length);
    expect(got).toEqual([`${host} /first.json`, `${host} /second.json?key=${SECRET}`]);
  } finally {
    await new Promise((r) => rec.close(r));
  }
});
