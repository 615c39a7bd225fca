// An import and a mirror run of the same store never overlap: the import takes the store's mirror lock
// (src/store/data-dir/lock.ts) before it reads the store's version and holds it until the store is published. Real
// processes on real files: a `tilemirror mirror` run slowed to a crawl (--rate 2) holds tiles/sample-vector while an
// import of a bundle holding that store is refused (nothing published, no staging file); an import stopped (SIGSTOP,
// test/helpers/stop-at.ts) while it writes that store's staging file holds the store while a mirror run of it is
// refused, naming the import and its pid; killed outright, the import leaves a lock file whose kernel lock died with
// it, and a rerun finishes.

import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cli, writeSourceStores } from '../fixtures/bundle-stores';
import { built } from '../helpers/dist';
import { startServer, type TestServer } from '../helpers/server';
import { stopAt } from '../helpers/stop-at';
import { waitFor } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-bundle-lock-');

const ROOT = resolve(__dirname, '../..');
const KEY = 'demo';
const STORE = 'tiles/sample-vector';

let upstream: TestServer;
let root: string;
let bundle: string;

beforeAll(async () => {
  upstream = await startServer();
  root = tempDir();
  // A bundle holding a store of the id the mirror runs below write (its content does not matter here).
  const src = join(root, 'src');
  writeSourceStores(src);
  copyFileSync(join(src, 'tiles', 't.mbtiles'), join(src, 'tiles', 'sample-vector.mbtiles'));
  bundle = join(root, 'b.bundle');
  expect(cli(['export', '--data', src, '--out', bundle, STORE, 'maps/m']).code).toBe(0);
}, 120_000);

afterAll(async () => {
  await upstream?.close();
  removeTempDirs();
});

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(args: string[], env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, [built('cli.js'), ...args], { env: { ...process.env, TILEMIRROR_UPSTREAM_KEY: KEY, ...env }, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.once('exit', (code, signal) => res({ code, signal })));
  return { child, output: () => out, exited };
}

const mirrorArgs = (data: string, rate: number): string[] => ['mirror', '--upstream', upstream.url, '--data', data, '--zoom', '0-4', '--rate', String(rate), STORE];

const files = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).sort() : []);

test('an import is refused while a mirror run holds the store, and publishes nothing', async () => {
  const data = join(root, 'mirroring');
  const mirror = start(mirrorArgs(data, 2));
  try {
    await waitFor(`the mirror run to hold ${STORE} (${mirror.output()})`, () => {
      if (mirror.child.exitCode !== null) throw new Error(`the mirror exited early: ${mirror.output()}`);
      return files(join(data, 'tiles')).includes('.sample-vector.lock');
    });
    const r = cli(['import', '--data', data, bundle]);
    expect(r.stderr).toMatch(new RegExp(`${STORE} is busy: another mirror of this store is running \\(pid ${mirror.child.pid}; lock .*\\); nothing was changed`));
    expect(r.code).toBe(1);
    // The mirror's own files only: no store published by the import, no import staging file, maps/m untouched.
    expect(files(join(data, 'tiles')).filter((f) => f.includes('.import') || f === 'sample-vector.mbtiles')).toEqual([]);
    expect(existsSync(join(data, 'maps'))).toBe(false);
    expect(mirror.child.exitCode).toBeNull();
  } finally {
    mirror.child.kill('SIGKILL');
    await mirror.exited;
  }
});

/**
 * An import into `data` stopped while it writes tiles/sample-vector (its staging file there): it holds the store's
 * lock. When it ended before a look found it there (a busy machine gave it a long turn), it runs again on an empty
 * folder.
 */
async function importStoppedInside(data: string): Promise<Running> {
  for (let attempt = 1; ; attempt++) {
    rmSync(data, { recursive: true, force: true });
    mkdirSync(data);
    const imp = start(['import', '--data', data, bundle]);
    if (await stopAt(imp.child, `the staging file of ${STORE}`, () => existsSync(join(data, 'tiles', '.sample-vector.mbtiles.import')))) return imp;
    if ((await imp.exited).code !== 0 || attempt === 5) throw new Error(`the import ended before it was seen writing ${STORE} (attempt ${attempt}): ${imp.output()}`);
  }
}

test('a mirror run is refused while an import holds the store, naming the import; the killed import reruns', async () => {
  const data = join(root, 'importing');
  const imp = await importStoppedInside(data);
  try {
    const mirror = start(mirrorArgs(data, 50));
    const ended = await mirror.exited;
    expect(mirror.output()).toMatch(new RegExp(`an import into this store is running \\(pid ${imp.child.pid}; lock `));
    expect(ended.code).not.toBe(0);
    expect(files(join(data, 'tiles')).filter((f) => !f.startsWith('.sample-vector.'))).toEqual([]);
  } finally {
    imp.child.kill('SIGKILL');
    expect((await imp.exited).signal).toBe('SIGKILL');
  }
  // The kernel lock died with the import; its file may stay behind, and the rerun takes it and removes it.
  const rerun = cli(['import', '--data', data, bundle]);
  expect(rerun.stderr).not.toMatch(/busy/);
  expect(rerun.code).toBe(0);
  expect(files(join(data, 'tiles'))).toEqual(['sample-vector.mbtiles']);
  expect(files(join(data, 'maps'))).toEqual(['m.mbtiles']);
});
