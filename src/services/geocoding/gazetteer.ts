// Read-only access to the gazetteer built by gazetteer-index.ts (its tables and statements: gazetteer-sql.ts): name candidates (FTS5 prefix, trigram typo
// candidates), features by id, polygons containing a point, nearest places. No ranking here (ranking.ts).

import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GAZETTEER_FILE, gazetteerStatements, type NameHit } from './gazetteer-sql';
import { decodePolygon, haversine, polygonCoordinates, storedContains, type PolygonCoords, type StoredPolygon } from './polygons';
import { ftsPhrase } from './text';
import type { GazetteerRow, GazetteerType, RegionAt } from './types';

/** Most decoded polygon parts kept in memory (the big ones are hit again and again by reverse lookups). */
const POLYGON_CACHE = 512;
const ROW_CACHE = 4096;

export class Gazetteer {
  private readonly db: Database.Database;
  private readonly stmts;
  private readonly rows = new Map<number, GazetteerRow>();
  private readonly polygons = new Map<number, StoredPolygon>();
  readonly source: string;

  /** Opens `<dir>/gazetteer.sqlite` read-only; undefined when it has not been built. */
  static open(dir: string): Gazetteer | undefined {
    const file = join(dir, GAZETTEER_FILE);
    if (!existsSync(file)) return undefined;
    return new Gazetteer(new Database(file, { readonly: true, fileMustExist: true }));
  }

  private constructor(db: Database.Database) {
    this.db = db;
    // A page cache big enough for the hot FTS and R*Tree pages (32 MB; the file is ~120 MB).
    db.pragma('cache_size = -32000');
    this.stmts = gazetteerStatements(db);
    this.source = this.stmts.source.get()?.value ?? '';
  }

  close(): void {
    this.db.close();
  }

  row(id: number): GazetteerRow | undefined {
    const cached = this.rows.get(id);
    if (cached) return cached;
    const r = this.stmts.feature.get(id);
    if (!r) return undefined;
    const row: GazetteerRow = {
      id: r.id, type: r.type, name: r.name, names: JSON.parse(r.names) as Record<string, string>, countryCode: r.country_code,
      countryId: r.country_id, regionId: r.region_id, lon: r.lon, lat: r.lat, bbox: [r.w, r.s, r.e, r.n], population: r.population,
      importance: r.importance, ref: r.ref, wikidata: r.wikidata, designation: r.designation, regionCode: r.region_code,
    };
    if (this.rows.size >= ROW_CACHE) this.rows.delete(this.rows.keys().next().value as number);
    this.rows.set(id, row);
    return row;
  }

  /**
   * Names whose words start with the query's words (the last one a prefix when `prefix`), most important first.
   * `tokens` are normalised words.
   */
  nameCandidates(tokens: string[], prefix: boolean, limit: number): NameHit[] {
    if (!tokens.length) return [];
    const expr = tokens.map((t, i) => ftsPhrase(t) + (prefix && i === tokens.length - 1 ? '*' : '')).join(' ');
    return this.stmts.fts.all(expr, limit);
  }

  /**
   * Typo candidates, most important first: main names holding both trigrams of at least one pair of consecutive
   * trigrams of `norm` (at least 4 characters). One edit breaks at most three consecutive trigrams, so with the
   * pairs (g0 g1) (g2 g3) (g4 g5)... a name one or two edits away keeps a pair unless the query is very short.
   */
  trigramCandidates(norm: string, limit: number): NameHit[] {
    if (norm.length < 4) return [];
    const grams: string[] = [];
    for (let i = 0; i + 3 <= norm.length; i++) grams.push(norm.slice(i, i + 3));
    // One query per pair, so a selective pair is not crowded out by important names holding a common one.
    const out: NameHit[] = [];
    const each = Math.max(50, Math.ceil(limit / Math.ceil(grams.length / 2)));
    for (let i = 0; i < grams.length; i += 2) out.push(...this.stmts.tri.all(grams.slice(i, i + 2).map(ftsPhrase).join(' '), each));
    // Short words: a transposition can break every pair ("madird"); the most important names holding each trigram.
    if (norm.length <= 8) for (const g of grams) out.push(...this.stmts.tri.all(ftsPhrase(g), 30));
    return out;
  }

  private polygon(id: number): StoredPolygon {
    let p = this.polygons.get(id);
    if (p) {
      this.polygons.delete(id);
      this.polygons.set(id, p);
      return p;
    }
    const r = this.stmts.polygon.get(id)!;
    p = decodePolygon(r.rings, r.coords);
    if (this.polygons.size >= POLYGON_CACHE) this.polygons.delete(this.polygons.keys().next().value as number);
    this.polygons.set(id, p);
    return p;
  }

  /** The features of each polygon type (continent, country, region) whose polygons contain the point. */
  containing(lon: number, lat: number): Map<GazetteerType, GazetteerRow> {
    const out = new Map<GazetteerType, GazetteerRow>();
    const candidates = this.stmts.polygonsAt.all({ x: lon, y: lat });
    for (const c of candidates) {
      if (out.has(c.type)) continue;
      if (!storedContains(this.polygon(c.id), lon, lat)) continue;
      const row = this.row(c.featureId);
      if (row) out.set(c.type, row);
    }
    return out;
  }

  /** Places within `maxMeters` of the point, nearest first (searched in growing boxes: dense areas stay cheap). */
  nearestPlaces(lon: number, lat: number, maxMeters: number, limit: number): Array<{ row: GazetteerRow; meters: number }> {
    for (const radius of [maxMeters / 16, maxMeters / 4]) {
      const found = this.placesWithin(lon, lat, radius, limit);
      if (found.length >= limit) return found;
    }
    return this.placesWithin(lon, lat, maxMeters, limit);
  }

  private placesWithin(lon: number, lat: number, maxMeters: number, limit: number): Array<{ row: GazetteerRow; meters: number }> {
    const dLat = maxMeters / 111320;
    const dLon = Math.min(180, dLat / Math.max(0.01, Math.cos((lat * Math.PI) / 180)));
    const ids = this.stmts.placesIn.all(lon + dLon, lon - dLon, lat + dLat, lat - dLat);
    const out: Array<{ row: GazetteerRow; meters: number }> = [];
    for (const { id } of ids) {
      const row = this.row(id);
      if (!row) continue;
      const meters = haversine(lon, lat, row.lon, row.lat);
      if (meters <= maxMeters) out.push({ row, meters });
    }
    return out.sort((a, b) => a.meters - b.meters).slice(0, limit);
  }

  /** Full geometry of a feature: its polygons (Polygon or MultiPolygon), or its point. */
  geometry(row: GazetteerRow): { type: 'Point'; coordinates: number[] } | { type: 'Polygon'; coordinates: PolygonCoords } | { type: 'MultiPolygon'; coordinates: PolygonCoords[] } {
    const ids = this.stmts.polygonsOf.all(row.id);
    if (!ids.length) return { type: 'Point', coordinates: [row.lon, row.lat] };
    const parts = ids.map(({ id }) => {
      const r = this.stmts.polygon.get(id)!;
      return polygonCoordinates(decodePolygon(r.rings, r.coords));
    });
    return parts.length === 1 ? { type: 'Polygon', coordinates: parts[0] } : { type: 'MultiPolygon', coordinates: parts };
  }

  /** Country and region at a point (GEOCODE.md `regionAt`, for the geolocation service). */
  regionAt(lon: number, lat: number): RegionAt | undefined {
    const at = this.containing(lon, lat);
    const region = at.get('region');
    const country = at.get('country') ?? (region?.countryId ? this.row(region.countryId) : undefined);
    if (!country) return undefined;
    return {
      countryCode: country.countryCode,
      countryName: country.name,
      ...(region && region.countryCode === country.countryCode ? { regionCode: region.regionCode ?? undefined, regionName: region.name } : {}),
    };
  }
}
