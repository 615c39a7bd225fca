import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { pixelXToLon, pixelYToLat, tileRange } from '../../src/geo/mercator';
import { ElevationService, NoTerrainError } from '../../src/services/elevation';
import { Catalog } from '../../src/store/catalog/catalog';
import { sampleTerrainElevation, TERRAIN_BOUNDS, terrainPixelCenter } from '../../src/sample/terrain';
import type { Bounds } from '../../src/store/types';
import { ELEVATION_400S } from '../fixtures/bad-requests';
import { writeHandMadeStore } from '../fixtures/hand-made-stores';
import { rng } from '../helpers/fuzz-requests';
import { SAMPLE_DIR, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

// /elevation over loopback against oracles that owe nothing to the service's decoder: the sample terrain's own
// function, pixels read by GDAL from tiles taken out of the store with SQL, and stores written here with heights
// chosen so the answer shows which zoom answered. The cloud's client library reads the same endpoint.

type Answer = [number, number, number][];

async function getJson(srv: TestServer, path: string): Promise<{ status: number; body: unknown; text: string }> {
  const r = await fetch(`${srv.url}${path}`);
  const text = await r.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: r.status, body, text: text.trim() };
}

const elevationPath = (positions: readonly (readonly number[])[], query = ''): string =>
  `/elevation/${positions.map((p) => p.join(',')).join(';')}.json?key=demo${query}`;

// Encoders written here, apart from the service: Terrain-RGB in 0.1 m steps from -10 km, Terrarium in 1/256 m.
function mapboxRgb(h: number): [number, number, number] {
  const v = Math.round((h + 10000) * 10);
  return [Math.floor(v / 65536) % 256, Math.floor(v / 256) % 256, v % 256];
}
function terrariumRgb(h: number): [number, number, number] {
  const v = h + 32768;
  const whole = Math.floor(v);
  return [Math.floor(whole / 256), whole % 256, Math.round((v - whole) * 256)];
}

/** A 256 px PNG whose pixel (col, row) has the colour `rgb(col, row)`. */
async function pngTile(rgb: (col: number, row: number) => [number, number, number]): Promise<Buffer> {
  const raw = Buffer.alloc(256 * 256 * 3);
  for (let row = 0; row < 256; row++) {
    for (let col = 0; col < 256; col++) raw.set(rgb(col, row), (row * 256 + col) * 3);
  }
  return sharp(raw, { raw: { width: 256, height: 256, channels: 3 } }).png().toBuffer();
}

function tilesOver(bounds: Bounds, z: number): [number, number][] {
  const r = tileRange(bounds, z);
  const out: [number, number][] = [];
  for (let x = r.minX; x <= r.maxX; x++) for (let y = r.minY; y <= r.maxY; y++) out.push([x, y]);
  return out;
}

const { tempDir, removeTempDirs } = tempDirs('tilemirror-elevation-');
afterAll(() => {
  removeTempDirs();
});

describe('the sample terrain', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(() => srv.close());

  test('agrees with the terrain function at 200 seeded positions over its bounds (within 0.25 m)', async () => {
    const random = rng(9);
    const [w, s, e, n] = TERRAIN_BOUNDS;
    const positions = Array.from({ length: 200 }, () => [Math.round((w + random() * (e - w)) * 1e6) / 1e6, Math.round((s + random() * (n - s)) * 1e6) / 1e6]);
    let worst = 0;
    for (let i = 0; i < positions.length; i += 50) {
      const batch = positions.slice(i, i + 50);
      const r = await getJson(srv, elevationPath(batch));
      expect(r.status).toBe(200);
      const answer = r.body as Answer;
      expect(answer.map(([lng, lat]) => [lng, lat])).toEqual(batch);
      for (const [lng, lat, h] of answer) worst = Math.max(worst, Math.abs(h - sampleTerrainElevation(lng, lat)));
    }
    // Terrain-RGB rounds to 0.1 m (0.05 m error); bilinear over 150 m pixels of this function adds a few cm.
    expect(worst).toBeLessThan(0.25);
  });

  test('feet are metres / 0.3048', async () => {
    const pos = [[8.2, 46.8], [7.1, 46.1]];
    const m = (await getJson(srv, elevationPath(pos))).body as Answer;
    const ft = (await getJson(srv, elevationPath(pos, '&unit=feet'))).body as Answer;
    ft.forEach(([, , h], i) => expect(Math.abs(h - m[i][2] / 0.3048)).toBeLessThan(0.02));
    const explicit = (await getJson(srv, elevationPath(pos, '&unit=meters'))).body as Answer;
    expect(explicit).toEqual(m);
  });

  describe('against pixels GDAL reads from the stored tiles', () => {
    // A z10 tile inside the bounds and its right, lower and lower-right neighbours, taken out with SQL.
    const z = 10;
    const [x, y] = [Math.floor(((8.2 + 180) / 360) * 1024), 360];
    let work: string;
    const pixel = (tx: number, ty: number, col: number, row: number): number => {
      const out = execFileSync('gdallocationinfo', ['-valonly', join(work, `${tx}-${ty}.png`), String(col), String(row)], { encoding: 'utf8' });
      const [r, g, b] = out.trim().split(/\s+/).map(Number);
      return -10000 + (r * 65536 + g * 256 + b) / 10;
    };
    beforeAll(() => {
      work = tempDir();
      const db = new Database(join(SAMPLE_DIR, 'tiles/sample-terrain.mbtiles'), { readonly: true });
      try {
        const get = db.prepare<[number, number, number], { tile_data: Buffer }>('SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?');
        for (const [tx, ty] of [[x, y], [x + 1, y], [x, y + 1], [x + 1, y + 1]]) {
          const row = get.get(z, tx, 2 ** z - 1 - ty);
          if (!row) throw new Error(`the sample has no tile ${z}/${tx}/${ty}`);
          writeFileSync(join(work, `${tx}-${ty}.png`), row.tile_data);
        }
      } finally {
        db.close();
      }
    });

    test('at pixel centres (inside, and on every edge of the tile) the answer is that pixel', async () => {
      const cells: [number, number][] = [[0, 0], [17, 200], [128, 128], [255, 0], [0, 255], [255, 255], [255, 77], [93, 255]];
      const positions = cells.map(([c, r]) => terrainPixelCenter(z, x, y, c, r));
      const answer = (await getJson(srv, elevationPath(positions))).body as Answer;
      answer.forEach(([, , h], i) => {
        const expected = pixel(x, y, cells[i][0], cells[i][1]);
        expect([cells[i], Math.abs(h - expected) < 0.006]).toEqual([cells[i], true]);
      });
    });

    test('at a tile corner the answer is the mean of the four pixels of four tiles around it', async () => {
      const size = 256 * 2 ** z;
      const corner = [pixelXToLon((x + 1) * 256, size), pixelYToLat((y + 1) * 256, size)];
      const expected = (pixel(x, y, 255, 255) + pixel(x + 1, y, 0, 255) + pixel(x, y + 1, 255, 0) + pixel(x + 1, y + 1, 0, 0)) / 4;
      const [[, , h]] = (await getJson(srv, elevationPath([corner]))).body as Answer;
      expect(Math.abs(h - expected)).toBeLessThan(0.011);
      // Between two pixels across the vertical edge, halfway down row 100: the mean of those two pixels.
      const edge = [pixelXToLon((x + 1) * 256, size), pixelYToLat(y * 256 + 100.5, size)];
      const [[, , e]] = (await getJson(srv, elevationPath([edge]))).body as Answer;
      expect(Math.abs(e - (pixel(x, y, 255, 100) + pixel(x + 1, y, 0, 100)) / 2)).toBeLessThan(0.011);
    });
  });

  test('the cloud client library (@maptiler/client) reads it: elevation.at and a batch of 120 (3 requests)', async () => {
    // The library ships ESM and CommonJS builds; this CommonJS test requires the latter (jest runs no ESM here).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { config: clientConfig, elevation: clientElevation } = require('@maptiler/client') as typeof import('@maptiler/client', { with: { 'resolution-mode': 'import' } });
    const seen: string[] = [];
    clientConfig.apiKey = 'demo';
    clientConfig.fetch = (u: string | URL | Request, init?: RequestInit) => {
      const url = String(u).replace('https://api.maptiler.com', srv.url);
      seen.push(new URL(url).pathname);
      return fetch(url, init);
    };
    const one = await clientElevation.at([8.2, 46.8]);
    expect(one[0]).toBe(8.2);
    expect(Math.abs(one[2] - sampleTerrainElevation(8.2, 46.8))).toBeLessThan(0.25);
    const random = rng(10);
    const positions = Array.from({ length: 120 }, () => [6 + random() * 4, 46 + random() * 1.5]);
    seen.length = 0;
    const all = await clientElevation.batch(positions);
    expect(seen).toHaveLength(3);
    expect(all).toHaveLength(120);
    all.forEach(([lng, lat, h], i) => {
      expect([lng, lat]).toEqual(positions[i]);
      expect(Math.abs(h - sampleTerrainElevation(lng, lat))).toBeLessThan(0.25);
    });
  });

  test('every bad request is a 400 naming the part, a missing key 403', async () => {
    for (const [path, message] of ELEVATION_400S) {
      const r = await getJson(srv, `${path}?key=demo`);
      expect([path, r.status, r.text]).toEqual([path, 400, message]);
    }
    const unit = await getJson(srv, '/elevation/8,46.json?key=demo&unit=yards');
    expect([unit.status, unit.text]).toEqual([400, 'Invalid unit: yards (meters or feet)']);
    expect((await getJson(srv, '/elevation/8,46.json')).status).toBe(403);
    expect((await getJson(srv, '/elevation/8,46.json?key=wrong')).status).toBe(403);
    // The limits themselves are fine: 50 positions, ±85 and ±179.999.
    const ok = await getJson(srv, elevationPath([...Array(48).fill([8, 46]), [179.999, 85], [-179.999, -85]]));
    expect(ok.status).toBe(200);
    expect(ok.body as Answer).toHaveLength(50);
  });
});

describe('in process: elevationAt, as the geolocation service receives it', () => {
  test('metres at a point, undefined off the map or without terrain; longitudes modulo 360', async () => {
    const catalog = new Catalog(SAMPLE_DIR);
    const none = new Catalog(tempDir());
    try {
      const { elevationAt } = new ElevationService(catalog, { cacheMb: 8 });
      // Twenty at once on a tile nobody read yet: one decode shared, the same answer for all.
      const many = await Promise.all(Array.from({ length: 20 }, () => elevationAt(9.1, 46.2)));
      expect(new Set(many).size).toBe(1);
      expect(Math.abs((many[0] ?? NaN) - sampleTerrainElevation(9.1, 46.2))).toBeLessThan(0.25);
      expect(await elevationAt(9.1 + 360, 46.2)).toBe(many[0]);
      expect(await elevationAt(9.1 - 720, 46.2)).toBe(many[0]);
      for (const [lon, lat] of [[NaN, 46], [8, Infinity], [8, 85.06], [8, -89]]) expect(await elevationAt(lon, lat)).toBeUndefined();
      expect(await new ElevationService(none, { cacheMb: 8 }).elevationAt(8.2, 46.8)).toBeUndefined();
    } finally {
      catalog.close();
      none.close();
    }
  });
});

describe('stores written here: zoom fallback, uncovered positions, Terrarium, no terrain', () => {
  const REGION: Bounds = [5.9, 45.8, 10.5, 47.8];
  let data: string;
  let world: TestServer;
  let regionOnly: TestServer;
  beforeAll(async () => {
    data = tempDir();
    // World z0-2 at 1000 + 100·z metres, a region at z5 at 1500 m: the height says which zoom answered.
    const tiles: { z: number; x: number; y: number; data: Buffer }[] = [];
    for (let z = 0; z <= 2; z++) {
      const png = await pngTile(() => mapboxRgb(1000 + 100 * z));
      for (let x = 0; x < 2 ** z; x++) for (let y = 0; y < 2 ** z; y++) tiles.push({ z, x, y, data: png });
    }
    const regionPng = await pngTile(() => mapboxRgb(1500));
    const regionTiles = tilesOver(REGION, 5).map(([x, y]) => ({ z: 5, x, y, data: regionPng }));
    writeHandMadeStore(join(data, 'tiles/layered-terrain.mbtiles'), {
      metadata: { name: 'layered', format: 'png', minzoom: '0', maxzoom: '5', encoding: 'mapbox' },
      tiles: [...tiles, ...regionTiles],
    });
    writeHandMadeStore(join(data, 'tiles/region-terrain.mbtiles'), {
      metadata: { name: 'region', format: 'png', minzoom: '5', maxzoom: '5', bounds: REGION.join(','), encoding: 'mapbox' },
      tiles: regionTiles,
    });
    world = await startServer({ dataDir: data });
    regionOnly = await startServer({ dataDir: data, config: { elevation: { tileset: 'region-terrain' } } });
  });
  afterAll(async () => {
    await world.close();
    await regionOnly.close();
  });

  test('the deepest zoom with a tile under each position answers; elsewhere a shallower one', async () => {
    // Chosen from the catalog: world bounds beat the region's.
    const positions = [[8.2, 46.8], [10.4, 47.7], [-120, 40], [150, -30], [0, 0], [11.3, 46.8]];
    const r = await getJson(world, elevationPath(positions));
    expect(r.status).toBe(200);
    expect((r.body as Answer).map(([, , h]) => h)).toEqual([1500, 1500, 1200, 1200, 1200, 1200]);
  });

  test('a position no terrain covers is a 400 naming it (configured tileset: the region alone)', async () => {
    const inside = await getJson(regionOnly, elevationPath([[8.2, 46.8]]));
    expect(inside.body).toEqual([[8.2, 46.8, 1500]]);
    const r = await getJson(regionOnly, elevationPath([[8.2, 46.8], [-120, 40]]));
    expect([r.status, r.text]).toEqual([400, 'Out of bounds: position 2 (-120,40) is not covered by the terrain tileset region-terrain']);
  });

  test('Terrarium (named by the store metadata) agrees with the terrain function', async () => {
    const dir = tempDir();
    const z = 8;
    const area: Bounds = [7.9, 46.4, 8.6, 46.9];
    const tiles = await Promise.all(
      tilesOver(area, z).map(async ([x, y]) => ({ z, x, y, data: await pngTile((c, r) => terrariumRgb(sampleTerrainElevation(...terrainPixelCenter(z, x, y, c, r)))) })),
    );
    writeHandMadeStore(join(dir, 'tiles/dem.mbtiles'), { metadata: { name: 'dem', format: 'png', minzoom: '8', maxzoom: '8', encoding: 'terrarium' }, tiles });
    const srv = await startServer({ dataDir: dir });
    try {
      const random = rng(11);
      const positions = Array.from({ length: 50 }, () => [area[0] + random() * (area[2] - area[0]), area[1] + random() * (area[3] - area[1])]);
      const r = await getJson(srv, elevationPath(positions));
      expect(r.status).toBe(200);
      // 600 m pixels at z8: bilinear over them is off the function by up to about a metre here.
      const worst = Math.max(...(r.body as Answer).map(([lng, lat, h]) => Math.abs(h - sampleTerrainElevation(lng, lat))));
      expect(worst).toBeLessThan(1.5);
    } finally {
      await srv.close();
    }
  });

  test('a tile that cannot be decoded is read as absent: a shallower zoom answers', async () => {
    const dir = tempDir();
    writeHandMadeStore(join(dir, 'tiles/broken-terrain.mbtiles'), {
      metadata: { name: 'broken', format: 'png', minzoom: '0', maxzoom: '3', encoding: 'mapbox' },
      tiles: [
        { z: 0, x: 0, y: 0, data: await pngTile(() => mapboxRgb(1000)) },
        ...tilesOver(REGION, 3).map(([x, y]) => ({ z: 3, x, y, data: Buffer.from('not a png at all') })),
      ],
    });
    const srv = await startServer({ dataDir: dir });
    try {
      for (let i = 0; i < 2; i++) {
        const r = await getJson(srv, elevationPath([[8.2, 46.8], [-60, -20]]));
        expect([r.status, r.body]).toEqual([200, [[8.2, 46.8, 1000], [-60, -20, 1000]]]);
      }
    } finally {
      await srv.close();
    }
  });

  test('a store closed under a request (a newer version published) is NoTerrainError (503), never a crash', async () => {
    const catalog = new Catalog(data);
    const svc = new ElevationService(catalog, { cacheMb: 8, tileset: 'layered-terrain' });
    // Outside the region: z5 is read at once (absent), z4 after an await, by which time the store is closed.
    const pending = svc.heights([[-120, 40], [8.2, 46.8]]);
    catalog.close();
    await expect(pending).rejects.toThrow(NoTerrainError);
    await expect(pending).rejects.toThrow(/^The terrain tileset tiles\/layered-terrain cannot be read now \(.+\); retry$/);
  });

  test('503 when no terrain is mirrored, or the configured tileset is missing', async () => {
    const empty = await startServer({ dataDir: tempDir() });
    const missing = await startServer({ dataDir: data, config: { elevation: { tileset: 'nope' } } });
    try {
      const a = await getJson(empty, elevationPath([[8, 46]]));
      expect([a.status, a.text]).toEqual([503, 'No terrain tileset is mirrored (mirror tiles/terrain-rgb-v2, or set elevation.tileset)']);
      const b = await getJson(missing, elevationPath([[8, 46]]));
      expect([b.status, b.text]).toEqual([503, 'The configured elevation tileset tiles/nope is not in the data directory']);
      // Validation still comes first.
      expect((await getJson(empty, '/elevation/x.json?key=demo')).status).toBe(400);
    } finally {
      await empty.close();
      await missing.close();
    }
  });
});
