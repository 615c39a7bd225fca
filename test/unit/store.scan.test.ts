// The tile reader's scan, over both kinds of store: every tile of a pyramid once, zoom by zoom, in the same order on
// every scan, within the zooms asked for, with nothing held open between two tiles (the store serves, and can be
// closed, meanwhile).
// The expected tiles are the files' rows read with plain SQL (MBTiles) and the archive read with the Protomaps
// library (PMTiles), not the stores' own reads.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { exportPmtilesCommand } from '../../src/interchange-cli';
import { MbtilesStore } from '../../src/store/mbtiles/reader';
import { PmtilesStore } from '../../src/store/pmtiles/store';
import type { ScannedTile, TileReader } from '../../src/store/tile-reader';
import { StoreWriter } from '../../src/store/mbtiles/writer';
import { mbtilesRows, readArchive } from '../helpers/pmtiles';
import { SAMPLE_DIR } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-scan-');

let dir: string;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => removeTempDirs());

const key = (t: { z: number; x: number; y: number }): string => `${t.z}/${t.x}/${t.y}`;

/** The scan as [address, bytes] pairs, in scan order. */
function scanned(reader: TileReader, pyramid: string, zooms?: { minzoom?: number; maxzoom?: number }): [string, Buffer][] {
  return [...reader.scan(pyramid, zooms)].map((t: ScannedTile) => [key(t), t.data]);
}

function expectSameTiles(got: [string, Buffer][], want: { z: number; x: number; y: number; data: Buffer }[]): void {
  expect(got.length).toBe(want.length);
  const byKey = new Map(got);
  expect(byKey.size).toBe(got.length);
  for (const w of want) expect(byKey.get(key(w))?.equals(w.data)).toBe(true);
  const zooms = got.map(([k]) => Number(k.split('/')[0]));
  expect(zooms).toEqual([...zooms].sort((a, b) => a - b));
}

describe('an MBTiles store', () => {
  const VECTOR = join(SAMPLE_DIR, 'tiles', 'sample-vector.mbtiles');
  let store: MbtilesStore;
  beforeAll(() => {
    store = new MbtilesStore(VECTOR, 'tiles', 'sample-vector', 'scan');
  });
  afterAll(() => store.close());

  test('every stored tile of the main pyramid once, zoom by zoom, in the same order twice', () => {
    const rows = mbtilesRows(VECTOR);
    expect(rows.length).toBeGreaterThan(200);
    const first = scanned(store, 'main');
    expectSameTiles(first, rows);
    expect(scanned(store, 'main').map(([k]) => k)).toEqual(first.map(([k]) => k));
  });

  test('only the zooms asked for; nothing for a pyramid the store does not hold', () => {
    const rows = mbtilesRows(VECTOR).filter((r) => r.z >= 2 && r.z <= 3);
    expectSameTiles(scanned(store, 'main', { minzoom: 2, maxzoom: 3 }), rows);
    expect(scanned(store, 'nosuch')).toEqual([]);
  });

  test('a paused scan holds no statement open: the store serves and can be closed meanwhile; the next step then throws', () => {
    const rows = mbtilesRows(VECTOR);
    const last = rows[rows.length - 1];
    const it = store.scan('main')[Symbol.iterator]();
    const got: string[] = [];
    for (let step = it.next(); !step.done; step = it.next()) {
      got.push(key(step.value));
      expect(store.tile('main', last.z, last.x, last.y)?.equals(last.data)).toBe(true);
    }
    expect(got.length).toBe(rows.length);
    // The catalog closes a store when a new version replaces it, scan or not (better-sqlite3 refuses to close a
    // connection while one of its queries is under way).
    const other = new MbtilesStore(VECTOR, 'tiles', 'sample-vector', 'scan-closed');
    const paused = other.scan('main')[Symbol.iterator]();
    expect(paused.next().done).toBe(false);
    expect(() => other.close()).not.toThrow();
    expect(() => {
      for (let step = paused.next(); !step.done; step = paused.next());
    }).toThrow();
  });

  test('a pyramid other than the main one (a map store\'s 256 px pyramid)', () => {
    const file = join(SAMPLE_DIR, 'maps', 'sample.mbtiles');
    const db = new Database(file, { readonly: true, fileMustExist: true });
    const want = db
      .prepare<[], { z: number; x: number; r: number; d: Buffer }>("SELECT zoom_level z, tile_column x, tile_row r, tile_data d FROM tilemirror_tiles WHERE pyramid = '256'")
      .all()
      .map((t) => ({ z: t.z, x: t.x, y: 2 ** t.z - 1 - t.r, data: t.d }));
    db.close();
    const map = new MbtilesStore(file, 'maps', 'sample', 'scan');
    try {
      expect(want.length).toBeGreaterThan(100);
      expectSameTiles(scanned(map, '256'), want);
    } finally {
      map.close();
    }
  });
});

describe('a PMTiles archive with leaf directories and runs', () => {
  let mbtiles: string;
  let archive: string;
  let store: PmtilesStore;
  beforeAll(() => {
    mbtiles = join(dir, 'big.mbtiles');
    const w = new StoreWriter(mbtiles, {
      kind: 'tiles',
      name: 'big',
      pyramids: [{ name: 'main', tileSize: 256, scale: 1, format: 'png', minzoom: 0, maxzoom: 7, bounds: [-180, -85.0511287798066, 180, 85.0511287798066] }],
    });
    let seed = 6789;
    w.batch(() => {
      for (let z = 0; z <= 7; z++) {
        for (let x = 0; x < 2 ** z; x++) {
          for (let y = 0; y < 2 ** z; y++) {
            seed = (seed * 1103515245 + 12345) % 2 ** 31;
            // A third of zoom 7 is one content (runs of tile ids); zoom 6 keeps a quarter of its tiles.
            if (z === 6 && seed % 4 !== 0) continue;
            w.putTile('main', z, x, y, Buffer.from(z === 7 && x < 43 ? 'ocean' : `tile-${seed % 3000}`));
          }
        }
      }
    });
    w.close();
    const data = join(dir, 'data');
    mkdirSync(join(data, 'tiles'), { recursive: true });
    copyFileSync(mbtiles, join(data, 'tiles', 'big.mbtiles'));
    archive = join(dir, 'big.pmtiles');
    exportPmtilesCommand({ data, resource: 'tiles/big', out: archive });
    store = new PmtilesStore(archive, 'big', 'scan');
  });
  afterAll(() => store?.close());

  test('the archive has leaves and runs (what the scan must walk)', async () => {
    const h = await readArchive(archive).getHeader();
    expect(h.leafDirectoryLength).toBeGreaterThan(0);
    expect(h.numTileEntries).toBeLessThan(h.numAddressedTiles - 1000);
  });

  test('every tile once, zoom by zoom, in the same order twice, each as the library reads it', async () => {
    const rows = mbtilesRows(mbtiles);
    const first = scanned(store, 'main');
    expectSameTiles(first, rows);
    expect(scanned(store, 'main').map(([k]) => k)).toEqual(first.map(([k]) => k));
    const lib = readArchive(archive);
    for (const [k, data] of first.filter((_, i) => i % 97 === 0)) {
      const [z, x, y] = k.split('/').map(Number);
      expect(Buffer.from((await lib.getZxy(z, x, y))!.data).equals(data)).toBe(true);
    }
  });

  test('only the zooms asked for', () => {
    for (const [lo, hi] of [[7, 7], [5, 6], [0, 0]]) {
      expectSameTiles(scanned(store, 'main', { minzoom: lo, maxzoom: hi }), mbtilesRows(mbtiles).filter((r) => r.z >= lo && r.z <= hi));
    }
    expect(scanned(store, 'main', { minzoom: 8 })).toEqual([]);
    expect(scanned(store, '256')).toEqual([]);
  });
});
