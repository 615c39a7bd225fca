// PmtilesStore and the catalog over `.pmtiles` files: an archive made by hand from the spec (not by our
// writer) read tile by tile, damaged and truncated archives refused at open with a reason and no crash, a
// replaced archive picked up as a new version, a file truncated under an open store served as absent tiles.
import { mkdirSync, readFileSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { Catalog } from '../../src/store/catalog/catalog';
import { PmtilesStore } from '../../src/store/pmtiles/store';
import { handArchive, type HandArchive, type HandTile } from '../fixtures/pmtiles-hand';
import { readArchive } from '../helpers/pmtiles';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-pmtiles-store-');

let dir: string;
beforeAll(() => {
  dir = tempDir();
});
afterAll(() => removeTempDirs());

/** Tiles z0-3 with distinct bytes; 3/0/0 repeats for 3 consecutive tile ids (a run). */
function handTiles(tag: string): HandTile[] {
  const tiles: HandTile[] = [];
  for (let z = 0; z <= 2; z++) {
    for (let x = 0; x < 2 ** z; x++) for (let y = 0; y < 2 ** z; y++) tiles.push({ z, x, y, data: Buffer.from(`${tag} ${z}/${x}/${y}`) });
  }
  tiles.push({ z: 3, x: 0, y: 0, data: Buffer.from(`${tag} run`), run: 3 });
  return tiles;
}

function spec(tag: string, over: Partial<HandArchive> = {}): HandArchive {
  return {
    tiles: handTiles(tag),
    tileType: 2,
    tileCompression: 1,
    minZoom: 0,
    maxZoom: 3,
    bounds: [-10, -20, 30, 40],
    center: [5, 10, 2],
    metadata: { name: `Hand ${tag}`, attribution: '© hand', description: 'made by hand' },
    ...over,
  };
}

function put(file: string, bytes: Buffer): string {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, bytes);
  return file;
}

describe('an archive made by hand from the spec', () => {
  let file: string;
  beforeAll(() => {
    file = put(join(dir, 'hand.pmtiles'), handArchive(spec('a')));
  });

  test('the pmtiles library reads it (the fixture is a valid archive)', async () => {
    const lib = readArchive(file);
    expect((await lib.getZxy(2, 3, 1))?.data).toBeDefined();
    expect(Buffer.from((await lib.getZxy(2, 3, 1))!.data).toString()).toBe('a 2/3/1');
    // The run: 3/0/0 is the first tile id of zoom 3; the next two ids hold the same bytes.
    const h = await lib.getHeader();
    expect(h.numAddressedTiles).toBe(21 + 3);
  });

  test('PmtilesStore reads every tile, the run, absences, and describes it from header and metadata', async () => {
    const store = new PmtilesStore(file, 'hand', 'sig-1');
    try {
      const lib = readArchive(file);
      for (let z = 0; z <= 3; z++) {
        for (let x = 0; x < 2 ** z; x++) {
          for (let y = 0; y < 2 ** z; y++) {
            const want = await lib.getZxy(z, x, y);
            const got = store.tile('main', z, x, y);
            expect(got ? got.toString() : undefined).toBe(want ? Buffer.from(want.data).toString() : undefined);
          }
        }
      }
      expect(store.tile('main', 3, 0, 0)?.toString()).toBe('a run');
      expect(store.tile('main', 4, 0, 0)).toBeUndefined();
      expect(store.tile('256', 0, 0, 0)).toBeUndefined();
      expect(store.tile('main', 1, 2, 0)).toBeUndefined();
      expect(store.tile('main', 1, 0, -1)).toBeUndefined();
      expect(store.info).toMatchObject({
        kind: 'tiles',
        id: 'hand',
        name: 'Hand a',
        attribution: '© hand',
        format: 'png',
        minzoom: 0,
        maxzoom: 3,
        bounds: [-10, -20, 30, 40],
        center: [5, 10, 2],
      });
      expect(store.document('style.json')).toBeUndefined();
    } finally {
      store.close();
    }
  });
});

describe('the catalog over tiles/*.pmtiles', () => {
  const errors: string[] = [];
  let data: string;
  let catalog: Catalog;
  const good = (): Buffer => handArchive(spec('good'));

  beforeAll(() => {
    data = join(dir, 'data');
    const t = (name: string) => join(data, 'tiles', name);
    put(t('good.pmtiles'), good());
    put(t('truncated.pmtiles'), good().subarray(0, 140));
    const badMagic = good();
    badMagic.write('XMTiles', 0, 'latin1');
    put(t('bad-magic.pmtiles'), badMagic);
    const v2 = good();
    v2[7] = 2;
    put(t('version-2.pmtiles'), v2);
    put(t('bad-metadata.pmtiles'), handArchive(spec('m', { metadata: '{"name": "broken' })));
    put(t('avif.pmtiles'), handArchive(spec('avif', { tileType: 5 })));
    put(t('zoom.pmtiles'), handArchive(spec('zoom', { minZoom: 3, maxZoom: 1 })));
    put(t('empty.pmtiles'), Buffer.alloc(0));
    // A .pmtiles in maps/ is not a map (maps need their style): ignored.
    put(join(data, 'maps', 'ignored.pmtiles'), good());
    catalog = new Catalog(data, { onError: (file, err) => errors.push(`${file.slice(data.length + 1)}: ${err.message}`) });
  });
  afterAll(() => catalog.close());

  test('the good archive is served; every damaged one is refused with a reason, once', () => {
    expect(catalog.list().map((i) => `${i.kind}/${i.id}`)).toEqual(['tiles/good']);
    expect(catalog.get('tiles', 'good')?.tile('main', 1, 1, 0)?.toString()).toBe('good 1/1/0');
    const reason = (name: string) => errors.filter((e) => e.startsWith(`tiles/${name}.pmtiles: `));
    expect(reason('truncated')).toEqual([expect.stringMatching(/beyond the end of the file|ends \d+ bytes early/)]);
    expect(reason('bad-magic')).toEqual([expect.stringMatching(/not a PMTiles archive/)]);
    expect(reason('version-2')).toEqual([expect.stringMatching(/spec version 2/)]);
    expect(reason('bad-metadata')).toEqual([expect.stringMatching(/metadata is not JSON/)]);
    expect(reason('avif')).toEqual([expect.stringMatching(/tile type 5 is not served/)]);
    expect(reason('zoom')).toEqual([expect.stringMatching(/zoom range 3-1/)]);
    expect(reason('empty')).toEqual([expect.stringMatching(/not a PMTiles archive/)]);
    catalog.scan();
    expect(errors).toHaveLength(7);
  });

  test('an archive replaced by rename is picked up as a new version; the old one served until then', () => {
    const file = join(data, 'tiles', 'swap.pmtiles');
    put(file, handArchive(spec('one')));
    catalog.scan();
    const first = catalog.get('tiles', 'swap')!;
    const v1 = first.info.version;
    expect(first.tile('main', 0, 0, 0)?.toString()).toBe('one 0/0/0');
    put(`${file}.tmp`, handArchive(spec('two', { metadata: { name: 'Two' } })));
    renameSync(`${file}.tmp`, file);
    catalog.scan();
    const second = catalog.get('tiles', 'swap')!;
    expect(second.info.version).not.toBe(v1);
    expect(second.info.name).toBe('Two');
    expect(second.tile('main', 0, 0, 0)?.toString()).toBe('two 0/0/0');
  });

  test('a damaged replacement keeps the previous version serving', () => {
    const file = join(data, 'tiles', 'keep.pmtiles');
    put(file, handArchive(spec('kept')));
    catalog.scan();
    const v1 = catalog.get('tiles', 'keep')!.info.version;
    put(`${file}.tmp`, good().subarray(0, 60));
    renameSync(`${file}.tmp`, file);
    catalog.scan();
    expect(catalog.get('tiles', 'keep')?.info.version).toBe(v1);
    expect(catalog.get('tiles', 'keep')?.tile('main', 2, 1, 1)?.toString()).toBe('kept 2/1/1');
    expect(errors.some((e) => e.startsWith('tiles/keep.pmtiles: '))).toBe(true);
  });

  test('an MBTiles store and an archive of the same id: the MBTiles store is served', () => {
    // Not built here: the sample's tiles/sample-city.mbtiles is copied in beside a sample-city.pmtiles.
    const mbtiles = join(__dirname, '../../mirror/tiles/sample-city.mbtiles');
    writeFileSync(join(data, 'tiles', 'sample-city.mbtiles'), readFileSync(mbtiles));
    put(join(data, 'tiles', 'sample-city.pmtiles'), good());
    catalog.scan();
    expect(catalog.get('tiles', 'sample-city')?.file.endsWith('.mbtiles')).toBe(true);
  });
});

test('a file truncated under an open store: its tiles answer absent and are reported, nothing throws', () => {
  const file = put(join(dir, 'cut', 'cut.pmtiles'), handArchive(spec('cut')));
  const damaged: string[] = [];
  const store = new PmtilesStore(file, 'cut', 'sig', { onDamagedTile: (tile) => damaged.push(tile) });
  try {
    expect(store.tile('main', 2, 3, 3)?.toString()).toBe('cut 2/3/3');
    // Truncated in place: the leaves survive, the tile data does not.
    truncateSync(file, 127 + 60);
    expect(store.tile('main', 2, 0, 0)).toBeUndefined();
    expect(damaged).toEqual(['main/2/0/0']);
  } finally {
    store.close();
  }
});

test('a closed store never reads through its old descriptor number (another file may hold it now)', () => {
  const file = put(join(dir, 'closed', 'closed.pmtiles'), handArchive(spec('closed')));
  const store = new PmtilesStore(file, 'closed', 'sig');
  store.close();
  store.close();
  expect(() => store.tile('main', 0, 0, 0)).toThrow(/is closed/);
});

describe('tile size', () => {
  const sizeOf = (name: string, a: HandArchive): number => {
    const store = new PmtilesStore(put(join(dir, 'size', `${name}.pmtiles`), handArchive(a)), name, 'sig');
    try {
      return store.info.pyramids[0].tileSize;
    } finally {
      store.close();
    }
  };
  test('from the metadata (ours, or tileSize as QGIS writes it), else the first image tile, else 512 for vector', async () => {
    const png512 = await sharp({ create: { width: 512, height: 512, channels: 3, background: { r: 1, g: 2, b: 3 } } }).png().toBuffer();
    const one = (data: Buffer): HandTile[] => [{ z: 0, x: 0, y: 0, data }];
    expect(sizeOf('qgis', spec('q', { metadata: { tileSize: '512' } }))).toBe(512);
    expect(sizeOf('ours', spec('o', { metadata: { 'tilemirror:tile_size': 1024 } }))).toBe(1024);
    expect(sizeOf('sniffed', spec('s', { tiles: one(png512), maxZoom: 0, metadata: {} }))).toBe(512);
    expect(sizeOf('unknown', spec('u', { metadata: {} }))).toBe(256);
    expect(sizeOf('vector', spec('v', { tileType: 1, metadata: {} }))).toBe(512);
  });
});
