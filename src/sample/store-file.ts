// Writing one sample store: into a temporary file in the target directory, verified, then renamed
// into place, so a reader never sees a half-built store.

import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { metadataValue } from '../store/mbtiles/sql';
import { StoreWriter, type StoreHeader } from '../store/mbtiles/writer';

export const SAMPLE_VERSION_KEY = 'tilemirror:sample_version';

/** One tile ready to be written (XYZ addressing). */
export interface TileEntry {
  pyramid: string;
  z: number;
  x: number;
  y: number;
  data: Buffer;
}

export interface StoreContent {
  tiles: TileEntry[];
  documents?: { path: string; contentType: string; data: Buffer | string }[];
}

/** True when `file` exists and was built by this sample version. */
export function upToDate(file: string, version: string): boolean {
  if (!fs.existsSync(file)) return false;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return metadataValue(db, SAMPLE_VERSION_KEY) === version;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}

const BATCH = 2000;

/** Writes `content` to `file` through a temporary file and an atomic rename. */
export function writeStoreFile(file: string, header: StoreHeader, content: StoreContent): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.rmSync(tmp, { force: true });
  const writer = new StoreWriter(tmp, header);
  try {
    const tiles = content.tiles;
    for (let i = 0; i < tiles.length; i += BATCH) {
      const part = tiles.slice(i, i + BATCH);
      writer.batch(() => {
        for (const t of part) writer.putTile(t.pyramid, t.z, t.x, t.y, t.data);
      });
    }
    const docs = content.documents ?? [];
    if (docs.length) writer.batch(() => docs.forEach((d) => writer.putDocument(d.path, d.contentType, d.data)));
    const check = writer.db.pragma('integrity_check') as { integrity_check: string }[];
    if (check.length !== 1 || check[0].integrity_check !== 'ok') {
      throw new Error(`integrity check of ${tmp} failed: ${JSON.stringify(check)}`);
    }
    writer.close();
  } catch (err) {
    try {
      writer.close();
    } catch {
      /* already closed */
    }
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.renameSync(tmp, file);
}

/** Runs `fn` over `items` with at most `limit` promises in flight; results keep the order of `items`. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
