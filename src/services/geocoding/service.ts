// Geocoding from local data: forward (names, with autocomplete and typo tolerance), reverse (one best feature per
// type, or the N nearest of one type), by id (full geometry) and batch, over the gazetteer and, when injected, the
// labels of the mirrored vector tiles. The parameters arrive validated (http/routes/geocoding.ts).

import { Gazetteer } from './gazetteer';
import { ServiceError } from '../../errors';
import {
  GAZETTEER_ATTRIBUTION,
  gazetteerFeature,
  labelFeature,
  nameIn,
  PLACE_TYPES,
  placeTypeOf,
  type Feature,
  type FeatureCollection,
  type PlaceType,
} from './features';
import { haversine } from './polygons';
import { categoryOf } from './category-words';
import { words } from './labels-text';
import { proximityFactor, rankScore, textScore } from './ranking';
import { normalize } from './text';
import type { GazetteerRow, LabelHit, LabelFinder, Locate, RegionLookup } from './types';

/** Longest query (characters) of one forward search; the routes refuse longer ones. */
export const MAX_QUERY_LENGTH = 256;
export const MAX_BATCH = 50;
export const MAX_LANGUAGES = 20;
/** Reverse: radius of the nearest-neighbour search (limit > 1), and of the nearest populated place. */
export const NEAREST_METERS = 1000;
export const PLACE_RADIUS_METERS = 30000;

const GAZETTEER_TYPES: readonly PlaceType[] = ['major_landform', 'country', 'region', 'place'];
const LABEL_TYPES: readonly PlaceType[] = ['address', 'road', 'poi', 'locality', 'neighbourhood', 'municipality', 'continental_marine'];
/** Reverse answers these types when `types` is absent (continents only when asked). */
const REVERSE_DEFAULT: readonly PlaceType[] = ['poi', 'address', 'road', 'neighbourhood', 'locality', 'place', 'region', 'country'];
/** Most specific first: the order of reverse answers. */
const SPECIFICITY: readonly string[] = ['poi', 'address', 'road', 'postal_code', 'neighbourhood', 'locality', 'place', 'municipal_district', 'municipality', 'joint_submunicipality', 'joint_municipality', 'county', 'subregion', 'region', 'country', 'major_landform', 'continental_marine'];


/** The gazetteer is not built: `unavailable`. */
/**
 * Every word of the query (as `words` splits it) is a word of the label (its house number and the name that
 * matched), or, with `prefix`, the last one begins one: the query was typed as the label spells it.
 */
function holdsEveryWord(hit: LabelHit, query: string[], prefix: boolean): boolean {
  if (query.length === 0) return false;
  const have = words(`${hit.housenumber ?? ''} ${hit.matchedName ?? hit.name}`);
  return query.every((q, i) => have.includes(q) || (prefix && i === query.length - 1 && have.some((w) => w.startsWith(q))));
}

export class GeocodingUnavailable extends ServiceError {
  constructor() {
    super('unavailable', 'The geocoding index is not built: run `npm run indexes` (tilemirror build-indexes)');
  }
}

export interface ForwardOptions {
  language: string[];
  country?: string[];
  bbox?: [number, number, number, number];
  /** A position, or `ip` (resolved through `locate` with `clientIp`; ignored when no locate is wired). */
  proximity?: [number, number] | 'ip';
  clientIp?: string;
  types?: PlaceType[];
  excludeTypes?: boolean;
  limit: number;
  fuzzyMatch: boolean;
  autocomplete: boolean;
}

export interface ReverseOptions {
  language: string[];
  types?: PlaceType[];
  excludeTypes?: boolean;
  /** Above 1 (with exactly one type, checked by the route): the N nearest features of that type within 1 km. */
  limit?: number;
}

export interface GeocodingServiceOptions {
  indexDir: string;
  labels?: LabelFinder;
  locate?: Locate;
  log?: (message: string) => void;
}

export type BatchItem = { kind: 'reverse'; lon: number; lat: number } | { kind: 'id'; id: string } | { kind: 'forward'; text: string };

const REVERSE_ITEM = /^(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/;
const ID_ITEM = /^(\S+)\.(\d+)$/;

/** What one query of a batch is: a position, an id of a known type, or a name. */
export function classifyQuery(text: string, isLabelId: (id: string) => boolean = () => false): BatchItem {
  const r = REVERSE_ITEM.exec(text.trim());
  if (r) return { kind: 'reverse', lon: Number(r[1]), lat: Number(r[2]) };
  const m = ID_ITEM.exec(text.trim());
  if (m && ((GAZETTEER_TYPES as readonly string[]).includes(m[1]) || isLabelId(text.trim()))) return { kind: 'id', id: text.trim() };
  return { kind: 'forward', text };
}

/** ISO 639-1 codes of an Accept-Language header, by decreasing q, unique, at most 20. */
export function languagesFromHeader(header: string | undefined): string[] {
  if (!header) return [];
  const entries = header
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean);
      return { lang: tag.trim().toLowerCase().split('-')[0], q: q ? Number(q[1]) : 1, i };
    })
    .filter((e) => /^[a-z]{2}$/.test(e.lang) && e.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  return [...new Set(entries.map((e) => e.lang))].slice(0, MAX_LANGUAGES);
}

/** The types a request asks for: `types`, or all but them with `excludeTypes`, or `defaults`. */
function effectiveTypes(types: PlaceType[] | undefined, exclude: boolean | undefined, defaults: readonly PlaceType[]): Set<string> {
  if (!types?.length) return new Set(exclude ? PLACE_TYPES : defaults);
  return exclude ? new Set(PLACE_TYPES.filter((t) => !types.includes(t))) : new Set(types);
}

interface Candidate {
  rank: number;
  relevance: number;
  row?: GazetteerRow;
  label?: LabelHit;
  matched?: string;
}

export class GeocodingService {
  private gaz: Gazetteer | undefined;
  private missingLogged = false;
  private readonly wordCache = new Map<number, Set<string>>();

  constructor(private readonly opts: GeocodingServiceOptions) {}

  /** The gazetteer, opened on first use (cheap: a read-only SQLite handle); absent when not built. */
  private gazetteer(): Gazetteer {
    if (!this.gaz) this.gaz = Gazetteer.open(this.opts.indexDir);
    if (!this.gaz) {
      if (!this.missingLogged) this.opts.log?.(`geocoding: no gazetteer in ${this.opts.indexDir}: run \`npm run indexes\``);
      this.missingLogged = true;
      throw new GeocodingUnavailable();
    }
    return this.gaz;
  }

  get labels(): LabelFinder | undefined {
    return this.opts.labels;
  }

  close(): void {
    this.gaz?.close();
    this.gaz = undefined;
  }

  /**
   * Country and region at a point (GEOCODE.md `RegionLookup`), for the geolocation service: pass
   * `geocoding.regionAt` as its `regionAt` option (a bound arrow, safe to hand over). Undefined at sea and when the
   * gazetteer is not built; the index opens on the first call.
   */
  readonly regionAt: RegionLookup = (lon, lat) => {
    try {
      return this.gazetteer().regionAt(lon, lat);
    } catch (err) {
      if (err instanceof GeocodingUnavailable) return undefined;
      throw err;
    }
  };

  private chainOf(row: GazetteerRow): GazetteerRow[] {
    const gaz = this.gazetteer();
    const chain: GazetteerRow[] = [];
    const region = row.regionId ? gaz.row(row.regionId) : undefined;
    const country = row.countryId ? gaz.row(row.countryId) : undefined;
    if (region) chain.push(region);
    if (country) chain.push(country);
    return chain;
  }

  /** Context of a position (labels): nearest place, region, country. */
  private chainAt(lon: number, lat: number): GazetteerRow[] {
    const gaz = this.gazetteer();
    const at = gaz.containing(lon, lat);
    const place = gaz.nearestPlaces(lon, lat, 10000, 1)[0]?.row;
    return [place, at.get('region'), at.get('country')].filter((r): r is GazetteerRow => r !== undefined);
  }

  private attribution(labelsAnswered: boolean): string {
    const extra = labelsAnswered ? (this.opts.labels?.attribution() ?? []) : [];
    return [GAZETTEER_ATTRIBUTION, ...extra].join(' ');
  }

  private collection(query: string[], candidates: Candidate[], languages: string[], geometry = false): FeatureCollection {
    const gaz = this.gazetteer();
    const features: Feature[] = candidates.map((c) =>
      c.row
        ? gazetteerFeature(c.row, this.chainOf(c.row), languages, { relevance: c.relevance, matched: c.matched, geometry: geometry ? gaz.geometry(c.row) : undefined })
        : labelFeature(c.label as LabelHit, this.chainAt((c.label as LabelHit).lon, (c.label as LabelHit).lat), languages, c.relevance),
    );
    return { type: 'FeatureCollection', features, query, attribution: this.attribution(candidates.some((c) => c.label)) };
  }

  private proximityPoint(opts: ForwardOptions): [number, number] | undefined {
    if (opts.proximity === 'ip') {
      const at = opts.clientIp ? this.opts.locate?.(opts.clientIp) : undefined;
      return at ? [at.lon, at.lat] : undefined;
    }
    return opts.proximity;
  }

  forward(query: string, opts: ForwardOptions): FeatureCollection {
    const gaz = this.gazetteer();
    const norm = normalize(query);
    const tokens = norm ? norm.split(' ') : [];
    const types = effectiveTypes(opts.types, opts.excludeTypes, PLACE_TYPES);
    const countries = opts.country?.map((c) => c.toUpperCase());
    const near = this.proximityPoint(opts);
    const best = new Map<string, Candidate>();
    const keep = (key: string, c: Candidate): void => {
      const old = best.get(key);
      if (!old || old.rank < c.rank) best.set(key, c);
    };
    const allowed = (row: GazetteerRow): boolean => {
      if (!types.has(placeTypeOf(row))) return false;
      if (countries && !countries.includes(row.countryCode)) return false;
      if (opts.bbox) {
        const [w, s, e, n] = opts.bbox;
        if (row.lon < w || row.lon > e || row.lat < s || row.lat > n) return false;
      }
      return true;
    };
    const proximity = (lon: number, lat: number): number => (near ? proximityFactor(haversine(near[0], near[1], lon, lat)) : 1);

    // The labels first: when one holds every word of the query as typed (the last one begun, with autocomplete), or
    // the query is only category words, it is spelled right and the gazetteer's typo search is not asked (it
    // compares the query with every name of close spelling: ~2-3 ms, the largest part of an address query's time).
    let typedRight = false;
    const labels = this.opts.labels;
    if (labels && LABEL_TYPES.some((t) => types.has(t)) && tokens.length) {
      const prefix = opts.autocomplete;
      const labelHits: LabelHit[] = [];
      const cats = types.has('poi') ? [...new Set(tokens.flatMap((t) => categoryOf(t) ?? []))] : [];
      if (cats.length) {
        const rest = tokens.filter((t) => categoryOf(t) === undefined).join(' ');
        let area = opts.bbox;
        if (rest) {
          // The place named after the category, as typed (no typo or prefix search: it costs as much again as the query).
          const where = this.forward(rest, { ...opts, types: ['place', 'region', 'country'], excludeTypes: false, limit: 1, fuzzyMatch: false, autocomplete: false }).features[0];
          if (where) area = where.place_type[0] === 'place' ? [where.center[0] - 0.15, where.center[1] - 0.1, where.center[0] + 0.15, where.center[1] + 0.1] : where.bbox;
        }
        labelHits.push(...labels.search(area && rest ? '' : rest, { prefix, fuzzy: opts.fuzzyMatch, bbox: area, categories: cats, near, limit: opts.limit * 2 }));
      }
      // A query of category words only ("cafe") is answered near the point by the category search above; the names
      // holding the word are then looked for without the point (the nearest of thousands would cost a ring of every
      // label around it), and as whole words: a category word is complete, and a prefix query makes FTS5 gather
      // every row of the word before the first (4 ms for "pharmacie" over 5.3 M labels, 1 ms as a word).
      const onlyCategories = cats.length > 0 && tokens.every((t) => categoryOf(t) !== undefined);
      if (onlyCategories) typedRight = true;
      const asTyped = words(query);
      labelHits.push(...labels.search(query, { prefix: prefix && !onlyCategories, fuzzy: opts.fuzzyMatch, bbox: opts.bbox, near: onlyCategories ? undefined : near, limit: opts.limit * 2 }));
      for (const hit of labelHits) {
        if (!types.has(hit.placeType)) continue;
        if (opts.bbox) {
          const [w, s, e, n] = opts.bbox;
          if (hit.lon < w || hit.lon > e || hit.lat < s || hit.lat > n) continue;
        }
        if (countries) {
          const c = gaz.containing(hit.lon, hit.lat).get('country');
          if (!c || !countries.includes(c.countryCode)) continue;
        }
        const text = Math.max(0, Math.min(1, hit.score));
        if (!typedRight && holdsEveryWord(hit, asTyped, prefix)) typedRight = true;
        keep(`l${hit.id}`, { rank: rankScore(text, 0.5, proximity(hit.lon, hit.lat)), relevance: text, label: hit, matched: hit.matchedName });
      }
    }

    // Splits: the query as one name; "name, context"; or, for a few words, leading words as the name and the rest as
    // context ("springfield illinois"). A context word must name the candidate's region or country.
    const commaParts = query.split(',').map(normalize).filter(Boolean);
    const splits: Array<{ name: string; context: string[] }> = [];
    if (commaParts.length > 1) splits.push({ name: commaParts[0], context: commaParts.slice(1).join(' ').split(' ') });
    else if (tokens.length) {
      splits.push({ name: norm, context: [] });
      for (let k = tokens.length - 1; k >= 1 && k >= tokens.length - 3; k--) splits.push({ name: tokens.slice(0, k).join(' '), context: tokens.slice(k) });
    }
    splits.forEach((split, i) => {
      // Autocomplete and typos apply to the whole query; a name followed by context words was typed in full.
      const whole = i === 0;
      const prefix = opts.autocomplete && whole && commaParts.length === 1;
      const fuzzy = opts.fuzzyMatch && whole;
      const hits = gaz.nameCandidates(split.name.split(' '), prefix, whole ? 250 : 120);
      if (fuzzy && !typedRight && !hits.some((h) => h.norm === split.name)) {
        // The trigram index holds each spelling once: every feature of the close spellings is fetched by name.
        const close = new Set<string>();
        for (const h of gaz.trigramCandidates(split.name, 100))
          if (close.size < 12 && !close.has(h.norm) && textScore(h.norm, split.name, { prefix: false, fuzzy: true }) > 0) close.add(h.norm);
        for (const norm of close) hits.push(...gaz.nameCandidates(norm.split(' '), false, 40).filter((h) => h.norm === norm));
      }
      for (const hit of hits) {
        const ts = textScore(hit.norm, split.name, { prefix, fuzzy });
        if (ts <= 0 || (!whole && ts < 1)) continue;
        const row = gaz.row(hit.featureId);
        if (!row || !allowed(row)) continue;
        // An alternate name (another language's, an exonym, a former one) counts a little less than the name itself:
        // 0.95 of its relevance, 0.9 of its rank. Measured bounds: above 0.88 "Odessa" finds Odesa (1 M inhabitants)
        // before Odessa, Texas (119 k), whose own name it is; below 0.93 "Philadelphia" stays the US city, not Amman
        // (its ancient name), and "Tunis" the city, not Tunisia.
        const lang = opts.language[0];
        const main = hit.name === row.name || (lang !== undefined && hit.name === row.names[lang]) || hit.name === row.names.en;
        const alternate = main ? 1 : 0.95;
        const alternateRank = main ? 1 : 0.9;
        let text = ts;
        if (split.context.length) {
          if (!this.contextMatches(row, split.context)) continue;
          text *= 0.98;
        }
        // The shown name when it matches about as well as the alternative that was found.
        let matched: string | undefined = hit.name;
        const shown = nameIn(row, opts.language[0]).text;
        if (shown !== hit.name && textScore(normalize(shown), split.name, { prefix, fuzzy }) >= ts - 0.05) matched = undefined;
        keep(`g${row.id}`, { rank: rankScore(text, row.importance, proximity(row.lon, row.lat)) * alternateRank, relevance: text * alternate, row, matched });
      }
    });

    const ranked = [...best.values()].sort((a, b) => b.rank - a.rank).slice(0, opts.limit);
    return this.collection(tokens, ranked, opts.language);
  }

  /** Every context word names (a prefix of a word of) the row's region or country, in any language, or its code. */
  private contextMatches(row: GazetteerRow, context: string[]): boolean {
    const sets = this.chainOf(row).map((c) => this.contextWords(c));
    return context.every((t) => sets.some((words) => words.has(t) || (t.length >= 3 && [...words].some((w) => w.startsWith(t)))));
  }

  /** Words naming a region or country in any language, its codes, and common short names (cached per row). */
  private contextWords(c: GazetteerRow): Set<string> {
    let words = this.wordCache.get(c.id);
    if (words) return words;
    words = new Set<string>();
    for (const n of [c.name, ...Object.values(c.names)]) for (const w of normalize(n).split(' ')) words.add(w);
    words.add(c.countryCode.toLowerCase());
    if (c.regionCode) words.add(c.regionCode.split('-')[1]?.toLowerCase() ?? '');
    if (c.type === 'country' && c.countryCode === 'US') ['usa', 'us', 'america'].forEach((w) => words.add(w));
    if (c.type === 'country' && c.countryCode === 'GB') ['uk', 'england', 'scotland', 'wales', 'britain'].forEach((w) => words.add(w));
    this.wordCache.set(c.id, words);
    return words;
  }

  reverse(lon: number, lat: number, opts: ReverseOptions): FeatureCollection {
    const gaz = this.gazetteer();
    const types = effectiveTypes(opts.types, opts.excludeTypes, REVERSE_DEFAULT);
    const query = [String(lon), String(lat)];
    const labels = this.opts.labels;
    const candidates: Candidate[] = [];
    if ((opts.limit ?? 1) > 1) {
      // Nearest neighbours of the one type asked for, within 1 km.
      const type = [...types][0];
      const limit = opts.limit ?? 1;
      if (type === 'place') for (const { row } of gaz.nearestPlaces(lon, lat, NEAREST_METERS, limit)) candidates.push({ rank: 1, relevance: 1, row });
      else if (GAZETTEER_TYPES.includes(type as PlaceType)) {
        for (const row of gaz.containing(lon, lat).values()) if (placeTypeOf(row) === type) candidates.push({ rank: 1, relevance: 1, row });
      } else if (labels)
        for (const hit of labels.nearest(lon, lat, { limit: limit * 4, maxMeters: NEAREST_METERS }))
          if (hit.placeType === type && candidates.length < limit) candidates.push({ rank: 1, relevance: 1, label: hit });
      return this.collection(query, candidates, opts.language);
    }
    const at = gaz.containing(lon, lat);
    const place = gaz.nearestPlaces(lon, lat, PLACE_RADIUS_METERS, 1)[0]?.row;
    // A point just off a generalised coastline: the country of a populated place within 20 km.
    if (!at.has('country')) {
      const nearby = gaz.nearestPlaces(lon, lat, 20000, 1)[0]?.row;
      const country = nearby?.countryId ? gaz.row(nearby.countryId) : undefined;
      if (country) at.set('country', country);
    }
    const byType = new Map<string, Candidate>();
    if (labels) {
      for (const hit of labels.nearest(lon, lat, { limit: 20, maxMeters: NEAREST_METERS }))
        if (types.has(hit.placeType) && !byType.has(hit.placeType)) byType.set(hit.placeType, { rank: 1, relevance: 1, label: hit });
    }
    if (place && types.has('place')) byType.set('place', { rank: 1, relevance: 1, row: place });
    for (const row of at.values()) if (types.has(placeTypeOf(row))) byType.set(placeTypeOf(row), { rank: 1, relevance: 1, row });
    const ordered = [...byType.entries()].sort((a, b) => SPECIFICITY.indexOf(a[0]) - SPECIFICITY.indexOf(b[0])).map(([, c]) => c);
    return this.collection(query, ordered, opts.language);
  }

  byId(id: string, opts: { language: string[] }): FeatureCollection {
    const gaz = this.gazetteer();
    const m = ID_ITEM.exec(id);
    const candidates: Candidate[] = [];
    if (m && (GAZETTEER_TYPES as readonly string[]).includes(m[1])) {
      const row = gaz.row(Number(m[2]));
      if (row && placeTypeOf(row) === m[1]) candidates.push({ rank: 1, relevance: 1, row });
    } else {
      const hit = this.opts.labels?.byId(id);
      if (hit) candidates.push({ rank: 1, relevance: 1, label: hit });
    }
    return this.collection([id], candidates, opts.language, true);
  }

  /** Is `id` a feature id this service could answer (a gazetteer type, or a label the label finder knows)? */
  isLabelId = (id: string): boolean => this.opts.labels?.byId(id) !== undefined;
}
