// Map tiles drawn here (the real renderer: MapLibre GL JS in the bundled headless Chromium) where the mirrored
// pyramid has none: the zooms beyond it, and every tile of a map mirrored with `raster: render`. Renders are kept in
// the map's render store (an MBTiles file read back here with SQL, not through our reader) and served from it; a new
// version of the map starts a new store; static maps take their base from renders; with rendering off, a map that
// has only renders answers 503 naming the browser package while mirrored tiles serve as before.

import Database from 'better-sqlite3';
import { cpSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { XMLParser } from 'fast-xml-parser';
import { publishedRenders, sampleCopy } from '../helpers/rendered-map';
import { KEY, SAMPLE_DIR, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';
import { waitFor } from '../helpers/wait';

jest.setTimeout(240_000);

const temp = tempDirs('tilemirror-rendered-');
afterAll(() => temp.removeTempDirs());

async function get(srv: TestServer, path: string): Promise<{ status: number; type: string; body: Buffer; etag: string | null; text: string }> {
  const r = await fetch(`${srv.url}${path}${path.includes('?') ? '&' : '?'}key=${KEY}`);
  const body = Buffer.from(await r.arrayBuffer());
  return { status: r.status, type: r.headers.get('content-type') ?? '', body, etag: r.headers.get('etag'), text: body.toString('utf8', 0, 300) };
}

/** Rows of the published render stores of a map (every variant), read with SQL. */
const keptRows = (dataDir: string, mapId: string): { file: string; rows: number }[] => publishedRenders(dataDir, mapId).map((r) => ({ file: r.file, rows: r.tiles }));

/** Distinct colours of an image: a drawn map has many; a blank or one-colour tile has one or two. */
async function colours(png: Buffer): Promise<number> {
  const { data } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const seen = new Set<number>();
  for (let i = 0; i < data.length; i += 4) seen.add(data.readUInt32BE(i));
  return seen.size;
}

/** Cuts the copied sample map's mirrored pyramids to zooms 0-`maxzoom` (its vector tiles still reach z5). */
function mirroredTo(dataDir: string, maxzoom: number): void {
  const db = new Database(join(dataDir, 'maps', 'sample.mbtiles'));
  db.prepare('DELETE FROM tiles WHERE zoom_level > ?').run(maxzoom);
  db.prepare('DELETE FROM tilemirror_tiles WHERE zoom_level > ?').run(maxzoom);
  db.prepare('UPDATE tilemirror_pyramids SET maxzoom = ?').run(maxzoom);
  db.prepare("UPDATE metadata SET value = ? WHERE name = 'maxzoom'").run(String(maxzoom));
  db.close();
}

describe('a mirrored map (z0-3 of its z0-5 style): zooms beyond its pyramid are rendered', () => {
  let srv: TestServer;
  let data: string;
  beforeAll(async () => {
    data = sampleCopy(temp.tempDir(), false);
    mirroredTo(data, 3);
    srv = await startServer({ dataDir: data });
  });
  afterAll(() => srv?.close());

  test('the mirrored zooms still come from the pyramid, untouched', async () => {
    const stored = new Database(join(data, 'maps', 'sample.mbtiles'), { readonly: true });
    const expected = stored.prepare('SELECT tile_data FROM tiles WHERE zoom_level = 2 AND tile_column = 1 AND tile_row = 2').pluck().get() as Buffer;
    stored.close();
    const r = await get(srv, '/maps/sample/2/1/1.png');
    expect(r.status).toBe(200);
    expect(r.body.equals(expected)).toBe(true);
  });

  test('a 256 px tile one zoom beyond the pyramid is drawn, kept, and served again from the render store', async () => {
    // The copy's pyramids end at z3, its vector tiles at z5: a 256 px tile at z6 shows the z5 vector data.
    const first = await get(srv, '/maps/sample/256/6/33/22.png');
    expect(first.status).toBe(200);
    expect(first.type).toBe('image/png');
    const meta = await sharp(first.body).metadata();
    expect([meta.width, meta.height]).toEqual([256, 256]);
    expect(await colours(first.body)).toBeGreaterThan(20);
    // The metatile's tiles are kept as they are cut: the store has this tile and its neighbours.
    await waitFor('the metatile kept in the render store', () => (keptRows(data, 'sample')[0]?.rows ?? 0) >= 16);
    const [store] = keptRows(data, 'sample');
    const db = new Database(join(data, '.renders', 'maps', 'sample', store.file), { readonly: true });
    const row = db.prepare("SELECT tile_data FROM tilemirror_tiles WHERE pyramid = '256' AND zoom_level = 6 AND tile_column = 33 AND tile_row = ?").pluck().get(2 ** 6 - 1 - 22) as Buffer;
    db.close();
    expect(row.equals(first.body)).toBe(true);
    const again = await get(srv, '/maps/sample/256/6/33/22.png');
    expect(again.body.equals(first.body)).toBe(true);
    expect(again.etag).toBe(first.etag);
  });

  test('@2x and other formats are rendered at their pixel size', async () => {
    const r = await get(srv, '/maps/sample/256/6/34/21@2x.webp');
    expect(r.status).toBe(200);
    expect(r.type).toBe('image/webp');
    const meta = await sharp(r.body).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 512, 512]);
  });

  test('a 512 px tile beyond the pyramid is rendered on /maps; WMTS and OGC API keep to the zooms they advertise', async () => {
    const r = await get(srv, '/maps/sample/4/8/5.png');
    expect(r.status).toBe(200);
    expect([(await sharp(r.body).metadata()).width, await colours(r.body) > 20]).toEqual([512, true]);
    const ogc = await get(srv, '/ogc/collections/maps.sample/map/tiles/WebMercatorQuad/4/5/8');
    expect([400, 404]).toContain(ogc.status);
  });

  test('beyond what the style can draw the pyramid still answers 400', async () => {
    const r = await get(srv, '/maps/sample/7/1/1.png');
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/Out of bounds/);
  });

  test('a static map beyond the mirrored zooms is drawn over renders', async () => {
    // At zoom 4.6 the nearest level is the rendered z5, not the mirrored z3 (scaled 3x).
    const r = await get(srv, '/maps/sample/static/8.2,46.8,4.6/300x200.png');
    expect(r.status).toBe(200);
    const meta = await sharp(r.body).metadata();
    expect([meta.width, meta.height]).toEqual([300, 200]);
    expect(await colours(r.body)).toBeGreaterThan(20);
  });
});

describe('a map mirrored with raster: render', () => {
  let srv: TestServer;
  let data: string;
  beforeAll(async () => {
    data = sampleCopy(temp.tempDir(), true);
    srv = await startServer({ dataDir: data });
  });
  afterAll(() => srv?.close());

  test('every tile of its described pyramids is rendered', async () => {
    for (const path of ['/maps/sample/0/0/0.png', '/maps/sample/256/2/2/1.jpg', '/maps/sample/3/4/2@2x.png']) {
      const r = await get(srv, path);
      expect({ path, status: r.status }).toEqual({ path, status: 200 });
      expect(await colours(r.body)).toBeGreaterThan(path.endsWith('.jpg') ? 20 : 10);
    }
    const z0 = await sharp((await get(srv, '/maps/sample/0/0/0.png')).body).metadata();
    expect([z0.width, z0.height]).toEqual([512, 512]);
  });

  test('WMTS lists the map and GetTile answers with renders', async () => {
    const caps = await get(srv, '/maps/sample/WMTSCapabilities.xml');
    expect(caps.status).toBe(200);
    type Link = { TileMatrixSet: string };
    type Layer = { ResourceURL?: { '@_template': string } | { '@_template': string }[]; TileMatrixSetLink: Link | Link[] };
    const doc = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true }).parse(caps.body.toString('utf8')) as { Capabilities: { Contents: { Layer: Layer | Layer[] } } };
    const layers = ([] as Layer[]).concat(doc.Capabilities.Contents.Layer);
    expect(layers.length).toBeGreaterThan(0);
    const templates = layers.flatMap((l) => ([] as { '@_template': string }[]).concat(l.ResourceURL ?? [])).map((u) => u['@_template']);
    const template = templates.find((t) => t.includes('{TileMatrix}'));
    expect(template).toBeDefined();
    const matrixSet = ([] as Link[]).concat(layers[0].TileMatrixSetLink)[0].TileMatrixSet;
    const url = template!.replace('{Style}', 'default').replace('{TileMatrix}', '1').replace('{TileCol}', '1').replace('{TileRow}', '0').replace('{TileMatrixSet}', matrixSet);
    const r = await fetch(url.includes('key=') ? url : `${url}${url.includes('?') ? '&' : '?'}key=${KEY}`);
    expect(r.status).toBe(200);
    expect(await colours(Buffer.from(await r.arrayBuffer()))).toBeGreaterThan(10);
  });

  test('a static map is drawn over renders', async () => {
    const r = await get(srv, '/maps/sample/static/auto/200x150.png?markers=8.5,47.4');
    expect(r.status).toBe(200);
    expect(await colours(r.body)).toBeGreaterThan(10);
  });

  test('a new version of the map starts a new render store and the old one goes', async () => {
    await waitFor('one render store', () => keptRows(data, 'sample').length === 1);
    const before = keptRows(data, 'sample')[0].file;
    // A re-mirror publishes a new file by rename: copy, then rename over.
    const file = join(data, 'maps', 'sample.mbtiles');
    const copy = join(data, 'maps', '.sample.next');
    cpSync(file, copy);
    const db = new Database(copy);
    db.exec("UPDATE metadata SET value = 'Sample, again' WHERE name = 'name'");
    db.close();
    renameSync(copy, file);
    await waitFor('a render of the new version', async () => (await get(srv, '/maps/sample/1/1/1.png')).status === 200 && keptRows(data, 'sample').some((s) => s.file !== before));
    expect(keptRows(data, 'sample').map((s) => s.file)).not.toContain(before);
  });
});

describe('rendering off', () => {
  let srv: TestServer;
  let data: string;
  beforeAll(async () => {
    data = sampleCopy(temp.tempDir(), true);
    cpSync(join(SAMPLE_DIR, 'maps', 'sample.mbtiles'), join(data, 'maps', 'mirrored.mbtiles'));
    srv = await startServer({ dataDir: data, config: { render: { browser: join(data, 'no-such-chromium') } } });
  });
  afterAll(() => srv?.close());

  test('a map with only renders answers 503 naming the package; mirrored tiles serve; beyond a pyramid is 400', async () => {
    const r = await get(srv, '/maps/sample/1/1/1.png');
    expect(r.status).toBe(503);
    expect(r.text).toMatch(/chromium/i);
    expect((await get(srv, '/maps/mirrored/1/1/1.png')).status).toBe(200);
    expect((await get(srv, '/maps/mirrored/256/6/33/22.png')).status).toBe(400);
    const s = await get(srv, '/maps/sample/static/auto/200x150.png?markers=8.5,47.4');
    expect(s.status).toBe(503);
    expect(keptRows(data, 'sample')).toEqual([]);
  });
});
