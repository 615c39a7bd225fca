// How the geocoder merges the labels of mirrored tiles (GEOCODE.md `LabelFinder`) into forward, reverse and by-id
// answers: the real label index (MirroredLabels over a catalog) of a vector tile set written here, one tile of San
// Francisco holding a cafe, a restaurant, a street and a house number, with the real gazetteer. What the answers must
// hold comes from the features written (names, positions), not from the index.

import { gzipSync } from 'node:zlib';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_INDEX_DIR } from '../../src/config/load';
import { buildGazetteerIndex } from '../../src/services/geocoding/gazetteer-index';
import { MirroredLabels } from '../../src/services/geocoding/labels-mirrored';
import { GeocodingService } from '../../src/services/geocoding/service';
import type { LabelFinder, LabelHit } from '../../src/services/geocoding/types';
import { Catalog } from '../../src/store/catalog/catalog';
import { StoreWriter } from '../../src/store/mbtiles/writer';
import { tempDirs } from '../helpers/temp-dirs';
import { waitFor } from '../helpers/wait';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const vtpbf: { fromGeojsonVt(l: unknown, o: { version: number; extent: number }): Uint8Array } = require('vt-pbf');

jest.setTimeout(240_000);

const { tempDir, removeTempDirs } = tempDirs('geocoding-labels-');
const TILESET = 'sf-streets';
/** The one tile written: z12 655/1583 holds the four features below. */
const [Z, X, Y, EXTENT] = [12, 655, 1583, 4096];

/** A lon/lat as a point of the tile (Web Mercator, worked out here rather than by the code under test). */
function inTile(lon: number, lat: number): [number, number] {
  const n = 2 ** Z;
  const r = (lat * Math.PI) / 180;
  const px = (((lon + 180) / 360) * n - X) * EXTENT;
  const py = (((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n - Y) * EXTENT;
  return [Math.round(px), Math.round(py)];
}

/** The features of the tile, OpenMapTiles layers (as the cloud's v3 tiles). */
const point = (lon: number, lat: number, tags: Record<string, string>) => ({ type: 1, geometry: [inTile(lon, lat)], tags });
const TILE_LAYERS = {
  poi: {
    features: [
      point(-122.4078, 37.7823, { name: 'Blue Bottle Coffee', class: 'cafe', subclass: 'cafe' }),
      point(-122.4216, 37.7736, { name: 'Zuni Café', class: 'restaurant', subclass: 'restaurant' }),
    ],
  },
  transportation_name: {
    features: [{ type: 2, geometry: [[inTile(-122.4085, 37.7817), inTile(-122.4075, 37.7825), inTile(-122.4065, 37.7833)]], tags: { name: 'Market Street', 'name:es': 'Calle Market', class: 'primary' } }],
  },
  housenumber: { features: [point(-122.4079, 37.7826, { housenumber: '901', street: 'Market Street' })] },
};

/** The real label source, with the searches the geocoder asks of it recorded. */
class RecordedLabels implements LabelFinder {
  searches: Array<{ text: string; categories?: string[]; bbox?: number[] }> = [];
  constructor(private readonly real: LabelFinder) {}
  search(...args: Parameters<LabelFinder['search']>): LabelHit[] {
    this.searches.push({ text: args[0], categories: args[1].categories, bbox: args[1].bbox });
    return this.real.search(...args);
  }
  nearest(...args: Parameters<LabelFinder['nearest']>): ReturnType<LabelFinder['nearest']> {
    return this.real.nearest(...args);
  }
  byId(id: string): LabelHit | undefined {
    return this.real.byId(id);
  }
  attribution(tilesets?: Iterable<string>): string[] {
    return this.real.attribution(tilesets);
  }
}

let catalog: Catalog;
let mirrored: MirroredLabels;
let labels: RecordedLabels;
let geo: GeocodingService;
const forward = { language: [], limit: 5, fuzzyMatch: true, autocomplete: true };
/** The index's id of the label named `name` (of `type`), found by position-free search. */
const idOf = (name: string, type: LabelHit['type']): string => {
  const hit = mirrored.search(name, { prefix: false, fuzzy: false, limit: 5, types: [type] }).find((h) => h.name === name);
  if (!hit) throw new Error(`no ${type} "${name}" in the label index`);
  return hit.id;
};

beforeAll(async () => {
  await buildGazetteerIndex(DEFAULT_INDEX_DIR);
  const data = tempDir();
  mkdirSync(join(data, 'tiles'));
  const writer = new StoreWriter(join(data, 'tiles', `${TILESET}.mbtiles`), {
    kind: 'tiles',
    name: 'San Francisco streets',
    attribution: '© OpenStreetMap contributors (ODbL)',
    pyramids: [{ name: 'main', tileSize: 512, scale: 1, format: 'pbf', minzoom: Z, maxzoom: Z, bounds: [-122.45, 37.75, -122.38, 37.8] }],
  });
  writer.putTile('main', Z, X, Y, gzipSync(Buffer.from(vtpbf.fromGeojsonVt(TILE_LAYERS, { version: 2, extent: EXTENT }))));
  writer.close();
  catalog = new Catalog(data);
  mirrored = new MirroredLabels(catalog, { dir: join(data, '.labels') }).start();
  await waitFor(`the label index of ${TILESET}`, () => mirrored.indexed()[TILESET]);
  labels = new RecordedLabels(mirrored);
  geo = new GeocodingService({ indexDir: DEFAULT_INDEX_DIR, labels });
});
afterAll(() => {
  geo?.close();
  mirrored?.close();
  catalog?.close();
  removeTempDirs();
});

test('a street from the labels is found by name, with its gazetteer context and the OSM attribution', () => {
  const fc = geo.forward('Market Street', { ...forward, types: ['road'] });
  expect(fc.features.map((f) => [f.id, f.text, f.place_type[0]])).toEqual([[idOf('Market Street', 'road'), 'Market Street', 'road']]);
  expect(fc.features[0].context?.map((c) => c.text)).toEqual(['San Francisco', 'California', 'United States']);
  expect(fc.features[0].properties).toMatchObject({ country_code: 'us', kind: 'road' });
  expect(fc.attribution).toContain('OpenStreetMap');
  // Without labels answering, no OSM attribution
  expect(geo.forward('Paris', forward).attribution).not.toContain('OpenStreetMap');
});

test('a category with a place name searches that category around the place', () => {
  labels.searches = [];
  const fc = geo.forward('cafe San Francisco', forward);
  expect(fc.features[0]).toMatchObject({ id: idOf('Blue Bottle Coffee', 'poi'), text: 'Blue Bottle Coffee', place_type: ['poi'], properties: { categories: ['cafe'] } });
  const bySearch = labels.searches.find((s) => s.categories?.includes('cafe'));
  expect(bySearch?.bbox?.[0]).toBeLessThan(-122.41);
  expect(bySearch?.bbox?.[2]).toBeGreaterThan(-122.41);
  // A bare category
  const zuni = idOf('Zuni Café', 'poi');
  expect(geo.forward('restaurant', forward).features.map((f) => f.id)).toContain(zuni);
  // Excluding poi turns the category off
  expect(geo.forward('restaurant', { ...forward, types: ['poi'], excludeTypes: true }).features.map((f) => f.id)).not.toContain(zuni);
});

test('a query a label holds word for word (the last word begun) is taken as spelled: no place of a close spelling beside it', () => {
  // "Bottle" is a word of Blue Bottle Coffee; "Market Stre" and "Market Street 9" are the street's words and its
  // house number's, the last one begun. Each answer then holds every word as typed (a prefix for the last); a place
  // found only by a typo (Battle, East Sussex, for "Bottle") would not.
  for (const query of ['Bottle', 'Market Stre', 'Market Street 9']) {
    const q = query.toLowerCase().split(' ');
    const fc = geo.forward(query, forward);
    expect(fc.features.length).toBeGreaterThan(0);
    for (const f of fc.features) {
      const have = `${f.address ?? ''} ${f.matching_text ?? f.text}`.toLowerCase().split(/[^a-z0-9]+/);
      const holds = q.every((w, i) => have.includes(w) || (i === q.length - 1 && have.some((h) => h.startsWith(w))));
      expect([query, f.place_name, holds]).toEqual([query, f.place_name, true]);
    }
  }
});

test('reverse: the nearest poi, address and road first, then place, region, country', () => {
  const fc = geo.reverse(-122.4077, 37.7824, { language: [] });
  expect(fc.features.map((f) => f.place_type[0])).toEqual(['poi', 'address', 'road', 'place', 'region', 'country']);
  const address = fc.features[1];
  expect([address.address, address.text, address.place_name.startsWith('Market Street 901')]).toEqual(['901', 'Market Street', true]);
  expect(fc.attribution).toContain('OpenStreetMap');
  const pois = geo.reverse(-122.4077, 37.7824, { language: [], types: ['poi'], limit: 5 });
  expect(pois.features.map((f) => f.id)).toEqual([idOf('Blue Bottle Coffee', 'poi')]);
});

test('by id: a label id answers the label; the forward route reads a known label id as an id', () => {
  expect(geo.byId(idOf('Market Street', 'road'), { language: ['es'] }).features.map((f) => [f.text, f.language])).toEqual([['Calle Market', 'es']]);
  const address = mirrored.search('Market Street 901', { prefix: false, fuzzy: false, limit: 5, types: ['address'] })[0];
  expect(address).toMatchObject({ tileset: TILESET, housenumber: '901', street: 'Market Street' });
  expect(geo.isLabelId(address.id)).toBe(true);
  // The tile holds four labels: a number far past them is no label.
  expect(geo.isLabelId(`${TILESET}.99`)).toBe(false);
});

test('regionAt (the RegionLookup handed to geolocation) names the country and ISO 3166-2 region, nothing at sea', () => {
  const { regionAt } = geo; // detached, as the geolocation service receives it
  expect(regionAt(13.4, 52.52)).toEqual({ countryCode: 'DE', countryName: 'Germany', regionCode: 'DE-BE', regionName: 'Berlin' });
  expect(regionAt(-122.42, 37.77)).toMatchObject({ countryCode: 'US', regionCode: 'US-CA', regionName: 'California' });
  expect(regionAt(-30, 0)).toBeUndefined();
});

test('regionAt answers undefined, not an error, when the gazetteer is not built', () => {
  const absent = new GeocodingService({ indexDir: tempDir('no-gazetteer-'), log: () => undefined });
  try {
    expect(absent.regionAt(13.4, 52.52)).toBeUndefined();
  } finally {
    absent.close();
  }
});
