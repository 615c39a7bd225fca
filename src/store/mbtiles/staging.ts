// The store a run writes into: `{data}/{kind}/.{id}.mbtiles.staging` (hidden from the catalog by its dot),
// created through StoreWriter so it has exactly the schema of a published store, plus progress tables of the
// mirror (prefixed `tilemirror_mirror_`): tiles known to be empty, and the run's state and checkpoints.
// Commits never fsync: a commit is a write into the OS, which survives the death of the process (SIGKILL, OOM),
// and costs microseconds, so every tile is committed as soon as its tick ends ("group commit": the tiles that
// settled in the same event-loop turn share one transaction) and the worker waits for that commit before taking
// the next tile. A SIGKILL therefore loses at most the tiles in flight, one per worker. Where the machine's boot
// can be told (Linux), the file uses a persistent rollback journal with synchronous=OFF, so a tile's bytes are
// written once; a file so written is resumed only in the boot that wrote it (bootId), since a crash of the machine
// may tear it invisibly. Elsewhere it runs in WAL mode with synchronous=NORMAL (a torn file then fails the next
// run's quick_check and is discarded). Publishing returns the file to the plain rollback-journal mode (what
// readers of a published store expect: one self-contained file) and fsyncs it before the rename.
//
// Per tile the mirror keeps its validators (ETag, Last-Modified) and when the upstream last vouched for it
// (`tilemirror_mirror_tiles`): refresh runs revalidate only tiles checked longer ago than the max-age.
//
// The staging file starts, in order of preference, as: the staging file a previous run left (resume), a copy of
// the published store (extend or re-run without fetching what is already there), or an empty store. Either way
// it is first cut down to the plan, so a verified staging store holds exactly the planned tiles.

import Database from 'better-sqlite3';
import { constants, copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FLUSH_BEHIND_BYTES, flushBehind, type FlushBehind } from './flush-behind';
import { countCheckedSince, MirrorTables, mirrorStateValue, STATE } from './mirror-sql';
import { clearTables, metadataValue, tmsRow, type TileTables } from './sql';
import { StoreWriter, type StoreHeader } from './writer';
import type { TileCounts } from '../../job-contracts';
import type { StoreKind } from '../types';
import { zoomPlanHas, type PyramidPlan, type TileTask } from '../../geo/tile-bands';

/** Plans of a zoom with more bands than this are pruned and counted by scanning rows (see pruneByScan). */
const SQL_BANDS = 64;

/** What the upstream said about a tile the last time it was asked (XYZ addressing, like the empty table). */
export interface Validators {
  etag?: string;
  lastModified?: string;
  /** Wall-clock ms when the upstream last answered for this tile. */
  checkedAt: number;
}

/** A planned tile as the staging store knows it. */
export type KnownTile = { kind: 'absent' } | ({ kind: 'tile' | 'empty' } & Partial<Validators>);
const ABSENT_TILE: KnownTile = { kind: 'absent' };

export { STATE };

/**
 * This boot of the machine (Linux: a random id per boot), or undefined where the system does not say. A staging
 * file is written without fsync (journal_mode = PERSIST, synchronous = OFF) only when it is known: a killed
 * process loses nothing SQLite wrote (the kernel has it, and the journal rolls back a half-done commit), but a
 * crash of the machine may tear the file in ways a quick_check cannot see (a tile's bytes half old). So a file
 * written that way is resumed only in the boot that wrote it; after a restart of the machine it is discarded.
 */
export function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

export interface StorePaths {
  dir: string;
  published: string;
  staging: string;
  lock: string;
}

export function storePaths(dataDir: string, kind: StoreKind, id: string): StorePaths {
  const dir = join(dataDir, kind);
  return {
    dir,
    published: join(dir, `${id}.mbtiles`),
    staging: join(dir, `.${id}.mbtiles.staging`),
    lock: join(dir, `.${id}.lock`),
  };
}

/** Where a staging store came from: reported so the operator knows a run resumed. */
export type StagingOrigin = 'resumed' | 'copied-published' | 'new';

function readState(file: string, name: string, readonly = true): string | undefined {
  let db: Database.Database | undefined;
  try {
    // A staging file may be in WAL mode: read-write then, so its WAL is recovered (read-only could not).
    db = new Database(file, { readonly, fileMustExist: true });
    return mirrorStateValue(db, name);
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

/** The file was written with fsync (in WAL mode), or without it in this boot of the machine. */
function sameBoot(file: string): boolean {
  const wrote = readState(file, STATE.unsyncedBoot);
  return wrote === undefined || wrote === bootId();
}

/** True when the file opens and SQLite's quick check finds nothing wrong (a torn file from a full disk, say). */
function healthy(file: string): boolean {
  let db: Database.Database | undefined;
  try {
    // Read-write, so a hot journal left by a killed run is rolled back first.
    db = new Database(file, { fileMustExist: true });
    const rows = db.pragma('quick_check') as { quick_check: string }[];
    return rows.length === 1 && rows[0].quick_check === 'ok';
  } catch {
    return false;
  } finally {
    db?.close();
  }
}

/**
 * The file a run of the store would start from, without opening it for writing (what `plan` counts): a previous
 * run's staging file of the same upstream resource, written in this boot of the machine (resumed, with the refresh
 * state it saved), else the published store of the same resource (copied); undefined when the run starts empty.
 * As StagingStore.open decides, less its health check (a torn file is discarded there and fetched again).
 */
export function startingFile(paths: StorePaths, fingerprint: string): { file: string; origin: Exclude<StagingOrigin, 'new'>; refresh?: string } | undefined {
  const { staging, published } = paths;
  if (existsSync(staging) && readState(staging, STATE.fingerprint, false) === fingerprint && sameBoot(staging)) {
    return { file: staging, origin: 'resumed', refresh: readState(staging, STATE.refresh) };
  }
  if (existsSync(published) && readState(published, STATE.fingerprint) === fingerprint) return { file: published, origin: 'copied-published' };
  return undefined;
}

/**
 * Tiles of the plan (stored or known empty) the file says the upstream vouched for at or after `cutoff`: those a
 * run starting from it skips. 0 when the file cannot be read.
 */
export function currentTiles(file: string, plans: PyramidPlan[], cutoff: number, readonly: boolean): number {
  let db: Database.Database | undefined;
  try {
    // A staging file is opened read-write, as readState does: one in WAL mode is recovered first.
    db = new Database(file, { fileMustExist: true, readonly });
    let n = 0;
    for (const plan of plans) for (const zp of plan.zooms) n += countCheckedSince(db, plan.pyramid, zp, cutoff, SQL_BANDS);
    return n;
  } catch {
    return 0;
  } finally {
    db?.close();
  }
}

export function removeStaging(file: string): void {
  for (const f of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
}

export interface OpenStagingOptions {
  paths: StorePaths;
  header: StoreHeader;
  fingerprint: string;
  /** Upstream base URL without key (recorded for provenance). */
  upstream: string;
  plans: PyramidPlan[];
  planSignature: string;
  batchSize?: number;
  batchMs?: number;
}

/** A queued write: a tile's bytes, an empty status, or only fresh validators (the tile did not change). */
type Pending = { task: TileTask; data?: Buffer; status?: number; v?: Validators };

export class StagingStore {
  readonly writer: StoreWriter;
  readonly db: Database.Database;
  /** The store's tile tables (keyed by pyramid name), through the writer. */
  private readonly tiles: TileTables;
  /** The mirror's own tables: state, empty tiles, validators. */
  private readonly mirror: MirrorTables;
  private pending: Pending[] = [];
  private waiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private scheduled?: NodeJS.Immediate;
  private lastFlush = Date.now();
  private readonly batchSize: number;
  private readonly batchMs: number;
  /** Tile rows written (stored bytes or a change to/from empty): what a refresh promises to keep small. */
  tileWrites = 0;
  /** Tile bytes committed by this run, until the flush behind starts. */
  private committedBytes = 0;
  /**
   * Flushes the file to disk behind the commits (flush-behind.ts) once a run has written FLUSH_BEHIND_BYTES: without
   * it, publishing fsynced the whole run's pages at the end (~0.2 s of a 3.5 s run of 250 MB here, with nothing
   * else to do meanwhile). Only for the journal mode without fsyncs: in WAL mode the checkpoints already sync.
   */
  private flusher: FlushBehind | undefined = undefined;
  /** Written in WAL mode with fsyncs (where the boot of the machine cannot be told), else without (see bootId). */
  private readonly wal: boolean;
  /** The empty-tile table may hold rows (false only for a file this run started, until it records an empty tile). */
  private mayHaveEmpty: boolean;

  private constructor(readonly file: string, readonly origin: StagingOrigin, opts: OpenStagingOptions) {
    this.writer = new StoreWriter(file, opts.header);
    this.db = this.writer.db;
    this.tiles = this.writer.tiles;
    this.mayHaveEmpty = origin !== 'new';
    const boot = bootId();
    this.wal = boot === undefined;
    if (this.wal) {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      // A checkpoint copies the WAL into the file and fsyncs it, in the committing (main) thread: SQLite's default
      // (every 1,000 pages, 4 MB) meant a checkpoint every ~200 tiles of 20 KB, and the fetches stalled meanwhile.
      this.db.pragma('wal_autocheckpoint = 16384');
    } else {
      // Each tile's bytes written once, not to the WAL and again at each checkpoint: 12,294 tiles of 20 KB took
      // 1.4 s of the main thread in WAL mode, 0.6 s so (SQLite alone, same inserts). The journal (kept, not
      // recreated per commit) still rolls back a commit cut by SIGKILL; see bootId for a crash of the machine.
      // Publishing fsyncs the file before its rename, so the published store is as durable as before.
      this.db.pragma('journal_mode = PERSIST');
      this.db.pragma('synchronous = OFF');
    }
    this.mirror = new MirrorTables(this.db);
    this.batchSize = opts.batchSize ?? 500;
    this.batchMs = opts.batchMs ?? 1000;
    this.db.transaction(() => {
      if (boot !== undefined) this.mirror.setState([[STATE.unsyncedBoot, boot]]);
      else this.mirror.deleteState(STATE.unsyncedBoot);
      this.mirror.setState([
        [STATE.fingerprint, opts.fingerprint],
        [STATE.upstream, opts.upstream],
        [STATE.plan, opts.planSignature],
      ]);
      this.mirror.deleteState(STATE.publishedAt);
      this.prune(opts.plans);
    })();
  }

  /**
   * Opens the staging store of a run: resumes a matching staging file, else starts from a copy of the matching
   * published store, else from nothing. Files of another upstream resource (different fingerprint) are discarded.
   */
  static open(opts: OpenStagingOptions): StagingStore {
    const { staging, published } = opts.paths;
    let origin: StagingOrigin = 'new';
    if (existsSync(staging) && healthy(staging) && readState(staging, STATE.fingerprint, false) === opts.fingerprint && sameBoot(staging)) {
      origin = 'resumed';
    } else {
      removeStaging(staging);
      if (existsSync(published) && readState(published, STATE.fingerprint) === opts.fingerprint) {
        // Published files are never written after their rename, so a plain copy is a consistent snapshot. FICLONE:
        // a copy-on-write clone where the file system has them (btrfs, XFS), a byte copy elsewhere.
        copyFileSync(published, staging, constants.COPYFILE_FICLONE);
        origin = 'copied-published';
      }
    }
    if (origin !== 'new') StagingStore.resetHeader(staging);
    return new StagingStore(staging, origin, opts);
  }

  /** Header rows and documents are rewritten by every run; old ones must not linger (e.g. a pyramid no longer offered). */
  private static resetHeader(file: string): void {
    const db = new Database(file);
    try {
      db.transaction(() => clearTables(db, ['metadata', 'tilemirror_pyramids', 'tilemirror_documents']))();
    } finally {
      db.close();
    }
  }

  /** Deletes every tile and empty record that is not in the plan (other pyramids, zooms, areas). */
  private prune(plans: PyramidPlan[]): void {
    const names = plans.map((p) => p.pyramid);
    this.tiles.deleteOtherPyramids(names);
    this.mirror.deleteOtherPyramids(names);
    for (const plan of plans) {
      const zooms = plan.zooms.map((z) => z.z);
      this.tiles.deleteOtherZooms(plan.pyramid, zooms);
      this.mirror.deleteOtherZooms(plan.pyramid, zooms);
      for (const zp of plan.zooms) {
        if (zp.bands.length > SQL_BANDS) {
          this.pruneByScan(plan.pyramid, zp);
          continue;
        }
        this.tiles.deleteOutside(plan.pyramid, zp);
        this.mirror.deleteOutside(plan.pyramid, zp);
      }
    }
  }

  /**
   * Prune of one zoom whose plan has many bands (a polygon's cover): one pass over the zoom's rows, each looked
   * up in the plan, instead of one SQL condition with thousands of terms (SQLite caps expression depth at 1000).
   */
  private pruneByScan(pyramid: string, zp: PyramidPlan['zooms'][number]): void {
    const z = zp.z;
    // Rows are streamed; only those to delete (outside the plan: usually none) are collected.
    const outside: [number, number][] = [];
    for (const [x, r] of this.tiles.columnsRows(pyramid, z)) if (!zoomPlanHas(zp, x, tmsRow(z, r))) outside.push([x, r]);
    for (const [x, r] of outside) this.tiles.delete(pyramid, z, x, r);
    this.mirror.deleteWhere(pyramid, z, (x, y) => zoomPlanHas(zp, x, y));
  }

  /** Whether the tile is already stored or known empty (then a resumed run does not fetch it again). */
  has(t: TileTask): boolean {
    if (this.mirror.isEmpty(t.pyramid, t.z, t.x, t.y)) return true;
    return this.tiles.has(t.pyramid, t.z, t.x, tmsRow(t.z, t.y));
  }

  /** Whether the tile is stored, known empty or absent, with what the upstream last said about it. */
  lookup(t: TileTask): KnownTile {
    // A file started empty by this run holds only tiles this run wrote, and a run visits each tile once: three
    // queries a tile (~10 µs) spared on a first mirror.
    if (this.origin === 'new') return ABSENT_TILE;
    const v = this.mirror.validators(t.pyramid, t.z, t.x, t.y);
    const empty = this.mirror.isEmpty(t.pyramid, t.z, t.x, t.y);
    const stored = !empty && this.tiles.has(t.pyramid, t.z, t.x, tmsRow(t.z, t.y));
    const kind = empty ? 'empty' : stored ? 'tile' : 'absent';
    if (kind === 'absent') return { kind };
    return { kind, ...(v && { checkedAt: v.checkedAt, ...(v.etag !== null && { etag: v.etag }), ...(v.lastModified !== null && { lastModified: v.lastModified }) }) };
  }

  /** The stored bytes of a tile (a refresh compares before rewriting). */
  tileData(t: TileTask): Buffer | undefined {
    return this.tiles.get(t.pyramid, t.z, t.x, tmsRow(t.z, t.y));
  }

  /**
   * Queues a fetched tile (data), an empty one (emptyStatus) or a confirmation that the stored one is current
   * (touch), with the upstream's validators. Resolves once committed: the end of the current event-loop turn,
   * together with every other tile settled in it.
   */
  record(task: TileTask, result: { data: Buffer } | { emptyStatus: number } | { touch: true }, v?: Validators): Promise<void> {
    this.pending.push('data' in result ? { task, data: result.data, v } : 'emptyStatus' in result ? { task, status: result.emptyStatus, v } : { task, v });
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (this.pending.length >= this.batchSize) this.flush();
    else this.scheduled ??= setImmediate(() => this.flushQuietly());
    return done;
  }

  private flushQuietly(): void {
    try {
      this.flush();
    } catch {
      /* the waiters were told */
    }
  }

  /** Commits the queue when it is due (size or age). */
  flushIfDue(): void {
    if (this.pending.length && Date.now() - this.lastFlush >= this.batchMs) this.flush();
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  /** Commits every queued tile in one transaction. A tile is either stored or empty, never both. */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const batch = this.pending;
    const waiters = this.waiters;
    this.pending = [];
    this.waiters = [];
    this.lastFlush = Date.now();
    if (batch.length === 0) return;
    let writes = 0;
    try {
      this.writer.batch(() => {
        for (const { task: t, data, status, v } of batch) {
          if (data) {
            this.writer.putTile(t.pyramid, t.z, t.x, t.y, data);
            if (this.mayHaveEmpty) this.mirror.deleteEmptyTile(t.pyramid, t.z, t.x, t.y);
            writes++;
          } else if (status !== undefined) {
            this.mayHaveEmpty = true;
            this.mirror.putEmptyTile(t.pyramid, t.z, t.x, t.y, status);
            this.tiles.delete(t.pyramid, t.z, t.x, tmsRow(t.z, t.y));
            writes++;
          }
          if (v) this.mirror.putTileValidators(t.pyramid, t.z, t.x, t.y, v.etag ?? null, v.lastModified ?? null, v.checkedAt);
        }
      });
    } catch (err) {
      for (const w of waiters) w.reject(err as Error);
      throw err;
    }
    this.tileWrites += writes;
    if (!this.flusher && !this.wal && this.committedBytes < FLUSH_BEHIND_BYTES) {
      for (const { data } of batch) this.committedBytes += data?.length ?? 0;
      if (this.committedBytes >= FLUSH_BEHIND_BYTES) this.flusher = flushBehind(this.file);
    }
    for (const w of waiters) w.resolve();
  }

  /** Returns the file to the plain rollback-journal mode with everything in it, no -wal or -journal file beside it (before publishing; closes nothing). */
  settle(): void {
    this.flush();
    this.stopFlushing();
    if (this.wal) this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.db.pragma('journal_mode = DELETE');
  }

  private stopFlushing(): void {
    this.flusher?.stop();
    this.flusher = undefined;
  }

  putDocument(path: string, contentType: string, data: Buffer | string): void {
    this.writer.putDocument(path, contentType, data);
  }

  setState(name: string, value: string): void {
    this.mirror.setState([[name, value]]);
  }

  getState(name: string): string | undefined {
    return this.mirror.state(name);
  }

  /** Stored and empty tiles inside the plan, counted per planned rectangle (the plan's bands are disjoint). */
  countPlanned(plans: PyramidPlan[]): Pick<TileCounts, 'stored' | 'empty'> {
    let stored = 0;
    let empty = 0;
    for (const plan of plans) {
      const countEmpty = this.mirror.emptyCounter();
      for (const zp of plan.zooms) {
        if (zp.bands.length > SQL_BANDS) {
          // A polygon's cover: count by one pass over the zoom's rows (a query per band would scan columns again and again).
          for (const [x, r] of this.tiles.columnsRows(plan.pyramid, zp.z)) if (zoomPlanHas(zp, x, tmsRow(zp.z, r))) stored++;
          for (const [x, y] of this.mirror.emptyTiles(plan.pyramid, zp.z)) if (zoomPlanHas(zp, x, y)) empty++;
          continue;
        }
        for (const b of zp.bands) {
          for (const [lo, hi] of b.xs) {
            stored += this.tiles.countIn(plan.pyramid, zp.z, [tmsRow(zp.z, b.y1), tmsRow(zp.z, b.y0)], [lo, hi]);
            empty += countEmpty(plan.pyramid, zp.z, b.y0, b.y1, lo, hi);
          }
        }
      }
    }
    return { stored, empty };
  }

  /** Every row in the tile and empty tables, planned or not (after pruning they are the same). */
  countAll(): number {
    return this.tiles.count() + this.mirror.countEmpty();
  }

  integrityOk(): { ok: boolean; detail: string } {
    const rows = this.db.pragma('integrity_check') as { integrity_check: string }[];
    const ok = rows.length === 1 && rows[0].integrity_check === 'ok';
    return { ok, detail: rows.map((r) => r.integrity_check).slice(0, 5).join('; ') };
  }

  close(): void {
    this.stopFlushing();
    if (this.db.open) {
      try {
        this.flush();
      } finally {
        this.writer.close();
      }
    }
  }
}

/** The format an existing store of the resource recorded (staging first, then published), if any. */
export function storedFormat(files: string[]): string | undefined {
  for (const f of files) {
    if (!existsSync(f)) continue;
    try {
      const db = new Database(f, { readonly: true, fileMustExist: true });
      try {
        return metadataValue(db, 'format');
      } finally {
        db.close();
      }
    } catch {
      /* unreadable: probe instead */
    }
  }
  return undefined;
}
