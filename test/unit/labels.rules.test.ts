// The pure rules of the label index not exercised through the sample city: street pieces merged into streets,
// place classes → Carmen place types, tile pixels → lon/lat, the typo budget, the category column, and which
// tile sets are worth indexing. Expected values are literal (Web Mercator corners, hand-made pieces).
import { MERGE_METERS, mergePieces } from '../../src/services/geocoding/labels-build';
import { categoryColumn } from '../../src/services/geocoding/labels-sql';
import { LABEL_LAYERS, placeTypeOf, tilePointToLonLat } from '../../src/services/geocoding/labels-extract';
import { mayHoldLabels } from '../../src/services/geocoding/labels-mirrored';
import { typoBudget } from '../../src/services/geocoding/labels-text';
import type { TilesetInfo, VectorLayer } from '../../src/store/types';

const M_PER_DEG_LAT = 111_320;

/** A straight east-west piece of street at `lat`, from `lon0` to `lon1`, with its vertices. */
function piece(lon0: number, lon1: number, lat: number, names: Record<string, string>, categories = '') {
  const coords: [number, number][] = [
    [lon0, lat],
    [(lon0 + lon1) / 2, lat],
    [lon1, lat],
  ];
  return { names: JSON.stringify(names), categories, minx: lon0, maxx: lon1, miny: lat, maxy: lat, coords: JSON.stringify(coords) };
}

describe('street pieces → streets', () => {
  // At the equator a degree of longitude is ~111.32 km, so gaps in metres convert directly.
  const gap = (m: number) => m / M_PER_DEG_LAT;

  test('pieces closer than MERGE_METERS are one street, with names and categories of all', () => {
    const a = piece(0, 0.002, 0, { de: 'Hauptstraße' }, '|primary|');
    const b = piece(0.002 + gap(MERGE_METERS / 2), 0.004, 0, { de: 'X', en: 'Main Street' }, '|secondary|');
    const streets = mergePieces([a, b]);
    expect(streets).toHaveLength(1);
    expect(streets[0].names).toEqual({ de: 'Hauptstraße', en: 'Main Street' }); // the first piece's name wins
    expect(streets[0].categories.split('|').filter(Boolean).sort()).toEqual(['primary', 'secondary']);
    // placed on a vertex of the road, the one nearest the middle of the whole extent (0.002 is a's end)
    expect([streets[0].lon, streets[0].lat]).toEqual([0.002, 0]);
  });

  test('pieces farther apart than MERGE_METERS stay two streets', () => {
    const a = piece(0, 0.002, 0, {});
    const b = piece(0.002 + gap(MERGE_METERS * 3), 0.004 + gap(MERGE_METERS * 3), 0, {});
    const streets = mergePieces([a, b]);
    expect(streets).toHaveLength(2);
    expect(streets.map((s) => s.lon).sort((x, y) => x - y)).toEqual([0.001, (0.002 + gap(MERGE_METERS * 3) + 0.004 + gap(MERGE_METERS * 3)) / 2]);
  });

  test('merging is transitive along a chain, and a far-north parallel piece stays apart', () => {
    const step = 0.002 + gap(MERGE_METERS / 3);
    const chain = [0, 1, 2, 3].map((i) => piece(i * step, i * step + 0.002, 0, {}));
    const north = piece(0.001, 0.003, gap(MERGE_METERS * 4), {});
    const sorted = [...chain, north].sort((p, q) => p.minx - q.minx);
    expect(mergePieces(sorted)).toHaveLength(2);
  });
});

test('place classes → Carmen place types', () => {
  expect(placeTypeOf('country')).toBe('country');
  expect(placeTypeOf('state')).toBe('region');
  expect(placeTypeOf('province')).toBe('region');
  expect(placeTypeOf('county')).toBe('county');
  expect(placeTypeOf('suburb')).toBe('locality');
  expect(placeTypeOf('neighborhood')).toBe('neighbourhood');
  expect(placeTypeOf('city')).toBe('place');
  expect(placeTypeOf(undefined)).toBe('place');
});

test('tile pixels → lon/lat (Web Mercator)', () => {
  expect(tilePointToLonLat(0, 0, 0, 4096, 2048, 2048)).toEqual([0, 0]);
  const [lon, lat] = tilePointToLonLat(1, 0, 0, 4096, 0, 0);
  expect(lon).toBe(-180);
  expect(lat).toBeCloseTo(85.0511287798, 9);
  const [lon2, lat2] = tilePointToLonLat(2, 3, 3, 4096, 4096, 4096);
  expect(lon2).toBe(180);
  expect(lat2).toBeCloseTo(-85.0511287798, 9);
});

test('typo budget by word length (letters, not UTF-16 units)', () => {
  expect(['zur', 'main', 'amsterd', 'amsterdm', 'новосибирск', '𝒜𝒜𝒜'].map(typoBudget)).toEqual([0, 1, 1, 2, 2, 0]);
});

test('category column is matched with LIKE "%|x|%"', () => {
  expect(categoryColumn([])).toBe('');
  expect(categoryColumn(['cafe'])).toBe('|cafe|');
  expect(categoryColumn(['restaurant', 'food'])).toBe('|restaurant|food|');
});

describe('which tile sets are indexed', () => {
  const info = (format: TilesetInfo['format'], layers?: string[]): TilesetInfo => ({
    kind: 'tiles',
    id: 't',
    name: 't',
    description: '',
    attribution: '',
    type: 'baselayer',
    format,
    minzoom: 0,
    maxzoom: 14,
    bounds: [-180, -85, 180, 85],
    center: [0, 0, 0],
    pyramids: [],
    vectorLayers: layers?.map((id): VectorLayer => ({ id, fields: {} })),
    version: '1',
  });

  test('vector tiles with a label layer (OpenMapTiles or Mapbox Streets), or with no layer list', () => {
    expect(mayHoldLabels(info('pbf', ['water', 'transportation_name']))).toBe(true);
    expect(mayHoldLabels(info('pbf', ['road', 'poi_label']))).toBe(true);
    expect(mayHoldLabels(info('pbf'))).toBe(true);
    expect(mayHoldLabels(info('pbf', []))).toBe(true);
  });

  test('not vector tiles without label layers, nor raster tiles', () => {
    expect(mayHoldLabels(info('pbf', ['water', 'landcover', 'building']))).toBe(false);
    expect(mayHoldLabels(info('png'))).toBe(false);
  });

  test('every layer the issue names is read', () => {
    for (const l of ['place', 'poi', 'housenumber', 'transportation_name', 'water_name', 'mountain_peak', 'aerodrome_label', 'park',
      'place_label', 'poi_label', 'road_label', 'housenum_label', 'mountain_peak_label']) {
      expect(LABEL_LAYERS).toContain(l);
    }
  });
});
