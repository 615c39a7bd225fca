// The proj.db the server's PROJ reads: proj-wasm's registry with the coordinate operations this PROJ build cannot
// instantiate set aside (marked deprecated), written to `<indexDir>/proj.db` by the index build.
//
// Why: the WebAssembly build cannot catch C++ exceptions. Native PROJ, searching the operations between two CRS,
// tries each candidate and passes over one it cannot instantiate (a time-specific Helmert such as "WGS 84 to ETRS89
// (2)", a velocity grid, a depth grid in a format it does not read); in this build the exception escapes and the
// whole search fails, so 4326 → ETRF2014 (EPSG:9069) and 47 more frames had no answer where cs2cs has one. PROJ
// leaves deprecated operations out of its searches, so marking exactly those operations gives this build native
// PROJ's choices. Which ones is asked of the build itself (proj.ts `uninstantiable`), so a new proj-wasm is checked
// anew. The registry index (registry-index.ts) reads proj-wasm's own file: the operations are still EPSG's, listed
// and searchable as such.

import Database from 'better-sqlite3';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildIndexFile, type IndexBuildResult } from '../index-file';
import { Proj } from './proj';

/** The file name in the index folder. */
export const PROJ_DB = 'proj.db';

/** The tables of proj.db's coordinate operations (coordinate_operation_view's parts) and where their rows live. */
const OPERATION_TABLES: Readonly<Record<string, string>> = {
  helmert_transformation: 'helmert_transformation_table',
  grid_transformation: 'grid_transformation',
  other_transformation: 'other_transformation',
  concatenated_operation: 'concatenated_operation',
};

/** The server's proj.db in `indexDir`, when the index build has made it. */
export function serverProjDb(indexDir: string): string | undefined {
  const file = join(indexDir, PROJ_DB);
  return existsSync(file) ? file : undefined;
}

/**
 * Writes `<dir>/proj.db` from `source` (proj-wasm's), unless it records `version`: a copy in which every operation
 * the build cannot instantiate is deprecated. The version goes into a `meta` table of its own (PROJ reads only its
 * tables). Returns the build's result; `rows` is the number of operations set aside.
 */
export async function buildServerProjDb(dir: string, source: string, version: string, opts: { log?: (m: string) => void; force?: boolean } = {}): Promise<IndexBuildResult> {
  const file = join(dir, PROJ_DB);
  return buildIndexFile(file, { key: 'version', version }, opts.force ?? false, async (tmp) => {
    copyFileSync(source, tmp);
    const db = new Database(tmp);
    const proj = new Proj({ db: source });
    try {
      const ops = db.prepare('SELECT table_name t, auth_name a, code c FROM coordinate_operation_view WHERE deprecated = 0').all() as { t: string; a: string; c: string }[];
      const tableOf = new Map(ops.map((o) => [`${o.a}:${o.c}`, o.t]));
      const bad = await proj.uninstantiable(ops.map((o) => [o.a, String(o.c)]));
      db.transaction(() => {
        for (const b of bad) {
          const table = OPERATION_TABLES[tableOf.get(`${b.auth}:${b.code}`) ?? ''];
          if (!table) throw new Error(`proj.db: no operation table for ${b.auth}:${b.code}`);
          db.prepare(`UPDATE ${table} SET deprecated = 1 WHERE auth_name = ? AND code = ?`).run(b.auth, b.code);
        }
        db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)');
        db.prepare('INSERT INTO meta VALUES (?, ?)').run('version', version);
      })();
      opts.log?.(`proj.db: ${bad.length} of ${ops.length} operations set aside (this PROJ build cannot instantiate them): ${bad.slice(0, 4).map((b) => `${b.auth}:${b.code}`).join(' ')}${bad.length > 4 ? ' …' : ''}`);
      return bad.length;
    } finally {
      db.close();
      await proj.close();
    }
  });
}
