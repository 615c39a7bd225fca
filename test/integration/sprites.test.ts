// /sprites/{spriteId}/sprite[@2x].{png,json} and the deprecated /maps/{mapId}/sprite[@2x].{png,json}, against the
// bundled sample sprite and a data directory with a map whose style has no sprite.

import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { StoreWriter } from '../../src/store/mbtiles/writer';
import { rawGet, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-sprites-');

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());
const get = (p: string, h?: Record<string, string>) => rawGet(`${srv.url}${p}`, h);

type Index = Record<string, { x: number; y: number; width: number; height: number; pixelRatio: number }>;

describe('sprites', () => {
  test.each([
    ['', 1],
    ['@2x', 2],
  ])('sprite%s: json index and png sheet agree, pixel ratio %i', async (scale, ratio) => {
    const json = await get(`/sprites/sample/sprite${scale}.json?key=demo`);
    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    const png = await get(`/sprites/sample/sprite${scale}.png?key=demo`);
    expect(png.status).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    const index = JSON.parse(json.body.toString('utf8')) as Index;
    const meta = await sharp(png.body).metadata();
    expect(meta.format).toBe('png');
    let maxX = 0;
    let maxY = 0;
    for (const e of Object.values(index)) {
      expect(e.pixelRatio).toBe(ratio);
      maxX = Math.max(maxX, e.x + e.width);
      maxY = Math.max(maxY, e.y + e.height);
    }
    expect(maxX).toBeLessThanOrEqual(meta.width!);
    expect(maxY).toBeLessThanOrEqual(meta.height!);
    // the sheet is no larger than the icons need (one gap pixel past the last icon)
    expect(meta.width! - maxX).toBeLessThanOrEqual(ratio);
    expect(meta.height! - maxY).toBeLessThanOrEqual(ratio);
    expect(index.marker).toBeDefined();
  });

  test('the 2x sheet is the 1x one at twice the size', async () => {
    const x1 = JSON.parse((await get('/sprites/sample/sprite.json?key=demo')).body.toString()) as Index;
    const x2 = JSON.parse((await get('/sprites/sample/sprite@2x.json?key=demo')).body.toString()) as Index;
    expect(Object.keys(x2)).toEqual(Object.keys(x1));
    for (const [n, e] of Object.entries(x1)) expect(x2[n]).toEqual({ x: 2 * e.x, y: 2 * e.y, width: 2 * e.width, height: 2 * e.height, pixelRatio: 2 });
    const m1 = await sharp((await get('/sprites/sample/sprite.png?key=demo')).body).metadata();
    const m2 = await sharp((await get('/sprites/sample/sprite@2x.png?key=demo')).body).metadata();
    expect([m2.width, m2.height]).toEqual([m1.width! * 2, m1.height! * 2]);
  });

  test('ETag and 304', async () => {
    const r = await get('/sprites/sample/sprite.png?key=demo');
    expect(r.headers.etag).toBeDefined();
    expect((await get('/sprites/sample/sprite.png?key=demo', { 'If-None-Match': r.headers.etag! })).status).toBe(304);
  });

  test.each([
    ['/sprites/sample/sprite@3x.png', 400],
    ['/sprites/sample/sprite@1x.json', 400],
    ['/sprites/sample/sprite.gif', 400],
    ['/sprites/sample/sprite.JSON', 400],
    ['/sprites/nope/sprite.png', 404],
    ['/sprites/nope/sprite@2x.json', 404],
  ])('%s → %i', async (p, status) => {
    const r = await get(`${p}?key=demo`);
    expect(r.status).toBe(status);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
  });
});

describe('deprecated map sprite', () => {
  test.each(['sprite.json', 'sprite.png', 'sprite@2x.json', 'sprite@2x.png'])(
    '/maps/sample/%s: the same bytes as the sprites endpoint, Deprecation and a Link to it',
    async (file) => {
      const old = await get(`/maps/sample/${file}?key=demo`);
      const current = await get(`/sprites/sample/${file}?key=demo`);
      expect(old.status).toBe(200);
      expect(old.body.equals(current.body)).toBe(true);
      expect(old.headers['content-type']).toBe(current.headers['content-type']);
      expect(old.headers.deprecation).toBe('true');
      expect(old.headers.link).toBe(`<${srv.url}/sprites/sample/${file}?key=demo>; rel="successor-version"`);
      expect(current.headers.deprecation).toBeUndefined();
    },
  );

  test('errors: bad scale or format 400, unknown map 404', async () => {
    expect((await get('/maps/sample/sprite@3x.png?key=demo')).status).toBe(400);
    expect((await get('/maps/sample/sprite.gif?key=demo')).status).toBe(400);
    const unknown = await get('/maps/nope/sprite.png?key=demo');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.deprecation).toBe('true');
  });

  test('a map whose style has no sprite → 404', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'maps'));
    const bounds: [number, number, number, number] = [-180, -85, 180, 85];
    const write = (id: string, style?: object) => {
      const w = new StoreWriter(path.join(dir, 'maps', `${id}.mbtiles`), {
        kind: 'maps',
        name: id,
        pyramids: [{ name: '512', tileSize: 512, scale: 1, format: 'png', minzoom: 0, maxzoom: 0, bounds }],
      });
      if (style) w.putDocument('style.json', 'application/json', JSON.stringify(style));
      w.close();
    };
    write('plain');
    write('nosprite', { version: 8, sources: {}, layers: [] });
    write('remote', { version: 8, sprite: 'https://example.com/sprite', sources: {}, layers: [] });
    write('missing', { version: 8, sprite: 'tilemirror://sprites/gone/sprite', sources: {}, layers: [] });
    const s = await startServer({ dataDir: dir });
    try {
      for (const id of ['plain', 'nosprite', 'remote', 'missing']) {
        const r = await rawGet(`${s.url}/maps/${id}/sprite.png?key=demo`);
        expect(r.status).toBe(404);
      }
    } finally {
      await s.close();
    }
  });
});

afterAll(removeTempDirs);
