// Broken store files beside good ones: each is refused at open (its handle closed), reported once per file
// version however many rescans pass, and tried again only when the file changes. Real files, the real Catalog;
// descriptors counted in /proc/self/fd.

import { readdirSync, renameSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { Catalog } from '../../src/store/catalog/catalog';
import { GZIP_TILE, PLAIN_TILE, writeBrokenStores, writeDamagedVectorStore, writeGoodVectorStore } from '../fixtures/hand-made-stores';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-broken-');

const openFds = (): number => readdirSync('/proc/self/fd').length;

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => removeTempDirs());

test('9 broken files: refused, reported once each over 20 rescans, no descriptor kept; the good stores serve', () => {
  const broken = writeBrokenStores(join(dir, 'tiles'));
  expect(broken).toHaveLength(9);
  writeGoodVectorStore(join(dir, 'tiles', 'good-a.mbtiles'));
  writeGoodVectorStore(join(dir, 'maps', 'good-b.mbtiles'));
  const reported: string[] = [];
  const before = openFds();
  const catalog = new Catalog(dir, { onError: (file) => reported.push(file) });
  try {
    const afterOpen = openFds();
    // One descriptor per good store (a read-only SQLite connection), none for the broken ones.
    expect(afterOpen - before).toBe(2);
    for (let i = 0; i < 20; i++) catalog.scan();
    expect(openFds()).toBe(afterOpen);
    expect(reported.sort()).toEqual([...broken].sort());
    expect(catalog.list().map((i) => `${i.kind}/${i.id}`)).toEqual(['maps/good-b', 'tiles/good-a']);
    expect(catalog.get('tiles', 'good-a')?.tile('main', 0, 0, 0)).toEqual(GZIP_TILE);

    // A new version of a broken file (here only its mtime) is tried, and reported, once more.
    const later = new Date(Date.now() + 60_000);
    utimesSync(broken[0], later, later);
    for (let i = 0; i < 5; i++) catalog.scan();
    expect(reported.filter((f) => f === broken[0])).toHaveLength(2);
    expect(reported).toHaveLength(10);
    expect(openFds()).toBe(afterOpen);
  } finally {
    catalog.close();
  }
  expect(openFds()).toBe(before);
});

test('a broken file replacing a good one: the good version keeps serving, the broken one is reported once', () => {
  const file = join(dir, 'tiles', 'swap.mbtiles');
  writeGoodVectorStore(file);
  const reported: string[] = [];
  const catalog = new Catalog(dir, { onError: (f) => reported.push(f) });
  try {
    const good = catalog.get('tiles', 'swap');
    expect(good?.info.maxzoom).toBe(2);
    rmSync(file);
    writeBrokenStores(join(dir, 'staging'));
    // The broken file published by rename, as a mirror publishes: a new inode under the same name.
    renameSync(join(dir, 'staging', 'zoom-0.mbtiles'), file);
    for (let i = 0; i < 5; i++) catalog.scan();
    expect(reported).toEqual([file]);
    expect(catalog.get('tiles', 'swap')).toBe(good);
    expect(good?.tile('main', 0, 0, 0)).toEqual(GZIP_TILE);
  } finally {
    catalog.close();
  }
});

test('decompressed copies come from the tile cache; a damaged tile throws and is reported once per store version', () => {
  writeGoodVectorStore(join(dir, 'tiles', 'good.mbtiles'));
  writeDamagedVectorStore(join(dir, 'tiles', 'bad.mbtiles'));
  const damaged: string[] = [];
  const catalog = new Catalog(dir, { tileCacheBytes: 1024 * 1024, onDamagedTile: (file, tile) => damaged.push(`${file} ${tile}`) });
  try {
    const good = catalog.get('tiles', 'good');
    const first = good?.plainTile('main', 0, 0, 0);
    expect(first).toEqual(PLAIN_TILE);
    // The same buffer again: served from the cache, not inflated a second time.
    expect(good?.plainTile('main', 0, 0, 0)).toBe(first);
    const bad = catalog.get('tiles', 'bad');
    for (let i = 0; i < 5; i++) expect(() => bad?.plainTile('main', 0, 0, 0)).toThrow(/damaged tile main\/0\/0\/0/);
    expect(damaged).toEqual([`${join(dir, 'tiles', 'bad.mbtiles')} main/0/0/0`]);
    // The stored bytes themselves are still served as they are (to clients that accept gzip).
    expect(bad?.tile('main', 0, 0, 0)?.length).toBe(11);
  } finally {
    catalog.close();
  }
});
