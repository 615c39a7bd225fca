// How the geocoder merges the labels of mirrored tiles (GEOCODE.md `LabelFinder`, built by another module) into
// forward, reverse and by-id answers. The label source here is a small in-test double of that interface (a list of
// San Francisco labels); the gazetteer is the real one.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_INDEX_DIR } from '../../src/config/load';
import { buildGazetteerIndex } from '../../src/services/geocoding/gazetteer-index';
import { GeocodingService } from '../../src/services/geocoding/service';
import type { LabelHit, LabelFinder } from '../../src/services/geocoding/types';

jest.setTimeout(240_000);

const LABELS: LabelHit[] = [
  { id: 'sf-streets.1', tileset: 'sf-streets', type: 'poi', placeType: 'poi', name: 'Blue Bottle Coffee', names: {}, categories: ['cafe'], lon: -122.4078, lat: 37.7823, score: 0 },
  { id: 'sf-streets.2', tileset: 'sf-streets', type: 'road', placeType: 'road', name: 'Market Street', names: { es: 'Calle Market' }, categories: [], lon: -122.4075, lat: 37.7825, score: 0 },
  { id: 'sf-streets.3', tileset: 'sf-streets', type: 'address', placeType: 'address', name: '901', names: {}, categories: [], housenumber: '901', street: 'Market Street', lon: -122.4079, lat: 37.7826, score: 0 },
  { id: 'sf-streets.4', tileset: 'sf-streets', type: 'poi', placeType: 'poi', name: 'Zuni Café', names: {}, categories: ['restaurant'], lon: -122.4216, lat: 37.7736, score: 0 },
];

const metres = (a: LabelHit, lon: number, lat: number): number => Math.hypot((a.lon - lon) * 88_000, (a.lat - lat) * 111_000);

/** Test double of the label source: substring search, categories and bbox filters, planar distances. */
class ListLabels implements LabelFinder {
  searches: Array<{ text: string; categories?: string[]; bbox?: number[] }> = [];
  search(text: string, opts: { bbox?: [number, number, number, number]; categories?: string[]; limit: number }): LabelHit[] {
    this.searches.push({ text, categories: opts.categories, bbox: opts.bbox });
    const t = text.toLowerCase();
    return LABELS.filter(
      (l) =>
        (!t || l.name.toLowerCase().includes(t) || `${l.street ?? ''} ${l.housenumber ?? ''}`.toLowerCase().includes(t)) &&
        (!opts.categories?.length || l.categories.some((c) => opts.categories?.includes(c))) &&
        (!opts.bbox || (l.lon >= opts.bbox[0] && l.lon <= opts.bbox[2] && l.lat >= opts.bbox[1] && l.lat <= opts.bbox[3])),
    )
      .map((l) => ({ ...l, score: t && l.name.toLowerCase() === t ? 1 : 0.8 }))
      .slice(0, opts.limit);
  }
  nearest(lon: number, lat: number, opts: { limit: number; maxMeters: number }): Array<LabelHit & { meters: number }> {
    return LABELS.map((l) => ({ ...l, meters: metres(l, lon, lat) }))
      .filter((l) => l.meters <= opts.maxMeters)
      .sort((a, b) => a.meters - b.meters)
      .slice(0, opts.limit);
  }
  byId(id: string): LabelHit | undefined {
    return LABELS.find((l) => l.id === id);
  }
  attribution(): string[] {
    return ['© OpenStreetMap contributors (ODbL)'];
  }
}

let labels: ListLabels;
let geo: GeocodingService;
const forward = { language: [], limit: 5, fuzzyMatch: true, autocomplete: true };

beforeAll(async () => {
  await buildGazetteerIndex(DEFAULT_INDEX_DIR);
  labels = new ListLabels();
  geo = new GeocodingService({ indexDir: DEFAULT_INDEX_DIR, labels });
});
afterAll(() => geo.close());

test('a street from the labels is found by name, with its gazetteer context and the OSM attribution', () => {
  const fc = geo.forward('Market Street', { ...forward, types: ['road'] });
  expect(fc.features.map((f) => [f.id, f.text, f.place_type[0]])).toEqual([['sf-streets.2', 'Market Street', 'road']]);
  expect(fc.features[0].context?.map((c) => c.text)).toEqual(['San Francisco', 'California', 'United States']);
  expect(fc.features[0].properties).toMatchObject({ country_code: 'us', kind: 'road' });
  expect(fc.attribution).toContain('OpenStreetMap');
  // Without labels answering, no OSM attribution
  expect(geo.forward('Paris', forward).attribution).not.toContain('OpenStreetMap');
});

test('a category with a place name searches that category around the place', () => {
  labels.searches = [];
  const fc = geo.forward('cafe San Francisco', forward);
  expect(fc.features[0]).toMatchObject({ id: 'sf-streets.1', text: 'Blue Bottle Coffee', place_type: ['poi'], properties: { categories: ['cafe'] } });
  const bySearch = labels.searches.find((s) => s.categories?.includes('cafe'));
  expect(bySearch?.bbox?.[0]).toBeLessThan(-122.41);
  expect(bySearch?.bbox?.[2]).toBeGreaterThan(-122.41);
  // A bare category
  expect(geo.forward('restaurant', forward).features.map((f) => f.id)).toContain('sf-streets.4');
  // Excluding poi turns the category off
  expect(geo.forward('restaurant', { ...forward, types: ['poi'], excludeTypes: true }).features.map((f) => f.id)).not.toContain('sf-streets.4');
});

test('reverse: the nearest poi, address and road first, then place, region, country', () => {
  const fc = geo.reverse(-122.4077, 37.7824, { language: [] });
  expect(fc.features.map((f) => f.place_type[0])).toEqual(['poi', 'address', 'road', 'place', 'region', 'country']);
  const address = fc.features[1];
  expect([address.address, address.text, address.place_name.startsWith('Market Street 901')]).toEqual(['901', 'Market Street', true]);
  expect(fc.attribution).toContain('OpenStreetMap');
  const pois = geo.reverse(-122.4077, 37.7824, { language: [], types: ['poi'], limit: 5 });
  expect(pois.features.map((f) => f.id)).toEqual(['sf-streets.1']);
});

test('by id: a label id answers the label; the forward route reads a known label id as an id', () => {
  expect(geo.byId('sf-streets.2', { language: ['es'] }).features.map((f) => [f.text, f.language])).toEqual([['Calle Market', 'es']]);
  expect(geo.isLabelId('sf-streets.3')).toBe(true);
  expect(geo.isLabelId('sf-streets.99')).toBe(false);
});

test('regionAt (the RegionLookup handed to geolocation) names the country and ISO 3166-2 region, nothing at sea', () => {
  const { regionAt } = geo; // detached, as the geolocation service receives it
  expect(regionAt(13.4, 52.52)).toEqual({ countryCode: 'DE', countryName: 'Germany', regionCode: 'DE-BE', regionName: 'Berlin' });
  expect(regionAt(-122.42, 37.77)).toMatchObject({ countryCode: 'US', regionCode: 'US-CA', regionName: 'California' });
  expect(regionAt(-30, 0)).toBeUndefined();
});

test('regionAt answers undefined, not an error, when the gazetteer is not built', () => {
  const dir = mkdtempSync(join(tmpdir(), 'no-gazetteer-'));
  const absent = new GeocodingService({ indexDir: dir, log: () => undefined });
  try {
    expect(absent.regionAt(13.4, 52.52)).toBeUndefined();
  } finally {
    absent.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
