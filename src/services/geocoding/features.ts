// The response shape of the spec (Carmen / the cloud client's GeocodingFeature), built from gazetteer rows and label
// hits (pure: rows of the context chain are passed in).

import type { GazetteerRow, LabelHit } from './types';

export const PLACE_TYPES = [
  'continental_marine', 'country', 'major_landform', 'region', 'subregion', 'county', 'joint_municipality',
  'joint_submunicipality', 'municipality', 'municipal_district', 'locality', 'neighbourhood', 'place',
  'postal_code', 'address', 'road', 'poi',
] as const;
export type PlaceType = (typeof PLACE_TYPES)[number];

/** The place type of a gazetteer row (continents are answered as `major_landform`). */
export function placeTypeOf(row: GazetteerRow): PlaceType {
  return row.type === 'continent' ? 'major_landform' : row.type;
}

export type Geometry = { type: string; coordinates: unknown };

export interface Feature {
  id: string;
  type: 'Feature';
  text: string;
  language?: string;
  [field: `text_${string}` | `language_${string}` | `place_name_${string}`]: string;
  properties: Record<string, unknown>;
  geometry: Geometry;
  bbox: [number, number, number, number];
  center: [number, number];
  place_name: string;
  place_type: string[];
  place_type_name: string[];
  relevance: number;
  context?: Array<Record<string, unknown>>;
  address?: string;
  matching_text?: string;
  matching_place_name?: string;
}

export interface FeatureCollection {
  type: 'FeatureCollection';
  features: Feature[];
  query: string[];
  attribution: string;
}

export const GAZETTEER_ATTRIBUTION =
  '<a href="https://www.geonames.org/" target="_blank">&copy; GeoNames (CC BY 4.0)</a> ' +
  '<a href="https://www.naturalearthdata.com/" target="_blank">Natural Earth (public domain)</a>';

/** The name of a row in a language: its tagged name, else the default name. */
export function nameIn(row: GazetteerRow, lang: string | undefined): { text: string; language?: string } {
  if (lang && row.names[lang]) return { text: row.names[lang], language: lang };
  return { text: row.name };
}

const round = (v: number): number => Math.round(v * 1e6) / 1e6;

function idOf(row: GazetteerRow): string {
  return `${placeTypeOf(row)}.${row.id}`;
}

function kindOf(row: GazetteerRow): string | undefined {
  return row.type === 'place' ? 'place' : row.type === 'continent' ? undefined : 'admin_area';
}

/** Name fields of one row: `text`, `language`, and `text_xx`/`language_xx` for each requested language. */
function nameFields(row: GazetteerRow, languages: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const first = nameIn(row, languages[0]);
  out.text = first.text;
  if (first.language) out.language = first.language;
  if (languages.length > 1)
    for (const l of languages) {
      const n = nameIn(row, l);
      out[`text_${l}`] = n.text;
      if (n.language) out[`language_${l}`] = n.language;
    }
  return out;
}

function contextEntry(row: GazetteerRow, languages: readonly string[]): Record<string, unknown> {
  return {
    id: idOf(row),
    ...nameFields(row, languages),
    ref: row.ref,
    country_code: row.countryCode.toLowerCase(),
    ...(kindOf(row) ? { kind: kindOf(row) } : {}),
    ...(row.wikidata ? { wikidata: row.wikidata } : {}),
    place_designation: row.designation,
  };
}

/** The full label: the name, then the context's names, most specific first. */
function placeName(names: string[]): string {
  return names.filter((n, i) => n && n !== names[i - 1]).join(', ');
}

/**
 * A gazetteer row as a Feature. `chain` is its context (region, country), most specific first; `geometry` the full
 * geometry for by-id answers (a point at its center otherwise); `matched` the alternative name that matched the
 * query when it is not the name shown.
 */
export function gazetteerFeature(
  row: GazetteerRow,
  chain: GazetteerRow[],
  languages: readonly string[],
  opts: { relevance: number; matched?: string; geometry?: Geometry },
): Feature {
  const fields = nameFields(row, languages);
  const center: [number, number] = [round(row.lon), round(row.lat)];
  const feature: Feature = {
    id: idOf(row),
    type: 'Feature',
    text: fields.text,
    ...fields,
    properties: {
      ref: row.ref,
      country_code: row.countryCode.toLowerCase(),
      ...(kindOf(row) ? { kind: kindOf(row) } : {}),
      ...(row.wikidata ? { wikidata: row.wikidata } : {}),
      place_designation: row.designation,
      ...(row.population ? { population: row.population } : {}),
    },
    geometry: opts.geometry ?? { type: 'Point', coordinates: center },
    bbox: row.bbox.map(round) as [number, number, number, number],
    center,
    place_name: placeName([fields.text, ...chain.map((c) => nameIn(c, languages[0]).text)]),
    place_type: [placeTypeOf(row)],
    place_type_name: [row.designation],
    relevance: Math.round(opts.relevance * 1e4) / 1e4,
  };
  if (languages.length > 1)
    for (const l of languages) feature[`place_name_${l}`] = placeName([nameIn(row, l).text, ...chain.map((c) => nameIn(c, l).text)]);
  if (chain.length) feature.context = chain.map((c) => contextEntry(c, languages));
  if (opts.matched && opts.matched !== fields.text) {
    feature.matching_text = opts.matched;
    feature.matching_place_name = placeName([opts.matched, ...chain.map((c) => nameIn(c, languages[0]).text)]);
  }
  return feature;
}

/** A label of the mirrored tiles as a Feature; `chain` is the gazetteer context at its position. */
export function labelFeature(hit: LabelHit, chain: GazetteerRow[], languages: readonly string[], relevance: number): Feature {
  const lang = languages[0];
  const text = (lang && hit.names[lang]) || hit.name;
  const center: [number, number] = [round(hit.lon), round(hit.lat)];
  const country = chain.find((c) => c.type === 'country');
  const label = hit.housenumber ? `${hit.street ? `${hit.street} ` : ''}${hit.housenumber}` : text;
  const feature: Feature = {
    id: hit.id,
    type: 'Feature',
    text: hit.placeType === 'address' && hit.street ? hit.street : text,
    ...(lang && hit.names[lang] ? { language: lang } : {}),
    properties: {
      ref: `tiles:${hit.tileset}`,
      country_code: country ? country.countryCode.toLowerCase() : '',
      kind: hit.type === 'road' ? 'road' : hit.type === 'place' ? 'place' : undefined,
      ...(hit.categories.length ? { categories: hit.categories } : {}),
      place_designation: hit.categories[0] ?? hit.type,
    },
    geometry: { type: 'Point', coordinates: center },
    bbox: [center[0], center[1], center[0], center[1]],
    center,
    place_name: placeName([label, ...chain.map((c) => nameIn(c, lang).text)]),
    place_type: [hit.placeType],
    place_type_name: [hit.type],
    relevance: Math.round(relevance * 1e4) / 1e4,
  };
  if (feature.properties.kind === undefined) delete feature.properties.kind;
  if (hit.housenumber) feature.address = hit.housenumber;
  if (languages.length > 1)
    for (const l of languages) {
      feature[`text_${l}`] = hit.names[l] ?? hit.name;
      if (hit.names[l]) feature[`language_${l}`] = l;
    }
  if (chain.length) feature.context = chain.map((c) => contextEntry(c, languages));
  if (hit.matchedName && hit.matchedName !== feature.text) feature.matching_text = hit.matchedName;
  return feature;
}
