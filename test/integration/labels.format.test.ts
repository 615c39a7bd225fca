// An index left by an older build (another format) is not used: the server rebuilds it from the same store, so a
// format change (here: the positions moved from an R*Tree to a B-tree on a grid cell) never meets an old file.
// Real server, real files: the index of the first start is made to look like an older one, then served again.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { LABEL_INDEX_FORMAT } from '../../src/services/geocoding/labels-sql';
import { SAMPLE_DIR, startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('labels-format-');

let dir: string;
let srv: TestServer | undefined;
const indexFile = () => path.join(dir, '.labels', 'sample-city.sqlite');
const formatOf = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT value FROM meta WHERE key = 'format'").get() as { value: string }).value;
  } finally {
    db.close();
  }
};

beforeAll(() => {
  dir = tempDir();
  fs.mkdirSync(path.join(dir, 'tiles'));
  fs.copyFileSync(path.join(SAMPLE_DIR, 'tiles', 'sample-city.mbtiles'), path.join(dir, 'tiles', 'sample-city.mbtiles'));
});

afterAll(async () => {
  await srv?.close();
  removeTempDirs();
});

test('an index of an older format is rebuilt, and its nearest-label lookup answers', async () => {
  srv = await startServer({ dataDir: dir });
  await waitFor('the first index', () => srv?.server.labels.indexed()['sample-city']);
  await srv.close();
  srv = undefined;
  expect(formatOf(indexFile())).toBe(LABEL_INDEX_FORMAT);

  // The file as the previous format left it: its format recorded as '2', no index of positions.
  const db = new Database(indexFile());
  db.exec("UPDATE meta SET value = '2' WHERE key = 'format'; DROP INDEX labels_position;");
  db.close();

  srv = await startServer({ dataDir: dir });
  const labels = srv.server.labels;
  await waitFor('the rebuilt index', () => labels.indexed()['sample-city']);
  expect(formatOf(indexFile())).toBe(LABEL_INDEX_FORMAT);
  const address = labels.search('Камкалы 12', { prefix: true, fuzzy: true, limit: 5 })[0];
  expect(address).toMatchObject({ type: 'address', housenumber: '12' });
  expect(labels.nearest(address.lon, address.lat, { types: ['address'], limit: 1, maxMeters: 100 })[0]).toMatchObject({ id: address.id, meters: 0 });
});
