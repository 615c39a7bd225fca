// PMTiles v3 (https://github.com/protomaps/PMTiles/blob/main/spec/v3/spec.md) over bytes: no I/O.
// Reading goes through the Protomaps `pmtiles` library's pure functions (bytesToHeader, readVarint, findTile,
// zxyToTileId); the directory decoder is written here because the library keeps its own private, and the
// encoders (header, directory) are ours since the library only reads.

import { gunzipSync, gzipSync, brotliDecompressSync } from 'node:zlib';
import { Compression, TileType, bytesToHeader, readVarint, type Entry, type Header } from 'pmtiles';
import type { TileFormat } from '../types';

export { Compression, TileType, findTile, zxyToTileId, tileIdToZxy, type Entry, type Header } from 'pmtiles';

export const HEADER_BYTES = 127;
/** The root directory must lie inside the first 16 KiB of the archive, with the header. */
export const ROOT_BYTES_MAX = 16384 - HEADER_BYTES;
/** Directories are looked up at most this deep (root, leaf, leaf of leaf): the reference readers stop there too. */
export const MAX_DIRECTORY_DEPTH = 4;
const MAGIC = 'PMTiles';
/** Largest directory or metadata section accepted after decompression: a bound against decompression bombs. */
const MAX_SECTION_BYTES = 64 * 1024 * 1024;

export class PmtilesFormatError extends Error {}

const FORMAT_OF: Partial<Record<TileType, TileFormat>> = {
  [TileType.Mvt]: 'pbf',
  [TileType.Png]: 'png',
  [TileType.Jpeg]: 'jpg',
  [TileType.Webp]: 'webp',
};

export function tileFormatOf(type: TileType): TileFormat | undefined {
  return FORMAT_OF[type];
}

export function tileTypeOf(format: TileFormat): TileType | undefined {
  const found = Object.entries(FORMAT_OF).find(([, f]) => f === format);
  return found ? (Number(found[0]) as TileType) : undefined;
}

/** The header of the first 127 bytes; throws PmtilesFormatError for anything but a PMTiles v3 header. */
export function readHeader(bytes: Buffer): Header {
  if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, MAGIC.length) !== MAGIC) {
    throw new PmtilesFormatError('not a PMTiles archive (no PMTiles magic number)');
  }
  const version = bytes[7];
  if (version !== 3) throw new PmtilesFormatError(`PMTiles spec version ${version} (only version 3 is read)`);
  const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + HEADER_BYTES) as ArrayBuffer;
  return bytesToHeader(copy);
}

/** Decompresses a directory, the metadata or a tile stored with `compression`; throws PmtilesFormatError. */
export function decompress(data: Buffer, compression: Compression, what: string): Buffer {
  try {
    switch (compression) {
      case Compression.None:
        return data;
      case Compression.Gzip:
        return gunzipSync(data, { maxOutputLength: MAX_SECTION_BYTES });
      case Compression.Brotli:
        return brotliDecompressSync(data, { maxOutputLength: MAX_SECTION_BYTES });
      default:
        throw new Error(`compression ${Compression[compression] ?? compression} is not supported`);
    }
  } catch (err) {
    throw new PmtilesFormatError(`${what}: ${(err as Error).message}`);
  }
}

/** True when `decompress` can read sections stored with `compression`. */
export function canDecompress(compression: Compression): boolean {
  return compression === Compression.None || compression === Compression.Gzip || compression === Compression.Brotli;
}

/**
 * The entries of one decompressed directory: a varint count, then tile-id deltas, run lengths, lengths and
 * offsets (0 meaning "right after the previous entry", else offset + 1), each as a column of varints.
 */
export function decodeDirectory(bytes: Buffer): Entry[] {
  const p = { buf: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), pos: 0 };
  const read = (): number => {
    if (p.pos >= p.buf.length) throw new PmtilesFormatError('directory ends early');
    return readVarint(p);
  };
  const count = read();
  // Each entry takes at least 4 bytes: a count beyond that is a damaged directory, not a reason to allocate.
  if (count > bytes.length) throw new PmtilesFormatError(`directory claims ${count} entries in ${bytes.length} bytes`);
  const entries: Entry[] = new Array<Entry>(count);
  let id = 0;
  for (let i = 0; i < count; i++) {
    id += read();
    entries[i] = { tileId: id, offset: 0, length: 0, runLength: 1 };
  }
  for (let i = 0; i < count; i++) entries[i].runLength = read();
  for (let i = 0; i < count; i++) entries[i].length = read();
  for (let i = 0; i < count; i++) {
    const v = read();
    if (v === 0 && i === 0) throw new PmtilesFormatError('directory: the first entry has no offset');
    entries[i].offset = v === 0 ? entries[i - 1].offset + entries[i - 1].length : v - 1;
  }
  return entries;
}

function pushVarint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** The bytes of one directory (uncompressed), entries sorted by tile id. */
export function encodeDirectory(entries: readonly Entry[]): Buffer {
  const out: number[] = [];
  pushVarint(out, entries.length);
  let last = 0;
  for (const e of entries) {
    pushVarint(out, e.tileId - last);
    last = e.tileId;
  }
  for (const e of entries) pushVarint(out, e.runLength);
  for (const e of entries) pushVarint(out, e.length);
  entries.forEach((e, i) => {
    const prev = entries[i - 1];
    pushVarint(out, i > 0 && e.offset === prev.offset + prev.length ? 0 : e.offset + 1);
  });
  return Buffer.from(out);
}

/** Gzip as the writer compresses directories and metadata (internal compression). */
export function compressInternal(data: Buffer): Buffer {
  return gzipSync(data, { level: 9 });
}

function writeUint64(buf: Buffer, offset: number, value: number): void {
  buf.writeBigUInt64LE(BigInt(value), offset);
}

const e7 = (deg: number): number => Math.round(deg * 1e7);

/** The 127 header bytes of `h` (the fields of the library's Header, etag aside). */
export function encodeHeader(h: Omit<Header, 'etag'>): Buffer {
  const b = Buffer.alloc(HEADER_BYTES);
  b.write(MAGIC, 0, 'latin1');
  b[7] = 3;
  const u64: [number, number][] = [
    [8, h.rootDirectoryOffset],
    [16, h.rootDirectoryLength],
    [24, h.jsonMetadataOffset],
    [32, h.jsonMetadataLength],
    [40, h.leafDirectoryOffset],
    [48, h.leafDirectoryLength ?? 0],
    [56, h.tileDataOffset],
    [64, h.tileDataLength ?? 0],
    [72, h.numAddressedTiles],
    [80, h.numTileEntries],
    [88, h.numTileContents],
  ];
  for (const [at, v] of u64) writeUint64(b, at, v);
  b[96] = h.clustered ? 1 : 0;
  b[97] = h.internalCompression;
  b[98] = h.tileCompression;
  b[99] = h.tileType;
  b[100] = h.minZoom;
  b[101] = h.maxZoom;
  b.writeInt32LE(e7(h.minLon), 102);
  b.writeInt32LE(e7(h.minLat), 106);
  b.writeInt32LE(e7(h.maxLon), 110);
  b.writeInt32LE(e7(h.maxLat), 114);
  b[118] = h.centerZoom;
  b.writeInt32LE(e7(h.centerLon), 119);
  b.writeInt32LE(e7(h.centerLat), 123);
  return b;
}
