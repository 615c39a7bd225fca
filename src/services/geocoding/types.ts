// Shapes shared by the gazetteer, the geocoding service and the services injected into it (GEOCODE.md contracts).

/** Country and first-level region at a point (point-in-polygon over Natural Earth admin-0/admin-1). */
export interface RegionAt {
  countryCode: string;
  countryName: string;
  /** ISO 3166-2 */
  regionCode?: string;
  regionName?: string;
}
export type RegionLookup = (lon: number, lat: number) => RegionAt | undefined;

/** `proximity=ip`: the requester's position from the geolocation service (absent: `ip` is accepted and ignored). */
export type Locate = (ip: string) => { lon: number; lat: number } | undefined;

// The labels of the mirrored vector tile sets (labels.ts): the geocoder reads them through this interface.
export type { LabelHit, LabelFinder, LabelType } from './labels';

/** Kinds of gazetteer rows; each is also the prefix of its feature id (`country.12`). */
export type GazetteerType = 'continent' | 'country' | 'region' | 'place';

/** One gazetteer row as the query side reads it. */
export interface GazetteerRow {
  id: number;
  type: GazetteerType;
  name: string;
  /** Names by ISO 639-1 language, where the source tags them (countries, regions, continents). */
  names: Record<string, string>;
  countryCode: string;
  countryId: number | null;
  regionId: number | null;
  lon: number;
  lat: number;
  bbox: [number, number, number, number];
  population: number;
  importance: number;
  ref: string;
  wikidata: string | null;
  designation: string;
  regionCode: string | null;
}
