import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { latToPixelY, lonToPixelX, WORLD_BOUNDS } from '../../src/geo/mercator';
import { parseStaticMapRequest, StaticMaps } from '../../src/services/static-maps';
import { Catalog } from '../../src/store/catalog/catalog';
import { StoreWriter } from '../../src/store/mbtiles/writer';
import type { Pyramid } from '../../src/store/types';
import { rawGet, SAMPLE_DIR, startServer, type TestServer } from '../helpers/server';
import { readStoredTile } from '../helpers/stored-tiles';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-static-');

// Static maps checked by their pixels. Besides the sample map, a temporary data directory holds maps made of
// solid-colour tiles (so the colour under a point says exactly what was drawn there), a sprite and an image.

type RGB = [number, number, number];
const GREY: RGB = [144, 144, 144];
/** Tile colour of the `grid` map: distinct per column and row of a zoom. */
const gridColour = (z: number, x: number, y: number): RGB => [(x * 53 + 20) % 256, (y * 97 + 40) % 256, 40 + z * 40];

let dir: string;
let srv: TestServer;

async function solid(size: number, c: RGB): Promise<Buffer> {
  return sharp({ create: { width: size, height: size, channels: 3, background: { r: c[0], g: c[1], b: c[2] } } }).png().toBuffer();
}

const pyramid = (name: string, tileSize: number, maxzoom: number): Pyramid => ({ name, tileSize, scale: 1, format: 'png', minzoom: 0, maxzoom, bounds: WORLD_BOUNDS });

async function buildData(root: string): Promise<void> {
  for (const k of ['maps', 'sprites', 'images']) mkdirSync(join(root, k), { recursive: true });
  // plain: grey everywhere, 512 and 256 px pyramids z0-4, a sprite in its style, an attribution with HTML.
  const plain = new StoreWriter(join(root, 'maps/plain.mbtiles'), {
    kind: 'maps',
    name: 'Plain',
    attribution: '<a href="https://example.com/">&copy; Test&nbsp;Data</a>',
    pyramids: [pyramid('512', 512, 4), pyramid('256', 256, 4)],
  });
  const grey512 = await solid(512, GREY);
  const grey256 = await solid(256, GREY);
  plain.batch(() => {
    for (let z = 0; z <= 4; z++) {
      for (let x = 0; x < 2 ** z; x++) {
        for (let y = 0; y < 2 ** z; y++) {
          plain.putTile('512', z, x, y, grey512);
          plain.putTile('256', z, x, y, grey256);
        }
      }
    }
  });
  plain.putDocument('style.json', 'application/json', JSON.stringify({ version: 8, sprite: 'tilemirror://sprites/testsprite/sprite', sources: {}, layers: [] }));
  plain.close();
  // grid: one colour per tile, 512 px z0-3.
  const grid = new StoreWriter(join(root, 'maps/grid.mbtiles'), { kind: 'maps', name: 'Grid', attribution: 'Grid', pyramids: [pyramid('512', 512, 3)] });
  const gridTiles: Array<[number, number, number, Buffer]> = [];
  for (let z = 0; z <= 3; z++) {
    for (let x = 0; x < 2 ** z; x++) for (let y = 0; y < 2 ** z; y++) gridTiles.push([z, x, y, await solid(512, gridColour(z, x, y))]);
  }
  grid.batch(() => gridTiles.forEach(([z, x, y, d]) => grid.putTile('512', z, x, y, d)));
  grid.close();
  // A sprite: `square` magenta 20x20 CSS px, `bar` cyan 10x20; @2x twice the pixels (the @2x square is yellow,
  // so a test can tell which sheet was used).
  const sprite = new StoreWriter(join(root, 'sprites/testsprite.mbtiles'), { kind: 'sprites', name: 'testsprite', pyramids: [] });
  const sheet = async (r: number, square: RGB) =>
    sharp({ create: { width: 30 * r, height: 20 * r, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([
        { input: await solid(20 * r, square), left: 0, top: 0 },
        { input: await sharp({ create: { width: 10 * r, height: 20 * r, channels: 3, background: '#00ffff' } }).png().toBuffer(), left: 20 * r, top: 0 },
      ])
      .png()
      .toBuffer();
  const index = (r: number) => JSON.stringify({ square: { x: 0, y: 0, width: 20 * r, height: 20 * r, pixelRatio: r }, bar: { x: 20 * r, y: 0, width: 10 * r, height: 20 * r, pixelRatio: r } });
  sprite.putDocument('sprite.json', 'application/json', index(1));
  sprite.putDocument('sprite.png', 'image/png', await sheet(1, [255, 0, 255]));
  sprite.putDocument('sprite@2x.json', 'application/json', index(2));
  sprite.putDocument('sprite@2x.png', 'image/png', await sheet(2, [255, 255, 0]));
  sprite.close();
  // An image of 300 x 200 px (orange), 256 px tiles, zooms 0-1.
  const logo = new StoreWriter(join(root, 'images/logo.mbtiles'), {
    kind: 'images',
    name: 'logo',
    image: { width: 300, height: 200 },
    pyramids: [{ ...pyramid('main', 256, 1), bounds: [-180, 0, 0, 85.0511287798066] }],
  });
  const orange = await solid(256, [255, 128, 0]);
  logo.putTile('main', 0, 0, 0, orange);
  logo.putTile('main', 1, 0, 0, orange);
  logo.putTile('main', 1, 1, 0, orange);
  logo.close();
}

beforeAll(async () => {
  dir = tempDir();
  await buildData(dir);
  srv = await startServer({ dataDir: dir });
});
afterAll(async () => {
  await srv.close();
  removeTempDirs();
});

async function image(path: string, server = srv): Promise<{ status: number; type?: string; body: Buffer; headers: Record<string, unknown> }> {
  const r = await rawGet(`${server.url}${path}${path.includes('?') ? '&' : '?'}key=demo`);
  return { status: r.status, type: r.headers['content-type'], body: r.body, headers: r.headers };
}

interface Pixels {
  width: number;
  height: number;
  data: Buffer;
  at(x: number, y: number): [number, number, number, number];
}
async function pixels(body: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(body).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    data,
    at: (x, y) => {
      const i = (Math.floor(y) * info.width + Math.floor(x)) * 4;
      return [data[i], data[i + 1], data[i + 2], data[i + 3]];
    },
  };
}

const near = (px: number[], c: RGB, tol = 12): boolean => c.every((v, i) => Math.abs(px[i] - v) <= tol);

/** Device pixel of lon/lat in an image of a center-based view (the origin rounded to a whole pixel, as the renderer does). */
function projector(lon0: number, lat0: number, zoom: number, width: number, height: number, scale = 1) {
  const world = 512 * 2 ** zoom * scale;
  const x0 = Math.round(lonToPixelX(lon0, world) - (width * scale) / 2);
  const y0 = Math.round(latToPixelY(lat0, world) - (height * scale) / 2);
  return (lon: number, lat: number): [number, number] => [lonToPixelX(lon, world) - x0, latToPixelY(lat, world) - y0];
}

describe('center-based images are the stored tiles', () => {
  test('an integer zoom is the 512 px tiles of that zoom, composited and cropped, pixel for pixel', async () => {
    const [lon, lat, z, w, h] = [10, 20, 2, 300, 200];
    const r = await image(`/maps/sample/static/${lon},${lat},${z}/${w}x${h}.png?attribution=false`, sample);
    expect(r.status).toBe(200);
    expect(r.type).toBe('image/png');
    const world = 512 * 2 ** z;
    const x0 = Math.round(lonToPixelX(lon, world) - w / 2);
    const y0 = Math.round(latToPixelY(lat, world) - h / 2);
    const [tx0, ty0] = [Math.floor(x0 / 512), Math.floor(y0 / 512)];
    const [tx1, ty1] = [Math.floor((x0 + w - 1) / 512), Math.floor((y0 + h - 1) / 512)];
    const file = join(SAMPLE_DIR, 'maps/sample.mbtiles');
    const parts = [];
    for (let ty = ty0; ty <= ty1; ty++) {
      for (let tx = tx0; tx <= tx1; tx++) parts.push({ input: readStoredTile(file, { z, x: tx, y: ty }), left: (tx - tx0) * 512, top: (ty - ty0) * 512 });
    }
    const mosaic = await sharp({ create: { width: (tx1 - tx0 + 1) * 512, height: (ty1 - ty0 + 1) * 512, channels: 4, background: '#0000' } })
      .composite(parts)
      .png()
      .toBuffer();
    const expected = await sharp(mosaic).extract({ left: x0 - tx0 * 512, top: y0 - ty0 * 512, width: w, height: h }).ensureAlpha().raw().toBuffer();
    const got = await sharp(r.body).ensureAlpha().raw().toBuffer();
    expect(got.length).toBe(expected.length);
    expect(Buffer.compare(got, expected)).toBe(0);
  });

  test('each pixel of a fractional zoom shows the tile under it (solid tiles)', async () => {
    const [lon, lat, z, w, h] = [-30, 25, 2.6, 400, 300];
    const r = await image(`/maps/grid/static/${lon},${lat},${z}/${w}x${h}.png?attribution=false`);
    expect(r.status).toBe(200);
    const img = await pixels(r.body);
    // 2.6 rounds to the stored zoom 3: the colour at a pixel is that of the zoom-3 tile holding its lon/lat.
    const world = 512 * 2 ** z;
    const x0 = Math.round(lonToPixelX(lon, world) - w / 2);
    const y0 = Math.round(latToPixelY(lat, world) - h / 2);
    let checked = 0;
    for (let py = 5; py < h; py += 23) {
      for (let px = 5; px < w; px += 29) {
        const fx = (x0 + px + 0.5) / world;
        const fy = (y0 + py + 0.5) / world;
        const [tx, ty] = [fx * 8, fy * 8];
        // Skip pixels within 2 px of a tile edge (resampling blends neighbours there).
        const edge = Math.min(Math.abs(tx - Math.round(tx)), Math.abs(ty - Math.round(ty))) * (world / 8);
        if (edge < 2) continue;
        expect(near(img.at(px, py), gridColour(3, Math.floor(tx), Math.floor(ty)), 3)).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  test('a view across the dateline wraps the tiles: west of it the last column, east of it the first', async () => {
    const r = await image('/maps/grid/static/180,10,1/400x200.png?attribution=false');
    const img = await pixels(r.body);
    // At zoom 1, 180° is at the image centre: left half tile x=1, right half tile x=0 (row 0: lat 10 is north).
    expect(near(img.at(100, 100), gridColour(1, 1, 0), 0)).toBe(true);
    expect(near(img.at(300, 100), gridColour(1, 0, 0), 0)).toBe(true);
  });

  test('@2x doubles the pixels of the same view; markers land at twice the position', async () => {
    const one = await image('/maps/plain/static/0,0,2/200x150.png?markers=10,5,red&attribution=false');
    const two = await image('/maps/plain/static/0,0,2/200x150@2x.png?markers=10,5,red&attribution=false');
    const a = await pixels(one.body);
    const b = await pixels(two.body);
    expect([a.width, a.height, b.width, b.height]).toEqual([200, 150, 400, 300]);
    const p1 = projector(0, 0, 2, 200, 150)(10, 5);
    const p2 = projector(0, 0, 2, 200, 150, 2)(10, 5);
    expect(p1[0]).toBeGreaterThan(100);
    expect(p1[0]).toBeLessThan(200);
    expect(p2[0]).toBeCloseTo(p1[0] * 2, 0);
    expect(near(a.at(p1[0], p1[1] - 3), [255, 0, 0], 20)).toBe(true);
    expect(near(b.at(p2[0], p2[1] - 6), [255, 0, 0], 20)).toBe(true);
  });
});

describe('markers', () => {
  test('the default pin is drawn in the entry colour with its tip on the point; other text is a label', async () => {
    const f = projector(0, 0, 2, 400, 300);
    const r = await image('/maps/plain/static/0,0,2/400x300.png?markers=10,12,red|-30,-10,%2300ff00|15,-20,Home&attribution=false');
    const img = await pixels(r.body);
    const [rx, ry] = f(10, 12);
    const [gx, gy] = f(-30, -10);
    const [dx, dy] = f(15, -20);
    for (const [x, y] of [f(10, 12), f(-30, -10), f(15, -20)]) {
      expect(x).toBeGreaterThan(20);
      expect(x).toBeLessThan(300);
      expect(y).toBeGreaterThan(40);
      expect(y).toBeLessThan(280);
    }
    // The tip: 2-3 px above the anchor, inside the pin; below the anchor the map.
    expect(near(img.at(rx, ry - 2.5), [255, 0, 0], 20)).toBe(true);
    expect(near(img.at(rx, ry + 3), GREY, 2)).toBe(true);
    expect(near(img.at(gx, gy - 2.5), [0, 255, 0], 20)).toBe(true);
    // The default colour, and the head 24 px above the tip (the white dot at 24 px, body around it).
    expect(near(img.at(dx, dy - 2.5), [228, 48, 42], 20)).toBe(true);
    expect(near(img.at(dx, dy - 24), [255, 255, 255], 30)).toBe(true);
    expect(near(img.at(dx + 8, dy - 24), [228, 48, 42], 20)).toBe(true);
    // The label: dark text pixels right of the pin.
    let dark = 0;
    for (let x = dx + 14; x < dx + 60; x++) for (let y = dy - 26; y < dy - 10; y++) if (img.at(x, y)[0] < 90) dark++;
    expect(dark).toBeGreaterThan(10);
  });

  test('anchor and scale: a centre-anchored pin covers the point with its body', async () => {
    const f = projector(0, 0, 2, 300, 300);
    const r = await image('/maps/plain/static/0,0,2/300x300.png?markers=anchor:center|scale:2|5,5,blue&attribution=false');
    const img = await pixels(r.body);
    const [x, y] = f(5, 5);
    // Scaled 2x the pin is 48 x 72: its centre (24, 36) lies in the head, 12 px below the head's centre (the white dot is 8 px).
    expect(near(img.at(x, y), [0, 0, 255], 20)).toBe(true);
    expect(near(img.at(x, y - 12), [255, 255, 255], 30)).toBe(true);
    expect(near(img.at(x, y + 40), GREY, 2)).toBe(true);
  });

  test('an icon of the map sprite, the @2x sheet at @2x; a mirrored image by name', async () => {
    const f = projector(0, 0, 1, 200, 200);
    const [x, y] = f(0, 0);
    const one = await pixels((await image('/maps/plain/static/0,0,1/200x200.png?markers=icon:square|anchor:center|0,0&attribution=false')).body);
    expect(near(one.at(x, y), [255, 0, 255], 2)).toBe(true);
    expect(near(one.at(x + 9, y + 9), [255, 0, 255], 2)).toBe(true);
    expect(near(one.at(x + 12, y), GREY, 2)).toBe(true);
    const two = await pixels((await image('/maps/plain/static/0,0,1/200x200@2x.png?markers=icon:square|anchor:center|0,0&attribution=false')).body);
    expect(near(two.at(2 * x, 2 * y), [255, 255, 0], 2)).toBe(true);
    expect(near(two.at(2 * x + 19, 2 * y), [255, 255, 0], 2)).toBe(true);
    expect(near(two.at(2 * x + 22, 2 * y), GREY, 2)).toBe(true);
    // images/logo: 300 x 200, bottom anchor, scale 0.25 -> 75 x 50 above the point.
    const logo = await pixels((await image('/maps/plain/static/0,0,1/200x200.png?markers=icon:images/logo|scale:0.25|0,0&attribution=false')).body);
    expect(near(logo.at(x, y - 25), [255, 128, 0], 2)).toBe(true);
    expect(near(logo.at(x + 36, y - 2), [255, 128, 0], 2)).toBe(true);
    expect(near(logo.at(x + 40, y - 25), GREY, 2)).toBe(true);
    expect(near(logo.at(x, y - 53), GREY, 2)).toBe(true);
  });
});

describe('paths', () => {
  test('the stroke runs between the vertices in its colour and width; the default is blue', async () => {
    const f = projector(0, 0, 2, 400, 400);
    const r = await image('/maps/plain/static/0,0,2/400x400.png?path=stroke:%23ff0000|width:4|-30,-20|30,25&path=-30,25|30,-20&attribution=false');
    const img = await pixels(r.body);
    const [ax, ay] = f(-30, -20);
    const [bx, by] = f(30, 25);
    for (const v of [ax, ay, bx, by]) {
      expect(v).toBeGreaterThan(10);
      expect(v).toBeLessThan(390);
    }
    for (let t = 0.05; t < 0.96; t += 0.05) {
      if (Math.abs(t - 0.5) < 0.1) continue; // the crossing of the two paths
      const [x, y] = [ax + (bx - ax) * t, ay + (by - ay) * t];
      expect(near(img.at(x, y), [255, 0, 0], 10)).toBe(true);
      // Well off the line: the map.
      expect(near(img.at(x, y + 8), GREY, 2)).toBe(true);
    }
    // The second path: default stroke rgba(0,64,255,0.7) over grey, 1 px wide.
    const [cx, cy] = f(-30, 25);
    const [dx, dy] = f(30, -20);
    const blue: RGB = [Math.round(0 * 0.7 + 144 * 0.3), Math.round(64 * 0.7 + 144 * 0.3), Math.round(255 * 0.7 + 144 * 0.3)];
    let onLine = 0;
    for (let t = 0.1; t < 0.9; t += 0.05) {
      if (Math.abs(t - 0.5) < 0.1) continue;
      const [x, y] = [cx + (dx - cx) * t, cy + (dy - cy) * t];
      // A 1 px line is anti-aliased over its pixels: the bluest of the pixels around the line.
      let best = 255;
      for (let oy = -1; oy <= 1; oy++) best = Math.min(best, img.at(x, y + oy)[0]);
      if (best < 100) onLine++;
    }
    expect(onLine).toBeGreaterThanOrEqual(12);
    expect(blue[2]).toBeGreaterThan(200);
  });

  test('fill paints a closed path inside; the deprecated encodedpath is a filled polygon', async () => {
    const r = await image('/maps/plain/static/0,0,2/300x300.png?path=fill:%2300ff00|stroke:none|-20,-20|20,-20|20,20|-20,20|-20,-20&attribution=false');
    const img = await pixels(r.body);
    expect(near(img.at(150, 150), [0, 255, 0], 2)).toBe(true);
    expect(near(img.at(5, 5), GREY, 2)).toBe(true);
    // encodedpath "_p~iF~ps|U_ulLnnqC_mqNvxq`@" is Google's example (lat 38.5..43.252, lon -120.2..-126.453).
    const d = await image('/maps/plain/static/-123,41,4/400x400.png?encodedpath=_p~iF~ps|U_ulLnnqC_mqNvxq%60@&attribution=false');
    expect(d.status).toBe(200);
    const di = await pixels(d.body);
    const g = projector(-123, 41, 4, 400, 400);
    // The centroid of the triangle is inside: white at 0.4 over grey.
    const [x, y] = [(g(-120.2, 38.5)[0] + g(-120.95, 40.7)[0] + g(-126.453, 43.252)[0]) / 3, (g(-120.2, 38.5)[1] + g(-120.95, 40.7)[1] + g(-126.453, 43.252)[1]) / 3];
    const white = Math.round(255 * 0.4 + 144 * 0.6);
    expect(near(di.at(x, y), [white, white, white], 3)).toBe(true);
  });

  test('shortest joins vertices across the dateline; without it the path goes round the world', async () => {
    const f = projector(180, 0, 2, 400, 200);
    const short = await pixels((await image('/maps/plain/static/180,0,2/400x200.png?path=stroke:red|width:3|170,0|-170,0&shortest=true&attribution=false')).body);
    const long = await pixels((await image('/maps/plain/static/180,0,2/400x200.png?path=stroke:red|width:3|170,0|-170,0&attribution=false')).body);
    const [, y] = f(180, 0);
    // At the image centre (180°) the short path is drawn, the long one is not (it runs through 0°).
    expect(near(short.at(200, y), [255, 0, 0], 10)).toBe(true);
    expect(near(long.at(200, y), GREY, 2)).toBe(true);
    // The per-path prefix does the same.
    const prefixed = await pixels((await image('/maps/plain/static/180,0,2/400x200.png?path=shortest:true|stroke:red|width:3|170,0|-170,0&attribution=false')).body);
    expect(near(prefixed.at(200, y), [255, 0, 0], 10)).toBe(true);
  });
});

/** Bounding box of the pixels of a colour. */
function extentOf(img: Pixels, c: RGB, tol = 40): [number, number, number, number] {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      if (near(img.at(x, y), c, tol)) {
        x0 = Math.min(x0, x);
        y0 = Math.min(y0, y);
        x1 = Math.max(x1, x);
        y1 = Math.max(y1, y);
      }
    }
  }
  return [x0, y0, x1, y1];
}

describe('fitted areas', () => {
  test('a bounds image contains the bounds with the padding: one axis exactly, the other with more', async () => {
    const edges = 'stroke:red|width:2|-40,-20|40,-20|40,20|-40,20|-40,-20';
    for (const [w, h, padding] of [
      [600, 400, 0.1],
      [300, 500, 0.2],
    ]) {
      const r = await image(`/maps/plain/static/-40,-20,40,20/${w}x${h}.png?path=${edges}&padding=${padding}&attribution=false`);
      const img = await pixels(r.body);
      const [x0, y0, x1, y1] = extentOf(img, [255, 0, 0]);
      const insets = [x0, w - 1 - x1, y0, h - 1 - y1];
      // The stroke is 2 px wide, centred on the edge: 1 px of it lies outside the bounds.
      const padX = w * padding - 1;
      const padY = h * padding - 1;
      expect(Math.min(insets[0], insets[1])).toBeGreaterThanOrEqual(padX - 1.5);
      expect(Math.min(insets[2], insets[3])).toBeGreaterThanOrEqual(padY - 1.5);
      // The fitting axis touches the padding (within a pixel): the zoom is the largest that fits.
      const tight = Math.abs(insets[0] - padX) <= 1.5 || Math.abs(insets[2] - padY) <= 1.5;
      expect(tight).toBe(true);
      // Centred.
      expect(Math.abs(insets[0] - insets[1])).toBeLessThanOrEqual(2);
      expect(Math.abs(insets[2] - insets[3])).toBeLessThanOrEqual(2);
    }
  });

  test('auto fits every path and marker inside the image, across the dateline when shortest', async () => {
    const catalog = new Catalog(dir);
    try {
      const cases = [
        'path=stroke:red|width:2|-60,-30|20,50|70,10&markers=-100,40,blue|120,-40,%2300ff00',
        'path=stroke:red|width:2|170,10|-170,-10&markers=160,30,blue|-150,-20,%2300ff00&shortest=true',
        'markers=8.5,47.3,blue',
      ];
      for (const q of cases) {
        const query = new URLSearchParams(q);
        const req = parseStaticMapRequest({ area: 'auto', size: '500x300', format: 'png' }, query);
        const layout = await new StaticMaps(catalog).layout(catalog.get('maps', 'plain')!, req);
        const { window: w } = layout;
        const at = (lon: number, lat: number): [number, number] => {
          let x = lonToPixelX(lon, w.world) - w.x0;
          // The copy of the world nearest the image.
          x -= Math.round((x - w.width / 2) / w.world) * w.world;
          return [x, latToPixelY(lat, w.world) - w.y0];
        };
        const points = [...req.paths.flatMap((p) => p.coordinates), ...req.markers.map((m) => [m.lon, m.lat] as [number, number])];
        for (const [lon, lat] of points) {
          const [x, y] = at(lon, lat);
          expect(x).toBeGreaterThanOrEqual(500 * 0.1 - 0.5);
          expect(x).toBeLessThanOrEqual(500 * 0.9 + 0.5);
          expect(y).toBeGreaterThanOrEqual(300 * 0.1 - 0.5);
          expect(y).toBeLessThanOrEqual(300 * 0.9 + 0.5);
        }
        // The image shows them: each marker's colour right above its point, the whole pin (36 px) inside.
        const img = await pixels((await image(`/maps/plain/static/auto/500x300.png?${q}&attribution=false`)).body);
        for (const m of req.markers) {
          const [x, y] = at(m.lon, m.lat);
          expect(near(img.at(x, y - 2.5), [m.color.r, m.color.g, m.color.b], 20)).toBe(true);
          expect(y - 36).toBeGreaterThanOrEqual(0);
        }
        if (req.paths.length) {
          const [px, py] = at(...req.paths[0].coordinates[0]);
          expect(near(img.at(px, py), [255, 0, 0], 30)).toBe(true);
        }
      }
    } finally {
      catalog.close();
    }
  });
});

describe('output', () => {
  test.each([
    ['png', 'image/png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
    ['jpg', 'image/jpeg', [0xff, 0xd8, 0xff]],
    ['webp', 'image/webp', [0x52, 0x49, 0x46, 0x46]],
  ])('%s has its media type and magic bytes', async (ext, type, magic) => {
    const r = await image(`/maps/plain/static/0,0,1/120x80.${ext}`);
    expect(r.status).toBe(200);
    expect(r.type).toBe(type);
    expect([...r.body.subarray(0, magic.length)]).toEqual(magic);
    if (ext === 'webp') expect(r.body.subarray(8, 12).toString('latin1')).toBe('WEBP');
    const meta = await sharp(r.body).metadata();
    expect([meta.width, meta.height]).toEqual([120, 80]);
  });

  test('attribution from the map (tags stripped) in the corner asked for, or none', async () => {
    const light = (img: Pixels, x0: number, y0: number, w: number, h: number) => {
      let n = 0;
      for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) if (img.at(x, y)[0] > 200) n++;
      return n;
    };
    const br = await pixels((await image('/maps/plain/static/0,0,1/300x200.png')).body);
    expect(light(br, 250, 190, 50, 10)).toBeGreaterThan(100);
    expect(light(br, 0, 0, 50, 10)).toBe(0);
    const tl = await pixels((await image('/maps/plain/static/0,0,1/300x200.png?attribution=topleft')).body);
    expect(light(tl, 0, 0, 50, 10)).toBeGreaterThan(100);
    expect(light(tl, 250, 190, 50, 10)).toBe(0);
    const none = await pixels((await image('/maps/plain/static/0,0,1/300x200.png?attribution=false')).body);
    expect(light(none, 250, 190, 50, 10) + light(none, 0, 0, 50, 10)).toBe(0);
  });

  test('an ETag known before rendering: If-None-Match answers 304', async () => {
    const path = '/maps/plain/static/0,0,1/100x100.png?markers=1,1';
    const first = await image(path);
    expect(first.headers.etag).toBeDefined();
    const again = await rawGet(`${srv.url}${path}&key=demo`, { 'If-None-Match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    const other = await image('/maps/plain/static/0,0,1/100x100.png?markers=1,2');
    expect(other.headers.etag).not.toBe(first.headers.etag);
  });
});

// The sample map is served by a second server (the temp directory holds only the test maps).
let sample: TestServer;
beforeAll(async () => {
  sample = await startServer();
});
afterAll(() => sample.close());
