// A store published by rename while the server runs: a request that comes after the directory watch has seen the
// rename, but before the scan it schedules (50 ms later), finds the store instead of a 404. Real files, the real
// Catalog and fs.watch.

import { mkdirSync, renameSync, watch } from 'node:fs';
import { join } from 'node:path';
import { Catalog } from '../../src/store/catalog/catalog';
import { writeGoodVectorStore } from '../fixtures/hand-made-stores';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-publish-miss-');

let dir: string;
beforeEach(() => {
  dir = tempDir();
  mkdirSync(join(dir, 'tiles'));
});
afterEach(() => removeTempDirs());

test('a lookup right after the watch saw a publish finds the store, without waiting for the scheduled scan', async () => {
  writeGoodVectorStore(join(dir, 'fresh.mbtiles.tmp'));
  // No periodic rescan during the test: only the watch and the lookup can find the store.
  const catalog = new Catalog(dir, { rescanMs: 3_600_000 }).watch();
  try {
    // This watcher is called for the rename in the same read of events as the catalog's, which came first; the
    // catalog's scan waits for a timer, so it has not run when this one's setImmediate does.
    const seen = new Promise<void>((resolve) => {
      const w = watch(join(dir, 'tiles'), () => {
        w.close();
        setImmediate(resolve);
      });
    });
    // A scan just now: a lookup miss alone would not scan again for a second.
    catalog.scan();
    renameSync(join(dir, 'fresh.mbtiles.tmp'), join(dir, 'tiles', 'fresh.mbtiles'));
    await seen;
    expect(catalog.get('tiles', 'fresh')?.info.maxzoom).toBe(2);
  } finally {
    catalog.close();
  }
});
