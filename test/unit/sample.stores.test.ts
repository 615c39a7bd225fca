// The bundled sample, built for real once (all ten stores, full zoom ranges) into a temporary
// directory: content, metadata, pixels, decoding, skipping and byte-identical rebuilds.
// The builds run in the built CLI (`tilemirror sample`), a child process: under jest every global a module reads
// (Math, Infinity …) goes through the test context's interceptor, and the label and terrain loops of a build ran
// 6-9 times slower in here than in node. The checks of skipping and of a rebuild of one store run here.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import {
  buildSample,
  COLORS,
  decodeTerrainRgb,
  IMAGE_CORNERS,
  SAMPLE_FONT,
  SAMPLE_STORES,
  SAMPLE_VERSION,
  SPRITE_ICONS,
  WEATHER_DECODING,
  WEATHER_KEYFRAMES,
  decodeTemperature,
  sampleTemperature,
  sampleTerrainElevation,
  terrainPixelCenter,
} from '../../src/sample';
import { renderMapTiles } from '../../src/sample/map-raster';
import { decodeGlyphs } from '../../src/services/fonts/glyphs';
import { checkFeatureCollection } from '../../src/mirror/discovery/kinds/data';
import { checkWeatherCatalog, keyframeIds } from '../../src/mirror/discovery/kinds/weather';
import { startCli } from '../helpers/cli-process';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-sample-');

// vt-pbf brings CommonJS versions of the MVT decoder and pbf (the top-level ones are ESM-only).
const vtpbfDir = path.dirname(require.resolve('vt-pbf'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { VectorTile } = require(require.resolve('@mapbox/vector-tile', { paths: [vtpbfDir] }));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Pbf = require(require.resolve('pbf', { paths: [vtpbfDir] }));

let dir: string;
const open = (store: keyof typeof SAMPLE_STORES) =>
  new Database(path.join(dir, SAMPLE_STORES[store]), { readonly: true, fileMustExist: true });
const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** XYZ tile of a pyramid: main pyramid in `tiles`, others in `tilemirror_tiles`. */
function tile(db: Database.Database, pyramid: string | null, z: number, x: number, y: number): Buffer | undefined {
  const row = (1 << z) - 1 - y;
  const r = (pyramid === null
    ? db.prepare('SELECT tile_data FROM tiles WHERE zoom_level=? AND tile_column=? AND tile_row=?').get(z, x, row)
    : db
        .prepare('SELECT tile_data FROM tilemirror_tiles WHERE pyramid=? AND zoom_level=? AND tile_column=? AND tile_row=?')
        .get(pyramid, z, x, row)) as { tile_data: Buffer } | undefined;
  return r?.tile_data;
}

function meta(db: Database.Database): Record<string, string> {
  const rows = db.prepare('SELECT name, value FROM metadata').all() as { name: string; value: string }[];
  return Object.fromEntries(rows.map((r) => [r.name, r.value]));
}

function countsPerZoom(db: Database.Database, pyramid: string | null): number[] {
  const rows = (pyramid === null
    ? db.prepare('SELECT zoom_level z, count(*) n FROM tiles GROUP BY zoom_level ORDER BY zoom_level').all()
    : db
        .prepare('SELECT zoom_level z, count(*) n FROM tilemirror_tiles WHERE pyramid=? GROUP BY zoom_level ORDER BY zoom_level')
        .all(pyramid)) as { z: number; n: number }[];
  return rows.map((r) => r.n);
}

async function rgba(png: Buffer): Promise<{ data: Buffer; width: number; height: number; channels: number }> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

function hex(c: string): number[] {
  const n = parseInt(c.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** Colour of the map pixel at lon/lat in a pyramid of `size` px tiles at zoom z. */
async function mapPixel(db: Database.Database, pyramid: string | null, size: number, z: number, lon: number, lat: number) {
  const world = size * 2 ** z;
  const wx = ((lon + 180) / 360) * world;
  const s = Math.sin((lat * Math.PI) / 180);
  const wy = (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * world;
  const x = Math.floor(wx / size);
  const y = Math.floor(wy / size);
  const png = tile(db, pyramid, z, x, y);
  expect(png).toBeDefined();
  const img = await rgba(png!);
  expect([img.width, img.height]).toEqual([size, size]);
  const i = (Math.floor(wy - y * size) * size + Math.floor(wx - x * size)) * img.channels;
  return [img.data[i], img.data[i + 1], img.data[i + 2]];
}

/** `tilemirror sample --data DIR [--only …]`, awaited; its output when it fails. */
async function cliBuild(data: string, only?: readonly string[]): Promise<void> {
  const run = await startCli(['sample', '--data', data, ...(only ? ['--only', only.join(',')] : [])]).done;
  if (run.code !== 0) throw new Error(`tilemirror sample exited with ${run.code ?? run.signal}: ${run.out}`);
}

beforeAll(async () => {
  dir = tempDir();
  await cliBuild(dir);
}, 600_000); // a safety net for a hang, not a bound: ~15 s alone, a minute on a loaded 2-core machine

afterAll(() => {
  removeTempDirs();
});

describe('bundled sample build', () => {
  it('writes the ten stores, verified, with no temporary file left', () => {
    for (const rel of Object.values(SAMPLE_STORES)) {
      const file = path.join(dir, rel);
      expect(fs.existsSync(file)).toBe(true);
      const db = new Database(file, { readonly: true });
      expect(db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      expect(meta(db)['tilemirror:sample_version']).toBe(SAMPLE_VERSION);
      db.close();
      expect(fs.readdirSync(path.dirname(file)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    }
  });

  it('skips up-to-date stores, and rebuilds a store of another version', async () => {
    const file = path.join(dir, SAMPLE_STORES.image);
    const before = sha(file);
    const again: string[] = [];
    await buildSample(dir, { log: (m) => again.push(m) });
    expect(again.filter((m) => m.includes('up to date'))).toHaveLength(Object.keys(SAMPLE_STORES).length);
    const db = new Database(file);
    db.prepare('UPDATE metadata SET value = ? WHERE name = ?').run('old', 'tilemirror:sample_version');
    db.close();
    await buildSample(dir, { only: ['image'] });
    expect(sha(file)).toBe(before);
  });
});

describe('sample map (maps/sample.mbtiles)', () => {
  let db: Database.Database;
  beforeAll(() => (db = open('map')));
  afterAll(() => db.close());

  it('has the metadata and the two pyramids', () => {
    const m = meta(db);
    expect(m).toMatchObject({
      name: 'Sample map',
      format: 'png',
      minzoom: '0',
      maxzoom: '5',
      center: '0,20,1',
      'tilemirror:kind': 'maps',
      'tilemirror:tile_size': '512',
      bounds: '-180,-85.0511287798066,180,85.0511287798066',
    });
    expect(m.attribution).toContain('Natural Earth');
    expect(m.description).not.toBe('');
    const pyramids = db.prepare('SELECT * FROM tilemirror_pyramids ORDER BY ord').all();
    expect(pyramids).toEqual([
      { name: '512', ord: 0, tile_size: 512, scale: 1, format: 'png', minzoom: 0, maxzoom: 5, bounds: '[-180,-85.0511287798066,180,85.0511287798066]' },
      { name: '256', ord: 1, tile_size: 256, scale: 1, format: 'png', minzoom: 0, maxzoom: 5, bounds: '[-180,-85.0511287798066,180,85.0511287798066]' },
    ]);
  });

  it('holds the full pyramids (1365 tiles each) of the right sizes', async () => {
    const full = [1, 4, 16, 64, 256, 1024];
    expect(countsPerZoom(db, null)).toEqual(full);
    expect(countsPerZoom(db, '256')).toEqual(full);
    for (const [z, x, y] of [[0, 0, 0], [3, 4, 2], [5, 31, 31]]) {
      expect(await sharp(tile(db, null, z, x, y)!).metadata()).toMatchObject({ width: 512, height: 512, format: 'png' });
      expect(await sharp(tile(db, '256', z, x, y)!).metadata()).toMatchObject({ width: 256, height: 256, format: 'png' });
    }
  });

  it('draws ocean and land where they are, in both pyramids', async () => {
    const ocean = hex(COLORS.ocean);
    const land = hex(COLORS.land);
    for (const z of [0, 2, 5]) {
      for (const [pyr, size] of [[null, 512], ['256', 256]] as const) {
        expect(await mapPixel(db, pyr, size, z, -25, 5)).toEqual(ocean); // mid Atlantic
        expect(await mapPixel(db, pyr, size, z, -145, -45)).toEqual(ocean); // South Pacific, between graticule lines
        expect(await mapPixel(db, pyr, size, z, 135, -25)).toEqual(land); // central Australia
        expect(await mapPixel(db, pyr, size, z, 100, 62)).toEqual(land); // Siberia
      }
    }
  });

  it('a 512 px tile covers the area of the 256 px tile of the same address', async () => {
    // same place, same zoom: the 512 tile at z is drawn on the pixel grid of the 256 tiles at z+1
    const big = await rgba(tile(db, null, 2, 2, 1)!);
    const small = await rgba(tile(db, '256', 3, 5, 3)!);
    // 256 tile 3/5/3 is the bottom-right quarter of 2/2/1
    let same = 0;
    for (let py = 0; py < 256; py += 5) {
      for (let px = 0; px < 256; px += 5) {
        const a = ((py + 256) * 512 + px + 256) * big.channels;
        const b = (py * 256 + px) * small.channels;
        if (big.data[a] === small.data[b] && big.data[a + 1] === small.data[b + 1] && big.data[a + 2] === small.data[b + 2]) same++;
      }
    }
    expect(same).toBe(52 * 52);
  });

  it('stores a MapLibre style drawn from the sample vector tiles, with labels in the sample font and sprite icons', () => {
    const doc = db.prepare('SELECT content_type, data FROM tilemirror_documents WHERE path = ?').get('style.json') as {
      content_type: string;
      data: Buffer;
    };
    expect(doc.content_type).toBe('application/json');
    const style = JSON.parse(doc.data.toString('utf8'));
    expect(style).toMatchObject({ version: 8, name: 'Sample', center: [0, 20], zoom: 1 });
    expect(style.sources).toEqual({ 'sample-vector': { type: 'vector', url: 'tilemirror://tiles/sample-vector/tiles.json' } });
    expect(style.glyphs).toBe('tilemirror://fonts/{fontstack}/{range}.pbf');
    expect(style.sprite).toBe('tilemirror://sprites/sample/sprite');
    expect(style.layers[0]).toMatchObject({ type: 'background', paint: { 'background-color': COLORS.ocean } });
    const types = style.layers.map((l: { type: string }) => l.type);
    expect(types).toContain('fill');
    expect(types).toContain('line');
    expect(types).toContain('symbol');
    for (const l of style.layers.slice(1)) {
      expect(l.source).toBe('sample-vector');
      expect(['countries', 'boundaries', 'coastline', 'country_label']).toContain(l['source-layer']);
      if (l.type === 'symbol') expect(l.layout['text-font']).toEqual([SAMPLE_FONT]);
    }
    const icons = style.layers.filter((l: { layout?: Record<string, unknown> }) => l.layout?.['icon-image']);
    expect(icons.length).toBeGreaterThan(0);
    for (const l of icons) expect(SPRITE_ICONS as readonly unknown[]).toContain(l.layout['icon-image']);
  });

  it('renders the map the same way every time (zooms 0-2 re-rendered)', async () => {
    const tiles = await renderMapTiles({ maxzoom: 2 });
    expect(tiles).toHaveLength(2 * 21);
    for (const t of tiles) {
      expect(tile(db, t.pyramid === '512' ? null : t.pyramid, t.z, t.x, t.y)!.equals(t.data)).toBe(true);
    }
  });
});

describe('sample vector tiles (tiles/sample-vector.mbtiles)', () => {
  let db: Database.Database;
  beforeAll(() => (db = open('vector')));
  afterAll(() => db.close());

  it('has the metadata and the vector layers', () => {
    const m = meta(db);
    expect(m).toMatchObject({ format: 'pbf', minzoom: '0', maxzoom: '5', 'tilemirror:kind': 'tiles', 'tilemirror:tile_size': '512' });
    const layers = JSON.parse(m.json).vector_layers;
    expect(layers.map((l: { id: string }) => l.id)).toEqual(['countries', 'coastline', 'boundaries', 'country_label']);
    expect(layers[3]).toMatchObject({ minzoom: 0, maxzoom: 5, fields: { id: 'String', name: 'String' } });
    expect(layers[0]).toMatchObject({ minzoom: 0, maxzoom: 5, fields: { id: 'String', name: 'String' } });
    expect(db.prepare('SELECT * FROM tilemirror_pyramids').all()).toEqual([
      { name: 'main', ord: 0, tile_size: 512, scale: 1, format: 'pbf', minzoom: 0, maxzoom: 5, bounds: '[-180,-85.0511287798066,180,85.0511287798066]' },
    ]);
  });

  it('stores only tiles with features: open ocean is absent (served as 204)', () => {
    const counts = countsPerZoom(db, null);
    expect(counts.slice(0, 3)).toEqual([1, 4, 16]);
    for (let z = 3; z <= 5; z++) expect(counts[z]).toBeLessThan(4 ** z);
    expect(tile(db, null, 3, 1, 5)).toBeUndefined(); // South Pacific
    expect(tile(db, null, 5, 5, 20)).toBeUndefined(); // South Pacific
    expect(tile(db, null, 5, 16, 11)).toBeDefined(); // France, Switzerland, Italy
  });

  it('tiles are gzip-compressed MVT with the countries where they are', () => {
    const gz = tile(db, null, 5, 16, 11)!;
    expect([gz[0], gz[1]]).toEqual([0x1f, 0x8b]);
    const vt = new VectorTile(new Pbf(zlib.gunzipSync(gz)));
    expect(Object.keys(vt.layers).sort()).toEqual(['boundaries', 'coastline', 'countries', 'country_label']);
    const countries = vt.layers.countries;
    expect(countries.extent).toBe(4096);
    const names = new Set<string>();
    for (let i = 0; i < countries.length; i++) names.add(countries.feature(i).properties.name);
    expect(names).toContain('France');
    expect(names).toContain('Switzerland');
    expect(names).toContain('Italy');
    const fr = Array.from({ length: countries.length }, (_, i) => countries.feature(i)).find((f) => f.properties.name === 'France');
    expect(fr.properties.id).toBe('250');
    expect(fr.id).toBe(250);
    expect(fr.type).toBe(3);
    expect(vt.layers.boundaries.feature(0).properties.kind).toBe('country');
    const labels = vt.layers.country_label;
    const labelNames = Array.from({ length: labels.length }, (_, i) => labels.feature(i)).map((f) => {
      expect(f.type).toBe(1);
      expect(Object.keys(f.properties).sort()).toEqual(['id', 'name']);
      return f.properties.name;
    });
    expect(labelNames).toEqual(expect.arrayContaining(['France', 'Switzerland', 'Italy']));
    // every stored tile decodes and holds at least one feature
    const all = db.prepare('SELECT tile_data FROM tiles').all() as { tile_data: Buffer }[];
    for (const r of all) {
      const t = new VectorTile(new Pbf(zlib.gunzipSync(r.tile_data)));
      const n = Object.values(t.layers).reduce((s: number, l) => s + (l as { length: number }).length, 0);
      expect(n).toBeGreaterThan(0);
    }
  });

  it('labels only the countries that have room: a few at zoom 0, every country from zoom 4', () => {
    const labelCount = (z: number) => {
      const names = new Set<string>();
      const rows = db.prepare('SELECT tile_data FROM tiles WHERE zoom_level = ?').all(z) as { tile_data: Buffer }[];
      for (const r of rows) {
        const l = new VectorTile(new Pbf(zlib.gunzipSync(r.tile_data))).layers.country_label;
        for (let i = 0; l && i < l.length; i++) names.add(l.feature(i).properties.name);
      }
      return names;
    };
    const z0 = labelCount(0);
    expect(z0.size).toBeGreaterThanOrEqual(2);
    expect(z0.size).toBeLessThanOrEqual(10);
    expect(z0).toContain('Russia');
    expect(z0).not.toContain('Switzerland');
    const z4 = labelCount(4);
    expect(z4).toContain('Switzerland');
    expect(z4).toContain('Monaco');
    expect(z4.size).toBeGreaterThan(200);
  });
});

describe('sample terrain (tiles/sample-terrain.mbtiles)', () => {
  let db: Database.Database;
  beforeAll(() => (db = open('terrain')));
  afterAll(() => db.close());

  it('has the metadata and only tiles that intersect the bounds', () => {
    const m = meta(db);
    expect(m).toMatchObject({
      format: 'png',
      minzoom: '0',
      maxzoom: '10',
      bounds: '5.9,45.8,10.5,47.8',
      attribution: 'Synthetic terrain (tilemirror sample)',
      'tilemirror:tile_size': '256',
    });
    // independent count: columns/rows of the tiles touching [5.9, 45.8, 10.5, 47.8]
    const expected: number[] = [];
    for (let z = 0; z <= 10; z++) {
      const n = 2 ** z;
      const col = (lon: number) => Math.floor(((lon + 180) / 360) * n);
      const row = (lat: number) => Math.floor(((1 - Math.asinh(Math.tan((lat * Math.PI) / 180)) / Math.PI) / 2) * n);
      expected.push((col(10.5) - col(5.9) + 1) * (row(45.8) - row(47.8) + 1));
    }
    expect(countsPerZoom(db, null)).toEqual(expected);
    expect(expected).toEqual([1, 1, 1, 1, 1, 1, 1, 4, 12, 35, 140]);
  });

  it('encodes the synthetic function at each pixel centre', async () => {
    for (const [z, x, y] of [[10, 535, 360], [8, 133, 90], [0, 0, 0], [7, 66, 44]]) {
      const png = tile(db, null, z, x, y);
      expect(png).toBeDefined();
      const img = await rgba(png!);
      expect([img.width, img.height, img.channels]).toEqual([256, 256, 3]);
      for (const [px, py] of [[0, 0], [255, 255], [100, 37], [17, 200], [128, 128]]) {
        const i = (py * 256 + px) * 3;
        const got = decodeTerrainRgb(img.data[i], img.data[i + 1], img.data[i + 2]);
        const [lon, lat] = terrainPixelCenter(z, x, y, px, py);
        expect(Math.abs(got - sampleTerrainElevation(lon, lat))).toBeLessThanOrEqual(0.05 + 1e-6);
      }
    }
  });
});

describe('sample image (images/sample-image.mbtiles)', () => {
  let db: Database.Database;
  beforeAll(() => (db = open('image')));
  afterAll(() => db.close());

  it('has the metadata, the footprint and image.json', () => {
    const m = meta(db);
    expect(m).toMatchObject({ format: 'png', minzoom: '0', maxzoom: '3', 'tilemirror:kind': 'images', 'tilemirror:tile_size': '256' });
    expect(JSON.parse(m['tilemirror:image'])).toEqual({ width: 2000, height: 1200 });
    const [w, s, e, n] = m.bounds.split(',').map(Number);
    expect(w).toBe(-180);
    expect(e).toBeCloseTo(171.5625, 9);
    expect(n).toBeCloseTo(85.0511287798066, 9);
    expect(s).toBeCloseTo((Math.atan(Math.sinh(Math.PI * (1 - (2 * 1200) / 2048))) * 180) / Math.PI, 9);
    const doc = db.prepare('SELECT content_type, data FROM tilemirror_documents WHERE path = ?').get('image.json') as {
      content_type: string;
      data: Buffer;
    };
    expect(doc.content_type).toBe('application/json');
    const json = JSON.parse(doc.data.toString('utf8'));
    expect(json).toMatchObject({ id: 'sample-image', width: 2000, height: 1200, minzoom: 0, maxzoom: 3, tileSize: 256 });
    expect(typeof json.description).toBe('string');
    expect(json.attribution).toContain('Natural Earth');
  });

  it('cuts the picture from the top-left, padding the edges with transparency', async () => {
    expect(countsPerZoom(db, null)).toEqual([1, 4, 12, 40]);
    const px = async (z: number, x: number, y: number, ix: number, iy: number) => {
      const img = await rgba(tile(db, null, z, x, y)!);
      expect([img.width, img.height, img.channels]).toEqual([256, 256, 4]);
      const i = (iy * 256 + ix) * 4;
      return Array.from(img.data.subarray(i, i + 4));
    };
    const c = (k: keyof typeof IMAGE_CORNERS) => [...hex(IMAGE_CORNERS[k].color), 255];
    expect(await px(3, 0, 0, 50, 50)).toEqual(c('topLeft'));
    expect(await px(3, 7, 0, 1950 - 7 * 256, 50)).toEqual(c('topRight'));
    expect(await px(3, 0, 4, 50, 1150 - 4 * 256)).toEqual(c('bottomLeft'));
    expect(await px(3, 7, 4, 1950 - 7 * 256, 1150 - 4 * 256)).toEqual(c('bottomRight'));
    // padding: the picture ends at x 2000 (tile 7, px 208) and y 1200 (tile 4, px 176)
    expect((await px(3, 7, 4, 207, 175))[3]).toBe(255);
    expect((await px(3, 7, 4, 208, 10))[3]).toBe(0);
    expect((await px(3, 7, 4, 10, 176))[3]).toBe(0);
    expect(await px(3, 7, 4, 255, 255)).toEqual([0, 0, 0, 0]);
    // zoom 0: the 250 x 150 picture in the top-left of one tile
    expect((await px(0, 0, 0, 249, 149))[3]).toBe(255);
    expect((await px(0, 0, 0, 250, 10))[3]).toBe(0);
    expect((await px(0, 0, 0, 10, 150))[3]).toBe(0);
    expect(tile(db, null, 3, 8, 0)).toBeUndefined();
    expect(tile(db, null, 3, 0, 5)).toBeUndefined();
  });
});

describe('sample font (fonts/Noto Sans Regular.mbtiles)', () => {
  let db: Database.Database;
  beforeAll(() => (db = open('font')));
  afterAll(() => db.close());

  it('is a font store holding the 256 glyph ranges of tileserver-gl-styles unchanged', () => {
    const m = meta(db);
    expect(m).toMatchObject({ name: SAMPLE_FONT, 'tilemirror:kind': 'fonts' });
    expect(db.prepare('SELECT count(*) n FROM tiles').get()).toEqual({ n: 0 });
    const docs = db.prepare('SELECT path, content_type, data FROM tilemirror_documents').all() as { path: string; content_type: string; data: Buffer }[];
    expect(docs).toHaveLength(256);
    const dir = path.join(path.dirname(require.resolve('tileserver-gl-styles/package.json')), 'fonts', SAMPLE_FONT);
    for (const d of docs) {
      expect(d.content_type).toBe('application/x-protobuf');
      expect(d.data.equals(fs.readFileSync(path.join(dir, d.path)))).toBe(true);
    }
    const latin = docs.find((d) => d.path === '0-255.pbf')!;
    const [stack] = decodeGlyphs(latin.data);
    expect(stack.glyphs.map((g) => g.id)).toEqual(expect.arrayContaining([32, 65, 97, 233]));
  });
});

describe('sample sprite (sprites/sample.mbtiles)', () => {
  let db: Database.Database;
  beforeAll(() => (db = open('sprite')));
  afterAll(() => db.close());

  it('holds sprite.json/png at 1x and 2x, the PNG sizes matching the index', async () => {
    expect(meta(db)).toMatchObject({ 'tilemirror:kind': 'sprites' });
    const doc = (p: string) => (db.prepare('SELECT content_type, data FROM tilemirror_documents WHERE path = ?').get(p) as { content_type: string; data: Buffer });
    const rows = db.prepare('SELECT path FROM tilemirror_documents ORDER BY path').all() as { path: string }[];
    expect(rows.map((r) => r.path)).toEqual(['sprite.json', 'sprite.png', 'sprite@2x.json', 'sprite@2x.png']);
    for (const [scale, ratio] of [['', 1], ['@2x', 2]] as const) {
      const json = doc(`sprite${scale}.json`);
      const png = doc(`sprite${scale}.png`);
      expect([json.content_type, png.content_type]).toEqual(['application/json', 'image/png']);
      const index = JSON.parse(json.data.toString('utf8'));
      expect(Object.keys(index)).toEqual([...SPRITE_ICONS].sort());
      const size = await sharp(png.data).metadata();
      for (const e of Object.values(index) as { x: number; y: number; width: number; height: number; pixelRatio: number }[]) {
        expect(e.pixelRatio).toBe(ratio);
        expect(e.x + e.width).toBeLessThanOrEqual(size.width!);
        expect(e.y + e.height).toBeLessThanOrEqual(size.height!);
      }
    }
  });
});

function documents(db: Database.Database): Record<string, { content_type: string; data: Buffer }> {
  const rows = db.prepare('SELECT path, content_type, data FROM tilemirror_documents ORDER BY path').all() as { path: string; content_type: string; data: Buffer }[];
  return Object.fromEntries(rows.map((r) => [r.path, { content_type: r.content_type, data: r.data }]));
}

describe('sample dataset (data/sample-countries.mbtiles)', () => {
  let db: Database.Database;
  beforeAll(() => (db = open('data')));
  afterAll(() => db.close());

  it('holds features.json only: a FeatureCollection of a few dozen country points, as the mirror stores a dataset', () => {
    expect(meta(db)['tilemirror:kind']).toBe('data');
    const docs = documents(db);
    expect(Object.keys(docs)).toEqual(['features.json']);
    expect(docs['features.json'].content_type).toBe('application/json');
    const fc = JSON.parse(docs['features.json'].data.toString('utf8'));
    // The mirror's own check of an upstream dataset accepts it.
    expect(checkFeatureCollection(fc)).toBeUndefined();
    expect(fc.features.length).toBeGreaterThanOrEqual(30);
    expect(fc.features.length).toBeLessThanOrEqual(100);
    const byName = new Map<string, { geometry: { type: string; coordinates: number[] }; properties: Record<string, unknown>; id?: number }>(
      fc.features.map((f: { properties: { name: string } }) => [f.properties.name, f]),
    );
    for (const name of ['Russia', 'Canada', 'Brazil', 'Australia', 'Antarctica']) expect(byName.has(name)).toBe(true);
    expect(byName.has('Switzerland')).toBe(false); // small countries are not in it
    // Each point lies in its country (boxes that hold the whole country, written down here).
    const boxes: Record<string, [number, number, number, number]> = {
      Brazil: [-74, -34, -34, 5.3],
      Australia: [113, -39, 154, -10.5],
      Antarctica: [-180, -90, 180, -60],
      Canada: [-141, 41.6, -52.6, 83.2],
    };
    for (const [name, [w, s, e, n]] of Object.entries(boxes)) {
      const f = byName.get(name)!;
      expect(f.geometry.type).toBe('Point');
      const [lon, lat] = f.geometry.coordinates;
      expect(lon).toBeGreaterThanOrEqual(w);
      expect(lon).toBeLessThanOrEqual(e);
      expect(lat).toBeGreaterThanOrEqual(s);
      expect(lat).toBeLessThanOrEqual(n);
    }
    expect(byName.get('Brazil')!.properties.iso).toBe('076');
    expect(byName.get('Brazil')!.id).toBe(76);
  });
});

describe('sample weather (weather/latest.mbtiles and its keyframe tilesets)', () => {
  it('the catalog has the spec\'s shape, passes the mirror\'s check and names the two keyframe tilesets', () => {
    const db = open('weather');
    try {
      expect(meta(db)['tilemirror:kind']).toBe('weather');
      const docs = documents(db);
      expect(Object.keys(docs)).toEqual(['latest.json']);
      const catalog = JSON.parse(docs['latest.json'].data.toString('utf8'));
      expect(checkWeatherCatalog(catalog)).toBeUndefined();
      expect(keyframeIds(catalog)).toEqual(['sample-temperature-0000', 'sample-temperature-0600']);
      expect(catalog.variables).toHaveLength(1);
      const v = catalog.variables[0];
      expect(v.spatial_ref_sys).toMatchObject({ auth_name: 'EPSG', auth_srid: '3857' });
      expect(v.spatial_ref_sys.wkt).toMatch(/^PROJCS\["WGS 84 \/ Pseudo-Mercator"/);
      expect(v.bounds).toHaveLength(4);
      expect(v.tile_format).toBe('png');
      expect(v.tile_matrix_set.bounds).toEqual([-20037508.342789244, -20037508.342789244, 20037508.342789244, 20037508.342789244]);
      expect(v.tile_matrix_set.items.map((i: { zoom_level: number }) => i.zoom_level)).toEqual([0, 1, 2]);
      expect(v.tile_matrix_set.items[1]).toEqual({ zoom_level: 1, matrix_width: 2, matrix_height: 2, tile_width: 256, tile_height: 256, pixel_x_size: 78271.51696402048, pixel_y_size: 78271.51696402048 });
      const wv = v.metadata.weather_variable;
      for (const k of ['name', 'description', 'attribution', 'variable_id', 'unit']) expect(typeof wv[k]).toBe('string');
      expect(wv.decoding).toEqual({ channels: 'r', min: -60, max: 60 });
      for (const t of [wv.release_timestamp, wv.timestamp, ...v.keyframes.map((k: { timestamp: string }) => k.timestamp)]) {
        expect(t).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
      }
      for (const k of v.keyframes) expect(Object.keys(k).sort()).toEqual(['id', 'timestamp']);
    } finally {
      db.close();
    }
  });

  it.each(WEATHER_KEYFRAMES.map((k, i) => [k.id, i] as const))('keyframe %s: a PNG tileset (z0-2) with its tiles.json, pixels decoding to the known field', async (id, i) => {
    const key = i === 0 ? 'keyframe0' : 'keyframe1';
    expect(SAMPLE_STORES[key]).toBe(`tiles/${id}.mbtiles`);
    const db = open(key);
    try {
      const m = meta(db);
      expect(m).toMatchObject({ format: 'png', minzoom: '0', maxzoom: '2', 'tilemirror:kind': 'tiles' });
      expect(countsPerZoom(db, null)).toEqual([1, 4, 16]);
      const tj = JSON.parse(documents(db)['tiles.json'].data.toString('utf8'));
      expect(tj.tiles).toEqual([`tilemirror://tiles/${id}/{z}/{x}/{y}.png`]);
      // Pixel (px, py) of tile 2/1/1 carries the value at its centre, within one step of the 8-bit encoding.
      const img = await rgba(tile(db, null, 2, 1, 1)!);
      const step = (WEATHER_DECODING.max - WEATHER_DECODING.min) / 255;
      for (const [px, py] of [[0, 0], [128, 200], [255, 17]]) {
        const world = 256 * 4;
        const lon = ((256 + px + 0.5) / world) * 360 - 180;
        const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * (256 + py + 0.5)) / world))) * 180) / Math.PI;
        const o = (py * 256 + px) * img.channels;
        expect(Math.abs(decodeTemperature(img.data[o]) - sampleTemperature(lon, lat, WEATHER_KEYFRAMES[i].hours))).toBeLessThanOrEqual(step / 2 + 1e-9);
      }
    } finally {
      db.close();
    }
  });

  it('the two keyframes differ (the day wave moved)', () => {
    const [a, b] = (['keyframe0', 'keyframe1'] as const).map((k) => {
      const db = open(k);
      try {
        return tile(db, null, 0, 0, 0)!;
      } finally {
        db.close();
      }
    });
    expect(a.equals(b)).toBe(false);
  });
});

describe('sample determinism', () => {
  it('rebuilds every store but the map to identical bytes', async () => {
    const other = tempDir('tilemirror-sample-b-');
    const keys = ['vector', 'terrain', 'image', 'font', 'sprite', 'data', 'keyframe0', 'keyframe1', 'weather'] as const;
    await cliBuild(other, keys);
    for (const key of keys) {
      expect(sha(path.join(other, SAMPLE_STORES[key]))).toBe(sha(path.join(dir, SAMPLE_STORES[key])));
    }
    expect(fs.existsSync(path.join(other, SAMPLE_STORES.map))).toBe(false);
  }, 300_000);
});
