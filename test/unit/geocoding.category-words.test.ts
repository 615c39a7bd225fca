// src/services/geocoding/category-words.ts: the words of a query that name a POI category, normalised as the
// query's tokens are (text.ts), in English (the OpenMapTiles class names) and in other languages.

import { categoryOf } from '../../src/services/geocoding/category-words';
import { normalize } from '../../src/services/geocoding/text';

test.each([
  ['cafe', 'cafe'],
  ['Café', 'cafe'],
  ['Pharmacie', 'pharmacy'],
  ['Apotheke', 'pharmacy'],
  ['аптека', 'pharmacy'],
  ['École', 'school'],
  ['Hôtel', 'hotel'],
  ['Tankstelle', 'fuel'],
  ['banque', 'bank'],
  ['fuel', 'fuel'],
])('%s names the class %s', (word, cls) => {
  expect(categoryOf(normalize(word))).toBe(cls);
});

test.each(['rue', 'main', 'street', 'paris', '3'])('%s names no category', (word) => {
  expect(categoryOf(normalize(word))).toBeUndefined();
});
