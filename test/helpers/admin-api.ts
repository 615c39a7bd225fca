// Calling the admin API as the console or curl does (Authorization: Bearer), and reading a store's tiles for a
// byte-for-byte comparison of two stores.

import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { request } from 'node:http';

export interface ApiAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of several shapes, read by the tests
  json: any;
}

/** One request to the server at `base`: `key` goes into the Authorization header unless `headers` say otherwise. */
export function call(base: string, method: string, path: string, opts: { key?: string; headers?: Record<string, string> } = {}): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...(opts.key && { Authorization: `Bearer ${opts.key}` }), ...opts.headers };
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** SHA-256 of every tile of a store (both tile tables, in address order) and of its documents: equal for stores with the same content. */
export function contentDigest(file: string): { tiles: number; digest: string } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const hash = createHash('sha256');
    let tiles = 0;
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]).filter((t) => t === 'tilemirror_tiles' || t === 'tilemirror_documents');
    for (const row of db.prepare('SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles ORDER BY 1, 2, 3').raw().iterate() as Iterable<[number, number, number, Buffer]>) {
      hash.update(`${row[0]}/${row[1]}/${row[2]}:`).update(row[3]);
      tiles++;
    }
    if (tables.includes('tilemirror_tiles')) {
      for (const row of db.prepare('SELECT pyramid, zoom_level, tile_column, tile_row, tile_data FROM tilemirror_tiles ORDER BY 1, 2, 3, 4').raw().iterate() as Iterable<[string, number, number, number, Buffer]>) {
        hash.update(`${row[0]}/${row[1]}/${row[2]}/${row[3]}:`).update(row[4]);
        tiles++;
      }
    }
    if (tables.includes('tilemirror_documents')) {
      for (const row of db.prepare('SELECT * FROM tilemirror_documents ORDER BY 1').raw().iterate() as Iterable<unknown[]>) hash.update(JSON.stringify(row.map((v) => (Buffer.isBuffer(v) ? v.toString('base64') : v))));
    }
    return { tiles, digest: hash.digest('hex') };
  } finally {
    db.close();
  }
}
