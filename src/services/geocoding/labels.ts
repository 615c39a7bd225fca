// The seam between the labels of mirrored vector tiles and the geocoder: the gazetteer's endpoints receive a
// LabelFinder by injection and never import how it is built. The implementation over the data directory's vector
// tile sets is MirroredLabels (labels-mirrored.ts).

export type LabelType = 'address' | 'road' | 'poi' | 'place' | 'water' | 'peak' | 'aerodrome' | 'park';

export const LABEL_TYPES: readonly LabelType[] = ['address', 'road', 'poi', 'place', 'water', 'peak', 'aerodrome', 'park'];

export interface LabelHit {
  /** Stable for one version of the tile set: `${tileset}.${n}` (the tile set id may itself hold dots: split at the last). */
  id: string;
  tileset: string;
  type: LabelType;
  /** Carmen place_type: 'address' | 'road' | 'poi' | 'locality' | 'neighbourhood' | 'place' | 'region' | 'country'. */
  placeType: string;
  /** Default name; for an address the street (or the house number when no street is known). */
  name: string;
  /** By ISO 639-1 language (from name:xx / name_xx). */
  names: Record<string, string>;
  /** POI class/subclass, lower-case ("restaurant", "cafe"). */
  categories: string[];
  housenumber?: string;
  street?: string;
  lon: number;
  lat: number;
  /** Text score, 0..1, higher is better (1: every word of the query is every word of the name). */
  score: number;
  /** The alternative name that matched, when not `name`. */
  matchedName?: string;
}

export interface LabelSearchOptions {
  prefix: boolean;
  fuzzy: boolean;
  bbox?: [number, number, number, number];
  types?: LabelType[];
  categories?: string[];
  /** Where the answer is wanted (proximity): of many matches, those nearest it. */
  near?: [number, number];
  limit: number;
}

/** Finds labels of the vector tile sets: by text, by position, by id. */
export interface LabelFinder {
  search(text: string, opts: LabelSearchOptions): LabelHit[];
  nearest(lon: number, lat: number, opts: { types?: LabelType[]; limit: number; maxMeters: number }): Array<LabelHit & { meters: number }>;
  byId(id: string): LabelHit | undefined;
  /** e.g. "© OpenStreetMap contributors (ODbL)" for the tile sets indexed (or only those named). */
  attribution(tilesets?: Iterable<string>): string[];
}

