// `/coordinates/search/{query}.json` over the registry index (registry-index.ts): the query grammar, ranking and
// the result documents. Pure over an open read-only database; exports (PROJ.4, WKT) are added by the service.

import type Database from 'better-sqlite3';
import { ServiceError } from '../../errors';

/** Every kind of the spec's `kind` filter: a family (`CRS`) matches its sub-kinds (`CRS-PROJCRS`, …). */
export const KINDS = [
  '*', 'CRS', 'CRS-PROJCRS', 'CRS-GEOGCRS', 'CRS-GEOG3DCRS', 'CRS-GCENCRS', 'CRS-VERTCRS', 'CRS-ENGCRS', 'CRS-COMPOUNDCRS', 'CRS-DRVDCRS',
  'COORDOP', 'COORDOP-COPTRAN', 'COORDOP-COPCONO', 'COORDOP-POIMOTO', 'COORDOP-COPCON',
  'DATUM', 'DATUM-VERTDAT', 'DATUM-ENGDAT', 'DATUM-GEODDAT', 'DATUM-DYNGEODDA', 'DATUM-ENSEMDAT',
  'ELLIPSOID', 'PRIMEM', 'METHOD', 'CS', 'CS-VERTCS', 'CS-SPHERCS', 'CS-CARTESCS', 'CS-ELLIPCS', 'CS-AFFINE', 'CS-ORDINAL', 'AXIS', 'AREA',
  'UNIT', 'UNIT-ANGUNIT', 'UNIT-SCALEUNIT', 'UNIT-LENUNIT', 'UNIT-TIMEUNIT',
] as const;

/** A search query that does not parse: `invalid`, the message names the bad filter. */
export class QueryError extends ServiceError {
  constructor(message: string) {
    super('invalid', message);
  }
}

export interface ParsedQuery {
  terms: string[];
  kind: string;
  code?: number;
  trans?: number;
  deprecated: '*' | '0' | '1';
}

/** `free terms kind:CRS-PROJCRS code:5514 trans:15965 deprecated:*`; a bad filter is a QueryError naming it. */
export function parseQuery(text: string): ParsedQuery {
  const q: ParsedQuery = { terms: [], kind: 'CRS', deprecated: '0' };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) throw new QueryError('Invalid query: control characters are not allowed');
  if (text.length > 500) throw new QueryError('Invalid query: at most 500 characters');
  for (const token of text.split(/[\s+]+/).filter(Boolean)) {
    const m = /^([A-Za-z]+):(.*)$/.exec(token);
    if (!m) {
      q.terms.push(token);
      continue;
    }
    const [, key, value] = m;
    switch (key.toLowerCase()) {
      case 'kind': {
        const v = value.toUpperCase();
        if (!(KINDS as readonly string[]).includes(v)) throw new QueryError(`Invalid query: unknown kind:${value} (one of ${KINDS.join(', ')})`);
        q.kind = v;
        break;
      }
      case 'code':
      case 'trans': {
        const v = value.replace(/^EPSG:+/i, '');
        if (!/^\d{1,9}$/.test(v)) throw new QueryError(`Invalid query: ${key}:${value} is not an EPSG code`);
        if (key.toLowerCase() === 'code') q.code = Number(v);
        else q.trans = Number(v);
        break;
      }
      case 'deprecated':
        if (value !== '*' && value !== '0' && value !== '1') throw new QueryError(`Invalid query: deprecated:${value} (one of *, 0, 1)`);
        q.deprecated = value;
        break;
      default:
        // `EPSG:4326` typed as a term is a code, not a filter.
        if (key.toUpperCase() === 'EPSG' && /^\d{1,9}$/.test(value)) q.terms.push(value);
        else throw new QueryError(`Invalid query: unknown filter ${key}: (one of kind, code, trans, deprecated)`);
    }
  }
  return q;
}

export interface ObjRow {
  id: number;
  code: number;
  kind: string;
  tbl: string;
  name: string;
  aliases: string;
  deprecated: number;
  area: string | null;
  west: number | null;
  south: number | null;
  east: number | null;
  north: number | null;
  accuracy: number | null;
  unit: string | null;
  base: number | null;
  src: number | null;
  tgt: number | null;
  grids: string | null;
  method: string | null;
  default_op: number | null;
  importance: number;
}

export interface Id {
  authority: string;
  code: number;
}

export interface Transformation {
  accuracy: number | null;
  area: string | null;
  bbox: number[] | null;
  deprecated: boolean;
  exports?: { proj4: string; wkt: string };
  grids: { path: string }[];
  id: Id;
  name: string;
  reversible: boolean;
  target_crs: Id;
  unit: string | null;
  usable: boolean;
}

export interface SearchResult {
  id: Id;
  name: string;
  kind: string;
  deprecated: boolean;
  area: string | null;
  bbox: number[] | null;
  accuracy: number | null;
  unit: string | null;
  default_transformation: Id | null;
  exports?: { proj4: string; wkt: string };
  transformations?: Transformation[];
}

const epsg = (code: number): Id => ({ authority: 'EPSG', code });
/** west, south, east, north (min lon, min lat, max lon, max lat), as the cloud's client reads it. */
const bboxOf = (r: ObjRow): number[] | null => (r.west === null || r.south === null || r.east === null || r.north === null ? null : [r.west, r.south, r.east, r.north]);

/** The grids an operation needs, by their registry names. */
export function gridsOfRow(r: ObjRow): string[] {
  return r.grids ? (JSON.parse(r.grids) as string[]) : [];
}

export function resultOf(r: ObjRow): SearchResult {
  return {
    id: epsg(r.code),
    name: r.name,
    kind: r.kind,
    deprecated: r.deprecated === 1,
    area: r.area,
    bbox: bboxOf(r),
    accuracy: r.accuracy,
    unit: r.unit,
    default_transformation: r.default_op === null ? null : epsg(r.default_op),
  };
}

/** A transformation's document; `usable` when every grid it needs is in `available` (the grid directory's). */
export function transformationOf(r: ObjRow, available: ReadonlySet<string>): Transformation {
  const grids = gridsOfRow(r);
  return {
    accuracy: r.accuracy,
    area: r.area,
    bbox: bboxOf(r),
    deprecated: r.deprecated === 1,
    grids: grids.map((path) => ({ path })),
    id: epsg(r.code),
    name: r.name,
    // Every EPSG transformation method PROJ implements is reversible (PROJ builds the inverse).
    reversible: true,
    target_crs: epsg(r.tgt ?? 4326),
    unit: r.unit,
    usable: grids.every((g) => available.has(g)),
  };
}

/** FTS5 query: each term a quoted prefix, all required. */
function ftsQuery(terms: string[], column?: string): string {
  return terms.map((t) => `${column ? `${column} : ` : ''}"${t.replace(/"/g, '""')}"*`).join(' AND ');
}

const KIND_BOOST: Record<string, number> = { 'CRS-PROJCRS': 0.2, 'CRS-GEOGCRS': 0.05 };

export class RegistrySearch {
  private readonly byCode: Database.Statement;
  private readonly transOf: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.byCode = db.prepare('SELECT * FROM obj WHERE code = ?');
    this.transOf = db.prepare(
      `SELECT * FROM obj WHERE kind = 'COORDOP-COPTRAN' AND src = ? AND tgt = 4326 ORDER BY deprecated, accuracy IS NULL, accuracy, code`,
    );
  }

  /** The CRS of a code (not deprecated-only checks: the caller decides), or undefined. */
  crs(code: number): ObjRow | undefined {
    return (this.byCode.all(code) as ObjRow[]).find((r) => r.kind.startsWith('CRS-'));
  }

  operation(code: number): ObjRow | undefined {
    return (this.byCode.all(code) as ObjRow[]).find((r) => r.kind.startsWith('COORDOP-'));
  }

  /** Transformations from a CRS's base geographic CRS to WGS 84. */
  transformations(r: ObjRow): ObjRow[] {
    return r.base === null || r.base === 4326 ? [] : (this.transOf.all(r.base) as ObjRow[]);
  }

  /** Prepared statements by SQL text: a query's shape depends on its filters, of which there are few. */
  private readonly statements = new Map<string, Database.Statement>();

  private stmt(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      if (this.statements.size >= 256) this.statements.clear();
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  /**
   * Objects matching `q`, ranked: an exact code first (tier 0); then objects whose name matches every term
   * (tier 1), then those matched through their aliases (tier 2); within a tier the object named exactly as asked,
   * then bm25 (name weighted over aliases) times the kind and importance boosts; then not deprecated, then code.
   * Every match is ranked from narrow rows (id and score) and only the page is read whole: a common word matches
   * a thousand objects.
   */
  search(q: ParsedQuery, limit: number, offset: number): { rows: ObjRow[]; total: number } {
    const where: string[] = [];
    const args: unknown[] = [];
    if (q.kind !== '*') {
      if (q.kind.includes('-')) where.push('o.kind = ?');
      else where.push("o.kind LIKE ? || '-%'");
      args.push(q.kind);
    }
    if (q.deprecated !== '*') {
      where.push('o.deprecated = ?');
      args.push(Number(q.deprecated));
    }
    if (q.code !== undefined) {
      where.push('o.code = ?');
      args.push(q.code);
    }
    if (q.trans !== undefined) {
      where.push(`o.base IN (SELECT t.src FROM obj t WHERE t.kind LIKE 'COORDOP-%' AND t.code = ?)`);
      args.push(q.trans);
    }
    // A term that is a whole number is also an exact code: that object first.
    const numeric = q.terms.filter((t) => /^\d{1,9}$/.test(t)).map(Number);
    const words = q.terms.filter((t) => !/^\d{1,9}$/.test(t) || q.terms.length > 1);
    const filter = where.length ? `AND ${where.join(' AND ')}` : '';

    const best = new Map<number, Hit>();
    const keep = (h: Hit): void => {
      const had = best.get(h.id);
      if (!had || h.tier < had.tier) best.set(h.id, h);
    };
    if (words.length === 0 && numeric.length === 0) {
      for (const h of this.stmt(`SELECT o.id, 0 tier, o.importance score, o.deprecated, o.code FROM obj o WHERE 1 ${filter}`).all(...args) as Hit[]) keep(h);
    }
    if (numeric.length) {
      const sql = `SELECT o.id, 0 tier, 1000 + o.importance score, o.deprecated, o.code FROM obj o WHERE o.code IN (${numeric.map(() => '?').join(',')}) ${filter}`;
      for (const h of this.stmt(sql).all(...numeric, ...args) as Hit[]) keep(h);
    }
    if (words.length) {
      const byName = new Set((this.stmt('SELECT rowid FROM obj_fts WHERE obj_fts MATCH ?').pluck().all(ftsQuery(words, 'name')) as number[]));
      const exact = words.join(' ').toLowerCase();
      const sql = `SELECT o.id, o.name, o.kind, o.importance, o.deprecated, o.code, -bm25(obj_fts, 3.0, 1.5) rank
        FROM obj_fts JOIN obj o ON o.id = obj_fts.rowid WHERE obj_fts MATCH ? ${filter}`;
      for (const r of this.stmt(sql).all(ftsQuery(words), ...args) as TextRow[]) {
        const score = (r.name.toLowerCase() === exact ? 1000 : 0) + r.rank * (1 + (KIND_BOOST[r.kind] ?? 0)) * (1 + r.importance * 4);
        keep({ id: r.id, tier: byName.has(r.id) ? 1 : 2, score, deprecated: r.deprecated, code: r.code });
      }
    }
    const ranked = [...best.values()].sort((a, b) => a.tier - b.tier || b.score - a.score || a.deprecated - b.deprecated || a.code - b.code);
    const page = ranked.slice(offset, offset + limit);
    if (!page.length) return { rows: [], total: ranked.length };
    const rows = new Map((this.stmt(`SELECT * FROM obj WHERE id IN (${page.map(() => '?').join(',')})`).all(...page.map((h) => h.id)) as ObjRow[]).map((r) => [r.id, r]));
    return { rows: page.map((h) => rows.get(h.id) as ObjRow), total: ranked.length };
  }
}

/** A match being ranked. */
interface Hit {
  id: number;
  tier: number;
  score: number;
  deprecated: number;
  code: number;
}

interface TextRow {
  id: number;
  name: string;
  kind: string;
  importance: number;
  deprecated: number;
  code: number;
  rank: number;
}
