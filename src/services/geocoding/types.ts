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

// The mirrored label layers (h10labels owns the implementation, in labels.ts). A structural copy of its interface so
// this folder compiles without it; the lead may point these at labels.ts at merge.
export type LabelType = 'address' | 'road' | 'poi' | 'place' | 'water' | 'peak' | 'aerodrome' | 'park';
export interface LabelHit {
  id: string;
  tileset: string;
  type: LabelType;
  placeType: string;
  name: string;
  names: Record<string, string>;
  categories: string[];
  housenumber?: string;
  street?: string;
  lon: number;
  lat: number;
  score: number;
  matchedName?: string;
}
export interface LabelSource {
  search(
    text: string,
    opts: { prefix: boolean; fuzzy: boolean; bbox?: [number, number, number, number]; types?: LabelType[]; categories?: string[]; limit: number },
  ): LabelHit[];
  nearest(lon: number, lat: number, opts: { types?: LabelType[]; limit: number; maxMeters: number }): Array<LabelHit & { meters: number }>;
  byId(id: string): LabelHit | undefined;
  attribution(): string[];
}

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
