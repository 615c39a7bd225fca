// The payload of a bundle: for each store in the manifest's order, its records back to back (the manifest holds
// each store's byte range). Big-endian, length-prefixed, nothing to escape:
//   1 tile put     u8 1, u16 table, u8 z, u32 x, u32 row, u32 length (0xffffffff: NULL), bytes
//   2 tile delete  u8 2, u16 table, u8 z, u32 x, u32 row
//   3 document put u8 3, u16 path length, path, u16 type length, content type, u32 length, bytes
//   4 document del u8 4, u16 path length, path
// `table` indexes the store's `tables` list in the manifest (the main tile table is '').

export const REC = { tilePut: 1, tileDelete: 2, documentPut: 3, documentDelete: 4 } as const;
const NULL_LENGTH = 0xffffffff;

export type BundleRecord =
  | { type: 1; table: number; z: number; x: number; row: number; data: Buffer | null }
  | { type: 2; table: number; z: number; x: number; row: number }
  | { type: 3; path: string; contentType: string; data: Buffer }
  | { type: 4; path: string };

function tileHead(type: number, table: number, z: number, x: number, row: number, extra: number): Buffer {
  const b = Buffer.allocUnsafe(12 + extra);
  b.writeUInt8(type, 0);
  b.writeUInt16BE(table, 1);
  b.writeUInt8(z, 3);
  b.writeUInt32BE(x, 4);
  b.writeUInt32BE(row, 8);
  return b;
}

/** The record's bytes, as chunks to write in order (tile data is not copied). */
export function encodeTilePut(table: number, z: number, x: number, row: number, data: Buffer | null): Buffer[] {
  const head = tileHead(REC.tilePut, table, z, x, row, 4);
  head.writeUInt32BE(data === null ? NULL_LENGTH : data.length, 12);
  return data === null || data.length === 0 ? [head] : [head, data];
}

export function encodeTileDelete(table: number, z: number, x: number, row: number): Buffer[] {
  return [tileHead(REC.tileDelete, table, z, x, row, 0)];
}

function shortString(s: string): Buffer {
  const body = Buffer.from(s);
  if (body.length > 0xffff) throw new Error(`name too long for a bundle: ${s.slice(0, 40)}...`);
  const b = Buffer.allocUnsafe(2 + body.length);
  b.writeUInt16BE(body.length, 0);
  body.copy(b, 2);
  return b;
}

export function encodeDocumentPut(path: string, contentType: string, data: Buffer): Buffer[] {
  const len = Buffer.allocUnsafe(4);
  len.writeUInt32BE(data.length);
  return [Buffer.from([REC.documentPut]), shortString(path), shortString(contentType), len, data];
}

export function encodeDocumentDelete(path: string): Buffer[] {
  return [Buffer.from([REC.documentDelete]), shortString(path)];
}

/** Reads exactly n bytes of the payload (throws at its end). */
export type ReadExactly = (n: number) => Buffer;

/** Decodes the next record; a record type that does not exist means a damaged or foreign payload. */
export function decodeRecord(read: ReadExactly): BundleRecord {
  const type = read(1)[0];
  const str = (): string => read(read(2).readUInt16BE(0)).toString();
  switch (type) {
    case REC.tilePut:
    case REC.tileDelete: {
      const h = read(11);
      const key = { table: h.readUInt16BE(0), z: h.readUInt8(2), x: h.readUInt32BE(3), row: h.readUInt32BE(7) };
      if (type === REC.tileDelete) return { type, ...key };
      const len = read(4).readUInt32BE(0);
      return { type, ...key, data: len === NULL_LENGTH ? null : len === 0 ? Buffer.alloc(0) : read(len) };
    }
    case REC.documentPut: {
      const path = str();
      const contentType = str();
      return { type, path, contentType, data: read(read(4).readUInt32BE(0)) };
    }
    case REC.documentDelete:
      return { type, path: str() };
    default:
      throw new Error(`damaged bundle payload: unknown record type ${type}`);
  }
}
