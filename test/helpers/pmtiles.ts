// Reading PMTiles archives in tests with the Protomaps `pmtiles` library itself (its async PMTiles class over a
// Node file source), the oracle the written archives and the served archives are checked against.
import { open } from 'node:fs/promises';
import Database from 'better-sqlite3';
import { PMTiles, type RangeResponse, type Source } from 'pmtiles';

/** The library's Source over a local file (its FileSource wants a browser File). */
export class NodeFileSource implements Source {
  constructor(private readonly file: string) {}
  getKey(): string {
    return this.file;
  }
  async getBytes(offset: number, length: number): Promise<RangeResponse> {
    const fh = await open(this.file, 'r');
    try {
      const buf = Buffer.alloc(length);
      const { bytesRead } = await fh.read(buf, 0, length, offset);
      return { data: buf.buffer.slice(buf.byteOffset, buf.byteOffset + bytesRead) as ArrayBuffer };
    } finally {
      await fh.close();
    }
  }
}

export function readArchive(file: string): PMTiles {
  return new PMTiles(new NodeFileSource(file));
}

export interface StoredRow {
  z: number;
  x: number;
  y: number;
  data: Buffer;
}

/** Every tile of an MBTiles file's `tiles` table, XYZ addressed, read with plain SQL. */
export function mbtilesRows(file: string): StoredRow[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare<[], { z: number; x: number; r: number; d: Buffer }>('SELECT zoom_level z, tile_column x, tile_row r, tile_data d FROM tiles WHERE length(tile_data) > 0')
      .all()
      .map((t) => ({ z: t.z, x: t.x, y: 2 ** t.z - 1 - t.r, data: t.d }));
  } finally {
    db.close();
  }
}
