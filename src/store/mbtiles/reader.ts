import Database from 'better-sqlite3';
import { digestTag } from '../bytes/etag';
import type { ByteLru } from '../bytes/lru';
import { PlainTiles } from '../bytes/plain-tiles';
import { TileCacheKeys } from '../bytes/tile-cache-key';
import { DocumentTable, mainZoomRange, META, metadataValue, pyramidRows, readMetadata, tableNames, TileTables, tmsRow, type TileKey } from './sql';
import type { Bounds } from '../../geo/bounds';
import { fileBytes } from '../data-dir/disk-space';
import type { ScannedTile, ScanZooms, StoreFacts, StoreOrigin, StoredDocument, TileStore, TileStoreOptions } from '../tile-reader';
import { mirrorStateValue, STATE } from './mirror-sql';
import { pyramidProblem, RASTER_MODE_KEY, type Pyramid, type ResourceKind, type TileFormat, type TilesetInfo, type VectorLayer } from '../types';

const FORMATS: readonly TileFormat[] = ['png', 'jpg', 'webp', 'pbf', 'basis'];
/** Cached marker of a tile the store does not have (a stored tile is never empty: an empty blob reads as absent). */
const ABSENT = Buffer.alloc(0);
const WORLD: Bounds = [-180, -85.0511287798066, 180, 85.0511287798066];
/** Tiles a scan reads per query (a page ends its statement, so nothing stays open while the caller pauses). */
const SCAN_PAGE = 64;

/** The upstream URL as an operator may see it: no key, no query, no user info. */
function withoutSecrets(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '';
  }
}

function numberList(value: string | undefined, length: number): number[] | undefined {
  if (!value) return undefined;
  const parts = value.split(',').map((s) => Number(s.trim()));
  return parts.length === length && parts.every(Number.isFinite) ? parts : undefined;
}

function toFormat(value: string | undefined): TileFormat {
  const v = (value ?? 'png').toLowerCase();
  if (v === 'jpeg') return 'jpg';
  return (FORMATS as readonly string[]).includes(v) ? (v as TileFormat) : 'png';
}

/**
 * A read-only view of one store file. Every read is a prepared statement on a read-only connection:
 * better-sqlite3 answers synchronously, so a read never interleaves with a close.
 */
let openedStores = 0;

export class MbtilesStore implements TileStore {
  readonly info: TilesetInfo;
  private readonly db: Database.Database;
  /** The tile tables, keyed by pyramid name. */
  private readonly tiles: TileTables;
  private readonly documents: DocumentTable;
  private readonly cache?: ByteLru;
  /**
   * This opened file's tiles' cache keys, from a number unique in the process, not the version tag: a replaced
   * store is a new MbtilesStore, so it never answers from the old file's entries.
   */
  private readonly cacheKeys: TileCacheKeys;
  private readonly plainTiles: PlainTiles;
  private knownFacts?: StoreFacts;

  constructor(
    readonly file: string,
    kind: ResourceKind,
    id: string,
    /** Identifies this version of the file (inode, size, mtime): part of every ETag. */
    readonly signature: string,
    options: TileStoreOptions = {},
  ) {
    this.cache = options.cache;
    this.plainTiles = new PlainTiles(options.cache, options.onDamagedTile);
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    // A published store is never written after its rename (a new version is a new file), so the shared lock of
    // the first read is kept: without it SQLite locked, looked for a hot journal and re-read the header around
    // every tile it read (4 fcntl, 3 stat, 1 pread: 15 system calls per tile not in the cache, 7 with it; wrk
    // on 20 KB tiles not in the cache, one core: 10.0-12.2k -> 11.0-13.8k req/s). Other readers are not held
    // back; a writer in place (an operator's sqlite3) is refused with "database is locked" instead of changing
    // bytes under the clients.
    this.db.pragma('locking_mode = EXCLUSIVE');
    try {
      const tables = tableNames(this.db);
      if (!tables.has('tiles') || !tables.has('metadata')) {
        throw new Error(`${file} is not an MBTiles file (no tiles or metadata table)`);
      }
      const meta = readMetadata(this.db);
      const pyramids = tables.has('tilemirror_pyramids') ? this.readPyramids() : [this.pyramidFromMetadata(meta)];
      for (const p of pyramids) {
        const problem = pyramidProblem(p);
        if (problem) throw new Error(`${file}: pyramid ${p.name} ${problem}`);
      }
      this.tiles = new TileTables(this.db, pyramids[0].name);
      this.documents = new DocumentTable(this.db);
      this.cacheKeys = new TileCacheKeys(++openedStores, pyramids.map((p) => p.name));
      this.info = this.describe(kind, id, meta, pyramids);
    } catch (err) {
      // A file that cannot be served keeps no handle open (the catalog does not retry it until it changes).
      this.db.close();
      throw err;
    }
  }

  private readPyramids(): Pyramid[] {
    const rows = pyramidRows(this.db);
    if (rows.length === 0) throw new Error(`${this.file}: tilemirror_pyramids is empty`);
    return rows.map((r) => ({
      name: r.name,
      tileSize: r.tile_size,
      scale: r.scale,
      format: toFormat(r.format),
      minzoom: r.minzoom,
      maxzoom: r.maxzoom,
      bounds: JSON.parse(r.bounds) as Bounds,
    }));
  }

  /** A plain MBTiles file (e.g. written by @mapbox/mbtiles or GDAL): one pyramid described by its metadata. */
  private pyramidFromMetadata(meta: Map<string, string>): Pyramid {
    let minzoom = Number(meta.get('minzoom'));
    let maxzoom = Number(meta.get('maxzoom'));
    if (!Number.isInteger(minzoom) || !Number.isInteger(maxzoom) || meta.get('minzoom') === '' || meta.get('maxzoom') === '') {
      const row = mainZoomRange(this.db);
      minzoom = row.lo ?? 0;
      maxzoom = row.hi ?? 0;
    }
    const tileSize = Number(meta.get(META.tileSize)) || 256;
    return {
      name: 'main',
      tileSize,
      scale: 1,
      format: toFormat(meta.get('format')),
      minzoom,
      maxzoom,
      bounds: (numberList(meta.get('bounds'), 4) as Bounds | undefined) ?? WORLD,
    };
  }

  private describe(kind: ResourceKind, id: string, meta: Map<string, string>, pyramids: Pyramid[]): TilesetInfo {
    const main = pyramids[0];
    const center = numberList(meta.get('center'), 3) as [number, number, number] | undefined;
    let vectorLayers: VectorLayer[] | undefined;
    const json = meta.get('json');
    if (json) {
      try {
        const parsed = JSON.parse(json) as { vector_layers?: VectorLayer[] };
        if (Array.isArray(parsed.vector_layers)) vectorLayers = parsed.vector_layers;
      } catch {
        // A broken `json` row only loses the layer list; the tiles still serve.
      }
    }
    let image: { width: number; height: number } | undefined;
    const imageMeta = meta.get(META.image);
    if (imageMeta) image = JSON.parse(imageMeta) as { width: number; height: number };
    const [w, s, e, n] = main.bounds;
    const encoding = meta.get('encoding');
    return {
      kind,
      id,
      name: meta.get('name') || id,
      description: meta.get('description') ?? '',
      attribution: meta.get('attribution') ?? '',
      type: meta.get('type') || 'baselayer',
      format: main.format,
      minzoom: main.minzoom,
      maxzoom: main.maxzoom,
      bounds: main.bounds,
      center: center ?? [(w + e) / 2, (s + n) / 2, Math.min(main.maxzoom, Math.max(main.minzoom, 2))],
      pyramids,
      vectorLayers,
      ...((encoding === 'mapbox' || encoding === 'terrarium') && { encoding }),
      ...(kind === 'maps' && meta.get(RASTER_MODE_KEY) === 'render' && { raster: 'render' as const }),
      image,
      version: digestTag(this.signature),
    };
  }

  pyramid(name: string): Pyramid | undefined {
    return this.info.pyramids.find((p) => p.name === name);
  }

  /** A tile addressed in XYZ; undefined when the store has none. Hot tiles (and hot absences) come from the cache. */
  tile(pyramid: string, z: number, x: number, y: number): Buffer | undefined {
    const key = this.cache ? this.cacheKeys.key(pyramid, z, x, y) : '';
    const cached = this.cache?.get(key);
    if (cached) return cached.length === 0 ? undefined : cached;
    const data = this.tiles.get(pyramid, z, x, tmsRow(z, y));
    this.cache?.set(key, data ?? ABSENT);
    return data;
  }

  /**
   * Every tile of the pyramid with bytes, zoom by zoom in the order of the tile index (column, then row from the
   * south), read a page of rows per query: no query stays under way while the caller holds a tile, so a caller
   * may pause between tiles and the catalog may still close the store meanwhile (better-sqlite3 refuses to close a
   * connection with a query under way); the next page then throws.
   */
  *scan(pyramid: string, zooms: ScanZooms = {}): Generator<ScannedTile> {
    const p = this.pyramid(pyramid);
    if (!p) return;
    const maxzoom = Math.min(zooms.maxzoom ?? p.maxzoom, p.maxzoom);
    let after: TileKey = [Math.max(zooms.minzoom ?? p.minzoom, p.minzoom), -1, -1];
    for (;;) {
      const page = this.tiles.page(pyramid, after, maxzoom, SCAN_PAGE);
      for (const [z, x, row, data] of page) yield { z, x, y: tmsRow(z, row), data };
      if (page.length < SCAN_PAGE) return;
      const [z, x, row] = page[page.length - 1];
      after = [z, x, row];
    }
  }

  /** The XYZ address of every tile of the pyramid with bytes, read without the bytes (an export sorts them first). */
  addresses(pyramid: string): [number, number, number][] {
    return this.tiles.addresses(pyramid).map(([z, x, row]) => [z, x, tmsRow(z, row)]);
  }

  /**
   * The tile without its gzip transport encoding (for a client that does not accept gzip); other tiles as they are.
   * Decompressed copies share the tile cache, so a hot tile is inflated once, not per request. A tile whose gzip
   * cannot be decompressed throws DamagedTileError and is reported once per store version.
   */
  plainTile(pyramid: string, z: number, x: number, y: number): Buffer | undefined {
    return this.plainTiles.plain(this.info.version, `${pyramid}/${z}/${x}/${y}`, this.tile(pyramid, z, x, y));
  }

  document(path: string): StoredDocument | undefined {
    return this.documents.get(path);
  }

  /** Tile rows of every pyramid, the file's size, and the upstream a mirror run recorded (or the sample's mark). */
  facts(): StoreFacts {
    if (this.knownFacts) return this.knownFacts;
    const bytes = fileBytes(this.file);
    try {
      const tiles = this.tiles.count();
      const upstream = mirrorStateValue(this.db, STATE.upstream);
      const origin: StoreOrigin = upstream
        ? { type: 'upstream', url: withoutSecrets(upstream) }
        : metadataValue(this.db, 'tilemirror:sample_version') !== undefined
          ? { type: 'sample' }
          : { type: 'imported' };
      this.knownFacts = { tiles, bytes, origin };
      return this.knownFacts;
    } catch {
      return { tiles: null, bytes, origin: { type: 'imported' } };
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
