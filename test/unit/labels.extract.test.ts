// Label extraction from real vector tiles. Expected values are read from the fixtures in the test itself with
// @mapbox/vector-tile (its own toGeoJSON does the projection), never from the extractor.
import fs from 'node:fs';
import path from 'node:path';
import Pbf from 'pbf';
import { VectorTile } from '@mapbox/vector-tile';
import { extractLabels, languageNames } from '../../src/services/geocoding/labels-extract';
import { textScore, words } from '../../src/services/geocoding/labels-text';
import { editDistance } from '../../src/services/geocoding/text';
import { convertCityTile, cityFixtureDir, cityTileAddresses } from '../../src/sample/city';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const vtpbf: { fromGeojsonVt(l: unknown, o: { version: number; extent: number }): Uint8Array } = require('vt-pbf');

const REAL = path.join(path.dirname(require.resolve('@mapbox/mvt-fixtures/package.json')), 'real-world');
const SF_DIR = path.join(REAL, 'sanfrancisco');
const ASTANA = cityTileAddresses();

function metres(a: [number, number], b: [number, number]): number {
  const x = (b[0] - a[0]) * Math.cos((a[1] * Math.PI) / 180);
  return Math.hypot(x, b[1] - a[1]) * 111_320;
}

interface Found {
  z: number;
  x: number;
  y: number;
  bytes: Buffer;
  props: Record<string, string | number>;
  geo: GeoJSON.Feature;
}

/**
 * The first feature of `layer` (over the given tiles, in order) satisfying `ok` whose first vertex lies in the
 * tile proper (not the buffer), with its GeoJSON as vector-tile computes it.
 */
function find(tiles: { z: number; x: number; y: number; bytes: Buffer }[], layer: string, ok: (p: Record<string, unknown>, type: number) => boolean): Found {
  for (const t of tiles) {
    const l = new VectorTile(new Pbf(t.bytes)).layers[layer];
    if (!l) continue;
    for (let i = 0; i < l.length; i++) {
      const f = l.feature(i);
      const [pt] = f.loadGeometry()[0];
      if (pt.x < 0 || pt.y < 0 || pt.x >= l.extent || pt.y >= l.extent) continue;
      if (ok(f.properties, f.type)) return { ...t, props: f.properties as Record<string, string | number>, geo: f.toGeoJSON(t.x, t.y, t.z) };
    }
  }
  throw new Error(`no such feature in ${layer}`);
}

const sfTiles = fs
  .readdirSync(SF_DIR)
  .sort()
  .map((name) => {
    const [z, x, y] = name.replace('.mvt', '').split('-').map(Number);
    return { z, x, y, bytes: fs.readFileSync(path.join(SF_DIR, name)) };
  });

describe('Mapbox Streets v7 tiles (San Francisco, z15)', () => {
  test('a POI keeps its name, languages, categories and position', () => {
    const f = find(sfTiles, 'poi_label', (p, t) => t === 1 && typeof p.name === 'string');
    const pos = (f.geo.geometry as GeoJSON.Point).coordinates as [number, number];
    const hit = extractLabels(f.bytes, f.z, f.x, f.y).find((l) => l.type === 'poi' && l.name === f.props.name && metres([l.lon, l.lat], pos) < 1);
    expect(hit).toBeDefined();
    expect(hit?.placeType).toBe('poi');
    expect(hit?.categories).toContain(String(f.props.type).toLowerCase().replace(/\s+/g, '_'));
    expect(hit?.categories).toContain(String(f.props.maki).replace(/-/g, '_')); // categories use OpenMapTiles' underscores
    expect(hit?.names.en).toBe(f.props.name_en);
    expect(hit?.names.ru).toBe(f.props.name_ru);
  });

  test('a road label becomes a road with its line, placed on it', () => {
    const f = find(sfTiles, 'road_label', (p, t) => t === 2 && typeof p.name === 'string');
    const roads = extractLabels(f.bytes, f.z, f.x, f.y).filter((l) => l.type === 'road' && l.name === f.props.name);
    expect(roads.length).toBeGreaterThan(0);
    const g = f.geo.geometry;
    const vertices = (g.type === 'LineString' ? g.coordinates : (g as GeoJSON.MultiLineString).coordinates.flat()) as [number, number][];
    const road = roads.find((r) => vertices.some((v) => metres([r.lon, r.lat], v) < 1));
    expect(road).toBeDefined();
    expect(road?.lines?.flat().length).toBeGreaterThan(1);
  });

  test('a peak is read from mountain_peak_label', () => {
    const f = find(sfTiles, 'mountain_peak_label', (p) => typeof p.name === 'string');
    const pos = (f.geo.geometry as GeoJSON.Point).coordinates as [number, number];
    const hit = extractLabels(f.bytes, f.z, f.x, f.y).find((l) => l.type === 'peak' && l.name === f.props.name);
    expect(hit && metres([hit.lon, hit.lat], pos)).toBeLessThan(1);
  });

  test('features of the buffer (outside the tile proper) are left to the neighbour tile', () => {
    const t = sfTiles[0];
    const l = new VectorTile(new Pbf(t.bytes)).layers.poi_label;
    let inside = 0;
    for (let i = 0; i < l.length; i++) {
      const [pt] = l.feature(i).loadGeometry()[0];
      if (pt.x >= 0 && pt.y >= 0 && pt.x < l.extent && pt.y < l.extent && l.feature(i).properties.name) inside++;
    }
    expect(l.length).toBeGreaterThan(inside); // the fixture does have buffer features
    expect(extractLabels(t.bytes, t.z, t.x, t.y).filter((x) => x.type === 'poi')).toHaveLength(inside);
  });
});

describe('OpenMapTiles layers (the sample city, from the OSM QA tiles of Astana)', () => {
  const raw = ASTANA.map((t) => ({ ...t, bytes: fs.readFileSync(t.file) }));
  const omt = (t: { z: number; x: number; y: number; bytes: Buffer }) =>
    extractLabels(Buffer.from(vtpbf.fromGeojsonVt(convertCityTile(t.bytes), { version: 2, extent: 4096 })), t.z, t.x, t.y);

  test('a house number of the raw OSM data is an address at its position', () => {
    const f = find(raw, 'osm', (p, t) => t === 1 && typeof p['addr:housenumber'] === 'string');
    const pos = (f.geo.geometry as GeoJSON.Point).coordinates as [number, number];
    const hit = omt(f).find((l) => l.type === 'address' && l.housenumber === f.props['addr:housenumber'] && metres([l.lon, l.lat], pos) < 5);
    expect(hit).toBeDefined();
    // As in OpenMapTiles, the housenumber layer carries no street: the index derives it.
    expect(hit?.street).toBeUndefined();
  });

  test('a named amenity is a POI with its OSM value as category', () => {
    const f = find(raw, 'osm', (p, t) => t === 1 && typeof p.amenity === 'string' && typeof p.name === 'string');
    const hit = omt(f).find((l) => l.type === 'poi' && l.name === f.props.name);
    expect(hit?.categories).toContain(String(f.props.amenity));
  });

  test('a named highway is a road', () => {
    const f = find(raw, 'osm', (p, t) => t === 2 && p.highway === 'residential' && typeof p.name === 'string');
    expect(omt(f).some((l) => l.type === 'road' && l.name === f.props.name)).toBe(true);
  });

  test('the fixture is where the tests expect it', () => {
    expect(fs.existsSync(cityFixtureDir())).toBe(true);
    expect(ASTANA).toHaveLength(16);
  });
});

describe('names and text', () => {
  test('languages from name:xx, name_xx and Mapbox Streets spellings', () => {
    expect(languageNames({ name: 'Zürich', 'name:de': 'Zürich', 'name:fr': 'Zurich', name_en: 'Zurich', 'name_zh-Hans': '苏黎世', name_int: 'x' })).toEqual({
      de: 'Zürich',
      fr: 'Zurich',
      en: 'Zurich',
      zh: '苏黎世',
    });
    // name:xx wins over name_xx
    expect(languageNames({ 'name:en': 'A', name_en: 'B' })).toEqual({ en: 'A' });
  });

  test('words are normalised (marks, case, punctuation)', () => {
    expect(words('Café  Zürich-Nord')).toEqual(['cafe', 'zurich', 'nord']);
    expect(words('переулок Камкалы, 12/4')).toEqual(['переулок', 'камкалы', '12', '4']);
  });

  test('edit distance counts a swap as one edit', () => {
    expect(editDistance('amsterdam', 'amsterdm')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('abcd', 'abdc')).toBe(1);
    expect(editDistance('abc', 'xyz', 1)).toBe(2);
  });

  test('text score: exact 1, prefix and typos lower, unmatched 0', () => {
    const o = { prefix: true, fuzzy: true };
    expect(textScore(['main', 'street'], ['main', 'street'], o)).toBe(1);
    expect(textScore(['main', 'str'], ['main', 'street'], o)).toBeCloseTo(0.95);
    expect(textScore(['mian', 'street'], ['main', 'street'], o)).toBeCloseTo(0.85);
    expect(textScore(['mian', 'street'], ['main', 'street'], { prefix: true, fuzzy: false })).toBeCloseTo(0.5);
    expect(textScore(['main'], ['main', 'street'], o)).toBeCloseTo(0.85);
    expect(textScore(['zzz'], ['main', 'street'], o)).toBe(0);
  });
});
