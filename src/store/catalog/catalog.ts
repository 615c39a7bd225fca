import { existsSync, readdirSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { ByteLru } from '../bytes/lru';
import { DocumentStore } from '../mbtiles/document-store';
import { isPmtilesFile, openTileStore, signatureMtimeMs, signatureOf } from '../open';
import type { TileStore } from '../tile-reader';
import { DOCUMENT_KIND_LIST, isDocumentKind, isStoreId, type DocumentKind, type ResourceKind, type StoreKind, type TilesetInfo } from '../types';

/** Sub-folders of the data directory, one per kind; the file name (without .mbtiles) is the id. */
export const TILE_KINDS: readonly ResourceKind[] = ['tiles', 'maps', 'images'];
export const DOCUMENT_KINDS: readonly DocumentKind[] = DOCUMENT_KIND_LIST;
export const KIND_DIRS: readonly StoreKind[] = [...TILE_KINDS, ...DOCUMENT_KINDS];
/** Kinds whose folder may also hold PMTiles archives (`{id}.pmtiles`, served as tile sets). */
const PMTILES_KINDS: readonly StoreKind[] = ['tiles'];

type AnyStore = TileStore | DocumentStore;

/** The id of a store file of `kind` (`{id}.mbtiles`, or `{id}.pmtiles` where PMTiles are served); undefined for other names. */
function storeFileId(kind: StoreKind, name: string): { id: string; pmtiles: boolean } | undefined {
  if (name.endsWith('.mbtiles')) return { id: name.slice(0, -'.mbtiles'.length), pmtiles: false };
  if (PMTILES_KINDS.includes(kind) && isPmtilesFile(name)) return { id: name.slice(0, -'.pmtiles'.length), pmtiles: true };
  return undefined;
}

/** One open store as operators see it: which version of which file is served (for /metrics). */
export interface ServedVersion {
  kind: StoreKind;
  id: string;
  /** The content version (the ETag base of its documents): changes whenever the file is republished. */
  version: string;
  /** When the served file was last modified (its publication, for a store published by rename), ms since the epoch. */
  publishedMs: number;
}

/** What the catalog can say about its own state (for /health/ready and /metrics). */
export interface CatalogStatus {
  /** Open stores. */
  open: number;
  /** Store files that failed to open (skipped; the others serve). */
  failed: number;
  /** Folders of the data directory that could not be listed at the last scan (their open stores keep serving). */
  unreadableDirs: string[];
  /** When the last scan ran (ms since the epoch). */
  lastScanMs: number;
}


/** The tile memory cache's counters (absent when `cache.memoryMb` is 0). */
export interface TileCacheStats {
  hits: number;
  misses: number;
  bytes: number;
  maxBytes: number;
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Failures worth retrying with the same file: the process or system is out of descriptors, memory or threads, or
 * the file is locked. Anything else (not SQLite, no tiles table, a bad zoom range) stays broken until the file changes.
 * The code is looked for in the message too: an error a worker thread reports arrives as its message only.
 */
const TRANSIENT = /\b(EMFILE|ENFILE|EAGAIN|ENOMEM|SQLITE_CANTOPEN|SQLITE_BUSY|SQLITE_LOCKED|SQLITE_IOERR|SQLITE_NOMEM)\b/;

/** Whether opening or indexing a store failed for now rather than for good (TRANSIENT): worth another try later. */
export function isTransientFailure(err: unknown): boolean {
  return TRANSIENT.test(`${errorCode(err) ?? ''} ${(err as { message?: unknown } | null)?.message ?? ''}`);
}

interface Failure {
  signature: string;
  message: string;
  transient: boolean;
}

export interface CatalogOptions {
  /** Reports a store that cannot be opened (it is skipped, the others serve): once per file version and error. */
  onError?: (file: string, error: Error) => void;
  /**
   * Reports a folder of the data directory that cannot be listed (e.g. EMFILE: out of descriptors): the stores
   * already open from it keep serving. One call per scan, naming the folders not reported yet with that error.
   */
  onScanError?: (dirs: string[], error: Error) => void;
  /** Reports a stored tile whose gzip cannot be decompressed: once per tile and store version. */
  onDamagedTile?: (file: string, tile: string, error: Error) => void;
  /** How often the directory is re-read even without a file-system event (ms). */
  rescanMs?: number;
  /** Memory for hot tiles shared by all stores, in bytes (0: no cache). */
  tileCacheBytes?: number;
}

/**
 * Knows which stores the data directory holds and keeps one open read-only store per file.
 * A store published by rename (a new inode) is noticed by a directory watch or the periodic rescan and
 * reopened; the previous version keeps serving until the new one is open, then it is closed.
 */
export class Catalog {
  private readonly stores = new Map<string, AnyStore>();
  /** Store files that failed to open, by `kind/id`: not reopened (nor logged again) until the file changes. */
  private readonly failed = new Map<string, Failure>();
  /** Folders whose listing failed, with the error code last reported. */
  private readonly unreadable = new Map<string, string>();
  private readonly watchers: FSWatcher[] = [];
  private timer?: NodeJS.Timeout;
  private pending?: NodeJS.Timeout;
  private lastScan = 0;
  private readonly tileCache?: ByteLru;
  private readonly listeners = new Set<() => void>();

  constructor(readonly dataDir: string, private readonly options: CatalogOptions = {}) {
    const bytes = options.tileCacheBytes ?? 0;
    if (bytes > 0) this.tileCache = new ByteLru(bytes);
    this.scan();
  }

  /** Starts watching the data directory; without it the catalog only changes on `scan()` or a lookup miss. */
  watch(): this {
    for (const kind of KIND_DIRS) {
      const dir = join(this.dataDir, kind);
      if (!existsSync(dir)) continue;
      try {
        const w = watch(dir, () => this.scheduleScan());
        w.on('error', () => undefined);
        this.watchers.push(w);
      } catch {
        // Some file systems cannot be watched; the periodic rescan covers them.
      }
    }
    this.timer = setInterval(() => this.scan(), this.options.rescanMs ?? 2000);
    this.timer.unref();
    return this;
  }

  /**
   * Calls `listener` after every scan that opened, replaced or closed a store (not for scans that changed nothing).
   * Returns the function that stops it. Listeners read the new state with list(); they must not throw.
   */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private scheduleScan(): void {
    if (this.pending) return;
    // scan() clears `pending`: a lookup miss may run this scan before the timer does.
    this.pending = setTimeout(() => this.scan(), 50);
    this.pending.unref();
  }

  /**
   * Re-reads the data directory: opens new or replaced stores, closes removed ones. A folder that cannot be
   * listed (other than one that does not exist) keeps its stores open: a failed scan never unloads anything.
   */
  scan(): void {
    // A scan scheduled by the watch is this one.
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
    this.lastScan = Date.now();
    const seen = new Set<string>();
    let changed = false;
    const unlisted = new Set<string>();
    const newlyUnreadable: [string, Error][] = [];
    for (const kind of KIND_DIRS) {
      const dir = join(this.dataDir, kind);
      let names: string[];
      try {
        names = readdirSync(dir);
        this.unreadable.delete(dir);
      } catch (err) {
        if (errorCode(err) === 'ENOENT') {
          this.unreadable.delete(dir);
          continue;
        }
        unlisted.add(kind);
        const code = errorCode(err) ?? (err as Error).message;
        if (this.unreadable.get(dir) !== code) newlyUnreadable.push([dir, err as Error]);
        this.unreadable.set(dir, code);
        continue;
      }
      const listed = new Set(names);
      for (const name of names) {
        const named = storeFileId(kind, name);
        if (!named || !isStoreId(named.id)) continue;
        const id = named.id;
        // An MBTiles store and a PMTiles archive of the same id: the MBTiles store is served.
        if (named.pmtiles && listed.has(`${id}.mbtiles`)) continue;
        const key = `${kind}/${id}`;
        const file = join(dir, name);
        const found = signatureOf(file);
        if ('gone' in found) continue;
        seen.add(key);
        // A file that cannot be stat'ed now (other than gone) keeps its open version.
        if ('error' in found) continue;
        if (this.open(kind, id, file, found.signature)) changed = true;
      }
    }
    // One report per scan (out of descriptors, every folder fails at once).
    if (newlyUnreadable.length > 0) this.options.onScanError?.(newlyUnreadable.map(([d]) => d), newlyUnreadable[0][1]);
    const removed = (key: string): boolean => !seen.has(key) && !unlisted.has(key.slice(0, key.indexOf('/')));
    for (const [key, store] of this.stores) {
      if (removed(key)) {
        this.stores.delete(key);
        store.close();
        changed = true;
      }
    }
    for (const key of this.failed.keys()) {
      if (removed(key)) this.failed.delete(key);
    }
    if (changed) for (const listener of this.listeners) listener();
  }

  /**
   * Opens a new or replaced store file; the previous version keeps serving until the new one is open.
   * True when a new version is now served.
   */
  private open(kind: StoreKind, id: string, file: string, signature: string): boolean {
    const key = `${kind}/${id}`;
    const current = this.stores.get(key);
    if (current?.signature === signature) return false;
    const failure = this.failed.get(key);
    if (failure?.signature === signature && !failure.transient) return false;
    try {
      const tileOptions = {
        cache: this.tileCache,
        onDamagedTile: this.options.onDamagedTile && ((tile: string, err: Error) => this.options.onDamagedTile?.(file, tile, err)),
      };
      const store = isDocumentKind(kind) ? new DocumentStore(file, kind, id, signature) : openTileStore(file, kind, id, signature, tileOptions);
      this.stores.set(key, store);
      this.failed.delete(key);
      current?.close();
      return true;
    } catch (err) {
      // A store being written or a broken file: keep serving the previous version, if any.
      const message = (err as Error).message;
      if (failure?.signature !== signature || failure.message !== message) this.options.onError?.(file, err as Error);
      this.failed.set(key, { signature, message, transient: isTransientFailure(err) });
      return false;
    }
  }

  private lookup(kind: StoreKind, id: string): AnyStore | undefined {
    const store = this.stores.get(`${kind}/${id}`);
    // A miss may be a store published a moment ago: look again at once when the watch has seen a change whose scan
    // is still waiting (a client asking right after a publish got 404 for up to 50 ms), else at most once a second.
    if (!store && (this.pending !== undefined || Date.now() - this.lastScan > 1000)) {
      this.scan();
      return this.stores.get(`${kind}/${id}`);
    }
    return store;
  }

  /** A map, tile set or image store. */
  get(kind: ResourceKind, id: string): TileStore | undefined {
    const s = this.lookup(kind, id);
    return s instanceof DocumentStore ? undefined : s;
  }

  /** A document store: a font, a sprite, a dataset, the weather catalog, the OGC provenance. */
  documents(kind: DocumentKind, id: string): DocumentStore | undefined {
    const s = this.lookup(kind, id);
    return s instanceof DocumentStore ? s : undefined;
  }

  /** Ids of the document stores of a kind (e.g. every mirrored font). */
  documentIds(kind: DocumentKind): string[] {
    return [...this.stores.values()]
      .filter((s): s is DocumentStore => s instanceof DocumentStore && s.kind === kind)
      .map((s) => s.id)
      .sort();
  }

  /** Descriptions of the tiled resources (maps, tile sets, images), by kind then id. */
  list(kind?: ResourceKind): TilesetInfo[] {
    const infos = [...this.stores.values()]
      .filter((s): s is TileStore => !(s instanceof DocumentStore))
      .map((s) => s.info)
      .filter((i) => !kind || i.kind === kind);
    return infos.sort((a, b) => (a.kind === b.kind ? a.id.localeCompare(b.id) : a.kind.localeCompare(b.kind)));
  }

  /** Every open store's served version, by kind then id: as many entries as stores. */
  versions(): ServedVersion[] {
    const out: ServedVersion[] = [];
    for (const s of this.stores.values()) {
      const kind = s instanceof DocumentStore ? s.kind : s.info.kind;
      const id = s instanceof DocumentStore ? s.id : s.info.id;
      const version = s instanceof DocumentStore ? s.version : s.info.version;
      out.push({ kind, id, version, publishedMs: signatureMtimeMs(s.signature) });
    }
    return out.sort((a, b) => (a.kind === b.kind ? a.id.localeCompare(b.id) : a.kind.localeCompare(b.kind)));
  }

  status(): CatalogStatus {
    return { open: this.stores.size, failed: this.failed.size, unreadableDirs: [...this.unreadable.keys()], lastScanMs: this.lastScan };
  }

  tileCacheStats(): TileCacheStats | undefined {
    const c = this.tileCache;
    return c && { hits: c.hits, misses: c.misses, bytes: c.size, maxBytes: c.capacity };
  }

  close(): void {
    for (const w of this.watchers) w.close();
    if (this.timer) clearInterval(this.timer);
    if (this.pending) clearTimeout(this.pending);
    for (const s of this.stores.values()) s.close();
    this.stores.clear();
    this.listeners.clear();
  }
}
