// Every kind of the spec's `kind` filter over HTTP, alone and with terms, `deprecated:`, `code:` and `trans:`: the
// totals are counted in EPSG's own tables (proj-wasm's proj.db, the registry the index is built from) by this
// test's own SQL, and the objects named are known ones (7004 Bessel 1841, 8901 Greenwich, 9807 Transverse Mercator …).

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { DEFAULT_INDEX_DIR } from '../../src/config/load';
import { KEY, startServer, type TestServer } from '../helpers/server';

let srv: TestServer;
let db: Database.Database;
beforeAll(async () => {
  srv = await startServer({ config: { indexDir: DEFAULT_INDEX_DIR } });
  db = new Database(join(require.resolve('proj-wasm'), '..', 'proj.db'), { readonly: true, fileMustExist: true });
});
afterAll(async () => {
  db.close();
  await srv.close();
});

interface Search {
  results: { id: { authority: string; code: number }; name: string; kind: string; deprecated: boolean }[];
  total: number;
}

async function search(query: string, params = ''): Promise<Search> {
  const r = await fetch(`${srv.url}/coordinates/search/${encodeURIComponent(query)}.json?key=${KEY}${params}`);
  expect([query, r.status]).toEqual([query, 200]);
  return (await r.json()) as Search;
}

/** `deprecated` as the filter reads it: `0` the active, `1` the deprecated, `*` both (tables without the column: all active). */
type Dep = '0' | '1' | '*';
const where = (dep: Dep, col = 'deprecated'): string => (dep === '*' ? '1' : `${col} = ${dep}`);

/** How many EPSG objects of each kind proj.db holds, for each value of `deprecated:`. */
const COUNT: Record<string, (dep: Dep) => string> = {
  'CRS-PROJCRS': (d) => `SELECT count(*) FROM projected_crs WHERE auth_name = 'EPSG' AND ${where(d)}`,
  'CRS-GEOGCRS': (d) => `SELECT count(*) FROM geodetic_crs WHERE auth_name = 'EPSG' AND type = 'geographic 2D' AND ${where(d)}`,
  'CRS-GEOG3DCRS': (d) => `SELECT count(*) FROM geodetic_crs WHERE auth_name = 'EPSG' AND type = 'geographic 3D' AND ${where(d)}`,
  'CRS-GCENCRS': (d) => `SELECT count(*) FROM geodetic_crs WHERE auth_name = 'EPSG' AND type = 'geocentric' AND ${where(d)}`,
  'CRS-VERTCRS': (d) => `SELECT count(*) FROM vertical_crs WHERE auth_name = 'EPSG' AND ${where(d)}`,
  'CRS-ENGCRS': (d) => `SELECT count(*) FROM engineering_crs WHERE auth_name = 'EPSG' AND ${where(d)}`,
  'CRS-COMPOUNDCRS': (d) => `SELECT count(*) FROM compound_crs WHERE auth_name = 'EPSG' AND ${where(d)}`,
  // proj.db has no derived projected CRS table and no point motion operations: none of either kind.
  'CRS-DRVDCRS': () => 'SELECT 0',
  'COORDOP-COPTRAN': (d) =>
    `SELECT (SELECT count(*) FROM helmert_transformation WHERE auth_name = 'EPSG' AND ${where(d)}) + (SELECT count(*) FROM grid_transformation WHERE auth_name = 'EPSG' AND ${where(d)})
       + (SELECT count(*) FROM other_transformation WHERE auth_name = 'EPSG' AND ${where(d)})`,
  'COORDOP-COPCONO': (d) => `SELECT count(*) FROM concatenated_operation WHERE auth_name = 'EPSG' AND ${where(d)}`,
  'COORDOP-POIMOTO': () => 'SELECT 0',
  'COORDOP-COPCON': (d) => `SELECT count(*) FROM conversion WHERE auth_name = 'EPSG' AND ${where(d)}`,
  'DATUM-GEODDAT': (d) => `SELECT count(*) FROM geodetic_datum WHERE auth_name = 'EPSG' AND frame_reference_epoch IS NULL AND ensemble_accuracy IS NULL AND ${where(d)}`,
  'DATUM-DYNGEODDA': (d) => `SELECT count(*) FROM geodetic_datum WHERE auth_name = 'EPSG' AND frame_reference_epoch IS NOT NULL AND ${where(d)}`,
  'DATUM-ENSEMDAT': (d) =>
    `SELECT (SELECT count(*) FROM geodetic_datum WHERE auth_name = 'EPSG' AND ensemble_accuracy IS NOT NULL AND ${where(d)})
       + (SELECT count(*) FROM vertical_datum WHERE auth_name = 'EPSG' AND ensemble_accuracy IS NOT NULL AND ${where(d)})`,
  'DATUM-VERTDAT': (d) => `SELECT count(*) FROM vertical_datum WHERE auth_name = 'EPSG' AND ensemble_accuracy IS NULL AND ${where(d)}`,
  'DATUM-ENGDAT': (d) => `SELECT count(*) FROM engineering_datum WHERE auth_name = 'EPSG' AND ${where(d)}`,
  ELLIPSOID: (d) => `SELECT count(*) FROM ellipsoid WHERE auth_name = 'EPSG' AND ${where(d)}`,
  PRIMEM: (d) => `SELECT count(*) FROM prime_meridian WHERE auth_name = 'EPSG' AND ${where(d)}`,
  // Every method an EPSG conversion or transformation names (proj.db's method table lists only some); methods are
  // never deprecated.
  METHOD: (d) =>
    `SELECT count(DISTINCT m) * (${d === '1' ? 0 : 1}) FROM (SELECT code m FROM coordinate_operation_method WHERE auth_name = 'EPSG'
       UNION SELECT method_code FROM conversion WHERE auth_name = 'EPSG' AND method_auth_name = 'EPSG'
       UNION SELECT method_code FROM helmert_transformation WHERE auth_name = 'EPSG' AND method_auth_name = 'EPSG'
       UNION SELECT method_code FROM grid_transformation WHERE auth_name = 'EPSG' AND method_auth_name = 'EPSG'
       UNION SELECT method_code FROM other_transformation WHERE auth_name = 'EPSG' AND method_auth_name = 'EPSG')`,
  'CS-VERTCS': (d) => `SELECT count(*) * (${d === '1' ? 0 : 1}) FROM coordinate_system WHERE auth_name = 'EPSG' AND type = 'vertical'`,
  'CS-SPHERCS': (d) => `SELECT count(*) * (${d === '1' ? 0 : 1}) FROM coordinate_system WHERE auth_name = 'EPSG' AND type = 'spherical'`,
  'CS-CARTESCS': (d) => `SELECT count(*) * (${d === '1' ? 0 : 1}) FROM coordinate_system WHERE auth_name = 'EPSG' AND type = 'Cartesian'`,
  'CS-ELLIPCS': (d) => `SELECT count(*) * (${d === '1' ? 0 : 1}) FROM coordinate_system WHERE auth_name = 'EPSG' AND type = 'ellipsoidal'`,
  'CS-AFFINE': (d) => `SELECT count(*) * (${d === '1' ? 0 : 1}) FROM coordinate_system WHERE auth_name = 'EPSG' AND type = 'affine'`,
  'CS-ORDINAL': (d) => `SELECT count(*) * (${d === '1' ? 0 : 1}) FROM coordinate_system WHERE auth_name = 'EPSG' AND type = 'ordinal'`,
  AXIS: (d) => `SELECT count(*) * (${d === '1' ? 0 : 1}) FROM axis WHERE auth_name = 'EPSG'`,
  AREA: (d) => `SELECT count(*) FROM extent WHERE auth_name = 'EPSG' AND ${where(d)}`,
  'UNIT-ANGUNIT': (d) => `SELECT count(*) FROM unit_of_measure WHERE auth_name = 'EPSG' AND type = 'angle' AND ${where(d)}`,
  'UNIT-SCALEUNIT': (d) => `SELECT count(*) FROM unit_of_measure WHERE auth_name = 'EPSG' AND type = 'scale' AND ${where(d)}`,
  'UNIT-LENUNIT': (d) => `SELECT count(*) FROM unit_of_measure WHERE auth_name = 'EPSG' AND type = 'length' AND ${where(d)}`,
  'UNIT-TIMEUNIT': (d) => `SELECT count(*) FROM unit_of_measure WHERE auth_name = 'EPSG' AND type = 'time' AND ${where(d)}`,
};
const FAMILIES = ['CRS', 'COORDOP', 'DATUM', 'CS', 'UNIT'];

/** The spec's count of a kind or family (a family is the sum of its sub-kinds). */
function count(kind: string, dep: Dep): number {
  if (kind === '*') return Object.keys(COUNT).reduce((s, k) => s + count(k, dep), 0);
  if (FAMILIES.includes(kind)) return Object.keys(COUNT).filter((k) => k.startsWith(`${kind}-`)).reduce((s, k) => s + count(k, dep), 0);
  return db.prepare(COUNT[kind](dep)).pluck().get() as number;
}

/** Every value of the spec's kind filter (its table in api.md, Coordinates). */
const SPEC_KINDS = [
  '*', 'CRS', 'CRS-PROJCRS', 'CRS-GEOGCRS', 'CRS-GEOG3DCRS', 'CRS-GCENCRS', 'CRS-VERTCRS', 'CRS-ENGCRS', 'CRS-COMPOUNDCRS', 'CRS-DRVDCRS',
  'COORDOP', 'COORDOP-COPTRAN', 'COORDOP-COPCONO', 'COORDOP-POIMOTO', 'COORDOP-COPCON',
  'DATUM', 'DATUM-VERTDAT', 'DATUM-ENGDAT', 'DATUM-GEODDAT', 'DATUM-DYNGEODDA', 'DATUM-ENSEMDAT',
  'ELLIPSOID', 'PRIMEM', 'METHOD', 'CS', 'CS-VERTCS', 'CS-SPHERCS', 'CS-CARTESCS', 'CS-ELLIPCS', 'CS-AFFINE', 'CS-ORDINAL', 'AXIS', 'AREA',
  'UNIT', 'UNIT-ANGUNIT', 'UNIT-SCALEUNIT', 'UNIT-LENUNIT', 'UNIT-TIMEUNIT',
];

const ofKind = (kind: string, k: string): boolean => kind === '*' || k === kind || k.startsWith(`${kind}-`);

describe('each kind alone: total is what EPSG holds of it, every result is of it', () => {
  test.each(SPEC_KINDS)('kind:%s', async (kind) => {
    for (const dep of ['0', '1', '*'] as const) {
      const s = await search(`kind:${kind} deprecated:${dep}`, '&limit=50');
      expect([kind, dep, s.total]).toEqual([kind, dep, count(kind, dep)]);
      expect(s.results.length).toBe(Math.min(50, s.total));
      for (const r of s.results) {
        expect([r.id.code, ofKind(kind, r.kind)]).toEqual([r.id.code, true]);
        if (dep !== '*') expect(r.deprecated).toBe(dep === '1');
      }
    }
  });

  test('the default deprecated:0 is deprecated:0', async () => {
    expect((await search('kind:ELLIPSOID')).total).toBe(count('ELLIPSOID', '0'));
  });
});

describe('each kind with terms', () => {
  // A known object of each kind and words of its name.
  test.each([
    ['ELLIPSOID', 'bessel', 7004, 'Bessel 1841'],
    ['ELLIPSOID', 'grs 1980', 7019, 'GRS 1980'],
    ['PRIMEM', 'greenwich', 8901, 'Greenwich'],
    ['PRIMEM', 'paris', 8903, 'Paris'],
    ['METHOD', 'transverse mercator', 9807, 'Transverse Mercator'],
    ['METHOD', 'krovak', 9819, 'Krovak'],
    ['AREA', 'liechtenstein switzerland', 1286, 'Europe - Liechtenstein and Switzerland'],
    ['UNIT', 'metre', 9001, 'metre'],
    ['UNIT-ANGUNIT', 'degree', 9102, 'degree'],
    ['DATUM', 'osgb', 6277, 'Ordnance Survey of Great Britain 1936'],
    ['DATUM-ENSEMDAT', 'world geodetic system 1984', 6326, 'World Geodetic System 1984 ensemble'],
    ['CRS-PROJCRS', 'lv95', 2056, 'CH1903+ / LV95'],
    ['CRS-GEOGCRS', 'wgs 84', 4326, 'WGS 84'],
    ['CRS-VERTCRS', 'egm2008', 3855, 'EGM2008 height'],
    ['COORDOP-COPTRAN', 's-jtsk to wgs 84 (3)', 15965, 'S-JTSK to WGS 84 (3)'],
    ['COORDOP-COPCON', 'utm zone 32n', 16032, 'UTM zone 32N'],
  ] as [string, string, number, string][])('kind:%s %s finds EPSG:%d in the first three, and only that kind', async (kind, terms, code, name) => {
    const s = await search(`kind:${kind} ${terms}`, '&limit=50');
    expect(s.results.slice(0, 3).map((r) => r.id.code)).toContain(code);
    expect(s.results.find((r) => r.id.code === code)?.name).toBe(name);
    expect(s.results.every((r) => ofKind(kind, r.kind))).toBe(true);
    expect(s.total).toBeGreaterThanOrEqual(s.results.length);
  });

  test('a term no object of the kind has finds nothing of it (kind:PRIMEM bessel)', async () => {
    expect(await search('kind:PRIMEM bessel')).toEqual({ results: [], total: 0 });
  });

  test('kind:AXIS with terms: every axis named Easting, counted as proj.db counts them', async () => {
    const s = await search('kind:AXIS easting', '&limit=50');
    const n = db.prepare(`SELECT count(*) FROM axis WHERE auth_name = 'EPSG' AND lower(name) LIKE '%easting%'`).pluck().get() as number;
    expect(s.total).toBe(n);
    expect(s.results.every((r) => r.kind === 'AXIS' && /easting/i.test(r.name))).toBe(true);
  });

  test('kind:CS with terms: the Cartesian 2D CS of easting, northing in metres (EPSG:4400) is among them', async () => {
    const s = await search('kind:CS code:4400 easting');
    expect(s.results.map((r) => [r.id.code, r.kind])).toEqual([[4400, 'CS-CARTESCS']]);
  });
});

describe('kind with code:, trans: and deprecated:', () => {
  test.each([
    ['ELLIPSOID', 7004],
    ['PRIMEM', 8901],
    ['METHOD', 9807],
    ['AREA', 1286],
    ['UNIT', 9001],
    ['DATUM', 6277],
    ['CRS', 2056],
  ])('kind:%s code:%d is that object alone, with or without a term of its name', async (kind, code) => {
    const s = await search(`kind:${kind} code:${code}`);
    expect([s.total, s.results.map((r) => r.id.code)]).toEqual([1, [code]]);
    const word = s.results[0].name.split(/[^\p{L}\p{N}]+/u).filter(Boolean)[0];
    const withTerm = await search(`kind:${kind} code:${code} ${word}`);
    expect(withTerm.results.map((r) => r.id.code)).toEqual([code]);
  });

  test('code: of another kind than asked finds nothing (7004 is an ellipsoid, not a prime meridian)', async () => {
    expect(await search('kind:PRIMEM code:7004')).toEqual({ results: [], total: 0 });
  });

  test('deprecated:1 with a kind and terms: only deprecated objects of that kind', async () => {
    const n = db.prepare(`SELECT count(*) FROM ellipsoid WHERE auth_name = 'EPSG' AND deprecated = 1 AND lower(name) LIKE '%clarke%'`).pluck().get() as number;
    const s = await search('kind:ELLIPSOID deprecated:1 clarke', '&limit=50');
    expect(s.total).toBe(n);
    expect(s.results.every((r) => r.deprecated && r.kind === 'ELLIPSOID')).toBe(true);
  });

  test('trans: with a kind: the projected CRS on the source of EPSG:15965 (S-JTSK to WGS 84), as proj.db counts them', async () => {
    const n = db
      .prepare(
        `SELECT count(*) FROM projected_crs p JOIN helmert_transformation t ON t.auth_name = 'EPSG' AND t.code = '15965'
         WHERE p.auth_name = 'EPSG' AND p.deprecated = 0 AND p.geodetic_crs_auth_name = t.source_crs_auth_name AND p.geodetic_crs_code = t.source_crs_code`,
      )
      .pluck()
      .get() as number;
    const s = await search('trans:15965 kind:CRS-PROJCRS', '&limit=50');
    expect(n).toBeGreaterThan(0);
    expect(s.total).toBe(n);
    expect(s.results.map((r) => r.id.code)).toContain(5514);
    expect(s.results.every((r) => r.kind === 'CRS-PROJCRS')).toBe(true);
    const krovak = await search('trans:15965 kind:CRS-PROJCRS krovak east north');
    expect(krovak.results[0].id.code).toBe(5514);
  });
});
