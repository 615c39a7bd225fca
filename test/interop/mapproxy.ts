// MapProxy (Debian python3-mapproxy 1.15) started for interop tests (test/fixtures/mapproxy_serve.py), and reading
// back what a mirror stored: shared by the tests that mirror MapProxy's WMTS, XYZ (/tiles) and WMS services.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { REPO_ROOT } from './helpers';
import { type ClientCheck, gatedTest, GDAL_CHECK, SYSTEM_PYTHON } from '../helpers/clients';

export const MAPPROXY_CHECK: ClientCheck = { pythonModules: ['mapproxy.wsgiapp'], packages: ['python3-mapproxy'] };

/** A test that needs MapProxy and GDAL (skipped with the reason where they are missing, failed on CI). */
export function mapproxyTest(name: string): ReturnType<typeof gatedTest> {
  return gatedTest(name, { ...GDAL_CHECK, ...MAPPROXY_CHECK, packages: ['gdal-bin', 'python3-mapproxy'] });
}

export interface MapProxy {
  url: string;
  port: number;
  proc: ChildProcess;
  /** Paths (with query) requested so far, when started with logRequests. */
  requests: string[];
}

/** Starts MapProxy and resolves with its base URL once it listens (on `host`, and `port` when given). */
export function startMapProxy(config: string, opts: { host?: string; port?: number; logRequests?: boolean } = {}): Promise<MapProxy> {
  const args = [path.join(REPO_ROOT, 'test/fixtures/mapproxy_serve.py'), config, opts.host ?? '127.0.0.1', String(opts.port ?? 0)];
  const proc = spawn(SYSTEM_PYTHON, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, MAPPROXY_LOG_REQUESTS: opts.logRequests ? '1' : '0' } });
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const requests: string[] = [];
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`MapProxy exited (${code}) before listening:\n${stderr}`)));
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const m = /^listening (\d+)$/.exec(line);
      if (m) resolve({ url: `http://${opts.host ?? '127.0.0.1'}:${m[1]}`, port: Number(m[1]), proc, requests });
      else if (line.startsWith('request ')) requests.push(line.slice(8));
    });
  });
}

/** Every tile of a store's main pyramid, as XYZ addresses with their bytes. */
export function storedTiles(file: string): { z: number; x: number; y: number; data: Buffer }[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT zoom_level z, tile_column x, tile_row r, tile_data data FROM tiles ORDER BY z, x, r').all() as { z: number; x: number; r: number; data: Buffer }[];
    return rows.map((t) => ({ z: t.z, x: t.x, y: 2 ** t.z - 1 - t.r, data: t.data }));
  } finally {
    db.close();
  }
}

export function metadata(file: string): Record<string, string> {
  const db = new Database(file, { readonly: true });
  try {
    return Object.fromEntries((db.prepare('SELECT name, value FROM metadata').all() as { name: string; value: string }[]).map((r) => [r.name, r.value]));
  } finally {
    db.close();
  }
}

/** The main pyramid's tile size as the store records it. */
export function storedTileSize(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT tile_size FROM tilemirror_pyramids WHERE name = 'main'").get() as { tile_size: number }).tile_size;
  } finally {
    db.close();
  }
}
