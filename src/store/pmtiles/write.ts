// Writes a PMTiles v3 archive (spec: github.com/protomaps/PMTiles spec/v3/spec.md) from tiles handed over in
// ascending tile-id (Hilbert) order: clustered, each distinct tile content stored once (a SHA-1 of the bytes
// finds repeats), consecutive tile ids with the same content folded into one entry with a run length.
// Tile data goes to a temporary file first (the directories, which must precede it, are known only at the
// end), then header, root directory, metadata and leaf directories are written and the tile data appended;
// the archive appears under its name by one rename, complete.

import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { isGzip } from '../bytes/formats';
import {
  Compression,
  HEADER_BYTES,
  ROOT_BYTES_MAX,
  compressInternal,
  encodeDirectory,
  encodeHeader,
  TileType,
  type Entry,
} from './format';

/** What the header says besides the sections: the tile type, zooms, bounds and center. */
export interface ArchiveDescription {
  tileType: TileType;
  /** Vector tiles: stored gzipped (Compression.Gzip) or plain (None). Images are always None. */
  tileCompression: Compression.None | Compression.Gzip;
  minZoom: number;
  maxZoom: number;
  /** west, south, east, north */
  bounds: [number, number, number, number];
  /** lon, lat, zoom */
  center: [number, number, number];
}

export interface WriteStats {
  addressed: number;
  entries: number;
  contents: number;
  leaves: number;
  bytes: number;
}

/** One tile to write, by its PMTiles tile id. */
export interface IdTile {
  tileId: number;
  data: Buffer;
}

const FLUSH_BYTES = 4 * 1024 * 1024;

/** Appends to a file through a buffer of a few MB. */
class Appender {
  private readonly chunks: Buffer[] = [];
  private pending = 0;
  written = 0;
  constructor(private readonly fd: number) {}
  push(data: Buffer): void {
    this.chunks.push(data);
    this.pending += data.length;
    this.written += data.length;
    if (this.pending >= FLUSH_BYTES) this.flush();
  }
  flush(): void {
    if (this.pending === 0) return;
    const all = Buffer.concat(this.chunks, this.pending);
    let done = 0;
    while (done < all.length) done += writeSync(this.fd, all, done, all.length - done);
    this.chunks.length = 0;
    this.pending = 0;
  }
}

/**
 * Root and leaf directories for the entries: the root alone when it fits in the first 16 KiB, else leaves of
 * `leafSize` entries (growing by 1.2× until the root of their first ids fits), as go-pmtiles does.
 */
export function buildDirectories(entries: readonly Entry[]): { root: Buffer; leaves: Buffer; count: number } {
  const root = compressInternal(encodeDirectory(entries));
  if (root.length <= ROOT_BYTES_MAX) return { root, leaves: Buffer.alloc(0), count: 0 };
  let leafSize = Math.max(4096, Math.ceil(entries.length / 3500));
  for (;;) {
    const rootEntries: Entry[] = [];
    const leafParts: Buffer[] = [];
    let offset = 0;
    for (let i = 0; i < entries.length; i += leafSize) {
      const chunk = entries.slice(i, i + leafSize);
      const leaf = compressInternal(encodeDirectory(chunk));
      rootEntries.push({ tileId: chunk[0].tileId, offset, length: leaf.length, runLength: 0 });
      leafParts.push(leaf);
      offset += leaf.length;
    }
    const top = compressInternal(encodeDirectory(rootEntries));
    if (top.length <= ROOT_BYTES_MAX) return { root: top, leaves: Buffer.concat(leafParts), count: rootEntries.length };
    leafSize = Math.ceil(leafSize * 1.2);
  }
}

function writeAll(fd: number, data: Buffer): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done);
}

function copyInto(fd: number, from: string): void {
  const src = openSync(from, 'r');
  try {
    const buf = Buffer.allocUnsafe(FLUSH_BYTES);
    for (let pos = 0; ; ) {
      const n = readSync(src, buf, 0, buf.length, pos);
      if (n === 0) break;
      writeAll(fd, buf.subarray(0, n));
      pos += n;
    }
  } finally {
    closeSync(src);
  }
}

/**
 * Writes `tiles` (ascending tile ids, each at most once) as the PMTiles archive `out`. Vector tiles are
 * brought to the archive's tile compression (a plain tile in a gzip archive is gzipped, and back).
 */
export function writePmtiles(out: string, tiles: Iterable<IdTile>, desc: ArchiveDescription, metadata: object): WriteStats {
  const dataFile = `${out}.${process.pid}.tiledata.tmp`;
  const tmp = `${out}.${process.pid}.tmp`;
  const entries: Entry[] = [];
  const seen = new Map<string, { offset: number; length: number }>();
  let addressed = 0;
  const dataFd = openSync(dataFile, 'w');
  // Closed exactly once: a second close could hit a descriptor number another part of the process reopened.
  let dataOpen = true;
  const closeData = (): void => {
    if (dataOpen) closeSync(dataFd);
    dataOpen = false;
  };
  try {
    const data = new Appender(dataFd);
    let lastId = -1;
    for (const t of tiles) {
      if (t.tileId <= lastId) throw new Error(`tiles out of order: tile id ${t.tileId} after ${lastId}`);
      lastId = t.tileId;
      let bytes = t.data;
      if (desc.tileCompression === Compression.Gzip && !isGzip(bytes)) bytes = gzipSync(bytes);
      else if (desc.tileCompression === Compression.None && desc.tileType === TileType.Mvt && isGzip(bytes)) bytes = gunzipSync(bytes);
      addressed++;
      const hash = createHash('sha1').update(bytes).digest('base64');
      let stored = seen.get(hash);
      if (!stored) {
        stored = { offset: data.written, length: bytes.length };
        seen.set(hash, stored);
        data.push(bytes);
      }
      const last = entries[entries.length - 1];
      if (last && last.offset === stored.offset && last.tileId + last.runLength === t.tileId) last.runLength++;
      else entries.push({ tileId: t.tileId, offset: stored.offset, length: stored.length, runLength: 1 });
    }
    data.flush();
    fsyncSync(dataFd);
    if (entries.length === 0) throw new Error('the store holds no tiles to write');
    const tileDataLength = data.written;
    closeData();

    const dirs = buildDirectories(entries);
    const meta = compressInternal(Buffer.from(JSON.stringify(metadata)));
    const rootOffset = HEADER_BYTES;
    const metaOffset = rootOffset + dirs.root.length;
    const leafOffset = metaOffset + meta.length;
    const tileOffset = leafOffset + dirs.leaves.length;
    const [west, south, east, north] = desc.bounds;
    const header = encodeHeader({
      specVersion: 3,
      rootDirectoryOffset: rootOffset,
      rootDirectoryLength: dirs.root.length,
      jsonMetadataOffset: metaOffset,
      jsonMetadataLength: meta.length,
      leafDirectoryOffset: leafOffset,
      leafDirectoryLength: dirs.leaves.length,
      tileDataOffset: tileOffset,
      tileDataLength,
      numAddressedTiles: addressed,
      numTileEntries: entries.length,
      numTileContents: seen.size,
      clustered: true,
      internalCompression: Compression.Gzip,
      tileCompression: desc.tileCompression,
      tileType: desc.tileType,
      minZoom: desc.minZoom,
      maxZoom: desc.maxZoom,
      minLon: west,
      minLat: south,
      maxLon: east,
      maxLat: north,
      centerZoom: desc.center[2],
      centerLon: desc.center[0],
      centerLat: desc.center[1],
    });
    const fd = openSync(tmp, 'w');
    try {
      writeAll(fd, Buffer.concat([header, dirs.root, meta, dirs.leaves]));
      copyInto(fd, dataFile);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, out);
    return { addressed, entries: entries.length, contents: seen.size, leaves: dirs.count, bytes: tileOffset + tileDataLength };
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  } finally {
    closeData();
    rmSync(dataFile, { force: true });
  }
}
