// Reads one tile set's label index (built by labels-build.ts; its tables and statements: labels-sql.ts), read-only: full-text search with prefix and typo
// candidates, nearest labels by position, a label by its number. Synchronous (better-sqlite3), prepared once.

import Database from 'better-sqlite3';
import type { LabelHit, LabelSearchOptions, LabelType } from './labels';
import {
  filteredByNameSql,
  inBoxSql,
  labelFilters,
  labelReadStatements,
  matchingSql,
  positionCell,
  positionColumn,
  positionRow,
  readLabelMeta,
  type LabelRow as Row,
} from './labels-sql';
import { textScore, typoBudget, withinEdits, words } from './labels-text';

/** FTS5 candidates read per query before scoring. */
const CANDIDATES = 400;
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

export class LabelIndex {
  private readonly db: Database.Database;
  readonly tileset: string;
  /** The content version of the tile set the index was built from (kept as `source_version` in the file). */
  readonly tilesetVersion: string;
  readonly attribution: string;
  readonly format: string;
  private readonly statements: ReturnType<typeof labelReadStatements>;

  constructor(readonly file: string) {
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

  /** Statements by SQL text (the filters make a handful of shapes), prepared once. */
  private readonly shaped = new Map<string, Database.Statement<unknown[], Row>>();
  private prepared(sql: string): Database.Statement<unknown[], Row> {
    let stmt = this.shaped.get(sql);
    if (!stmt) {
      stmt = this.db.prepare<unknown[], Row>(sql);
      if (this.shaped.size < 256) this.shaped.set(sql, stmt);
    }
    return stmt;
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

  search(text: string, opts: LabelSearchOptions): LabelHit[] {
    const query = words(text);
    if (query.length === 0) {
      // Categories alone ("restaurant"): the POIs of those categories (in the bbox), by name.
      if (!opts.categories?.length) return [];
      const args: unknown[] = [];
      return this.prepared(filteredByNameSql(labelFilters(opts, args))).all(...args, opts.limit).map((r) => this.hit(r, 1));
    }
    const parts = query.map((w, i) => {
      const last = i === query.length - 1;
      const alts = [quote(w)];
      if (opts.prefix && last) alts.push(`${quote(w)}*`);
      if (opts.fuzzy && (!this.statements.exactTerm.get(w) || query.length === 1)) alts.push(...this.variants(w).map(quote));
      return alts.length === 1 ? alts[0] : `(${alts.join(' OR ')})`;
    });
    const args: unknown[] = [parts.join(' AND ')];
    const filters = labelFilters(opts, args);
    let rows: Row[];
    try {
      // Every match when there are at most CANDIDATES: all of them are scored below, so their order does not
      // matter. Only beyond that does FTS5's rank (bm25) choose which: bm25 counts every row holding each query
      // word, so ranking "9 quai mabac dalebal" in a country of 5.3 M labels took 36-51 ms for its one match,
      // against 2-4 ms unranked.
      rows = this.prepared(matchingSql(filters, CANDIDATES + 1, false)).all(...args);
      if (rows.length > CANDIDATES) rows = this.prepared(matchingSql(filters, CANDIDATES, true)).all(...args);
    } catch {
      return []; // An FTS5 syntax the words could not express (should not happen: every word is quoted).
    }
    const scored = rows.map((r) => {
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
      return this.hit(r, best, matched);
    });
    return scored.filter((h) => h.score > 0).sort((a, b) => b.score - a.score || a.name.localeCompare(b.name)).slice(0, opts.limit);
  }

  nearest(lon: number, lat: number, opts: { types?: LabelType[]; limit: number; maxMeters: number }): Array<LabelHit & { meters: number }> {
    const cos = Math.max(0.01, Math.cos((lat * Math.PI) / 180));
    for (let radius = Math.min(50, opts.maxMeters); ; radius = Math.min(radius * 4, opts.maxMeters)) {
      const dLat = radius / M_PER_DEG;
      const dLon = dLat / cos;
      // The box's cells, one range a row of the grid (cells are row-major), read from the position index.
      const [col0, col1] = [positionColumn(lon - dLon), positionColumn(lon + dLon)];
      const found: Array<LabelHit & { meters: number }> = [];
      for (let row = positionRow(lat - dLat); row <= positionRow(lat + dLat); row++) {
        const args: unknown[] = [positionCell(col0, row), positionCell(col1, row), lon - dLon, lon + dLon, lat - dLat, lat + dLat];
        for (const r of this.prepared(inBoxSql(labelFilters({ types: opts.types }, args))).all(...args)) {
          const meters = metersBetween(lon, lat, r.lon, r.lat);
          if (meters <= radius) found.push({ ...this.hit(r, 1), meters });
        }
      }
      if (found.length >= opts.limit || radius >= opts.maxMeters) {
        return found.sort((a, b) => a.meters - b.meters || a.id.localeCompare(b.id)).slice(0, opts.limit);
      }
    }
  }
}
