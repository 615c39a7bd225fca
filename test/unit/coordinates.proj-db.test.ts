// src/services/coordinates/proj-db.ts: the proj.db the server's PROJ reads, built from proj-wasm's into a temporary
// folder. The operations set aside are the ones this build cannot create (asked of PROJ here, one by one, apart from
// the builder's own scan), marked deprecated in the copy and in no other way changed; the file is rebuilt only for
// another registry version.

import Database from 'better-sqlite3';
import { Proj } from '../../src/services/coordinates/proj';
import { buildServerProjDb } from '../../src/services/coordinates/proj-db';
import { projDbPath } from '../../src/services/coordinates/registry-index';
import { tempDirs } from '../helpers/temp-dirs';

jest.setTimeout(120_000);
const { tempDir, removeTempDirs } = tempDirs('tilemirror-proj-db-');
afterAll(removeTempDirs);

type Op = { t: string; a: string; c: string; deprecated: number };
const ops = (file: string): Op[] => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT table_name t, auth_name a, code c, deprecated FROM coordinate_operation_view ORDER BY t, a, c').all() as Op[];
  } finally {
    db.close();
  }
};

test('marks deprecated exactly the operations PROJ cannot create, records its version, and is not rebuilt for the same one', async () => {
  const dir = tempDir();
  const logs: string[] = [];
  const built = await buildServerProjDb(dir, projDbPath(), 'v-test', { log: (m) => logs.push(m) });
  expect(built.built).toBe(true);
  expect(built.rows).toBeGreaterThan(0);
  expect(logs.join('\n')).toMatch(/operations set aside/);

  const before = ops(projDbPath());
  const after = ops(built.file);
  expect(after.length).toBe(before.length);
  const changed = after.filter((o, i) => o.deprecated !== before[i].deprecated);
  expect(changed.every((o) => o.deprecated === 1)).toBe(true);
  expect(changed.length).toBe(built.rows);
  // "WGS 84 to ETRS89 (2)", the time-specific Helmert that made 4326 → ETRF2014 fail, is among them.
  expect(changed.map((o) => `${o.a}:${o.c}`)).toContain('EPSG:9225');

  // Each one set aside throws when PROJ creates it; a sample of those kept does not.
  const proj = new Proj();
  try {
    const kept = after.filter((o) => o.deprecated === 0);
    const sample = kept.filter((_, i) => i % 50 === 0);
    // (fromDatabase asks the EPSG authority; every operation set aside today is EPSG's)
    expect(changed.filter((o) => o.a !== 'EPSG')).toEqual([]);
    for (const o of changed) expect(await proj.fromDatabase(Number(o.c), 'operation')).toBeNull();
    const made = await Promise.all(sample.filter((o) => o.a === 'EPSG').map((o) => proj.fromDatabase(Number(o.c), 'operation')));
    expect(made.filter((h) => h === null)).toEqual([]);
    await proj.release(made.filter((h): h is NonNullable<typeof h> => h !== null));
  } finally {
    await proj.close();
  }

  const db = new Database(built.file, { readonly: true });
  expect((db.prepare("SELECT value FROM meta WHERE key = 'version'").get() as { value: string }).value).toBe('v-test');
  db.close();
  expect((await buildServerProjDb(dir, projDbPath(), 'v-test')).built).toBe(false);
});
