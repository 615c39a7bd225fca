// Across an air gap with the real CLI: a full bundle, then (after the source changed) an incremental one made from
// the versions file the other side wrote, give stores equal to the source row by row (every tile and document);
// importing the same bundle twice changes nothing; a typed-in version works like the file.

import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { changeSourceStores, cli, expectSameStores, fileStates, writeSourceStores } from '../fixtures/bundle-stores';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-bundle-');

let root: string;
let src: string;
let dst: string;

beforeAll(() => {
  root = tempDir();
  src = join(root, 'src');
  dst = join(root, 'dst');
  writeSourceStores(src);
});

afterAll(() => removeTempDirs());

const versionsOf = (dir: string): Record<string, string> => {
  const r = cli(['status', '--versions', '--data', dir]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { stores: Record<string, string> }).stores;
};

test('a full signed bundle, imported into an empty data directory, gives stores equal to the source', () => {
  expect(cli(['keygen', '--out', join(root, 'k')]).code).toBe(0);
  expect(statSync(join(root, 'k.key')).mode & 0o777).toBe(0o600);
  const ex = cli(['export', '--data', src, '--out', join(root, 'full.bundle'), '--sign', join(root, 'k.key')]);
  expect(ex.stderr).toContain('maps/m: ');
  expect(ex.code).toBe(0);
  const im = cli(['import', '--data', dst, join(root, 'full.bundle'), '--trust', join(root, 'k.pub')]);
  expect(im.stderr).toContain('is trusted');
  expect(im.code).toBe(0);
  expectSameStores(src, dst);
  // No staging file is left behind.
  for (const kind of ['maps', 'tiles', 'fonts']) expect(readdirSync(join(dst, kind)).filter((f) => f.startsWith('.'))).toEqual([]);
  // The other side computes the same versions from its own files (its cache removed).
  rmSync(join(dst, '.tilemirror-bundles'), { recursive: true });
  expect(versionsOf(dst)).toEqual(versionsOf(src));
});

test('importing the same bundle again changes nothing', () => {
  const before = fileStates(dst);
  const im = cli(['import', '--data', dst, join(root, 'full.bundle')]);
  expect(im.code).toBe(0);
  expect(im.stdout).toContain('0 stores published, 3 already current');
  expect(fileStates(dst)).toEqual(before);
});

test('after changes at the source, an incremental bundle from the other side\'s versions file, in parts, brings it level', () => {
  const versionsFile = join(root, 'versions.json');
  const st = cli(['status', '--versions', '--data', dst]);
  writeFileSync(versionsFile, st.stdout);
  changeSourceStores(src);
  const out = join(root, 'inc');
  const ex = cli(['export', '--data', src, '--out', out, '--since', versionsFile, '--part-size', '1K']);
  expect(ex.code).toBe(0);
  // tiles/t did not change: left out; the map and the font travel as changes.
  expect(ex.stderr).toMatch(/tiles\/t: unchanged/);
  expect(ex.stderr).toMatch(/maps\/m: \w+ → \w+: 3 tiles put, 24 removed/);
  // 2 changed + 1 added; 8 (z3 column 7) + 16 (pyramid 256, z2) removed.
  expect(ex.stderr).toMatch(/fonts\/Test Sans: \w+ → \w+: 0 tiles put, 0 removed, 2 documents put, 1 removed/);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { parts: { name: string; size: number }[]; stores: { mode: string }[] };
  expect(manifest.parts.length).toBeGreaterThan(1);
  for (const p of manifest.parts.slice(0, -1)) expect(statSync(join(out, p.name)).size).toBe(1024);
  expect(manifest.stores.map((s) => s.mode)).toEqual(['incremental', 'incremental']);
  const full = statSync(join(root, 'full.bundle')).size;
  const inc = manifest.parts.reduce((n, p) => n + p.size, 0);
  expect(inc).toBeLessThan(full / 10);

  const untouched = fileStates(dst, ['tiles/t.mbtiles']);
  const im = cli(['import', '--data', dst, out]);
  expect(im.stderr).toContain('maps/m: now at version');
  expect(im.code).toBe(0);
  expectSameStores(src, dst);
  expect(fileStates(dst, ['tiles/t.mbtiles'])).toEqual(untouched);
  rmSync(join(dst, '.tilemirror-bundles'), { recursive: true });
  expect(versionsOf(dst)).toEqual(versionsOf(src));
});

test('a version typed in works as the versions file does; a version the exporting side never exported is refused', () => {
  const v = versionsOf(src)['tiles/t'];
  const out = join(root, 'typed.bundle');
  const ex = cli(['export', '--data', src, '--out', out, 'tiles/t', '--since', `tiles/t=${v}`]);
  expect(ex.code).toBe(0);
  expect(ex.stdout).toContain('0 stores (1 unchanged)');
  const bad = cli(['export', '--data', src, '--out', join(root, 'never.bundle'), 'maps/m', '--since', 'maps/m=0123456789abcdef01234567']);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('maps/m: this side has no record of version 0123456789abcdef01234567');
  expect(existsSync(join(root, 'never.bundle'))).toBe(false);
  expect(existsSync(join(root, 'never.bundle.partial'))).toBe(false);
});

test('bad arguments get one clear line and exit 1', () => {
  const unknown = cli(['export', '--data', src, '--out', join(root, 'x.bundle'), 'maps/nope']);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/^error: maps\/nope: no such store/);
  const size = cli(['export', '--data', src, '--out', join(root, 'x.bundle'), '--part-size', 'lots']);
  expect(size.code).toBe(1);
  expect(size.stderr).toMatch(/^error: --part-size: not a size: lots/);
  const exists = cli(['export', '--data', src, '--out', join(root, 'full.bundle')]);
  expect(exists.code).toBe(1);
  expect(exists.stderr).toContain('exists: choose a new name');
});
