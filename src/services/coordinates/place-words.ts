// Countries in the coordinates search: the words people use for a country that a registry's area of use does not
// contain (names in 78 languages from i18n-iso-countries, English adjectives: "swiss", "dutch"), each leading to ISO
// 3166 codes; which countries an EPSG area-of-use description names (its English country names); and each
// country's main-land box (Natural Earth). Used when the coordinates index is built (search-tables.ts), so that
// "schweiz" or "swiss" finds the CRS whose area is "Liechtenstein; Switzerland." and ranks it by how well it fits.

import type { MultiPolygon, Polygon, Position } from 'geojson';
import type { GeometryCollection, Topology } from 'topojson-specification';
import type { Box } from './usage-weight';

// The country names of every language (i18n-iso-countries, ~0.6 MB of tables) and topojson-client are needed only
// to build the index; the server's search reaches this file for `words` alone, so they are required on first use.
type Countries = typeof import('i18n-iso-countries');
let countryNames: Countries | undefined;
const countries = (): Countries => (countryNames ??= require('i18n-iso-countries') as Countries);

/** Letters NFKD does not decompose, as they are written without them ("Gauß" → "gauss", "Łódź" → "lodz"). */
const PLAIN: Readonly<Record<string, string>> = { ß: 'ss', ø: 'o', ł: 'l', đ: 'd', æ: 'ae', œ: 'oe', ı: 'i', þ: 'th' };

/** Lower case without diacritics ("Krüger" → "kruger"). */
export function fold(s: string): string {
  return s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[ßøłđæœıþ]/g, (c) => PLAIN[c]);
}

/** The words the search matches: folded, split at anything not a letter or digit. */
export function words(text: string): string[] {
  return fold(text).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/**
 * English adjectives of country names, by ISO 3166-1 code: the words "swiss maps" or "dutch grid" use. Adjectives
 * shared by two countries (dominican, congolese, korean, guinean) lead to both.
 */
const ADJECTIVES: Readonly<Record<string, string>> = {
  AF: 'afghan', AL: 'albanian', DZ: 'algerian', AD: 'andorran', AO: 'angolan', AG: 'antiguan barbudan', AR: 'argentine argentinian',
  AM: 'armenian', AU: 'australian', AT: 'austrian', AZ: 'azerbaijani', BS: 'bahamian', BH: 'bahraini', BD: 'bangladeshi',
  BB: 'barbadian', BY: 'belarusian', BE: 'belgian', BZ: 'belizean', BJ: 'beninese', BT: 'bhutanese', BO: 'bolivian',
  BA: 'bosnian herzegovinian', BW: 'botswanan', BR: 'brazilian', BN: 'bruneian', BG: 'bulgarian', BF: 'burkinabe', BI: 'burundian',
  CV: 'cabo-verdean', KH: 'cambodian', CM: 'cameroonian', CA: 'canadian', CF: 'centrafrican', TD: 'chadian', CL: 'chilean',
  CN: 'chinese', CO: 'colombian', KM: 'comoran', CG: 'congolese', CD: 'congolese', CR: 'costarican', CI: 'ivorian', HR: 'croatian',
  CU: 'cuban', CY: 'cypriot', CZ: 'czech', DK: 'danish', DJ: 'djiboutian', DM: 'dominican', DO: 'dominican', EC: 'ecuadorian',
  EG: 'egyptian', SV: 'salvadoran', GQ: 'equatoguinean', ER: 'eritrean', EE: 'estonian', SZ: 'swazi', ET: 'ethiopian', FJ: 'fijian',
  FI: 'finnish', FR: 'french', GA: 'gabonese', GM: 'gambian', GE: 'georgian', DE: 'german', GH: 'ghanaian', GR: 'greek hellenic',
  GD: 'grenadian', GT: 'guatemalan', GN: 'guinean', GW: 'guinean', GY: 'guyanese', HT: 'haitian', HN: 'honduran', HU: 'hungarian',
  IS: 'icelandic', IN: 'indian', ID: 'indonesian', IR: 'iranian persian', IQ: 'iraqi', IE: 'irish', IL: 'israeli', IT: 'italian',
  JM: 'jamaican', JP: 'japanese', JO: 'jordanian', KZ: 'kazakh kazakhstani', KE: 'kenyan', KI: 'kiribati', KP: 'korean',
  KR: 'korean', KW: 'kuwaiti', KG: 'kyrgyz', LA: 'lao laotian', LV: 'latvian', LB: 'lebanese', LS: 'basotho', LR: 'liberian',
  LY: 'libyan', LI: 'liechtensteiner', LT: 'lithuanian', LU: 'luxembourgish', MG: 'malagasy', MW: 'malawian', MY: 'malaysian',
  MV: 'maldivian', ML: 'malian', MT: 'maltese', MH: 'marshallese', MR: 'mauritanian', MU: 'mauritian', MX: 'mexican',
  FM: 'micronesian', MD: 'moldovan', MC: 'monegasque', MN: 'mongolian', ME: 'montenegrin', MA: 'moroccan', MZ: 'mozambican',
  MM: 'burmese', NA: 'namibian', NR: 'nauruan', NP: 'nepali nepalese', NL: 'dutch holland', NZ: 'kiwi', NI: 'nicaraguan',
  NE: 'nigerien', NG: 'nigerian', MK: 'macedonian', NO: 'norwegian', OM: 'omani', PK: 'pakistani', PW: 'palauan',
  PS: 'palestinian', PA: 'panamanian', PG: 'papuan', PY: 'paraguayan', PE: 'peruvian', PH: 'filipino philippine', PL: 'polish',
  PT: 'portuguese', QA: 'qatari', RO: 'romanian', RU: 'russian', RW: 'rwandan', KN: 'kittitian nevisian', LC: 'lucian',
  VC: 'vincentian', WS: 'samoan', SM: 'sammarinese', ST: 'santomean', SA: 'saudi', SN: 'senegalese', RS: 'serbian',
  SC: 'seychellois', SL: 'sierraleonean', SG: 'singaporean', SK: 'slovak', SI: 'slovenian slovene', SB: 'solomon', SO: 'somali',
  ZA: 'southafrican', SS: 'southsudanese', ES: 'spanish', LK: 'srilankan', SD: 'sudanese', SR: 'surinamese', SE: 'swedish',
  CH: 'swiss', SY: 'syrian', TW: 'taiwanese', TJ: 'tajik tajikistani', TZ: 'tanzanian', TH: 'thai', TL: 'timorese', TG: 'togolese',
  TO: 'tongan', TT: 'trinidadian tobagonian', TN: 'tunisian', TR: 'turkish', TM: 'turkmen', TV: 'tuvaluan', UG: 'ugandan',
  UA: 'ukrainian', AE: 'emirati', GB: 'british english scottish welsh', US: 'american', UY: 'uruguayan', UZ: 'uzbek',
  VU: 'vanuatuan', VE: 'venezuelan', VN: 'vietnamese', YE: 'yemeni', ZM: 'zambian', ZW: 'zimbabwean', GL: 'greenlandic',
  FO: 'faroese', PR: 'puertorican', HK: 'hongkonger', MO: 'macanese', NC: 'caledonian', PF: 'tahitian', RE: 'reunionese',
};

/** Country names as EPSG's area descriptions spell them where i18n-iso-countries spells them otherwise. */
const EPSG_SPELLINGS: Readonly<Record<string, string>> = {
  SY: 'Syria', MD: 'Moldova', LA: 'Laos', FM: 'Micronesia', VA: 'Vatican City State', BN: 'Brunei', CD: 'Congo DR',
  BQ: 'Bonaire', FK: 'Falkland Islands', VI: 'US Virgin Islands', VG: 'British Virgin Islands', SX: 'Sint Maarten',
  MK: 'Macedonia', KR: 'Korea', MO: 'Macau', SH: 'St Helena', KN: 'St Kitts and Nevis', LC: 'St Lucia',
  VC: 'St Vincent and the Grenadines', PM: 'St Pierre and Miquelon', BL: 'St Barthelemy', MF: 'St Martin',
};

/** Names in a description that are not the country they spell (US states, a part of the UK). */
const NOT_COUNTRIES: readonly [RegExp, string][] = [
  [/\bNew (?:Mexico|Jersey)\b/g, ''],
  [/\b(?:count(?:y|ies)|parish(?:es)?|municipalit(?:y|ies)|districts?) of\b[^.]*/g, ''],
  [/\bNorthern Ireland\b/g, 'United Kingdom'],
  [/\bRepublic of China\b/g, ''],
];

/** Every word or phrase (folded) that names a country, with the ISO codes it names. */
export function countryVocabulary(): Map<string, Set<string>> {
  const vocabulary = new Map<string, Set<string>>();
  const add = (word: string, iso: string): void => {
    const w = words(word).join(' ');
    if (w.length < 2) return;
    const set = vocabulary.get(w) ?? new Set<string>();
    set.add(iso);
    vocabulary.set(w, set);
  };
  for (const lang of countries().langs()) {
    for (const [iso, names] of Object.entries(countries().getNames(lang, { select: 'all' }))) for (const n of names) add(n, iso);
  }
  for (const [iso, adjectives] of Object.entries(ADJECTIVES)) for (const a of adjectives.split(' ')) add(a, iso);
  for (const [iso, n] of Object.entries(EPSG_SPELLINGS)) add(n, iso);
  return vocabulary;
}

let englishNames: { name: string; iso: string; re: RegExp }[] | undefined;

/** The ISO codes of the countries an area-of-use text names (English names, the longest first: Papua New Guinea, not Guinea). */
export function countriesNamedIn(text: string): string[] {
  if (!englishNames) {
    const list: { name: string; iso: string }[] = [];
    for (const [iso, names] of Object.entries(countries().getNames('en', { select: 'all' }))) {
      for (const name of names) if (name.length >= 4 && !/[(),]/.test(name)) list.push({ name, iso });
    }
    for (const [iso, name] of Object.entries(EPSG_SPELLINGS)) list.push({ name, iso });
    list.sort((a, b) => b.name.length - a.name.length);
    englishNames = list.map((n) => ({ ...n, re: new RegExp(`(?<![\\p{L}])${n.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}])`, 'gu') }));
  }
  let rest = text;
  for (const [re, by] of NOT_COUNTRIES) rest = rest.replace(re, by);
  const found = new Set<string>();
  for (const n of englishNames) {
    if (!rest.includes(n.name)) continue;
    const next = rest.replace(n.re, ' ');
    if (next !== rest) {
      found.add(n.iso);
      rest = next;
    }
  }
  return [...found];
}

/**
 * The box of each country's main land (ISO 3166-1 alpha-2 → box): from Natural Earth's 1:50m countries
 * (world-atlas), the bounding box of its largest polygon and of the polygons at least a tenth its size within 3° of
 * it. So France is mainland France and Corsica, not French Guiana; Norway is its mainland, not Svalbard (ISO SJ);
 * New Zealand is its two main islands. A registry area of use is measured against it (usage-weight.ts, countryFit).
 */
export function countryBoxes(): Map<string, Box> {
  // Required lazily: only the index build needs the 50m data.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const world = require('world-atlas/countries-50m.json') as Topology<{ countries: GeometryCollection }>;
  const { feature } = require('topojson-client') as typeof import('topojson-client');
  const polygons = new Map<string, Position[][][]>();
  for (const f of feature(world, world.objects.countries).features) {
    const iso = f.id === undefined ? undefined : countries().numericToAlpha2(String(f.id));
    if (!iso || !f.geometry) continue;
    const g = f.geometry as Polygon | MultiPolygon;
    const list = polygons.get(iso) ?? [];
    list.push(...(g.type === 'Polygon' ? [g.coordinates] : g.coordinates));
    polygons.set(iso, list);
  }
  const boxes = new Map<string, Box>();
  for (const [iso, polys] of polygons) {
    const parts = polys.map((p) => {
      const ring = p[0];
      const xs = ring.map((c) => c[0]);
      const ys = ring.map((c) => c[1]);
      return { area: ringArea(ring), west: Math.min(...xs), east: Math.max(...xs), south: Math.min(...ys), north: Math.max(...ys) };
    });
    const main = parts.reduce((a, b) => (b.area > a.area ? b : a));
    const gap = (p: Box): number => Math.max(p.west - main.east, main.west - p.east, p.south - main.north, main.south - p.north);
    const kept = parts.filter((p) => p.area >= main.area * 0.1 && gap(p) <= 3);
    const box: Box = {
      west: Math.min(...kept.map((p) => p.west)),
      east: Math.max(...kept.map((p) => p.east)),
      south: Math.min(...kept.map((p) => p.south)),
      north: Math.max(...kept.map((p) => p.north)),
    };
    if (box.east - box.west > 180) {
      // Parts on both sides of the antimeridian: the box crosses it.
      const east = kept.filter((p) => p.west > 0);
      const west = kept.filter((p) => p.east <= 0);
      box.west = east.length ? Math.min(...east.map((p) => p.west)) : -180;
      box.east = west.length ? Math.max(...west.map((p) => p.east)) : 180;
    }
    boxes.set(iso, box);
  }
  return boxes;
}

/** A ring's area on the sphere, in km² (the spherical-excess approximation d3-geo also uses for small rings). */
function ringArea(ring: Position[]): number {
  const rad = Math.PI / 180;
  let a = 0;
  for (let i = 0; i < ring.length; i++) {
    const [x1, y1] = ring[i];
    const [x2, y2] = ring[(i + 1) % ring.length];
    a += (x2 - x1) * rad * (2 + Math.sin(y1 * rad) + Math.sin(y2 * rad));
  }
  return (Math.abs(a) * 6378.137 ** 2) / 2;
}
