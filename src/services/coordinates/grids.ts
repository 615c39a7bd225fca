// The operator's PROJ grid files (`coordinates.gridDir`): which files PROJ is given, and which of the registry's
// grids they make available. The registry names a grid by its original EPSG file name (BETA2007.gsb); PROJ ≥ 7
// distributes it as a GeoTIFF (de_adv_BETA2007.tif, cdn.proj.org) and PROJ < 7 under an older name: any of the
// three in the directory makes the grid available, as PROJ itself decides (proj.db's grid_alternatives).

import Database from 'better-sqlite3';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface GridDirectory {
  /** Regular files of the directory, given to PROJ beside proj.db (it reads them from memory). */
  files: string[];
  bytes: number;
  /** Original (registry) names of the grids these files provide. */
  available: ReadonlySet<string>;
}

export const NO_GRIDS: GridDirectory = { files: [], bytes: 0, available: new Set() };

/** Reads `dir` (absent: no grids); a directory that cannot be read is an error the caller reports. */
export function readGridDirectory(dir: string | undefined, projDb: string): GridDirectory {
  if (!dir) return NO_GRIDS;
  const files: string[] = [];
  let bytes = 0;
  let names0: string[];
  try {
    names0 = readdirSync(dir).sort();
  } catch (err) {
    throw new Error(`coordinates.gridDir ${dir} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  for (const name of names0) {
    const file = join(dir, name);
    const st = statSync(file, { throwIfNoEntry: false });
    if (!st?.isFile()) continue;
    files.push(file);
    bytes += st.size;
  }
  const names = new Set(files.map((f) => f.slice(f.lastIndexOf('/') + 1)));
  const available = new Set<string>(names);
  const db = new Database(projDb, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT original_grid_name o, proj_grid_name p, old_proj_grid_name q FROM grid_alternatives').all() as { o: string; p: string; q: string | null }[];
    for (const r of rows) if (names.has(r.p) || (r.q !== null && names.has(r.q))) available.add(r.o);
  } finally {
    db.close();
  }
  return { files, bytes, available };
}
