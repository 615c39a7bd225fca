// The LabelFinder over the data directory's vector tile sets, whatever file holds them (MBTiles or PMTiles: each
// is read through the store's tile reader). The catalog is the one trigger: it already notices every store that
// appears, is republished (the mirror's atomic rename: a new file version) or disappears, by whatever path it
// arrived (a mirror run, `import`, a copied file, the sample); on each change this reconciles the label indexes in
// `<data>/.labels/<id>.sqlite` with the catalog's vector tile sets:
//   - a tile set without an index of its current version gets one, built in the background (one at a time,
//     in a worker thread reading the store file on its own) while the previous version, if any, keeps answering;
//   - a removed tile set's index is closed and deleted.
// Processes sharing the data directory (serve --workers) build each index once: a lock file `<id>.lock` holding
// the builder's pid; the others wait for the file and open it.

import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isTransientFailure, type Catalog } from '../../store/catalog/catalog';
import type { TileStore } from '../../store/tile-reader';
import type { TilesetInfo } from '../../store/types';
import type { LabelFinder, LabelHit, LabelSearchOptions, LabelType } from './labels';
import type { LabelIndexStats } from './labels-build';
import { LABEL_INDEX_FORMAT } from './labels-sql';
import { buildLabelIndexInThread } from './labels-build-thread';
import { LABEL_LAYERS } from './labels-extract';
import { LabelIndex } from './labels-index';

export interface LabelLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface MirroredLabelsOptions {
  /** Folder of the indexes (default `<data>/.labels`). */
  dir?: string;
  log?: LabelLog;
  /** Longest slice of build work between two turns of the event loop (ms), when the build runs in this thread. */
  sliceMs?: number;
  /** How often to look again while another process builds an index (ms). */
  retryMs?: number;
}

/** Lock files this process holds (two servers in one process must not both build). */
const heldLocks = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

/** Takes `<id>.lock` (true), or finds it held by a live process (false); a dead holder's lock is taken over. */
function tryLock(file: string): boolean {
  if (heldLocks.has(file)) return false;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldLocks.add(file);
      return true;
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) return false;
      rmSync(file, { force: true });
    }
  }
  return false;
}

function unlock(file: string): void {
  heldLocks.delete(file);
  rmSync(file, { force: true });
}

/** True for a vector tile set that may hold label layers (all of them when the metadata lists no layers). */
export function mayHoldLabels(info: TilesetInfo): boolean {
  if (info.format !== 'pbf') return false;
  if (!info.vectorLayers?.length) return true;
  return info.vectorLayers.some((l) => LABEL_LAYERS.includes(l.id));
}

const stripHtml = (s: string) => s.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ').trim();

export class MirroredLabels implements LabelFinder {
  readonly dir: string;
  private readonly indexes = new Map<string, LabelIndex>();
  /** Tile set versions whose build failed: not retried until the store changes. */
  private readonly failed = new Set<string>();
  /** Tile set versions whose build is put off for want of resources: logged once, tried again every `retryMs`. */
  private readonly deferred = new Set<string>();
  /** A reconciliation was put off for want of resources (logged once until one succeeds). */
  private putOff = false;
  private unsubscribe?: () => void;
  private running?: Promise<void>;
  private dirty = false;
  private retry?: NodeJS.Timeout;
  private closed = false;
  private readonly abort = new AbortController();
  private disabled?: string;
  /** The last build of each tile set (for logs, the admin page and tests). */
  readonly builds = new Map<string, LabelIndexStats>();

  constructor(private readonly catalog: Catalog, private readonly opts: MirroredLabelsOptions = {}) {
    this.dir = opts.dir ?? join(catalog.dataDir, '.labels');
  }

  /** Follows the catalog from now on; the first reconciliation runs on the next turn of the event loop. */
  start(): this {
    this.unsubscribe = this.catalog.onChange(() => this.reconcile());
    this.reconcile();
    return this;
  }

  /** Asks for a reconciliation with the catalog (coalesced: at most one runs, and one more after it). */
  reconcile(): void {
    if (this.closed) return;
    this.dirty = true;
    if (this.running) return;
    this.running = (async () => {
      await new Promise<void>((r) => setImmediate(r));
      while (this.dirty && !this.closed) {
        this.dirty = false;
        try {
          await this.sync();
          this.putOff = false;
        } catch (err) {
          if (isTransientFailure(err) && !this.closed) {
            // Out of descriptors (the index folder cannot be listed): looked at again, as a build put off is.
            if (!this.putOff) this.opts.log?.warn({ err: (err as Error).message }, 'label index: reconciliation put off, the failure is for now (out of descriptors, or a locked file); it is tried again');
            this.putOff = true;
            this.retryLater();
          } else this.opts.log?.warn({ err: (err as Error).message }, 'label index: reconciliation failed');
        }
      }
    })().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves when every vector tile set has its current index (or failed), and nothing is waiting on another process. */
  async idle(): Promise<void> {
    for (;;) {
      if (this.running) await this.running;
      else if (this.retry) await new Promise((r) => setTimeout(r, 50));
      else return;
    }
  }

  /** The tile sets indexed now, with the store version each index was built from. */
  indexed(): Record<string, string> {
    return Object.fromEntries([...this.indexes].map(([id, ix]) => [id, ix.tilesetVersion]));
  }

  private indexFile(id: string): string {
    return join(this.dir, `${id}.sqlite`);
  }

  /** The served vector tile sets that may hold labels, by id. */
  private wanted(): Map<string, TileStore> {
    const out = new Map<string, TileStore>();
    for (const info of this.catalog.list('tiles')) {
      if (!mayHoldLabels(info)) continue;
      const store = this.catalog.get('tiles', info.id);
      if (store) out.set(info.id, store);
    }
    return out;
  }

  private drop(id: string): void {
    this.indexes.get(id)?.close();
    this.indexes.delete(id);
  }

  /** Opens `<id>.sqlite` when it was built from `version` (and this index format); undefined otherwise. */
  private tryOpen(id: string, version: string): LabelIndex | undefined {
    const file = this.indexFile(id);
    if (!existsSync(file)) return undefined;
    try {
      const ix = new LabelIndex(file);
      if (ix.tilesetVersion === version && ix.format === LABEL_INDEX_FORMAT) return ix;
      ix.close();
    } catch {
      // Unreadable (damaged, or another format): rebuilt below.
    }
    return undefined;
  }

  private async sync(): Promise<void> {
    if (this.disabled) return;
    const wanted = this.wanted();
    try {
      mkdirSync(this.dir, { recursive: true });
    } catch (err) {
      this.disabled = (err as Error).message;
      this.opts.log?.warn({ dir: this.dir, err: this.disabled }, 'label index: folder cannot be created, mirrored labels are not searchable');
      return;
    }
    // Removed tile sets: close and delete (files of tile sets no longer served too).
    for (const id of [...this.indexes.keys()]) if (!wanted.has(id)) this.drop(id);
    for (const name of readdirSync(this.dir)) {
      if (name.endsWith('.sqlite') && !wanted.has(name.slice(0, -'.sqlite'.length))) rmSync(join(this.dir, name), { force: true });
    }
    let waiting = false;
    for (const tileset of wanted.values()) {
      if (this.closed) return;
      const { id, version } = tileset.info;
      const current = this.indexes.get(id);
      if (current?.tilesetVersion === version) continue;
      const key = `${id}@${version}`;
      if (this.failed.has(key)) continue;
      const ready = this.tryOpen(id, version);
      if (ready) {
        this.drop(id);
        this.indexes.set(id, ready);
        continue;
      }
      const lock = join(this.dir, `${id}.lock`);
      if (!tryLock(lock)) {
        waiting = true; // Another process (or server in this one) builds it: look again shortly.
        continue;
      }
      try {
        const stats = await buildLabelIndexInThread(tileset, this.indexFile(id), { sliceMs: this.opts.sliceMs, signal: this.abort.signal });
        this.builds.set(id, stats);
        this.deferred.delete(key);
        this.opts.log?.info({ tileset: id, ...stats }, 'label index built');
      } catch (err) {
        if (this.closed) return;
        // A store replaced or removed while it was read (the catalog closed it): the reconciliation its change
        // asked for indexes what the catalog serves now.
        if (this.catalog.get('tiles', id)?.info.version !== version) continue;
        if (isTransientFailure(err)) {
          waiting = true;
          if (!this.deferred.has(key)) this.opts.log?.warn({ tileset: id, err: (err as Error).message }, 'label index: build put off, the failure is for now (out of descriptors, or a locked file); it is tried again');
          this.deferred.add(key);
          continue;
        }
        this.failed.add(key);
        this.opts.log?.warn({ tileset: id, err: (err as Error).message }, 'label index: build failed, its labels are not searchable');
        continue;
      } finally {
        unlock(lock);
      }
      const built = this.tryOpen(id, version);
      if (built) {
        this.drop(id);
        this.indexes.set(id, built);
      } else waiting = true; // Built but not opened (out of descriptors): opened on the next look.
    }
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    if (waiting && !this.closed) this.retryLater();
  }

  /** Reconciles again after `retryMs` (a lock held elsewhere, or a build put off for want of resources). */
  private retryLater(): void {
    if (this.retry) clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.reconcile();
    }, this.opts.retryMs ?? 1000);
    this.retry.unref();
  }

  close(): void {
    this.closed = true;
    this.abort.abort();
    this.unsubscribe?.();
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    for (const id of [...this.indexes.keys()]) this.drop(id);
  }

  // ---- LabelFinder ----

  search(text: string, opts: LabelSearchOptions): LabelHit[] {
    const hits = [...this.indexes.values()].flatMap((ix) => ix.search(text, opts));
    return hits.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id)).slice(0, opts.limit);
  }

  nearest(lon: number, lat: number, opts: { types?: LabelType[]; limit: number; maxMeters: number }): Array<LabelHit & { meters: number }> {
    const hits = [...this.indexes.values()].flatMap((ix) => ix.nearest(lon, lat, opts));
    return hits.sort((a, b) => a.meters - b.meters || a.id.localeCompare(b.id)).slice(0, opts.limit);
  }

  byId(id: string): LabelHit | undefined {
    const dot = id.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const n = Number(id.slice(dot + 1));
    if (!Number.isSafeInteger(n) || n < 1) return undefined;
    return this.indexes.get(id.slice(0, dot))?.byNumber(n);
  }

  attribution(tilesets?: Iterable<string>): string[] {
    const only = tilesets ? new Set(tilesets) : undefined;
    const out = new Set<string>();
    for (const [id, ix] of this.indexes) {
      if (only && !only.has(id)) continue;
      const a = stripHtml(ix.attribution);
      if (a) out.add(a);
    }
    return [...out];
  }
}
