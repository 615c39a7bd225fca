// The pure parts of the coordinates search's ranking: the usage weight's terms, how an area of use fits a
// country, and the words the search folds (usage-weight.ts, place-words.ts).

import { countriesNamedIn, countryVocabulary, fold, words } from '../../src/services/coordinates/place-words';
import { countryFit, scopeFactor, usageWeight, type WeightInput } from '../../src/services/coordinates/usage-weight';

const base: WeightInput = { kind: 'CRS-PROJCRS', code: 1, deprecated: false, area: 10, aliases: 0, compounds: 0, scopes: ['Topographic mapping.'], datum: 10 };

describe('usage weight', () => {
  test('each registry signal raises it: datum references, area, height systems paired, aliases, an everyday scope', () => {
    const w = usageWeight(base);
    for (const more of [{ datum: 100 }, { area: 1000 }, { compounds: 2 }, { aliases: 3 }, { scopes: ['Cadastre, GIS.'] }]) {
      expect([more, usageWeight({ ...base, ...more }) > w]).toEqual([more, true]);
    }
  });

  test('projected before geographic 2D before geocentric; deprecated and axis-order variants lower', () => {
    const projected = usageWeight(base);
    const geographic = usageWeight({ ...base, kind: 'CRS-GEOGCRS' });
    const geocentric = usageWeight({ ...base, kind: 'CRS-GCENCRS' });
    expect(projected).toBeGreaterThan(geographic);
    expect(geographic).toBeGreaterThan(geocentric);
    expect(usageWeight({ ...base, deprecated: true })).toBeLessThan(projected);
    expect(usageWeight({ ...base, variant: true })).toBeLessThan(projected);
  });

  test('a narrow scope (oil and gas, not known) counts less than a general one, the best usage counts', () => {
    expect(scopeFactor(['Oil and gas exploration.'])).toBeLessThan(scopeFactor(['Engineering survey.']));
    expect(scopeFactor(['Oil and gas exploration.', 'Cadastre.'])).toBe(scopeFactor(['Cadastre.']));
    expect(scopeFactor([])).toBe(1);
  });
});

describe('country fit', () => {
  const swiss = { west: 5.96, south: 45.82, east: 10.49, north: 47.81 };
  test('an area that is the country fits 1; half of it about a half; one of many countries little', () => {
    expect(countryFit(swiss, swiss, [swiss])).toBeCloseTo(1, 6);
    const westHalf = { ...swiss, east: (swiss.west + swiss.east) / 2 };
    expect(countryFit(westHalf, swiss, [swiss])).toBeCloseTo(0.5, 1);
    const europe = { west: -10, south: 35, east: 30, north: 70 };
    const others = [{ west: -5, south: 42, east: 8, north: 51 }, { west: 6, south: 47, east: 15, north: 55 }, { west: 7, south: 37, east: 18, north: 47 }];
    expect(countryFit(europe, swiss, [swiss, ...others])).toBeLessThan(0.01);
  });

  test('an area over the antimeridian is measured on both sides; an area elsewhere fits 0', () => {
    const fiji = { west: 176, south: -20, east: -178, north: -12 };
    expect(countryFit(fiji, fiji, [fiji])).toBeCloseTo(1, 6);
    expect(countryFit({ west: 100, south: 0, east: 110, north: 10 }, swiss, [])).toBe(0);
  });

  test('without the country box: one over the countries named', () => {
    expect(countryFit(swiss, undefined, [undefined, undefined])).toBe(0.5);
  });
});

describe('words', () => {
  test('folded without diacritics, ß as ss, split at anything not a letter or digit', () => {
    expect(fold('Gauß-Krüger Ærø Łódź')).toBe('gauss-kruger aero lodz');
    expect(words('DHDN / 3-degree Gauss-Kruger zone 4')).toEqual(['dhdn', '3', 'degree', 'gauss', 'kruger', 'zone', '4']);
  });

  test('country names in other languages and English adjectives lead to the ISO code', () => {
    const v = countryVocabulary();
    for (const [word, iso] of [['schweiz', 'CH'], ['swiss', 'CH'], ['dutch', 'NL'], ['nederland', 'NL'], ['osterreich', 'AT'], ['日本', 'JP']]) {
      expect([word, v.get(word)?.has(iso)]).toEqual([word, true]);
    }
  });

  test('the countries an EPSG area text names, the longest name first', () => {
    expect(countriesNamedIn('Liechtenstein; Switzerland.').sort()).toEqual(['CH', 'LI']);
    expect(countriesNamedIn('Papua New Guinea - onshore.')).toEqual(['PG']);
    expect(countriesNamedIn('United States (USA) - New Mexico.')).toEqual(['US']);
  });
});
