// An import killed outright (SIGKILL, no handler runs) at points the test observes: the import runs in short turns,
// stopped between them (test/helpers/stop-at.ts), and is killed at the first stop that finds a store's staging file
// (`.{id}.mbtiles.import`): inside that store's write, whatever it had done of it. For both layouts (an incremental
// bundle's records, a full bundle's store files): the store being written is still served as it was, stores already
// published stay published, and a rerun finishes with every store equal to the source. Then a running server picks an
// imported version up without restart.

import { spawn } from 'node:child_process';
import { cpSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { startChildServer, type ChildServer } from '../helpers/child-server';
import { built } from '../helpers/dist';
import { rawGet } from '../helpers/server';
import { stopAt } from '../helpers/stop-at';
import { tempDirs } from '../helpers/temp-dirs';
import { waitFor } from '../helpers/wait';
import { bytesFor, changeSourceStores, cli, contentRows, expectSameStores, fileStates, writeSourceStores } from '../fixtures/bundle-stores';

const { tempDir, removeTempDirs } = tempDirs('tm-bundle-kill-');
let root: string;
let src: string;
let server: ChildServer | undefined;

beforeAll(() => {
  root = tempDir();
  src = join(root, 'src');
  writeSourceStores(src);
  expect(cli(['export', '--data', src, '--out', join(root, 'v0.bundle')]).code).toBe(0);
  for (const dst of ['dst-records', 'dst-files']) expect(cli(['import', '--data', join(root, dst), join(root, 'v0.bundle')]).code).toBe(0);
  const versions = cli(['status', '--versions', '--data', join(root, 'dst-records')]);
  expect(versions.code).toBe(0);
  writeFileSync(join(root, 'v0.versions.json'), versions.stdout);
  changeSourceStores(src);
  // Whole stores, each as its SQLite file: tiles/t is already current on the other side (skipped), then maps/m,
  // then the font (each file is copied in one step: smaller than the 2 MB the copy reads at a time).
  const full = cli(['export', '--data', src, '--out', join(root, 'v1.bundle')]);
  expect(full.stderr).toMatch(/maps\/m: \w+ whole \(its SQLite file\)/);
  expect(full.code).toBe(0);
  // The changes as records: tiles/t is left out; maps/m has 27 records (3 put, 24 removed), the font 3.
  const inc = cli(['export', '--data', src, '--out', join(root, 'v1.inc.bundle'), '--since', join(root, 'v0.versions.json')]);
  expect(inc.stderr).toMatch(/maps\/m: \w+ → \w+: 3 tiles put, 24 removed/);
  expect(inc.code).toBe(0);
});

afterAll(async () => {
  await server?.stop();
  removeTempDirs();
});

/** Attempts at catching the import inside a store before giving up (each one misses only when the import ends between two looks). */
const ATTEMPTS = 5;

/**
 * Runs the import and SIGKILLs it at the first stop that finds `staging` (a path in `dst`) present. When the import
 * ended before any look found it there, `dst` is put back as it was and the import runs again. Returns the store
 * files' states just before the attempt that was killed.
 */
async function importKilledWhile(dst: string, bundle: string, staging: string): Promise<string[]> {
  const kept = join(root, `${basename(dst)}.before-kill`);
  rmSync(kept, { recursive: true, force: true });
  cpSync(dst, kept, { recursive: true });
  for (let attempt = 1; ; attempt++) {
    const filesBefore = fileStates(dst);
    const child = spawn(process.execPath, [built('cli.js'), 'import', '--data', dst, join(root, bundle)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<NodeJS.Signals | null>((res) => child.once('exit', (_code, signal) => res(signal)));
    if (await stopAt(child, `${staging} written`, () => existsSync(join(dst, staging)))) {
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      return filesBefore;
    }
    await exited;
    if (attempt === ATTEMPTS) throw new Error(`the import ended ${ATTEMPTS} times before it was seen writing ${staging}: ${err}`);
    rmSync(dst, { recursive: true, force: true });
    cpSync(kept, dst, { recursive: true });
  }
}

/** Kills an import of `bundle` inside maps/m, then inside the font; then reruns it. */
async function killTwiceThenRerun(dst: string, bundle: string): Promise<void> {
  const mapBefore = contentRows(join(dst, 'maps', 'm.mbtiles'));
  const fontBefore = contentRows(join(dst, 'fonts', 'Test Sans.mbtiles'));

  const filesBefore = await importKilledWhile(dst, bundle, join('maps', '.m.mbtiles.import'));
  // The map was being written: its published file is untouched; its staging file is what the kill left.
  expect(fileStates(dst)).toEqual(filesBefore);
  expect(contentRows(join(dst, 'maps', 'm.mbtiles'))).toEqual(mapBefore);
  expect(existsSync(join(dst, 'maps', '.m.mbtiles.import'))).toBe(true);

  await importKilledWhile(dst, bundle, join('fonts', '.Test Sans.mbtiles.import'));
  expect(existsSync(join(dst, 'maps', '.m.mbtiles.import'))).toBe(false);
  expectSameStores(src, dst, ['maps/m.mbtiles']);
  expect(contentRows(join(dst, 'fonts', 'Test Sans.mbtiles'))).toEqual(fontBefore);
  expect(existsSync(join(dst, 'fonts', '.Test Sans.mbtiles.import'))).toBe(true);

  const r = cli(['import', '--data', dst, join(root, bundle)]);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain('maps/m: already at version');
  expect(r.stderr).toContain('fonts/Test Sans: now at version');
  expectSameStores(src, dst);
  expect(existsSync(join(dst, 'fonts', '.Test Sans.mbtiles.import'))).toBe(false);
}

test('records (incremental): killed in the middle of a store, then in the middle of the next: each store is old or new, never torn; a rerun finishes', async () => {
  await killTwiceThenRerun(join(root, 'dst-records'), 'v1.inc.bundle');
});

test('store files (full): killed while a file is copied or checked, in each store in turn: old or new, never torn; a rerun finishes', async () => {
  await killTwiceThenRerun(join(root, 'dst-files'), 'v1.bundle');
});

test('a running server serves the imported version without a restart', async () => {
  const other = join(root, 'served');
  expect(cli(['import', '--data', other, join(root, 'v0.bundle')]).code).toBe(0);
  server = await startChildServer(other);
  // z3 x2 row 5 is y 2 from the north: a tile the change replaced; z3 x7 is a column it removed.
  const tile = `${server.url}/maps/m/3/2/2.png?key=demo`;
  const gone = `${server.url}/maps/m/3/7/0.png?key=demo`;
  const old = await rawGet(tile);
  expect(old.status).toBe(200);
  expect(old.body.equals(bytesFor('512/3/2/2', 300 + 2 * 7 + 2))).toBe(true);
  expect((await rawGet(gone)).status).toBe(200);

  expect(cli(['import', '--data', other, join(root, 'v1.bundle')]).code).toBe(0);
  await waitFor('the new tile to be served', async () => (await rawGet(tile)).body.equals(bytesFor('changed', 333)));
  // An absent tile inside the bounds is answered 204 (no content), as the server answers every missing tile.
  expect((await rawGet(gone)).status).toBe(204);
  expect(server.child.exitCode).toBeNull();
});
