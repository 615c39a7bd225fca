// Reads one tile set's label index (built by labels-build.ts; its tables and statements: labels-sql.ts), read-only: full-text search with prefix and typo
// candidates, nearest labels by position, a label by its number. Synchronous (better-sqlite3), prepared once.

import Database from 'better-sqlite3';
import type { LabelHit, LabelSearchOptions, LabelType } from './labels';
import {
  CATEGORY_GRID,
  POSITION_GRID,
  type CellGrid,
  categoriesInBoxSql,
  inBoxSql,
  inCategoriesSql,
  labelFilters,
  labelReadStatements,
  matchingIdsSql,
  matchingInBoxSql,
  matchingPositionsSql,
  matchingSql,
  readLabelMeta,
  type LabelFilter,
  type LabelRow as Row,
} from './labels-sql';
import { textScore, typoBudget, withinEdits, words } from './labels-text';

/** FTS5 candidates read per query before scoring (the default of LabelIndex's `candidates`). */
const CANDIDATES = 400;
/**
 * How far from the point of `near` a search looks for the matches nearest it (metres): a common word or a category
 * ("cafe", held by thousands of labels) is answered by the matches nearest the point, read a grid row at a time
 * (a range of ids: the labels are numbered in position order), whatever their number elsewhere.
 */
const NEAR_METERS = 25_000;
/**
 * Rows of the position grid one full-text query covers near a point (~2.2 km): each query costs FTS5 ~0.15-0.25 ms
 * to set up whatever it finds, and the labels of a band's inner rows across the whole grid are few for a word this
 * common (its matches in a 2.2 km band of a country: tens to a few hundred).
 */
const TEXT_BAND = 10;
/** The longest prefix FTS5 keeps an index of (labels-sql.ts: prefix='1 2 3 4'). */
const PREFIX_INDEXED = 4;
/** Matches scored near a point: the nearest this many (scoring parses each one's names). */
const NEAR_SCORED = 20;
/** Matches scored of a query that has more than `candidates` of them, with no point to choose by. */
const SCORED_OF_MANY = 100;
/** A bbox at most this far from its centre to its corners is searched band by band (one ring covering it). */
const SMALL_BBOX_METERS = 50_000;
/** Typo candidates per query word. */
const MAX_VARIANTS = 12;
/**
 * Vocabulary words compared with a query word, per end (same first letter, same last two): the edit distance is
 * computed in JavaScript, so this bounds a typo lookup whatever the vocabulary. In a country of 5.3 M labels one
 * place name ending in "-ville" met 80,000 words of the same last two letters and length, and took ~170 ms.
 */
const MAX_COMPARED = 1500;

const M_PER_DEG = 111_320;

export function metersBetween(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const r = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.min(1, Math.sqrt(a)));
}

const quote = (w: string) => `"${w.replace(/"/g, '""')}"`;

/** `first` (when any), then the others of `rest` not among them, `limit` in all. */
function withFirst(first: LabelHit[] | undefined, rest: LabelHit[], limit: number): LabelHit[] {
  if (!first?.length) return rest.slice(0, limit);
  const ids = new Set(first.map((h) => h.id));
  return [...first, ...rest.filter((h) => !ids.has(h.id))].slice(0, limit);
}

export class LabelIndex {
  private readonly db: Database.Database;
  readonly tileset: string;
  /** The content version of the tile set the index was built from (kept as `source_version` in the file). */
  readonly tilesetVersion: string;
  readonly attribution: string;
  readonly format: string;
  private readonly statements: ReturnType<typeof labelReadStatements>;

  /** `candidates`: matches scored whole; beyond that many, a query is answered as a common one (see `search`). */
  constructor(
    readonly file: string,
    private readonly candidates = CANDIDATES,
  ) {
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const meta = readLabelMeta(this.db);
      this.tileset = meta.get('tileset') ?? '';
      this.tilesetVersion = meta.get('source_version') ?? '';
      this.attribution = meta.get('attribution') ?? '';
      this.format = meta.get('format') ?? '';
      this.statements = labelReadStatements(this.db, MAX_COMPARED);
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  close(): void {
    this.db.close();
  }

  /** Statements by SQL text (the filters make a handful of shapes), prepared once; `raw`: rows as arrays. */
  private readonly shaped = new Map<string, Database.Statement<unknown[], unknown>>();
  private statement<R>(sql: string, raw: boolean): Database.Statement<unknown[], R> {
    const key = raw ? `raw ${sql}` : sql;
    let stmt = this.shaped.get(key);
    if (!stmt) {
      const made = this.db.prepare<unknown[], unknown>(sql);
      stmt = raw ? made.raw() : made;
      if (this.shaped.size < 256) this.shaped.set(key, stmt);
    }
    return stmt as Database.Statement<unknown[], R>;
  }

  /** Labels as rows. */
  private prepared(sql: string): Database.Statement<unknown[], Row> {
    return this.statement<Row>(sql, false);
  }

  /** Labels' id, lon and lat as arrays. */
  private positions(sql: string): Database.Statement<unknown[], [number, number, number]> {
    return this.statement<[number, number, number]>(sql, true);
  }

  private hit(r: Row, score: number, matchedName?: string): LabelHit {
    const h: LabelHit = {
      id: `${this.tileset}.${r.id}`,
      tileset: this.tileset,
      type: r.type,
      placeType: r.place_type,
      name: r.name,
      names: JSON.parse(r.names) as Record<string, string>,
      categories: r.categories.split('|').filter((c) => c),
      lon: r.lon,
      lat: r.lat,
      score,
    };
    if (r.housenumber) h.housenumber = r.housenumber;
    if (r.street) h.street = r.street;
    if (matchedName) h.matchedName = matchedName;
    return h;
  }

  byNumber(n: number): LabelHit | undefined {
    const r = this.statements.byId.get(n);
    return r && this.hit(r, 1);
  }

  /** Vocabulary words within the typo budget of `w` (same first letter, or same last two letters). */
  private variants(w: string): string[] {
    const budget = typoBudget(w);
    if (budget === 0) return [];
    const n = [...w].length;
    const seen = new Set<string>();
    // Words of the same first letter, then of the same last two, until MAX_VARIANTS are found.
    for (const [terms, key] of [[this.statements.termsByFirst, [...w][0]], [this.statements.termsByLast, w.slice(-2)]] as const) {
      for (const term of terms.all(key, n - budget, n + budget)) {
        if (term !== w && withinEdits(w, term, budget)) seen.add(term);
        if (seen.size >= MAX_VARIANTS) break;
      }
      if (seen.size >= MAX_VARIANTS) break;
    }
    return [...seen];
  }

  /** The row as a hit scored against the query words (its best name: the main one or another language's); undefined when none matches. */
  private scored(r: Row, query: string[], opts: LabelSearchOptions): LabelHit | undefined {
    const main = r.housenumber ? `${r.housenumber} ${r.street ?? ''}` : r.name;
    let best = textScore(query, words(main), opts);
    let matched: string | undefined;
    for (const alt of new Set(Object.values(JSON.parse(r.names) as Record<string, string>))) {
      const s = textScore(query, words(alt), opts);
      if (s > best) {
        best = s;
        matched = alt === r.name ? undefined : alt;
      }
    }
    return best > 0 ? this.hit(r, best, matched) : undefined;
  }

  /**
   * Labels by text. Every match is scored when there are at most `candidates`; beyond that (a common word, a short
   * prefix, a category), with `near` (or a bbox) the matches nearest the point (or the box's centre), otherwise the
   * first `candidates`. FTS5's bm25 is never asked: it counts every row holding each query word, 160-190 ms for
   * "cafe" over a country, 36-51 ms for one match of "9 quai mabac dalebal".
   */
  search(text: string, opts: LabelSearchOptions): LabelHit[] {
    const query = words(text);
    const filter: LabelFilter = { bbox: opts.bbox, types: opts.types, categories: opts.categories };
    const near = opts.near ?? (opts.bbox && ([(opts.bbox[0] + opts.bbox[2]) / 2, (opts.bbox[1] + opts.bbox[3]) / 2] as [number, number]));
    // A bbox is searched whole (its corners are within this of its centre); otherwise NEAR_METERS around the point.
    const reach = opts.bbox ? metersBetween(opts.bbox[0], opts.bbox[1], opts.bbox[2], opts.bbox[3]) / 2 + 1 : NEAR_METERS;
    // Near a point, half the limit is enough once a ring holds it: the caller asks for twice what it shows, and a
    // ring four times wider to fill the rest reads sixteen times the area.
    const half = Math.ceil(opts.limit / 2);
    if (query.length === 0) {
      // Categories alone ("restaurant"): the labels of those categories, nearest the point first when there is one.
      const cats = [...new Set((opts.categories ?? []).map((c) => c.toLowerCase()))];
      if (cats.length === 0) return [];
      const rest: LabelFilter = { bbox: opts.bbox, types: opts.types };
      // A class this tile set has no label of (railway stations in a set without them) is not looked for around the point.
      const none: unknown[] = [...cats];
      if (this.prepared(inCategoriesSql(cats.length, '')).all(...none, 1).length === 0) return [];
      const nearby = near
        ? this.around(near, { maxMeters: reach, limit: opts.limit, enough: half, grid: CATEGORY_GRID, start: 2000 }, (box) => {
            const args: unknown[] = [...cats, ...box];
            return this.prepared(categoriesInBoxSql(cats.length, labelFilters(rest, args))).all(...args);
          }, (r) => this.hit(r, 1))
        : undefined;
      if (nearby && (nearby.length >= half || opts.bbox)) return nearby;
      const args: unknown[] = [...cats];
      const any = this.prepared(inCategoriesSql(cats.length, labelFilters(rest, args))).all(...args, opts.limit).map((r) => this.hit(r, 1));
      return withFirst(nearby, any, opts.limit);
    }
    // `typos` false (a ring over a common word): no typos, and a word longer than the prefix indexes that is in the
    // index as typed is not taken as a prefix (such a prefix merges every term it begins, in every band; the word
    // itself is common enough). A short one stays a prefix ("1" of "Main Street 1" is 1, 10-19, 100-199 …).
    const expression = (typos: boolean): string =>
      query
        .map((w, i) => {
          const last = i === query.length - 1;
          // A prefix holds the word itself: one doclist, not two merged.
          const asPrefix = opts.prefix && last && (typos || [...w].length <= PREFIX_INDEXED || !this.statements.exactTerm.get(w));
          const alts = [asPrefix ? `${quote(w)}*` : quote(w)];
          if (typos && opts.fuzzy && (!this.statements.exactTerm.get(w) || query.length === 1)) alts.push(...this.variants(w).map(quote));
          return alts.length === 1 ? alts[0] : `(${alts.join(' OR ')})`;
        })
        .join(' AND ');
    const args: unknown[] = [expression(true)];
    const filters = labelFilters(filter, args);
    const ring = (typos: boolean): Array<LabelHit & { meters: number }> =>
      this.around(near as [number, number], { maxMeters: reach, limit: opts.limit, enough: half, grid: POSITION_GRID, start: 1000, band: TEXT_BAND }, (box) => {
        const a: unknown[] = [typos ? args[0] : expression(false), ...box];
        return this.prepared(matchingInBoxSql(labelFilters(filter, a))).all(...a);
      }, (r) => this.scored(r, query, opts));
    // A small bbox is searched a band of rows at a time, not by reading matches until enough fall inside it (a common
    // word's matches are mostly outside); typos only for a word not in the index as typed.
    const common = query.every((w) => this.statements.exactTerm.get(w));
    if (opts.bbox && reach <= SMALL_BBOX_METERS) {
      // Whether the words are common at all (their first matches anywhere, ids only): a rare or absent word is read
      // whole below, with the bbox as a filter; a band by band search would look for it in every band.
      let anywhere = 0;
      try {
        anywhere = this.statement<[number]>(`${matchingIdsSql} LIMIT ${this.candidates + 1}`, true).all(args[0]).length;
      } catch {
        return [];
      }
      if (anywhere > this.candidates) return ring(!common);
    }
    // Near a point, the positions first: only the nearest matches are read whole and scored.
    let positions: [number, number, number][] = [];
    let rows: Row[] = [];
    let many = false;
    try {
      if (near) {
        positions = this.positions(matchingPositionsSql(filters, this.candidates + 1)).all(...args);
        many = positions.length > this.candidates;
      } else {
        // Without a point: the first SCORED_OF_MANY + 1 whole; when there are more, whether there are more than
        // candidates (positions only): all of a few hundred are scored, of more only the first (reading 400 rows
        // whole costs as much as the rest of the query).
        rows = this.prepared(matchingSql(filters, SCORED_OF_MANY + 1)).all(...args);
        if (rows.length > SCORED_OF_MANY) {
          many = this.positions(matchingPositionsSql(filters, this.candidates + 1)).all(...args).length > this.candidates;
          rows = many ? rows.slice(0, SCORED_OF_MANY) : this.prepared(matchingSql(filters, this.candidates + 1)).all(...args);
        }
      }
    } catch {
      return []; // An FTS5 syntax the words could not express (should not happen: every word is quoted).
    }
    // More matches than candidates near a point: the words are common as typed, so their typos are left out of the
    // ring (each variant is one more doclist to seek in every band of the grid).
    const nearby = many && near ? ring(!common) : undefined;
    if (nearby && (nearby.length >= half || opts.bbox)) return nearby;
    if (near) {
      const nearest = positions.slice(0, this.candidates).map(([id, lon, lat]) => ({ id, m: metersBetween(near[0], near[1], lon, lat) }));
      rows = nearest.sort((a, b) => a.m - b.m).slice(0, NEAR_SCORED).flatMap(({ id }) => this.statements.byId.get(id) ?? []);
    }
    // `rows`: near a point, its nearest NEAR_SCORED matches (every one holds every word; the same name recurs in many
    // towns); more matches than candidates and no point, the first SCORED_OF_MANY (which ones is arbitrary).
    const from = (h: { lon: number; lat: number }): number => (near ? metersBetween(near[0], near[1], h.lon, h.lat) : 0);
    const hits = rows.flatMap((r) => this.scored(r, query, opts) ?? []);
    // Of as good a match, the nearest first.
    return withFirst(nearby, hits.sort((a, b) => b.score - a.score || from(a) - from(b) || a.name.localeCompare(b.name)), opts.limit);
  }

  /**
   * The labels `keep` accepts nearest `point` (within `maxMeters`), nearest first: boxes growing fourfold from
   * `start` metres, each read `band` rows of `grid` at a time (default 1) by `rows` (given first cell, last cell,
   * west, east, south, north: with several rows, the cells between them span the grid's whole width), until
   * `enough` (default `limit`) are found; at most `limit` are returned.
   */
  private around(
    point: [number, number],
    o: { maxMeters: number; limit: number; grid: CellGrid; start: number; band?: number; enough?: number },
    rows: (box: number[]) => Row[],
    keep: (r: Row) => LabelHit | undefined,
  ): Array<LabelHit & { meters: number }> {
    const [lon, lat] = point;
    const cos = Math.max(0.01, Math.cos((lat * Math.PI) / 180));
    const g = o.grid;
    for (let radius = Math.min(o.start, o.maxMeters); ; radius = Math.min(radius * 4, o.maxMeters)) {
      const dLat = radius / M_PER_DEG;
      const dLon = Math.min(180, dLat / cos);
      // The box's cells, one range a row of the grid (cells are row-major).
      const [col0, col1] = [g.column(lon - dLon), g.column(lon + dLon)];
      const found: Array<LabelHit & { meters: number }> = [];
      const [row0, row1] = [g.row(lat - dLat), g.row(lat + dLat)];
      const band = o.band ?? 1;
      for (let row = row0; row <= row1; row += band) {
        for (const r of rows([g.cell(col0, row), g.cell(col1, Math.min(row1, row + band - 1)), lon - dLon, lon + dLon, lat - dLat, lat + dLat])) {
          const meters = metersBetween(lon, lat, r.lon, r.lat);
          if (meters > radius) continue;
          const h = keep(r);
          if (h) found.push({ ...h, meters });
        }
      }
      if (found.length >= (o.enough ?? o.limit) || radius >= o.maxMeters) {
        return found.sort((a, b) => a.meters - b.meters || a.id.localeCompare(b.id)).slice(0, o.limit);
      }
    }
  }

  nearest(lon: number, lat: number, opts: { types?: LabelType[]; limit: number; maxMeters: number }): Array<LabelHit & { meters: number }> {
    const rows = (box: number[]): Row[] => {
      const args: unknown[] = [...box];
      return this.prepared(inBoxSql(labelFilters({ types: opts.types }, args))).all(...args);
    };
    return this.around([lon, lat], { maxMeters: opts.maxMeters, limit: opts.limit, grid: POSITION_GRID, start: 50 }, rows, (r) => this.hit(r, 1));
  }
}
