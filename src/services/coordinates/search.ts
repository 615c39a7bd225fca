// `/coordinates/search/{query}.json` over the registry index (registry-index.ts): the query grammar, ranking and
// the result documents. Pure over an open read-only database; exports (PROJ.4, WKT) are added by the service.

import type Database from 'better-sqlite3';

/** Every kind of the spec's `kind` filter: a family (`CRS`) matches its sub-kinds (`CRS-PROJCRS`, …). */
export const KINDS = [
  '*', 'CRS', 'CRS-PROJCRS', 'CRS-GEOGCRS', 'CRS-GEOG3DCRS', 'CRS-GCENCRS', 'CRS-VERTCRS', 'CRS-ENGCRS', 'CRS-COMPOUNDCRS', 'CRS-DRVDCRS',
  'COORDOP', 'COORDOP-COPTRAN', 'COORDOP-COPCONO', 'COORDOP-POIMOTO', 'COORDOP-COPCON',
  'DATUM', 'DATUM-VERTDAT', 'DATUM-ENGDAT', 'DATUM-GEODDAT', 'DATUM-DYNGEODDA', 'DATUM-ENSEMDAT',
  'ELLIPSOID', 'PRIMEM', 'METHOD', 'CS', 'CS-VERTCS', 'CS-SPHERCS', 'CS-CARTESCS', 'CS-ELLIPCS', 'CS-AFFINE', 'CS-ORDINAL', 'AXIS', 'AREA',
  'UNIT', 'UNIT-ANGUNIT', 'UNIT-SCALEUNIT', 'UNIT-LENUNIT', 'UNIT-TIMEUNIT',
] as const;

export class QueryError extends Error {}

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

/** No grid file is available to this PROJ build (see proj.ts), so an operation is usable when it needs none. */
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

export function transformationOf(r: ObjRow): Transformation {
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
    usable: grids.length === 0,
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
    let sql: string;
    let params: unknown[];
    if (words.length === 0 && numeric.length === 0) {
      sql = `SELECT o.*, 0 tier, o.importance score FROM obj o WHERE 1 ${filter}`;
      params = args;
    } else {
      const codeHit = numeric.length ? `SELECT o.*, 0 tier, 1000 + o.importance score FROM obj o WHERE o.code IN (${numeric.map(() => '?').join(',')}) ${filter}` : '';
      // Names before aliases: an object whose name matches every term is tier 1, one matched through its
      // aliases tier 2. Within a tier, the object named exactly as asked, then bm25 (name weighted over aliases) times the kind and importance boosts.
      const textHit = words.length
        ? `SELECT o.*, CASE WHEN o.id IN (SELECT rowid FROM obj_fts WHERE obj_fts MATCH ?) THEN 1 ELSE 2 END tier,
             CASE WHEN o.name = ? COLLATE NOCASE THEN 1000 ELSE 0 END + (-bm25(obj_fts, 3.0, 1.5)) * (1 + CASE o.kind WHEN 'CRS-PROJCRS' THEN ${KIND_BOOST['CRS-PROJCRS']} WHEN 'CRS-GEOGCRS' THEN ${KIND_BOOST['CRS-GEOGCRS']} ELSE 0 END) * (1 + o.importance * 4) score
           FROM obj_fts JOIN obj o ON o.id = obj_fts.rowid WHERE obj_fts MATCH ? ${filter}`
        : '';
      const parts = [codeHit, textHit].filter(Boolean);
      sql = parts.length > 1 ? `SELECT * FROM (${parts[0]}) UNION ALL SELECT * FROM (${parts[1]})` : parts[0];
      params = [...(codeHit ? [...numeric, ...args] : []), ...(textHit ? [ftsQuery(words, 'name'), words.join(' '), ftsQuery(words), ...args] : [])];
      sql = `SELECT * FROM (SELECT *, MIN(tier) OVER (PARTITION BY id) best FROM (${sql})) WHERE tier = best GROUP BY id`;
    }
    const total = (this.db.prepare(`SELECT COUNT(*) n FROM (${sql})`).get(...params) as { n: number }).n;
    const rows = this.db.prepare(`SELECT * FROM (${sql}) ORDER BY tier, score DESC, deprecated, code LIMIT ? OFFSET ?`).all(...params, limit, offset) as ObjRow[];
    return { rows, total };
  }
}
