// The coordinates service: the registry index (opened read-only when the server starts, cheap), the operator's grid
// files (listed at start) and PROJ (loaded on the first transform or export, with those grids). Handlers reach it
// through RequestContext.coordinates.

import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readGridDirectory, type GridDirectory } from './grids';
import { type ProjHandle } from './proj';
import { serverProjDb } from './proj-db';
import { ProjPool } from './proj-pool';
import { projDbPath } from './registry-index';
import { COORDINATES_INDEX } from './registry-sql';
import { parseQuery, QueryError, RegistrySearch, resultOf, transformationOf, type SearchResult } from './search';
import { parsePoints, TransformError, Transformer, type TransformAnswer } from './transform';

export { QueryError, TransformError };

export interface SearchOptions {
  limit: number;
  offset: number;
  transformations: boolean;
  exports: boolean;
}

export class CoordinatesService {
  readonly registry: RegistrySearch;
  private readonly proj: ProjPool;
  private readonly transformer: Transformer;

  private constructor(
    private readonly db: Database.Database,
    readonly grids: GridDirectory,
    projThreads: number | undefined,
    projDb: string | undefined,
  ) {
    this.registry = new RegistrySearch(db);
    this.proj = new ProjPool({ gridFiles: grids.files, threads: projThreads, db: projDb });
    this.transformer = new Transformer(this.proj, this.registry);
  }

  /**
   * Opens `<indexDir>/coordinates.sqlite` with the grid files of `gridDir` and up to `projThreads` PROJ threads;
   * undefined when the index has not been built (`npm run indexes`). A grid directory that cannot be read throws.
   */
  static open(indexDir: string, opts: { gridDir?: string; projThreads?: number } = {}): CoordinatesService | undefined {
    const file = join(indexDir, COORDINATES_INDEX);
    if (!existsSync(file)) return undefined;
    const grids = readGridDirectory(opts.gridDir, projDbPath());
    // An index folder built before proj-db.ts existed has no proj.db of its own: PROJ then reads proj-wasm's.
    return new CoordinatesService(new Database(file, { readonly: true, fileMustExist: true }), grids, opts.projThreads, serverProjDb(indexDir));
  }

  async search(query: string, o: SearchOptions): Promise<{ results: SearchResult[]; total: number }> {
    const q = parseQuery(query);
    const { rows, total } = this.registry.search(q, o.limit, o.offset);
    const results: SearchResult[] = [];
    for (const row of rows) {
      const r = resultOf(row);
      if (o.exports) r.exports = await this.exportsOf(row.code, row.kind.startsWith('COORDOP-') ? 'operation' : 'crs');
      if (o.transformations && row.kind.startsWith('CRS-')) {
        r.transformations = [];
        for (const t of this.registry.transformations(row)) {
          const doc = transformationOf(t, this.grids.available);
          if (o.exports) doc.exports = await this.exportsOf(t.code, 'operation');
          r.transformations.push(doc);
        }
      }
      results.push(r);
    }
    return { results, total };
  }

  /** PROJ.4 and WKT of an EPSG object PROJ can build (empty strings for kinds it cannot: areas, units, axes …). */
  private async exportsOf(code: number, category: 'crs' | 'operation'): Promise<{ proj4: string; wkt: string }> {
    const { proj4, wkt } = await this.allExportsOf(code, category);
    return { proj4, wkt };
  }

  private allExportsOf(code: number, category: 'crs' | 'operation'): Promise<{ proj4: string; wkt: string; wkt1: string }> {
    return this.proj.use(async (proj) => {
      const h: ProjHandle | null = await proj.fromDatabase(code, category);
      if (!h) return { proj4: '', wkt: '', wkt1: '' };
      try {
        return await proj.exports(h);
      } finally {
        await proj.release([h]);
      }
    });
  }

  /** The EPSG CRS `code` in WKT 1 as GDAL writes it (what a GeoPackage's gpkg_spatial_ref_sys holds); '' when PROJ cannot. */
  async crsWkt1(code: number): Promise<string> {
    return (await this.allExportsOf(code, 'crs')).wkt1;
  }

  transform(coordinates: string, s: number, t: number, ops?: number[]): Promise<TransformAnswer> {
    return this.transformer.transform(parsePoints(coordinates), s, t, ops);
  }

  /** Many points from EPSG:s to EPSG:t, x/y in each CRS's usual order; NaN where PROJ cannot (a raster's grid). */
  transformXY(xs: Float64Array, ys: Float64Array, s: number, t: number): Promise<{ xs: Float64Array; ys: Float64Array }> {
    return this.transformer.transformXY(xs, ys, s, t);
  }

  /**
   * Whether the EPSG CRS `code` names its northing or latitude first (EPSG:4326, EPSG:3035), as WMS 1.3.0 writes
   * its BBOX; undefined when the registry has no such CRS.
   */
  northFirst(code: number): boolean | undefined {
    const row = this.firstAxis().get({ code: String(code) }) as { orientation: string } | undefined;
    return row ? /^(north|south)$/i.test(row.orientation) : undefined;
  }

  /**
   * What a tile grid needs of the EPSG CRS `code`: its axis order, its area of use (lon/lat, the union of its
   * usages) and whether it is geographic; undefined when the registry has no such CRS.
   */
  crsFacts(code: number): { northFirst: boolean; area: [number, number, number, number]; geographic: boolean } | undefined {
    const northFirst = this.northFirst(code);
    if (northFirst === undefined) return undefined;
    this.projDb ??= new Database(projDbPath(), { readonly: true, fileMustExist: true });
    const a = this.projDb
      .prepare(
        `SELECT min(e.west_lon) w, min(e.south_lat) s, max(e.east_lon) e, max(e.north_lat) n FROM usage u JOIN extent e ON e.auth_name = u.extent_auth_name AND e.code = u.extent_code
         WHERE u.object_auth_name = 'EPSG' AND u.object_code = @code AND u.object_table_name IN ('projected_crs', 'geodetic_crs')`,
      )
      .get({ code: String(code) }) as { w: number | null; s: number; e: number; n: number };
    const geographic = this.projDb.prepare(`SELECT 1 FROM geodetic_crs WHERE auth_name = 'EPSG' AND code = @code AND type LIKE 'geographic%'`).get({ code: String(code) }) !== undefined;
    // An area crossing the antimeridian (west > east) is taken as every longitude.
    const area: [number, number, number, number] = a.w === null ? [-180, -90, 180, 90] : a.w > a.e ? [-180, a.s, 180, a.n] : [a.w, a.s, a.e, a.n];
    return { northFirst, area, geographic };
  }

  private projDb?: Database.Database;
  private firstAxisStatement?: Database.Statement;
  private firstAxis(): Database.Statement {
    // proj.db, the registry PROJ itself reads: the first axis of the CRS's coordinate system.
    this.projDb ??= new Database(projDbPath(), { readonly: true, fileMustExist: true });
    this.firstAxisStatement ??= this.projDb.prepare(
      `SELECT a.orientation FROM (SELECT coordinate_system_auth_name an, coordinate_system_code cs FROM projected_crs WHERE auth_name = 'EPSG' AND code = @code
         UNION ALL SELECT coordinate_system_auth_name, coordinate_system_code FROM geodetic_crs WHERE auth_name = 'EPSG' AND code = @code) c
       JOIN axis a ON a.coordinate_system_auth_name = c.an AND a.coordinate_system_code = c.cs WHERE a.coordinate_system_order = 1 LIMIT 1`,
    );
    return this.firstAxisStatement;
  }

  async close(): Promise<void> {
    await this.proj.close();
    this.db.close();
    this.projDb?.close();
  }
}
