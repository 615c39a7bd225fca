// ISO 639-1 language codes (the list of countries-list: every two-letter code).

import { languages } from 'countries-list';

const CODES = new Set(Object.keys(languages));

export function isLanguageCode(code: string): boolean {
  return CODES.has(code);
}
