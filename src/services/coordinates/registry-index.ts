// The EPSG registry as a search index: built at install (`npm run indexes`) from the `proj.db` that ships in
// proj-wasm (PROJ 9.9.0, EPSG v13.102), written to `<indexDir>/coordinates.sqlite`, beside the proj.db the
// server's PROJ reads (proj-db.ts, made first: the default transformations below are asked of it). One row per EPSG object of
// every kind the spec's `kind` filter names, with the spec's kind codes, names and aliases, and what a result
// carries (area, bbox, accuracy, unit, deprecated, default transformation, base geographic CRS); search-tables.ts
// adds what the search ranks by (usage weights, area texts, country fits, country words).

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { buildIndexFile, type IndexBuildResult } from '../index-file';
import { Proj } from './proj';
import { buildServerProjDb } from './proj-db';
import { COORDINATES_INDEX, crsBoundToWgs84, defaultOpWriter, finishRegistry, registryWriter } from './registry-sql';
import { writeSearchTables } from './search-tables';

/** Bumped when the layout or the content rules of the index change (a rebuild follows). */
const INDEX_VERSION = '5';

/** Where proj-wasm's registry lives. */
export function projDbPath(): string {
  return join(require.resolve('proj-wasm'), '..', 'proj.db');
}

/**
 * Search words for systems people name otherwise: epsg.io's, and the names national mapping agencies and their users
 * give their grids (GUGiK's PUWG, swisstopo's Landeskoordinaten, Kadaster's Rijksdriehoeksstelsel, ICSM's MGA2020).
 */
const KEYWORDS: Readonly<Record<number, string>> = {
  3857: 'Spherical Mercator Google Maps OpenStreetMap Bing ArcGIS ESRI Web Mercator',
  4326: 'WGS84 GPS lat lon latitude longitude',
  4087: 'Plate Carree Equirectangular',
  4978: 'ECEF Earth-centred Earth-fixed',
  2180: 'PUWG 1992 PUWG-92 Układ 1992',
  ...Object.fromEntries([2176, 2177, 2178, 2179].map((c) => [c, 'PUWG 2000 CS2000 Układ 2000'])),
  3003: 'Gauss-Boaga Gauss Boaga',
  3004: 'Gauss-Boaga Gauss Boaga',
  3346: 'LKS-94',
  3763: 'PT-TM06',
  2056: 'Schweizer Landeskoordinaten MN95 coordonnées nationales suisses',
  21781: 'Schweizer Landeskoordinaten MN03 coordonnées nationales suisses',
  28992: 'Rijksdriehoeksstelsel RD',
  // GDA2020 / MGA zone 46 … 59
  ...Object.fromEntries(Array.from({ length: 14 }, (_, i) => [7846 + i, `MGA2020 zone ${46 + i}`])),
};

/** Words for a CRS's kind, so that "ETRS89 geographic" or "WGS 84 geocentric" name the kind they want. */
const KIND_WORDS: Readonly<Record<string, string>> = {
  'CRS-GEOGCRS': 'geographic',
  'CRS-GEOG3DCRS': 'geographic 3D',
  'CRS-GCENCRS': 'geocentric',
};

interface Row {
  code: number;
  kind: string;
  name: string;
  deprecated: number;
  extent?: string | null;
  accuracy?: number | null;
  unit?: string | null;
  base?: number | null;
  src?: number | null;
  tgt?: number | null;
  grids?: string | null;
  method?: string | null;
  tbl: string;
}

/** The SQL reading each kind from proj.db (EPSG rows only); `usage` gives the extent of the objects that have one. */
const SOURCES: { kind: string; sql: string }[] = [
  { kind: 'CRS-PROJCRS', sql: `SELECT code, name, deprecated, 'projected_crs' tbl, geodetic_crs_code base, coordinate_system_code cs FROM projected_crs WHERE auth_name='EPSG'` },
  { kind: 'CRS-GEOGCRS', sql: `SELECT code, name, deprecated, 'geodetic_crs' tbl, code base, coordinate_system_code cs FROM geodetic_crs WHERE auth_name='EPSG' AND type='geographic 2D'` },
  { kind: 'CRS-GEOG3DCRS', sql: `SELECT code, name, deprecated, 'geodetic_crs' tbl, code base, coordinate_system_code cs FROM geodetic_crs WHERE auth_name='EPSG' AND type='geographic 3D'` },
  { kind: 'CRS-GCENCRS', sql: `SELECT code, name, deprecated, 'geodetic_crs' tbl, code base, coordinate_system_code cs FROM geodetic_crs WHERE auth_name='EPSG' AND type='geocentric'` },
  { kind: 'CRS-VERTCRS', sql: `SELECT code, name, deprecated, 'vertical_crs' tbl, NULL base, coordinate_system_code cs FROM vertical_crs WHERE auth_name='EPSG'` },
  { kind: 'CRS-ENGCRS', sql: `SELECT code, name, deprecated, 'engineering_crs' tbl, NULL base, coordinate_system_code cs FROM engineering_crs WHERE auth_name='EPSG'` },
  { kind: 'CRS-COMPOUNDCRS', sql: `SELECT c.code, c.name, c.deprecated, 'compound_crs' tbl, COALESCE(p.geodetic_crs_code, g.code) base, COALESCE(p.coordinate_system_code, g.coordinate_system_code) cs FROM compound_crs c LEFT JOIN projected_crs p ON p.auth_name=c.horiz_crs_auth_name AND p.code=c.horiz_crs_code LEFT JOIN geodetic_crs g ON g.auth_name=c.horiz_crs_auth_name AND g.code=c.horiz_crs_code WHERE c.auth_name='EPSG'` },
  { kind: 'COORDOP-COPTRAN', sql: `SELECT code, name, deprecated, table_name tbl, accuracy, source_crs_code src, target_crs_code tgt, method_name method FROM coordinate_operation_view WHERE auth_name='EPSG' AND table_name IN ('helmert_transformation','grid_transformation','other_transformation')` },
  { kind: 'COORDOP-COPCONO', sql: `SELECT code, name, deprecated, 'concatenated_operation' tbl, accuracy, source_crs_code src, target_crs_code tgt FROM concatenated_operation WHERE auth_name='EPSG'` },
  { kind: 'COORDOP-COPCON', sql: `SELECT code, name, deprecated, 'conversion' tbl, method_name method FROM conversion WHERE auth_name='EPSG'` },
  { kind: 'DATUM-GEODDAT', sql: `SELECT code, name, deprecated, 'geodetic_datum' tbl FROM geodetic_datum WHERE auth_name='EPSG' AND frame_reference_epoch IS NULL AND ensemble_accuracy IS NULL` },
  { kind: 'DATUM-DYNGEODDA', sql: `SELECT code, name, deprecated, 'geodetic_datum' tbl FROM geodetic_datum WHERE auth_name='EPSG' AND frame_reference_epoch IS NOT NULL` },
  { kind: 'DATUM-ENSEMDAT', sql: `SELECT code, name, deprecated, 'geodetic_datum' tbl, ensemble_accuracy accuracy FROM geodetic_datum WHERE auth_name='EPSG' AND ensemble_accuracy IS NOT NULL UNION ALL SELECT code, name, deprecated, 'vertical_datum' tbl, ensemble_accuracy FROM vertical_datum WHERE auth_name='EPSG' AND ensemble_accuracy IS NOT NULL` },
  { kind: 'DATUM-VERTDAT', sql: `SELECT code, name, deprecated, 'vertical_datum' tbl FROM vertical_datum WHERE auth_name='EPSG' AND ensemble_accuracy IS NULL` },
  { kind: 'DATUM-ENGDAT', sql: `SELECT code, name, deprecated, 'engineering_datum' tbl FROM engineering_datum WHERE auth_name='EPSG'` },
  { kind: 'ELLIPSOID', sql: `SELECT e.code, e.name, e.deprecated, 'ellipsoid' tbl, u.name unit FROM ellipsoid e LEFT JOIN unit_of_measure u ON u.auth_name=e.uom_auth_name AND u.code=e.uom_code WHERE e.auth_name='EPSG'` },
  { kind: 'PRIMEM', sql: `SELECT p.code, p.name, p.deprecated, 'prime_meridian' tbl, u.name unit FROM prime_meridian p LEFT JOIN unit_of_measure u ON u.auth_name=p.uom_auth_name AND u.code=p.uom_code WHERE p.auth_name='EPSG'` },
  // Every method an EPSG operation uses (proj.db's method table lists only 20; the operations name the rest).
  {
    kind: 'METHOD',
    sql: `SELECT code, MIN(name) name, 0 deprecated, 'coordinate_operation_method' tbl FROM (
      SELECT code, name FROM coordinate_operation_method WHERE auth_name='EPSG'
      UNION SELECT method_code, method_name FROM conversion WHERE auth_name='EPSG' AND method_auth_name='EPSG'
      UNION SELECT method_code, method_name FROM helmert_transformation WHERE auth_name='EPSG' AND method_auth_name='EPSG'
      UNION SELECT method_code, method_name FROM grid_transformation WHERE auth_name='EPSG' AND method_auth_name='EPSG'
      UNION SELECT method_code, method_name FROM other_transformation WHERE auth_name='EPSG' AND method_auth_name='EPSG'
    ) GROUP BY code`,
  },
  ...(
    [
      ['CS-VERTCS', 'vertical'],
      ['CS-SPHERCS', 'spherical'],
      ['CS-CARTESCS', 'Cartesian'],
      ['CS-ELLIPCS', 'ellipsoidal'],
      ['CS-ORDINAL', 'ordinal'],
      ['CS-AFFINE', 'affine'],
    ] as const
  ).map(([kind, type]) => ({
    kind,
    sql: `SELECT cs.code, 'EPSG CS ' || cs.code || ': ' || cs.type || ' ' || cs.dimension || 'D CS. Axes: ' || COALESCE((SELECT group_concat(a.name || ' (' || a.abbrev || ')', ', ') FROM axis a WHERE a.coordinate_system_auth_name=cs.auth_name AND a.coordinate_system_code=cs.code), '') name, 0 deprecated, 'coordinate_system' tbl, (SELECT u.name FROM axis a JOIN unit_of_measure u ON u.auth_name=a.uom_auth_name AND u.code=a.uom_code WHERE a.coordinate_system_auth_name=cs.auth_name AND a.coordinate_system_code=cs.code ORDER BY a.coordinate_system_order LIMIT 1) unit FROM coordinate_system cs WHERE cs.auth_name='EPSG' AND cs.type='${type}'`,
  })),
  { kind: 'AXIS', sql: `SELECT a.code, a.name || ' (' || a.abbrev || ', ' || a.orientation || ')' name, 0 deprecated, 'axis' tbl, u.name unit FROM axis a LEFT JOIN unit_of_measure u ON u.auth_name=a.uom_auth_name AND u.code=a.uom_code WHERE a.auth_name='EPSG'` },
  { kind: 'AREA', sql: `SELECT code, name, deprecated, 'extent' tbl, code extent FROM extent WHERE auth_name='EPSG'` },
  ...(
    [
      ['UNIT-ANGUNIT', 'angle'],
      ['UNIT-SCALEUNIT', 'scale'],
      ['UNIT-LENUNIT', 'length'],
      ['UNIT-TIMEUNIT', 'time'],
    ] as const
  ).map(([kind, type]) => ({ kind, sql: `SELECT code, name, deprecated, 'unit_of_measure' tbl FROM unit_of_measure WHERE auth_name='EPSG' AND type='${type}'` })),
];

const CRS_TABLES = new Set(['projected_crs', 'geodetic_crs', 'vertical_crs', 'engineering_crs', 'compound_crs']);

/** The version the index is built for: our layout version and the registry's (EPSG and PROJ) version. */
function sourceVersion(src: Database.Database): string {
  const meta = Object.fromEntries((src.prepare('SELECT key, value FROM metadata').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
  return `${INDEX_VERSION}/EPSG ${meta['EPSG.VERSION']}/PROJ ${meta['PROJ.VERSION']}`;
}

/**
 * Builds `<dir>/coordinates.sqlite` from proj-wasm's proj.db (skipped when the file for the same registry version
 * is there). Default transformations are asked of PROJ itself: the operation of the CRS bound to WGS 84.
 */
export async function buildCoordinatesIndex(dir: string, opts: { log?: (m: string) => void; force?: boolean } = {}): Promise<IndexBuildResult> {
  const file = join(dir, COORDINATES_INDEX);
  const src = new Database(projDbPath(), { readonly: true, fileMustExist: true });
  const version = sourceVersion(src);
  try {
    const projDb = await buildServerProjDb(dir, projDbPath(), version, opts);
    const result = await buildIndexFile(file, { key: 'version', version }, opts.force || projDb.built, (tmp) => writeIndex(src, tmp, version, projDb.file, opts.log));
    opts.log?.(
      result.built
        ? `coordinates index: ${result.rows} objects (${version}) → ${file}, ${result.mb.toFixed(1)} MB in ${result.seconds.toFixed(1)} s`
        : `coordinates index: ${file} is current (${version})`,
    );
    return result;
  } finally {
    src.close();
  }
}

/** Writes the index into `tmp` from the registry `src`; returns the objects written. */
async function writeIndex(src: Database.Database, tmp: string, version: string, projDb: string, log?: (m: string) => void): Promise<number> {
  const out = new Database(tmp);
  let rows = 0;
  try {
    out.pragma('journal_mode = OFF');
    out.pragma('synchronous = OFF');
    const insert = registryWriter(out);
    const aliases = new Map<string, string[]>();
    for (const a of src.prepare("SELECT table_name t, code, alt_name FROM alias_name WHERE auth_name='EPSG'").all() as { t: string; code: string; alt_name: string }[]) {
      const k = `${a.t}:${a.code}`;
      const list = aliases.get(k) ?? [];
      list.push(a.alt_name);
      aliases.set(k, list);
    }
    // Extent of each object: its first usage (the registry's order), else its own (areas).
    const extentOf = src.prepare(`SELECT e.name, e.west_lon w, e.south_lat s, e.east_lon e, e.north_lat n FROM usage u JOIN extent e ON e.auth_name=u.extent_auth_name AND e.code=u.extent_code WHERE u.object_table_name=? AND u.object_auth_name='EPSG' AND u.object_code=? ORDER BY u.code LIMIT 1`);
    const ownExtent = src.prepare(`SELECT name, west_lon w, south_lat s, east_lon e, north_lat n FROM extent WHERE auth_name='EPSG' AND code=?`);
    const csUnit = src.prepare(`SELECT u.name FROM axis a JOIN unit_of_measure u ON u.auth_name=a.uom_auth_name AND u.code=a.uom_code WHERE a.coordinate_system_auth_name='EPSG' AND a.coordinate_system_code=? ORDER BY a.coordinate_system_order LIMIT 1`);
    const gridsOf = src.prepare(`SELECT grid_name, grid2_name FROM grid_transformation WHERE auth_name='EPSG' AND code=?`);
    const insertAll = out.transaction(() => {
      for (const { kind, sql } of SOURCES) {
        for (const r of src.prepare(sql).all() as (Row & { cs?: number | null })[]) {
          const usageTable = r.tbl === 'coordinate_system' || r.tbl === 'axis' || r.tbl === 'unit_of_measure' || r.tbl === 'coordinate_operation_method' || r.tbl === 'ellipsoid' || r.tbl === 'prime_meridian' ? undefined : r.tbl;
          const ext = (r.tbl === 'extent' ? ownExtent.get(r.code) : usageTable ? extentOf.get(usageTable, r.code) : undefined) as { name: string; w: number; s: number; e: number; n: number } | undefined;
          let grids: string | null = null;
          if (r.tbl === 'grid_transformation') {
            const g = gridsOf.get(r.code) as { grid_name: string; grid2_name: string | null } | undefined;
            grids = g ? JSON.stringify([g.grid_name, g.grid2_name].filter(Boolean)) : null;
          }
          const code = Number(r.code);
          insert.run({
            code,
            kind,
            tbl: r.tbl,
            name: r.name,
            aliases: [
              ...(aliases.get(`${r.tbl}:${r.code}`) ?? []),
              ...(CRS_TABLES.has(r.tbl) && KEYWORDS[code] ? [KEYWORDS[code]] : []),
              ...(KIND_WORDS[kind] ? [KIND_WORDS[kind]] : []),
            ].join(' | '),
            deprecated: r.deprecated ? 1 : 0,
            area: ext?.name ?? null,
            west: ext?.w ?? null,
            south: ext?.s ?? null,
            east: ext?.e ?? null,
            north: ext?.n ?? null,
            accuracy: r.accuracy ?? null,
            unit: r.unit ?? (r.cs != null ? ((csUnit.get(r.cs) as { name: string } | undefined)?.name ?? null) : kind.startsWith('COORDOP-COPTRAN') || kind === 'COORDOP-COPCONO' ? 'metre' : null),
            base: r.base != null ? Number(r.base) : null,
            src: r.src != null ? Number(r.src) : null,
            tgt: r.tgt != null ? Number(r.tgt) : null,
            grids,
            method: r.method ?? null,
          });
          rows++;
        }
      }
    });
    insertAll();
    writeSearchTables(src, out);
    await fillDefaultTransformations(out, projDb, log);
    finishRegistry(out, version);
    return rows;
  } finally {
    out.close();
  }
}

/**
 * The default transformation of each CRS: the operation PROJ puts into the CRS bound to WGS 84 (the TOWGS84 GDAL
 * and epsg.io use; 5514 → EPSG:15965), asked of PROJ for every CRS with a geodetic base other than WGS 84's own
 * (which PROJ never binds): a geocentric CRS binds through a geocentric Helmert (ONGD14 → EPSG:7377), a CRS on a
 * prime meridian other than Greenwich through its Greenwich twin's (NTF (Paris) → EPSG:1193), so no narrower
 * filter on the registry's rows finds them all.
 */
async function fillDefaultTransformations(db: Database.Database, projDb: string, log?: (m: string) => void): Promise<void> {
  const candidates = crsBoundToWgs84(db);
  const update = defaultOpWriter(db);
  const proj = new Proj({ db: projDb });
  const started = performance.now();
  try {
    let done = 0;
    const worker = async (slice: typeof candidates): Promise<void> => {
      for (const c of slice) {
        const crs = await proj.fromDatabase(c.code, 'crs');
        if (!crs) continue;
        const bound = await proj.boundToWgs84(crs).catch(() => null);
        if (bound?.op?.auth === 'EPSG') update.run(bound.op.code, c.id);
        await proj.release([crs, ...(bound ? [bound.bound] : [])]);
        done++;
      }
    };
    // Two requests in flight keep PROJ's thread busy while this one writes.
    const half = Math.ceil(candidates.length / 2);
    await Promise.all([worker(candidates.slice(0, half)), worker(candidates.slice(half))]);
    log?.(`coordinates index: default transformations of ${done} CRS asked of PROJ in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await proj.close();
  }
}
