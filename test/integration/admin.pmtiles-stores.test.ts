// PMTiles archives are listed in the admin API with their tiles counted, as MBTiles stores are: the count the
// server gives is compared with the `pmtiles` library's own walk of each archive's directories (and the header's
// addressed-tiles field where the writer filled it in). Two archives: one exported from the sample (the header
// says its count) and one made by hand from the spec whose header leaves the count out (0, "unknown"), so the
// server must walk its leaf directories, and which holds a run of ids sharing one tile.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Entry, Header, PMTiles } from 'pmtiles';
import { exportPmtilesCommand } from '../../src/interchange-cli';
import { handArchive, type HandTile } from '../fixtures/pmtiles-hand';
import { call } from '../helpers/admin-api';
import { readArchive } from '../helpers/pmtiles';
import { SAMPLE_DIR, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const ADMIN = 'admin-key-pmtiles-5e31';
const { tempDir, removeTempDirs } = tempDirs('tm-admin-pmtiles-');
let server: TestServer;
let dir: string;

/** Tile ids the library's directories address: every entry's run, leaves followed (the library decodes them). */
async function addressedByLibrary(archive: PMTiles): Promise<{ walked: number; header: Header }> {
  const header = await archive.getHeader();
  const walk = async (offset: number, length: number): Promise<number> => {
    const entries: Entry[] = await archive.cache.getDirectory(archive.source, offset, length, header);
    let n = 0;
    for (const e of entries) n += e.runLength > 0 ? e.runLength : await walk(header.leafDirectoryOffset + e.offset, e.length);
    return n;
  };
  return { walked: await walk(header.rootDirectoryOffset, header.rootDirectoryLength), header };
}

const handTiles: HandTile[] = [
  { z: 0, x: 0, y: 0, data: Buffer.from('hand 0/0/0') },
  { z: 1, x: 1, y: 0, data: Buffer.from('hand 1/1/0') },
  { z: 2, x: 3, y: 1, data: Buffer.from('hand 2/3/1') },
  // The first id of zoom 3 and the next four share these bytes.
  { z: 3, x: 0, y: 0, data: Buffer.from('hand run'), run: 5 },
];

beforeAll(async () => {
  dir = tempDir();
  mkdirSync(join(dir, 'tiles'));
  exportPmtilesCommand({ data: SAMPLE_DIR, resource: 'tiles/sample-vector', out: join(dir, 'tiles', 'exported.pmtiles') });
  const hand = handArchive({ tiles: handTiles, tileType: 2, tileCompression: 1, minZoom: 0, maxZoom: 3, bounds: [-10, -20, 30, 40], center: [5, 10, 2], metadata: { name: 'Hand' } });
  hand.writeBigUInt64LE(0n, 72); // addressed tiles: unknown
  writeFileSync(join(dir, 'tiles', 'hand.pmtiles'), hand);
  server = await startServer({ dataDir: dir, config: { admin: { keys: [ADMIN] } } });
});
afterAll(async () => {
  await server?.close();
  removeTempDirs();
});

test('each PMTiles store lists the tiles its directories address, as the pmtiles library counts them', async () => {
  const answer = await call(server.url.replace(/\/$/, ''), 'GET', '/admin/api/stores', { key: ADMIN });
  expect(answer.status).toBe(200);
  const stores = answer.json.stores as { id: string; storage: string; tiles: number | null; bytes: number }[];
  const byId = new Map(stores.map((s) => [s.id, s]));

  const exported = await addressedByLibrary(readArchive(join(dir, 'tiles', 'exported.pmtiles')));
  expect(exported.walked).toBeGreaterThan(100);
  expect(exported.header.numAddressedTiles).toBe(exported.walked);
  expect(byId.get('tiles/exported')).toMatchObject({ storage: 'pmtiles', tiles: exported.walked });

  const hand = await addressedByLibrary(readArchive(join(dir, 'tiles', 'hand.pmtiles')));
  expect(hand.header.numAddressedTiles).toBe(0);
  expect(hand.walked).toBe(3 + 5);
  expect(byId.get('tiles/hand')).toMatchObject({ storage: 'pmtiles', tiles: hand.walked });
});
