// The mirror feeds the geocoder: the real server on a data directory holding the sample city indexes its labels in
// the background; a republished store (replaced by rename, as the mirror publishes) is re-indexed, a removed one
// is dropped. Searched in-process through the server's LabelFinder.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { StoreWriter } from '../../src/store/mbtiles/writer';
import { SAMPLE_DIR, startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('labels-serve-');

// eslint-disable-next-line @typescript-eslint/no-require-imports
const vtpbf: { fromGeojsonVt(l: unknown, o: { version: number; extent: number }): Uint8Array } = require('vt-pbf');

let dir: string;
let srv: TestServer;
const storeFile = () => path.join(dir, 'tiles', 'sample-city.mbtiles');
const indexFile = () => path.join(dir, '.labels', 'sample-city.sqlite');
const opts = { prefix: true, fuzzy: true, limit: 5 };

beforeAll(async () => {
  dir = tempDir();
  fs.mkdirSync(path.join(dir, 'tiles'));
  fs.copyFileSync(path.join(SAMPLE_DIR, 'tiles', 'sample-city.mbtiles'), storeFile());
  // A vector tile set without label layers gets no index.
  fs.copyFileSync(path.join(SAMPLE_DIR, 'tiles', 'sample-vector.mbtiles'), path.join(dir, 'tiles', 'sample-vector.mbtiles'));
  srv = await startServer({ dataDir: dir });
});

afterAll(async () => {
  await srv?.close();
  removeTempDirs();
});

test('the sample city is indexed in the background; its street, house number and POI are searchable', async () => {
  const labels = srv.server.labels;
  await waitFor('the label index of sample-city', () => labels.indexed()['sample-city']);
  expect(Object.keys(labels.indexed())).toEqual(['sample-city']);
  expect(fs.existsSync(indexFile())).toBe(true);

  const street = labels.search('проспект Абая', { ...opts, types: ['road'] })[0];
  expect(street).toMatchObject({ tileset: 'sample-city', type: 'road', placeType: 'road', name: 'проспект Абая' });

  const address = labels.search('Камкалы 12', opts)[0];
  expect(address).toMatchObject({ type: 'address', housenumber: '12', street: 'переулок Камкалы' });

  const cafes = labels.search('', { ...opts, categories: ['cafe'] });
  expect(cafes.length).toBe(5);
  const cafe = labels.search(cafes[0].name, { ...opts, types: ['poi'] }).find((h) => h.id === cafes[0].id);
  expect(cafe?.categories).toContain('cafe');

  expect(labels.byId(address.id)).toMatchObject({ housenumber: '12', lon: address.lon, lat: address.lat });
  expect(labels.byId('sample-city.notanumber')).toBeUndefined();
  expect(labels.byId('nosuchtileset.1')).toBeUndefined();
  const near = labels.nearest(address.lon, address.lat, { types: ['address'], limit: 1, maxMeters: 100 });
  expect(near[0]).toMatchObject({ id: address.id, meters: 0 });
  expect(labels.attribution().join(' ')).toMatch(/OpenStreetMap contributors/);
  expect(labels.attribution().join(' ')).not.toMatch(/</);
});

test('a republished store (replaced by rename) is re-indexed; a removed one is dropped', async () => {
  const labels = srv.server.labels;
  await waitFor('the first index', () => labels.indexed()['sample-city']);
  const before = labels.indexed()['sample-city'];

  // A new version of the tile set: one tile with one named road, written aside and renamed onto the store.
  const tmp = path.join(dir, 'tiles', '.sample-city.staging');
  const writer = new StoreWriter(tmp, {
    kind: 'tiles',
    name: 'Sample city, republished',
    attribution: '© OpenStreetMap contributors (ODbL)',
    pyramids: [{ name: 'main', tileSize: 512, scale: 1, format: 'pbf', minzoom: 12, maxzoom: 12, bounds: [71.3, 51.0, 71.6, 51.3] }],
  });
  const tile = vtpbf.fromGeojsonVt(
    { transportation_name: { features: [{ type: 2, geometry: [[[100, 100], [2000, 2000]]], tags: { name: 'Republished Street', class: 'minor' } }] } },
    { version: 2, extent: 4096 },
  );
  writer.putTile('main', 12, 2860, 1367, zlib.gzipSync(Buffer.from(tile)));
  writer.close();
  fs.renameSync(tmp, storeFile());

  await waitFor('the index of the new version', () => {
    const v = labels.indexed()['sample-city'];
    return v !== undefined && v !== before && v;
  });
  expect(labels.search('Republished Street', opts)[0]).toMatchObject({ type: 'road', name: 'Republished Street' });
  expect(labels.search('переулок Камкалы', opts)).toEqual([]);

  fs.rmSync(storeFile());
  await waitFor('the index to be dropped', () => Object.keys(labels.indexed()).length === 0);
  expect(labels.search('Republished Street', opts)).toEqual([]);
  await waitFor('the index file to be deleted', () => !fs.existsSync(indexFile()));
});
