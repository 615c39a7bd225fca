// A PMTiles v3 archive served as a tile set: a TileStore over one local file, read with synchronous positioned
// reads (readSync on a descriptor held open: a republished file is a new inode, the old one keeps serving until
// the catalog closes it). Everything is checked at open (header, section bounds against the file size, root
// directory, metadata), so a damaged or truncated archive is refused there; leaf directories are read on demand
// and kept in a small cache; a tile beyond the file (truncated in place) is reported once and served as absent.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { MAX_ZOOM } from '../../geo/mercator';
import type { Bounds } from '../../geo/bounds';
import { digestTag } from '../bytes/etag';
import { imageWidth } from '../bytes/formats';
import { Lru, type ByteLru } from '../bytes/lru';
import { PlainTiles } from '../bytes/plain-tiles';
import type { ScannedTile, ScanZooms, StoreFacts, StoredDocument, TileStore, TileStoreOptions } from '../tile-reader';
import { pyramidProblem, type Pyramid, type TileFormat, type TilesetInfo, type VectorLayer } from '../types';
import {
  Compression,
  HEADER_BYTES,
  MAX_DIRECTORY_DEPTH,
  PmtilesFormatError,
  canDecompress,
  decodeDirectory,
  decompress,
  findTile,
  readHeader,
  tileFormatOf,
  tileIdToZxy,
  zxyToTileId,
  type Entry,
  type Header,
} from './format';

/** The name of the one pyramid an archive holds. */
export const PMTILES_PYRAMID = 'main';
/** Metadata key the writer records the tile size under (PMTiles has no field for it). */
export const TILE_SIZE_KEY = 'tilemirror:tile_size';
/** Decoded leaf directories kept per archive (a leaf holds thousands of entries). */
const LEAF_CACHE_ENTRIES = 64;
const ABSENT = Buffer.alloc(0);
const MERCATOR_LAT = 85.0511287798066;

interface Metadata {
  name?: unknown;
  description?: unknown;
  attribution?: unknown;
  type?: unknown;
  vector_layers?: unknown;
  encoding?: unknown;
  [TILE_SIZE_KEY]?: unknown;
  tileSize?: unknown;
  tilesize?: unknown;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The first tile id of zoom z: the tiles of all lower zooms, (4^z - 1) / 3, come before it. */
const firstTileId = (z: number): number => (4 ** z - 1) / 3;

export class PmtilesStore implements TileStore {
  readonly info: TilesetInfo;
  readonly header: Header;
  private readonly fd: number;
  private readonly size: number;
  private readonly root: Entry[];
  private readonly leaves = new Lru<Entry[]>(LEAF_CACHE_ENTRIES);
  private readonly cache?: ByteLru;
  private readonly plainTiles: PlainTiles;
  private closed = false;
  private knownFacts?: StoreFacts;

  constructor(
    readonly file: string,
    id: string,
    readonly signature: string,
    options: TileStoreOptions = {},
  ) {
    this.cache = options.cache;
    this.plainTiles = new PlainTiles(options.cache, options.onDamagedTile);
    this.fd = openSync(file, 'r');
    try {
      this.size = fstatSync(this.fd).size;
      if (this.size < HEADER_BYTES) throw new PmtilesFormatError(`not a PMTiles archive (${this.size} bytes, less than a header)`);
      this.header = readHeader(this.read(0, HEADER_BYTES, 'header'));
      const h = this.header;
      this.checkSections(h);
      if (!canDecompress(h.internalCompression)) {
        throw new PmtilesFormatError(`internal compression ${Compression[h.internalCompression] ?? h.internalCompression} is not supported`);
      }
      const format = tileFormatOf(h.tileType);
      if (!format) throw new PmtilesFormatError(`tile type ${h.tileType} is not served (mvt, png, jpeg or webp)`);
      // Served bytes are the stored ones: vector tiles as stored (gzip is sent as Content-Encoding), images plain.
      const tileCompressionOk =
        h.tileCompression === Compression.None || (format === 'pbf' && h.tileCompression === Compression.Gzip);
      if (!tileCompressionOk) {
        throw new PmtilesFormatError(`tile compression ${Compression[h.tileCompression] ?? h.tileCompression} is not served for ${format} tiles`);
      }
      this.root = this.directory(h.rootDirectoryOffset, h.rootDirectoryLength, 'root directory');
      if (this.root.length === 0) throw new PmtilesFormatError('the archive holds no tiles');
      const meta = this.metadata(h);
      this.info = this.describe(id, format, meta, this.tileSize(format, meta));
      const problem = pyramidProblem(this.info.pyramids[0]);
      if (problem) throw new PmtilesFormatError(`the archive ${problem}`);
    } catch (err) {
      closeSync(this.fd);
      if (err instanceof PmtilesFormatError) throw new PmtilesFormatError(`${file}: ${err.message}`);
      throw err;
    }
  }

  /** Every section must lie inside the file: a truncated archive is refused here, not tile by tile. */
  private checkSections(h: Header): void {
    const sections: [string, number, number][] = [
      ['root directory', h.rootDirectoryOffset, h.rootDirectoryLength],
      ['metadata', h.jsonMetadataOffset, h.jsonMetadataLength],
      ['leaf directories', h.leafDirectoryOffset, h.leafDirectoryLength ?? 0],
      ['tile data', h.tileDataOffset, h.tileDataLength ?? 0],
    ];
    for (const [what, offset, length] of sections) {
      if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset + length > this.size) {
        throw new PmtilesFormatError(`${what} (${length} bytes at ${offset}) lies beyond the end of the file (${this.size} bytes): truncated?`);
      }
    }
    if (h.rootDirectoryLength === 0) throw new PmtilesFormatError('the root directory is empty');
    if (h.minZoom > h.maxZoom || h.maxZoom > MAX_ZOOM) throw new PmtilesFormatError(`zoom range ${h.minZoom}-${h.maxZoom}`);
  }

  private read(position: number, length: number, what: string): Buffer {
    // After close the descriptor number may belong to another file: never read through it (as SQLite refuses too).
    if (this.closed) throw new Error(`${this.file} is closed`);
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const n = readSync(this.fd, buf, got, length - got, position + got);
      if (n === 0) throw new PmtilesFormatError(`${what}: the file ends ${length - got} bytes early`);
      got += n;
    }
    return buf;
  }

  private directory(offset: number, length: number, what: string): Entry[] {
    const bytes = decompress(this.read(offset, length, what), this.header.internalCompression, what);
    const entries = decodeDirectory(bytes);
    for (const e of entries) {
      if (e.runLength > 0 && e.length === 0) throw new PmtilesFormatError(`${what}: tile ${e.tileId} has no bytes`);
    }
    return entries;
  }

  private metadata(h: Header): Metadata {
    if (h.jsonMetadataLength === 0) return {};
    const bytes = decompress(this.read(h.jsonMetadataOffset, h.jsonMetadataLength, 'metadata'), h.internalCompression, 'metadata');
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      throw new PmtilesFormatError(`metadata is not JSON: ${(err as Error).message}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new PmtilesFormatError('metadata is not a JSON object');
    return parsed as Metadata;
  }

  /**
   * The tile size in CSS pixels: from the metadata (ours, or `tileSize` as QGIS and tippecanoe write it), else
   * an image tile's width (the first tile's), else 512 for vector tiles (what MapLibre draws them at).
   */
  private tileSize(format: TileFormat, meta: Metadata): number {
    for (const v of [meta[TILE_SIZE_KEY], meta.tileSize, meta.tilesize]) {
      const n = Number(v);
      if (v !== undefined && v !== '' && Number.isInteger(n) && n > 0) return n;
    }
    if (format === 'pbf') return 512;
    const first = this.entry(this.root[0].tileId);
    const width = first && imageWidth(this.read(this.header.tileDataOffset + first.offset, first.length, 'first tile'));
    return width && width <= 4096 ? width : 256;
  }

  private describe(id: string, format: TileFormat, meta: Metadata, tileSize: number): TilesetInfo {
    const h = this.header;
    // The header keeps degrees to 1e-7: the world's ±85.0511287798 reads back as ±85.0511288, past the limit.
    const lat = (v: number): number => Math.max(-MERCATOR_LAT, Math.min(MERCATOR_LAT, v));
    const bounds: Bounds = [h.minLon, lat(h.minLat), h.maxLon, lat(h.maxLat)];
    const pyramid: Pyramid = {
      name: PMTILES_PYRAMID,
      tileSize,
      scale: 1,
      format,
      minzoom: h.minZoom,
      maxzoom: h.maxZoom,
      bounds,
    };
    const layers = meta.vector_layers;
    const vectorLayers = Array.isArray(layers) ? (layers as VectorLayer[]) : undefined;
    const encoding = meta.encoding;
    const centerZoom = Math.min(h.maxZoom, Math.max(h.minZoom, h.centerZoom));
    return {
      kind: 'tiles',
      id,
      name: text(meta.name) || id,
      description: text(meta.description) ?? '',
      attribution: text(meta.attribution) ?? '',
      type: text(meta.type) || 'baselayer',
      format,
      minzoom: h.minZoom,
      maxzoom: h.maxZoom,
      bounds,
      center: [h.centerLon, h.centerLat, centerZoom],
      pyramids: [pyramid],
      vectorLayers,
      ...((encoding === 'mapbox' || encoding === 'terrarium') && { encoding }),
      version: digestTag(this.signature),
    };
  }

  pyramid(name: string): Pyramid | undefined {
    return this.info.pyramids.find((p) => p.name === name);
  }

  /** The entry of a tile id, walking leaf directories from the root; undefined when the archive has none. */
  private entry(tileId: number): Entry | undefined {
    let dir = this.root;
    for (let depth = 0; depth < MAX_DIRECTORY_DEPTH; depth++) {
      const e = findTile(dir, tileId);
      if (!e) return undefined;
      if (e.runLength > 0) return e;
      const offset = this.header.leafDirectoryOffset + e.offset;
      const key = `${offset}/${e.length}`;
      let leaf = this.leaves.get(key);
      if (!leaf) {
        leaf = this.directory(offset, e.length, `leaf directory at ${offset}`);
        this.leaves.set(key, leaf);
      }
      dir = leaf;
    }
    throw new PmtilesFormatError(`directories nest deeper than ${MAX_DIRECTORY_DEPTH}`);
  }

  tile(pyramid: string, z: number, x: number, y: number): Buffer | undefined {
    if (pyramid !== PMTILES_PYRAMID || z < this.header.minZoom || z > this.header.maxZoom) return undefined;
    const n = 2 ** z;
    if (!Number.isInteger(x) || !Number.isInteger(y) || x < 0 || y < 0 || x >= n || y >= n) return undefined;
    const key = this.cache ? `${this.info.version}/${z}/${x}/${y}` : '';
    const cached = this.cache?.get(key);
    if (cached) return cached.length === 0 ? undefined : cached;
    let data: Buffer | undefined;
    try {
      const e = this.entry(zxyToTileId(z, x, y));
      if (e) data = this.read(this.header.tileDataOffset + e.offset, e.length, `tile ${z}/${x}/${y}`);
    } catch (err) {
      // The file changed under the descriptor (truncated in place) or a leaf is damaged: absent, reported once.
      if (!(err instanceof PmtilesFormatError)) throw err;
      this.plainTiles.reportDamaged(`${pyramid}/${z}/${x}/${y}`, err);
      return undefined;
    }
    this.cache?.set(key, data ?? ABSENT);
    return data;
  }

  /**
   * Every tile of the archive within the zooms, in tile-id order (zoom by zoom, along the Hilbert curve), walking
   * the directories (leaves read as reached, not kept in the leaf cache the served tiles use). A run of tile ids
   * sharing one content yields each of them with the same bytes. A tile that cannot be read is reported (as
   * tile() reports it) and skipped.
   */
  *scan(pyramid: string, zooms: ScanZooms = {}): Generator<ScannedTile> {
    if (pyramid !== PMTILES_PYRAMID) return;
    const lo = Math.max(zooms.minzoom ?? this.header.minZoom, this.header.minZoom);
    const hi = Math.min(zooms.maxzoom ?? this.header.maxZoom, this.header.maxZoom);
    if (lo > hi) return;
    yield* this.scanDirectory(this.root, firstTileId(lo), firstTileId(hi + 1), 0);
  }

  /** The tiles of one directory with ids in [from, to), leaves followed depth first. */
  private *scanDirectory(entries: Entry[], from: number, to: number, depth: number): Generator<ScannedTile> {
    if (depth >= MAX_DIRECTORY_DEPTH) throw new PmtilesFormatError(`directories nest deeper than ${MAX_DIRECTORY_DEPTH}`);
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      if (e.tileId >= to) return;
      if (e.runLength === 0) {
        // A leaf holds the ids from its own up to the next entry's.
        const next = entries[i + 1]?.tileId ?? Infinity;
        if (next <= from) continue;
        const offset = this.header.leafDirectoryOffset + e.offset;
        yield* this.scanDirectory(this.directory(offset, e.length, `leaf directory at ${offset}`), from, to, depth + 1);
        continue;
      }
      const first = Math.max(e.tileId, from);
      const end = Math.min(e.tileId + e.runLength, to);
      if (first >= end) continue;
      let data: Buffer;
      try {
        data = this.read(this.header.tileDataOffset + e.offset, e.length, `tile ${tileIdToZxy(first).join('/')}`);
      } catch (err) {
        if (!(err instanceof PmtilesFormatError)) throw err;
        this.plainTiles.reportDamaged(`${PMTILES_PYRAMID}/${tileIdToZxy(first).join('/')}`, err);
        continue;
      }
      for (let id = first; id < end; id++) {
        const [z, x, y] = tileIdToZxy(id);
        yield { z, x, y, data };
      }
    }
  }

  plainTile(pyramid: string, z: number, x: number, y: number): Buffer | undefined {
    return this.plainTiles.plain(this.info.version, `${pyramid}/${z}/${x}/${y}`, this.tile(pyramid, z, x, y));
  }

  /**
   * The tiles the archive addresses (a run of ids sharing one content counts each id, as a scan yields them): the
   * header's count when the writer filled it in, else counted by walking the directories. An archive is always
   * imported (a mirror run writes MBTiles).
   */
  facts(): StoreFacts {
    if (this.knownFacts) return this.knownFacts;
    try {
      const tiles = this.header.numAddressedTiles > 0 ? this.header.numAddressedTiles : this.countTiles(this.root, 0);
      this.knownFacts = { tiles, bytes: this.size, origin: { type: 'imported' } };
      return this.knownFacts;
    } catch (err) {
      // A leaf directory that cannot be read (the file changed under the descriptor): asked again next time.
      if (!(err instanceof PmtilesFormatError)) throw err;
      return { tiles: null, bytes: this.size, origin: { type: 'imported' } };
    }
  }

  /** Tile ids addressed by a directory and its leaves (leaves read as reached, not kept in the leaf cache). */
  private countTiles(entries: Entry[], depth: number): number {
    if (depth >= MAX_DIRECTORY_DEPTH) throw new PmtilesFormatError(`directories nest deeper than ${MAX_DIRECTORY_DEPTH}`);
    let n = 0;
    for (const e of entries) {
      if (e.runLength > 0) n += e.runLength;
      else n += this.countTiles(this.directory(this.header.leafDirectoryOffset + e.offset, e.length, `leaf directory at ${this.header.leafDirectoryOffset + e.offset}`), depth + 1);
    }
    return n;
  }

  /** An archive holds tiles and metadata only: no documents. */
  document(_path: string): StoredDocument | undefined {
    return undefined;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}
