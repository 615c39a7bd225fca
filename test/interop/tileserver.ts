// tileserver-gl-light 5 (npm, installed by test/run.sh into .bench/tileserver, as bench/lib/anchors.js does)
// started for the interop tests that mirror it: raw data only (no styles, no fonts), one MBTiles per data id.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from './helpers';
import { gatedTest, GDAL_CHECK } from '../helpers/clients';
import { waitFor } from '../helpers/wait';
import { rawGet } from '../helpers/server';

export const TILESERVER_MAIN = path.join(REPO_ROOT, '.bench', 'tileserver', 'node_modules', 'tileserver-gl-light', 'src', 'main.js');

/** A test that needs tileserver-gl-light (in .bench/tileserver) and GDAL: skipped with the reason where missing, failed on CI. */
export function tileserverTest(name: string): ReturnType<typeof gatedTest> {
  return gatedTest(name, {
    ...GDAL_CHECK,
    files: [[TILESERVER_MAIN]],
    packages: ['gdal-bin', 'and tileserver-gl-light@5 from npm into .bench/tileserver'],
  });
}

export interface Tileserver {
  url: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Starts tileserver-gl-light on `mbtiles` (a file) as data `id`, in `dir`; resolves once /data/ID.json answers. */
export async function startTileserver(dir: string, id: string, mbtiles: string): Promise<Tileserver> {
  const config = path.join(dir, 'tileserver-config.json');
  // As `--file x.mbtiles` would write it, minus the styles (--file looks for tileserver-gl-styles in its own node_modules).
  writeFileSync(config, JSON.stringify({ options: { paths: { root: dir, mbtiles: path.dirname(mbtiles) } }, styles: {}, data: { [id]: { mbtiles: path.basename(mbtiles) } } }));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = spawn(process.execPath, [TILESERVER_MAIN, '--config', config, '--port', String(port), '--bind', '127.0.0.1', '--public_url', `${url}/`], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  let exited: number | null | undefined;
  proc.once('exit', (code) => (exited = code));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (exited !== undefined) return resolve();
      proc.once('exit', () => resolve());
      proc.kill();
    });
  try {
    await waitFor(
      `tileserver-gl-light to serve /data/${id}.json`,
      async () => {
        if (exited !== undefined) throw new Error(`tileserver-gl-light exited (${exited}) before serving:\n${output}`);
        const r = await rawGet(`${url}/data/${id}.json`).catch(() => undefined);
        return r?.status === 200 ? true : undefined;
      },
      { intervalMs: 200 },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, proc, stop };
}
