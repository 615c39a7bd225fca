// The search side of the coordinates index, written after registry-index.ts has filled `obj`: each object's usage
// weight (usage-weight.ts), its name and alias words and the extents whose text is its area of use; the words of the
// area texts; how well each object's area fits each country it names (`obj_country`); and the words that name a
// country (`country_word`). Read on the first search by term-index.ts; the words are stored folded so that reading
// them is all the work left.

import type Database from 'better-sqlite3';
import { countriesNamedIn, countryBoxes, countryVocabulary, words } from './place-words';
import { searchTablesWriter, type ObjRef } from './registry-sql';
import { boxArea, countryFit, datumReferences, usageWeight, type Box, type DatumRefs } from './usage-weight';

interface Usage extends Box {
  extent: number;
  scope: string;
  countries: string[];
}

/** Tables whose objects have usage records (the others: ellipsoids, units, axes … have none). */
const USAGE_TABLES = new Set([
  'projected_crs', 'geodetic_crs', 'vertical_crs', 'engineering_crs', 'compound_crs', 'geodetic_datum', 'vertical_datum',
  'engineering_datum', 'helmert_transformation', 'grid_transformation', 'other_transformation', 'concatenated_operation', 'conversion',
]);

/** Fills the search tables of `out` (obj already written) from the registry `src`. */
export function writeSearchTables(src: Database.Database, out: Database.Database): void {
  const write = searchTablesWriter(out);
  const boxes = countryBoxes();

  // Usage records of every EPSG object, with the countries each extent's text names.
  const extents = new Map<number, { text: string; countries: string[] }>();
  const usages = new Map<string, Usage[]>();
  const usageRows = src
    .prepare(
      `SELECT u.object_table_name t, u.object_code c, e.code extent, e.name en, e.description ed, e.west_lon west, e.south_lat south,
         e.east_lon east, e.north_lat north, s.scope FROM usage u
       JOIN extent e ON e.auth_name = u.extent_auth_name AND e.code = u.extent_code
       JOIN scope s ON s.auth_name = u.scope_auth_name AND s.code = u.scope_code
       WHERE u.object_auth_name = 'EPSG' ORDER BY u.code`,
    )
    .all() as { t: string; c: string; extent: number; en: string; ed: string; west: number; south: number; east: number; north: number; scope: string }[];
  for (const r of usageRows) {
    const extent = Number(r.extent);
    let x = extents.get(extent);
    if (!x) {
      x = { text: `${r.en}. ${r.ed}`, countries: countriesNamedIn(`${r.en}. ${r.ed}`) };
      extents.set(extent, x);
    }
    const key = `${r.t}:${r.c}`;
    const list = usages.get(key) ?? [];
    list.push({ extent, west: r.west, south: r.south, east: r.east, north: r.north, scope: r.scope, countries: x.countries });
    usages.set(key, list);
  }
  // Areas (kind AREA) are their own extent.
  for (const e of src.prepare(`SELECT code, name, description, west_lon west, south_lat south, east_lon east, north_lat north FROM extent WHERE auth_name = 'EPSG'`).all() as {
    code: number; name: string; description: string; west: number; south: number; east: number; north: number;
  }[]) {
    const code = Number(e.code);
    if (!extents.has(code)) extents.set(code, { text: `${e.name}. ${e.description}`, countries: countriesNamedIn(`${e.name}. ${e.description}`) });
    const west = e.west ?? -180, south = e.south ?? -90, east = e.east ?? 180, north = e.north ?? 90;
    usages.set(`extent:${code}`, [{ extent: code, west, south, east, north, scope: '', countries: extents.get(code)?.countries ?? [] }]);
  }

  // What builds on each CRS.
  const refs = new Map<number, DatumRefs>();
  const refsOf = (code: number): DatumRefs => {
    let r = refs.get(code);
    if (!r) refs.set(code, (r = { transformations: 0, grids: 0, compounds: 0, projected: 0 }));
    return r;
  };
  for (const op of src
    .prepare(
      `SELECT table_name t, source_crs_code s, target_crs_code g FROM coordinate_operation_view
       WHERE auth_name = 'EPSG' AND deprecated = 0 AND source_crs_auth_name = 'EPSG' AND target_crs_auth_name = 'EPSG'`,
    )
    .all() as { t: string; s: string; g: string }[]) {
    for (const c of [Number(op.s), Number(op.g)]) {
      const r = refsOf(c);
      r.transformations++;
      if (op.t === 'grid_transformation') r.grids++;
    }
  }
  for (const p of src.prepare(`SELECT geodetic_crs_code b FROM projected_crs WHERE auth_name = 'EPSG' AND deprecated = 0`).all() as { b: string }[]) refsOf(Number(p.b)).projected++;
  const compoundsOf = new Map<number, number[]>();
  const horizontalOf = new Map<number, number>();
  for (const c of src.prepare(`SELECT code, horiz_crs_code h, deprecated FROM compound_crs WHERE auth_name = 'EPSG' AND horiz_crs_auth_name = 'EPSG'`).all() as {
    code: string; h: string; deprecated: number;
  }[]) {
    horizontalOf.set(Number(c.code), Number(c.h));
    if (c.deprecated) continue;
    refsOf(Number(c.h)).compounds++;
    const list = compoundsOf.get(Number(c.h)) ?? [];
    list.push(Number(c.code));
    compoundsOf.set(Number(c.h), list);
  }
  const aliasCount = new Map<string, number>();
  for (const a of src.prepare(`SELECT table_name t, code, count(*) n FROM alias_name WHERE auth_name = 'EPSG' GROUP BY 1, 2`).all() as { t: string; code: string; n: number }[]) {
    aliasCount.set(`${a.t}:${a.code}`, a.n);
  }

  const used = referenceCounts(src);
  const variants = axisOrderVariants(src);

  const objs = write.objects;
  const kindOf = new Map<number, string>();
  for (const o of objs) if (o.kind.startsWith('CRS-')) kindOf.set(o.code, o.kind);
  const usageKey = (o: ObjRef): string => (o.tbl === 'extent' ? `extent:${o.code}` : `${o.tbl}:${o.code}`);
  /** The datum share a CRS draws on (usage-weight.ts, WeightInput.datum). */
  const datumShare = (kind: string | undefined, base: number | null): number => {
    if (base === null) return 0;
    const r = refs.get(base);
    if (!r) return 0;
    return kind === 'CRS-PROJCRS' ? datumReferences(r) / Math.sqrt(Math.max(1, r.projected)) : datumReferences(r);
  };

  out.transaction(() => {
    const usedExtents = new Set<number>();
    for (const o of objs) {
      const own = USAGE_TABLES.has(o.tbl) || o.tbl === 'extent' ? (usages.get(usageKey(o)) ?? []) : [];
      const crs = o.kind.startsWith('CRS-');
      const datum = !crs
        ? (used.get(`${o.tbl}:${o.code}`) ?? 0)
        : o.kind === 'CRS-COMPOUNDCRS'
          ? datumShare(kindOf.get(horizontalOf.get(o.code) ?? -1), o.base)
          : o.kind === 'CRS-PROJCRS' || o.kind === 'CRS-GEOGCRS' || o.kind === 'CRS-GEOG3DCRS' || o.kind === 'CRS-GCENCRS'
            ? datumShare(o.kind, o.kind === 'CRS-PROJCRS' ? o.base : o.code)
            : refs.has(o.code) ? datumReferences(refs.get(o.code) as DatumRefs) : 0;
      const compounds = o.kind === 'CRS-PROJCRS' ? (compoundsOf.get(o.code) ?? []) : [];
      const weight = usageWeight({
        kind: o.kind,
        code: o.code,
        deprecated: o.deprecated === 1,
        area: Math.max(0, ...own.map(boxArea)),
        aliases: aliasCount.get(`${o.tbl}:${o.code}`) ?? 0,
        compounds: compounds.length,
        scopes: own.map((u) => u.scope),
        datum,
        variant: variants.has(o.code) && o.kind === 'CRS-PROJCRS',
      });
      const named = new Set(own.flatMap((u) => u.countries));
      // Name words, then each alias's words, separated by " | ".
      const nameAndAliases = [o.name, ...(o.aliases ? o.aliases.split(' | ') : [])].map((n) => words(n).join(' ')).join(' | ');
      write.setSearchColumns.run(weight, nameAndAliases, [...new Set(own.map((u) => u.extent))].join(' '), 1 / Math.sqrt(Math.max(1, named.size)), o.id);
      for (const u of own) usedExtents.add(u.extent);

      // How well the object fits each country its areas name; a projected CRS also through the compound CRS that
      // pair it with a national height system (their areas say where it is the national grid).
      const fits = new Map<string, number>();
      const areas = [...own, ...compounds.flatMap((c) => usages.get(`compound_crs:${c}`) ?? [])];
      for (const u of areas) {
        const named = u.countries.map((iso) => boxes.get(iso));
        for (const iso of u.countries) fits.set(iso, Math.max(fits.get(iso) ?? 0, countryFit(u, boxes.get(iso), named)));
      }
      for (const [iso, fit] of fits) if (fit > 1e-6) write.countryFit.run(o.id, iso, fit);
    }
    for (const code of usedExtents) write.areaWords.run(code, [...new Set(words(extents.get(code)?.text ?? ''))].join(' '));
    for (const [word, isos] of countryVocabulary()) write.countryWord.run(word, [...isos].join(' '));
  })();
}

/**
 * How many non-deprecated EPSG objects use each object that is not a CRS (`table:code` → count), the share of the
 * weight a CRS draws from its datum: datums by their CRS, ellipsoids and prime meridians by their datums, methods by
 * their operations, conversions by their projected CRS, coordinate systems and their axes by their CRS, units by
 * the axes, ellipsoids and prime meridians measured in them, areas by their usage records. So `kind:PRIMEM` lists
 * Greenwich first and `kind:ELLIPSOID` GRS 1980 and WGS 84 before Zach 1812.
 */
function referenceCounts(src: Database.Database): Map<string, number> {
  const counts = new Map<string, number>();
  const sql: [table: string, query: string][] = [
    ['geodetic_datum', `SELECT datum_code c, count(*) n FROM geodetic_crs WHERE auth_name = 'EPSG' AND deprecated = 0 GROUP BY 1`],
    ['vertical_datum', `SELECT datum_code c, count(*) n FROM vertical_crs WHERE auth_name = 'EPSG' AND deprecated = 0 GROUP BY 1`],
    ['engineering_datum', `SELECT datum_code c, count(*) n FROM engineering_crs WHERE auth_name = 'EPSG' AND deprecated = 0 GROUP BY 1`],
    ['ellipsoid', `SELECT ellipsoid_code c, count(*) n FROM geodetic_datum WHERE auth_name = 'EPSG' AND deprecated = 0 GROUP BY 1`],
    ['prime_meridian', `SELECT prime_meridian_code c, count(*) n FROM geodetic_datum WHERE auth_name = 'EPSG' AND deprecated = 0 GROUP BY 1`],
    ['coordinate_operation_method', `SELECT method_code c, count(*) n FROM coordinate_operation_view WHERE auth_name = 'EPSG' AND deprecated = 0 AND method_auth_name = 'EPSG' GROUP BY 1`],
    ['conversion', `SELECT conversion_code c, count(*) n FROM projected_crs WHERE auth_name = 'EPSG' AND deprecated = 0 GROUP BY 1`],
    ['coordinate_system', `SELECT cs c, count(*) n FROM (
       SELECT coordinate_system_code cs FROM geodetic_crs WHERE auth_name = 'EPSG' AND deprecated = 0
       UNION ALL SELECT coordinate_system_code FROM projected_crs WHERE auth_name = 'EPSG' AND deprecated = 0
       UNION ALL SELECT coordinate_system_code FROM vertical_crs WHERE auth_name = 'EPSG' AND deprecated = 0
       UNION ALL SELECT coordinate_system_code FROM engineering_crs WHERE auth_name = 'EPSG' AND deprecated = 0) GROUP BY 1`],
    ['unit_of_measure', `SELECT u c, count(*) n FROM (
       SELECT uom_code u FROM axis WHERE auth_name = 'EPSG' UNION ALL SELECT uom_code FROM ellipsoid WHERE auth_name = 'EPSG'
       UNION ALL SELECT uom_code FROM prime_meridian WHERE auth_name = 'EPSG') GROUP BY 1`],
    ['extent', `SELECT extent_code c, count(*) n FROM usage WHERE object_auth_name = 'EPSG' GROUP BY 1`],
  ];
  for (const [table, query] of sql) for (const r of src.prepare(query).all() as { c: string; n: number }[]) counts.set(`${table}:${Number(r.c)}`, r.n);
  // An axis is as used as the coordinate systems it belongs to.
  for (const a of src.prepare(`SELECT code, coordinate_system_code cs FROM axis WHERE auth_name = 'EPSG'`).all() as { code: string; cs: string }[]) {
    counts.set(`axis:${Number(a.code)}`, counts.get(`coordinate_system:${Number(a.cs)}`) ?? 0);
  }
  return counts;
}

/**
 * Projected CRS (codes) that are an axis-order variant of another: named as it plus a parenthesised suffix
 * ("ETRS89 / UTM zone 30N (N-E)", "DHDN / 3-degree Gauss-Kruger zone 3 (E-N)"), on the same base and conversion.
 * The registry adds such a variant later for one community; usage-weight.ts ranks it below the original.
 */
function axisOrderVariants(src: Database.Database): Set<number> {
  const rows = src
    .prepare(`SELECT code, name, geodetic_crs_code || ':' || conversion_code pair FROM projected_crs WHERE auth_name = 'EPSG' AND deprecated = 0 AND conversion_code IS NOT NULL`)
    .all() as { code: string; name: string; pair: string }[];
  const names = new Set(rows.map((r) => `${r.pair}|${r.name}`));
  const variants = new Set<number>();
  for (const r of rows) {
    const m = / \([^()]+\)$/.exec(r.name);
    if (m && names.has(`${r.pair}|${r.name.slice(0, m.index)}`)) variants.add(Number(r.code));
  }
  return variants;
}
