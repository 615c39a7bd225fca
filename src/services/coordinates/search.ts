// `/coordinates/search/{query}.json` over the registry index (registry-index.ts): the query grammar, ranking and
// the result documents. Pure over an open read-only database; exports (PROJ.4, WKT) are added by the service.

import type Database from 'better-sqlite3';
import { ServiceError } from '../../errors';
import { registryStatements, rowsByIds, type ObjRow } from './registry-sql';
import { TermIndex } from './term-index';


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

export class RegistrySearch {
  private readonly statements: ReturnType<typeof registryStatements>;

  constructor(private readonly db: Database.Database) {
    this.statements = registryStatements(db);
  }

  /** The CRS of a code (not deprecated-only checks: the caller decides), or undefined. */
  crs(code: number): ObjRow | undefined {
    return this.statements.byCode.all(code).find((r) => r.kind.startsWith('CRS-'));
  }

  operation(code: number): ObjRow | undefined {
    return this.statements.byCode.all(code).find((r) => r.kind.startsWith('COORDOP-'));
  }

  /** Transformations from a CRS's base geographic CRS to WGS 84. */
  transformations(r: ObjRow): ObjRow[] {
    return r.base === null || r.base === 4326 ? [] : this.statements.transformationsToWgs84.all(r.base);
  }

  private terms: TermIndex | undefined;

  /** The words of the index in memory, read on the first search (term-index.ts). */
  private termIndex(): TermIndex {
    this.terms ??= new TermIndex(this.db);
    return this.terms;
  }

  /**
   * Objects matching `q`, ranked: an object whose code is a term first (tier 0); then the objects matching every
   * term, by score: how well each term matches (in the name, an alias or the area of use, whole or as a prefix; a
   * country word by how well the area fits the country; the whole name asked, or its words in order) times the
   * object's usage weight (usage-weight.ts; the rule is in docs/decisions/0028-crs-search-usage-weight.md); then not
   * deprecated, then code. Without terms, by usage weight. `total` counts every object the filters and terms match.
   */
  search(q: ParsedQuery, limit: number, offset: number): { rows: ObjRow[]; total: number } {
    const t = this.termIndex();
    const keep = this.filter(q, t);
    // A term that is a whole number is also an exact code: that object first.
    const numeric = q.terms.filter((w) => /^\d{1,9}$/.test(w)).map(Number);
    const words = q.terms.filter((w) => !/^\d{1,9}$/.test(w) || q.terms.length > 1);

    const hits: Hit[] = [];
    const codeHits = new Set<number>();
    for (const c of numeric) {
      for (const p of t.byCode.get(c) ?? []) {
        if (keep(p) && !codeHits.has(p)) {
          codeHits.add(p);
          hits.push({ p, tier: 0, score: t.weight[p] });
        }
      }
    }
    if (words.length) {
      for (const [p, score] of t.match(words, keep)) if (!codeHits.has(p)) hits.push({ p, tier: 1, score });
    } else if (!numeric.length) {
      // No terms: every object the filters keep, in the precomputed weight order (with code:, only that code's).
      const candidates = q.code === undefined ? t.byWeight : [...(t.byCode.get(q.code) ?? [])].sort((a, b) => t.weight[b] - t.weight[a]);
      let total = 0;
      const page: number[] = [];
      for (const p of candidates) {
        if (!keep(p)) continue;
        if (total >= offset && page.length < limit) page.push(p);
        total++;
      }
      return { rows: this.rowsOf(page.map((p) => t.id[p])), total };
    }
    hits.sort((a, b) => a.tier - b.tier || b.score - a.score || t.deprecated[a.p] - t.deprecated[b.p] || t.code[a.p] - t.code[b.p]);
    return { rows: this.rowsOf(hits.slice(offset, offset + limit).map((h) => t.id[h.p])), total: hits.length };
  }

  /** The filters of a query (kind, deprecated, code, trans) as a test of an object's position. */
  private filter(q: ParsedQuery, t: TermIndex): (p: number) => boolean {
    const tests: ((p: number) => boolean)[] = [];
    if (q.kind !== '*') {
      const kind = q.kind;
      // A family (CRS, DATUM, …) holds its sub-kinds (CRS-PROJCRS, …); ELLIPSOID, PRIMEM, METHOD, AXIS, AREA are kinds.
      const family = `${kind}-`;
      tests.push((p) => t.kind[p] === kind || t.kind[p].startsWith(family));
    }
    if (q.deprecated !== '*') {
      const d = Number(q.deprecated);
      tests.push((p) => t.deprecated[p] === d);
    }
    if (q.code !== undefined) {
      const c = q.code;
      tests.push((p) => t.code[p] === c);
    }
    if (q.trans !== undefined) {
      // The CRS whose base geographic CRS is the source of that operation (the ones it transforms to WGS 84).
      const bases = new Set((t.byCode.get(q.trans) ?? []).filter((p) => t.kind[p].startsWith('COORDOP-') && t.src[p] >= 0).map((p) => t.src[p]));
      tests.push((p) => t.base[p] >= 0 && bases.has(t.base[p]));
    }
    return (p) => tests.every((test) => test(p));
  }

  /** Statements reading a page of n rows, by n (at most 50). */
  private readonly pageStatements = new Map<number, Database.Statement<number[], ObjRow>>();

  /** Whole rows of the page, in the page's order. */
  private rowsOf(ids: number[]): ObjRow[] {
    if (!ids.length) return [];
    let st = this.pageStatements.get(ids.length);
    if (!st) this.pageStatements.set(ids.length, (st = rowsByIds(this.db, ids.length)));
    const rows = new Map(st.all(...ids).map((r) => [r.id, r]));
    return ids.map((id) => rows.get(id) as ObjRow);
  }
}

/** A match being ranked: the object's position in the term index, its tier and score. */
interface Hit {
  p: number;
  tier: number;
  score: number;
}
