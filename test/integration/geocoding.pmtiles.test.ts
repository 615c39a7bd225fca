// Geocoding from a vector tile set stored as PMTiles: the sample city (Astana, OpenStreetMap) exported with the
// project's PMTiles export is the only tile set of a data directory, as `sample-city.pmtiles`. The real server
// indexes its labels in the background through the tile reader, and forward geocoding over HTTP finds a house
// number only the city holds, at the position the raw OSM tiles give it (decoded here with @mapbox/vector-tile,
// not by the label index), inside Astana, as a feature of that tile set.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Pbf from 'pbf';
import { VectorTile } from '@mapbox/vector-tile';
import { DEFAULT_INDEX_DIR } from '../../src/config/load';
import { exportPmtilesCommand } from '../../src/interchange-cli';
import { cityTileAddresses } from '../../src/sample/city';
import { buildGazetteerIndex } from '../../src/services/geocoding/gazetteer-index';
import { KEY, SAMPLE_DIR, startServer, type TestServer } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tilemirror-geocoding-pmtiles-');

jest.setTimeout(240_000);

/** Astana's city limits, roughly (the test's own figures: OSM's boundary of Astana lies within them). */
const ASTANA = { west: 71.2, south: 50.95, east: 71.8, north: 51.35 };

interface Feature {
  id: string;
  text: string;
  address?: string;
  center: [number, number];
  place_type: string[];
  properties: { ref: string };
}

/** Metres between two lon/lat points (the test's own haversine). */
function metres(a: [number, number], b: [number, number]): number {
  const r = Math.PI / 180;
  const h = Math.sin(((b[1] - a[1]) * r) / 2) ** 2 + Math.cos(a[1] * r) * Math.cos(b[1] * r) * Math.sin(((b[0] - a[0]) * r) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

/** Where the raw OSM tiles of the sample put a house: its point, or the mean of its outline's vertices. */
function rawHouse(street: string, housenumber: string): [number, number] {
  for (const t of cityTileAddresses()) {
    const layer = new VectorTile(new Pbf(readFileSync(t.file))).layers.osm;
    for (let i = 0; i < layer.length; i++) {
      const f = layer.feature(i);
      if (f.properties['addr:street'] !== street || f.properties['addr:housenumber'] !== housenumber) continue;
      const g = f.toGeoJSON(t.x, t.y, t.z).geometry;
      if (g.type === 'Point') return g.coordinates as [number, number];
      if (g.type === 'Polygon') {
        const ring = g.coordinates[0].slice(0, -1);
        return [ring.reduce((s, c) => s + c[0], 0) / ring.length, ring.reduce((s, c) => s + c[1], 0) / ring.length];
      }
    }
  }
  throw new Error(`no house ${housenumber} ${street} in the raw tiles`);
}

let dir: string;
let srv: TestServer;

beforeAll(async () => {
  await buildGazetteerIndex(DEFAULT_INDEX_DIR);
  dir = tempDir();
  mkdirSync(join(dir, 'tiles'));
  exportPmtilesCommand({ data: SAMPLE_DIR, resource: 'tiles/sample-city', out: join(dir, 'tiles', 'sample-city.pmtiles') });
  srv = await startServer({ dataDir: dir });
});

afterAll(async () => {
  await srv?.close();
  removeTempDirs();
});

test('an Astana address is geocoded over HTTP from the city stored only as PMTiles', async () => {
  expect(readdirSync(join(dir, 'tiles'))).toEqual(['sample-city.pmtiles']);
  // The first index of the catalog's tile sets is built (or given up on) once this resolves.
  await srv.server.labels.idle();

  const r = await fetch(`${srv.url}/geocoding/${encodeURIComponent('переулок Камкалы 12')}.json?key=${KEY}`);
  expect(r.status).toBe(200);
  const fc = (await r.json()) as { features: Feature[]; attribution: string };
  const f = fc.features[0];
  expect(f).toBeDefined();
  expect(f.id).toMatch(/^sample-city\.\d+$/);
  expect(f.properties.ref).toBe('tiles:sample-city');
  expect([f.place_type, f.text, f.address]).toEqual([['address'], 'переулок Камкалы', '12']);
  const [lon, lat] = f.center;
  expect(lon > ASTANA.west && lon < ASTANA.east && lat > ASTANA.south && lat < ASTANA.north).toBe(true);
  expect(metres(f.center, rawHouse('переулок Камкалы', '12'))).toBeLessThan(5);
  expect(fc.attribution).toContain('OpenStreetMap');
});
