// PMTiles written by `export --format pmtiles` (src/store/pmtiles/write.ts), read back tile by tile with the
// Protomaps `pmtiles` library: every tile of the store equal, the header and metadata as the store says.
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { exportPmtilesCommand } from '../../src/interchange-cli';
import { StoreWriter } from '../../src/store/mbtiles/writer';
import { SAMPLE_DIR } from '../helpers/server';
import { mbtilesRows, readArchive } from '../helpers/pmtiles';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-pmtiles-write-');

let dir: string;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => removeTempDirs());

const plain = (b: Buffer): Buffer => (b[0] === 0x1f && b[1] === 0x8b ? gunzipSync(b) : b);

async function expectEveryTileEqual(archiveFile: string, storeFile: string): Promise<number> {
  const archive = readArchive(archiveFile);
  const rows = mbtilesRows(storeFile);
  for (const r of rows) {
    const got = await archive.getZxy(r.z, r.x, r.y);
    if (!got) throw new Error(`tile ${r.z}/${r.x}/${r.y} missing from the archive`);
    // The library hands tiles out decompressed (its tileCompression): compare with the stored bytes unzipped.
    if (!Buffer.from(got.data).equals(plain(r.data))) throw new Error(`tile ${r.z}/${r.x}/${r.y} differs`);
  }
  return rows.length;
}

function distinctBlobs(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(DISTINCT tile_data) n FROM tiles WHERE length(tile_data) > 0').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe.each([
  ['tiles/sample-vector', 'pbf', 1],
  ['tiles/sample-terrain', 'png', 2],
  ['tiles/sample-city', undefined, undefined],
  ['maps/sample', 'png', 2],
])('%s exported as PMTiles', (resource, format, tileType) => {
  const store = join(SAMPLE_DIR, `${resource}.mbtiles`);
  let out: string;
  beforeAll(() => {
    out = join(dir, `${resource.replace('/', '-')}.pmtiles`);
    exportPmtilesCommand({ data: SAMPLE_DIR, resource, out });
  });

  test('every tile of the store reads back equal through the pmtiles library', async () => {
    const n = await expectEveryTileEqual(out, store);
    expect(n).toBeGreaterThan(0);
  });

  test('header: v3, clustered, gzip directories, counts, zooms and bounds of the store', async () => {
    const h = await readArchive(out).getHeader();
    const db = new Database(store, { readonly: true });
    const meta = Object.fromEntries((db.prepare('SELECT name, value FROM metadata').all() as { name: string; value: string }[]).map((r) => [r.name, r.value]));
    db.close();
    expect(h.specVersion).toBe(3);
    expect(h.clustered).toBe(true);
    expect(h.internalCompression).toBe(2);
    expect(h.numAddressedTiles).toBe(mbtilesRows(store).length);
    // De-duplicated: one content per distinct stored blob.
    expect(h.numTileContents).toBe(distinctBlobs(store));
    expect(h.numTileEntries).toBeLessThanOrEqual(h.numAddressedTiles);
    expect(h.minZoom).toBe(Number(meta.minzoom));
    expect(h.maxZoom).toBe(Number(meta.maxzoom));
    const b = meta.bounds.split(',').map(Number);
    expect([h.minLon, h.minLat, h.maxLon, h.maxLat].map((v, i) => Math.abs(v - b[i]) < 1e-6)).toEqual([true, true, true, true]);
    if (tileType !== undefined) expect(h.tileType).toBe(tileType);
    const md = (await readArchive(out).getMetadata()) as Record<string, unknown>;
    expect(md.name).toBe(meta.name);
    if (format !== undefined) expect(md.format).toBe(format);
    if (format === 'pbf') {
      expect(h.tileCompression).toBe(2);
      expect(md.vector_layers).toEqual(JSON.parse(meta.json).vector_layers);
    }
    expect(md).not.toHaveProperty('tiles');
  });
});

describe('a store large enough for leaf directories, with repeats and runs', () => {
  let store: string;
  let out: string;
  let distinct: number;
  beforeAll(() => {
    store = join(dir, 'big.mbtiles');
    const w = new StoreWriter(store, {
      kind: 'tiles',
      name: 'big',
      pyramids: [{ name: 'main', tileSize: 256, scale: 1, format: 'png', minzoom: 0, maxzoom: 7, bounds: [-180, -85.0511287798066, 180, 85.0511287798066] }],
    });
    let seed = 12345;
    const contents = new Set<string>();
    w.batch(() => {
      for (let z = 0; z <= 7; z++) {
        for (let x = 0; x < 2 ** z; x++) {
          for (let y = 0; y < 2 ** z; y++) {
            seed = (seed * 1103515245 + 12345) % 2 ** 31;
            // The western third of zoom 7 is one "ocean" tile (runs); elsewhere 4000 contents reused at random.
            const body = z === 7 && x < 43 ? 'ocean' : `tile-${seed % 4000}`;
            contents.add(body);
            w.putTile('main', z, x, y, Buffer.from(body));
          }
        }
      }
    });
    w.close();
    distinct = contents.size;
    const data = join(dir, 'bigdata');
    mkdirSync(join(data, 'tiles'), { recursive: true });
    copyFileSync(store, join(data, 'tiles', 'big.mbtiles'));
    out = join(dir, 'big.pmtiles');
    exportPmtilesCommand({ data, resource: 'tiles/big', out });
  });

  test('root within the first 16 KiB, leaves used, runs folded, every tile equal', async () => {
    const h = await readArchive(out).getHeader();
    expect(h.rootDirectoryOffset + h.rootDirectoryLength).toBeLessThanOrEqual(16384);
    expect(h.leafDirectoryLength).toBeGreaterThan(0);
    expect(h.numAddressedTiles).toBe(21845);
    expect(h.numTileContents).toBe(distinct);
    // The ocean runs fold many addressed tiles into few entries.
    expect(h.numTileEntries).toBeLessThan(h.numAddressedTiles - 1000);
    expect(await expectEveryTileEqual(out, store)).toBe(21845);
    expect(statSync(out).size).toBe(h.tileDataOffset + (h.tileDataLength ?? 0));
  });
});
