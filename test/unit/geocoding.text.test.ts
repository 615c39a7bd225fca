import { gazetteerFeature } from '../../src/services/geocoding/features';
import { placeImportance } from '../../src/services/geocoding/gazetteer-index';
import { contains, decodePolygon, encodePolygon, polygonCoordinates, representativePoint, storedContains } from '../../src/services/geocoding/polygons';
import { maxTypos, proximityFactor, rankScore, textScore } from '../../src/services/geocoding/ranking';
import { classifyQuery, languagesFromHeader } from '../../src/services/geocoding/service';
import { editDistance, normalize } from '../../src/services/geocoding/text';
import type { GazetteerRow } from '../../src/services/geocoding/types';

describe('normalize', () => {
  test.each([
    ['Sant Julià de Lòria', 'sant julia de loria'],
    ['München', 'munchen'],
    ['Straße', 'strasse'],
    ['  Saint-Denis, (Réunion) ', 'saint denis reunion'],
    ['Москва', 'москва'],
    ['北京', '北京'],
  ])('%s → %s', (input, out) => expect(normalize(input)).toBe(out));
});

describe('editDistance (transposition counts one)', () => {
  test.each([
    ['amsterdam', 'amsterdm', 1],
    ['madrid', 'madird', 1],
    ['frankfurt', 'frankfrut', 1],
    ['kitten', 'sitting', 3],
    ['paris', 'paris', 0],
  ])('%s / %s = %d', (a, b, d) => expect(editDistance(a, b, 3)).toBe(d));
  test('gives up past max', () => expect(editDistance('abcdefgh', 'zzzzzzzz', 2)).toBe(3));
});

describe('textScore', () => {
  const on = { prefix: true, fuzzy: true };
  const off = { prefix: false, fuzzy: false };
  test('exact beats prefix beats later word beats typo', () => {
    expect(textScore('paris', 'paris', on)).toBe(1);
    expect(textScore('amsterdam', 'amsterd', on)).toBeCloseTo(0.75 + (0.2 * 7) / 9);
    expect(textScore('new york city', 'york', on)).toBeCloseTo(0.6 + (0.2 * 4) / 13);
    expect(textScore('amsterdam', 'amsterdm', on)).toBeCloseTo(0.76);
  });
  test('autocomplete off: a partial last word does not match; fuzzy off: a typo does not', () => {
    expect(textScore('amsterdam', 'amsterd', off)).toBe(0);
    expect(textScore('amsterdam', 'amsterdm', { prefix: true, fuzzy: false })).toBe(0);
    expect(textScore('new york', 'new', off)).toBeCloseTo(0.75 + (0.2 * 3) / 8);
  });
  test('short queries tolerate no typo', () => {
    expect(maxTypos(3)).toBe(0);
    expect(textScore('rome', 'rom', { prefix: false, fuzzy: true })).toBe(0);
  });
  test('rank: text first, then importance, then proximity', () => {
    expect(rankScore(1, 0.5)).toBeGreaterThan(rankScore(0.8, 1));
    expect(rankScore(1, 0.9)).toBeGreaterThan(rankScore(1, 0.5));
    expect(proximityFactor(0)).toBe(1);
    expect(proximityFactor(1e7)).toBeCloseTo(0.15);
    expect(placeImportance(2_100_000, 'PPLC')).toBeGreaterThan(placeImportance(25_000, 'PPL'));
  });
});

describe('languagesFromHeader', () => {
  test.each([
    ['de-CH,de;q=0.9,fr;q=0.8,en;q=0.7', ['de', 'fr', 'en']],
    ['en;q=0.1, it', ['it', 'en']],
    ['*', []],
    ['fr;q=0', []],
    ['', []],
  ])('%s', (header, out) => expect(languagesFromHeader(header)).toEqual(out));
});

describe('classifyQuery (batch items)', () => {
  test.each([
    ['2.35,48.86', { kind: 'reverse', lon: 2.35, lat: 48.86 }],
    ['-74,40.7', { kind: 'reverse', lon: -74, lat: 40.7 }],
    ['country.12', { kind: 'id', id: 'country.12' }],
    ['place.7', { kind: 'id', id: 'place.7' }],
    ['v1.2', { kind: 'forward', text: 'v1.2' }],
    ['Paris', { kind: 'forward', text: 'Paris' }],
  ])('%s', (q, out) => expect(classifyQuery(q)).toEqual(out));
  test('a label id is an id when the label source knows it', () => {
    expect(classifyQuery('streets.4', (id) => id === 'streets.4')).toEqual({ kind: 'id', id: 'streets.4' });
  });
});

describe('polygons', () => {
  const square = [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]], [[4, 4], [6, 4], [6, 6], [4, 6], [4, 4]]];
  test('point in polygon honours holes, stored (Float32) or not', () => {
    const stored = (() => {
      const e = encodePolygon(square);
      return decodePolygon(e.rings, e.coords);
    })();
    for (const [x, y, inside] of [[1, 1, true], [5, 5, false], [11, 5, false], [9.9, 9.9, true]] as const) {
      expect([x, y, contains(square, x, y)]).toEqual([x, y, inside]);
      expect([x, y, storedContains(stored, x, y)]).toEqual([x, y, inside]);
    }
    expect(polygonCoordinates(stored)).toEqual(square);
  });
  test('representative point: centroid of the largest part', () => {
    const small = [[[100, 0], [101, 0], [101, 1], [100, 1], [100, 0]]];
    expect(representativePoint([small, [square[0]]])).toEqual([5, 5]);
  });
});

describe('feature shape', () => {
  const country: GazetteerRow = {
    id: 7, type: 'country', name: 'Switzerland', names: { de: 'Schweiz', fr: 'Suisse' }, countryCode: 'CH', countryId: null, regionId: null,
    lon: 8.2, lat: 46.8, bbox: [5.9, 45.8, 10.5, 47.8], population: 0, importance: 1, ref: 'iso3166-1:CH', wikidata: null, designation: 'country', regionCode: null,
  };
  const place: GazetteerRow = { ...country, id: 9, type: 'place', name: 'Zürich', names: {}, countryId: 7, lon: 8.55, lat: 47.37, bbox: [8.55, 47.37, 8.55, 47.37], population: 341730, importance: 0.8, ref: 'geonames:2657896', designation: 'city' };
  test('fields of the spec, languages, context and matching text', () => {
    const f = gazetteerFeature(place, [country], ['de', 'fr'], { relevance: 0.95, matched: 'Zurich' });
    expect(f).toEqual({
      id: 'place.9',
      type: 'Feature',
      text: 'Zürich',
      text_de: 'Zürich',
      text_fr: 'Zürich',
      properties: { ref: 'geonames:2657896', country_code: 'ch', kind: 'place', place_designation: 'city', population: 341730 },
      geometry: { type: 'Point', coordinates: [8.55, 47.37] },
      bbox: [8.55, 47.37, 8.55, 47.37],
      center: [8.55, 47.37],
      place_name: 'Zürich, Schweiz',
      place_name_de: 'Zürich, Schweiz',
      place_name_fr: 'Zürich, Suisse',
      place_type: ['place'],
      place_type_name: ['city'],
      relevance: 0.95,
      context: [{ id: 'country.7', text: 'Schweiz', language: 'de', text_de: 'Schweiz', language_de: 'de', text_fr: 'Suisse', language_fr: 'fr', ref: 'iso3166-1:CH', country_code: 'ch', kind: 'admin_area', place_designation: 'country' }],
      matching_text: 'Zurich',
      matching_place_name: 'Zurich, Schweiz',
    });
  });
});
