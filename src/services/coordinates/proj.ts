// The one module that talks to PROJ (PROJ 9.9.0 compiled to WebAssembly, shipped by the `proj-wasm` package, pinned:
// an alpha). Everything else in the coordinates service asks this module, never PROJ itself, so a change of the
// build (or of its version) stays here and in proj-worker.js.
//
// How it is loaded: lazily, on the first call, in a worker thread (proj-worker.js) so that PROJ's slow calls (listing
// the operations between two CRS reads proj.db: 150 ms the first time) never block the server's event loop, and so
// that its ES module loads under Jest (whose module sandbox cannot import ES modules) as under `node dist`. Each
// method below is one message to that thread; a transform is one round trip.
// One `Proj` is one thread; proj-pool.ts runs several side by side, each with its own PROJ.
//
// OFFLINE WORKAROUND (keep it with this module): proj-wasm's own JavaScript binding (0.1.0-alpha9 and 10) installs network
// callbacks, so PROJ reports the network as enabled whatever `contextCreate({network: false})` says, picks operations
// that need grids (OSTN15, BETA2007, NTv2 …), tries to download them from cdn.proj.org, returns Infinity on an
// air-gapped machine and reports every grid as `available`; and it gives no access to PROJ's file system, so no grid
// can be added. So that binding is not used: proj-worker.js loads proj-wasm's emscripten module
// (`dist/proj-emscripten.js`, which exports its file system) itself, with no network callbacks, `proj.ini`'s
// `network = off`, and the operator's grid files written beside `proj.db`. PROJ then knows which grids are here.
// The default transformation between two CRS is then PROJ's own choice, `proj_create_crs_to_crs` (what cs2cs and
// pyproj use: offline it keeps the operations whose grids are here, and picks per point among them); a second
// listing that ignores grids lets the strategy say which better operation a missing grid excluded.
// This build cannot catch C++ exceptions (emscripten's default): one thrown inside PROJ escapes its C API (an
// unknown code in proj_create_from_database) and the worker turns it into null, and callers check codes against the
// registry index before asking PROJ. Worse, PROJ's own catch blocks never run: where native PROJ tries an operation
// it cannot instantiate (a time-specific Helmert, a velocity grid) and passes over it, this build gives up the whole
// search, so 4326 → ETRF2014 had no answer. The PROJ threads therefore read proj-db.ts's copy of proj.db, with
// those operations set aside, when the index build has made it.

import { Worker } from 'node:worker_threads';
import { dirname, join } from 'node:path';

/** A PROJ object: a pointer into the worker's WebAssembly memory. */
export type ProjHandle = number & { readonly __pj: unique symbol };

export interface ProjId {
  auth: string;
  code: string;
}

export interface GridUse {
  name: string;
  /** The grid file is here (in the configured grid directory). */
  available: boolean;
}

export interface ProjOptions {
  /** Grid files (GeoTIFF, NTv2, GTX …) given to PROJ beside proj.db. */
  gridFiles?: string[];
  /** The proj.db PROJ reads (default: proj-wasm's own; proj-db.ts makes the one the server uses). */
  db?: string;
}

export class ProjError extends Error {}

/** The worker thread stopped (crashed) under a call; the next call starts a new one. */
export class ProjStopped extends ProjError {}

/** proj-wasm's `dist` folder: proj-emscripten.js, its .wasm, proj.db and proj.ini. */
export function projWasmDir(): string {
  return dirname(require.resolve('proj-wasm'));
}

/**
 * The memory the main thread and the worker share for a warm transform: control words, the steps (PROJ operation
 * pointers) and the coordinates (x, y, z, t quadruples), read and written in place: no message, no structured clone.
 * The layout travels to the worker in workerData; proj-worker.js reads it from there.
 */
const SLOT = {
  // control words (Int32)
  SEQ: 0, // bumped (and notified) for every message posted and every transform asked: the worker waits on it
  STATE: 1,
  READY: 2, // 1 once PROJ has loaded and the worker waits on SEQ
  N: 3, // points
  NSTEPS: 4,
  OP: 5,
  ctrlInts: 8,
  maxSteps: 32,
  maxDoubles: 4 * 256,
  // STATE values
  IDLE: 0,
  REQUEST: 1,
  WORKING: 2,
  DONE: 3,
  FAILED: 4,
  // OP values
  OP_TRANS: 0,
  OP_EXIT: 1,
} as const;
const SLOT_DATA_OFFSET = SLOT.ctrlInts * 4 + SLOT.maxSteps * 4;

/**
 * How long a synchronous transform may block the event loop waiting for the worker (a warm 50-point transform
 * takes 0.05 ms in PROJ, the wake-up 0.01-0.03 ms): when the worker has not taken the request by then (a busy
 * machine did not schedule it), the request is taken back and sent as a message; when it has, the answer is
 * awaited without blocking.
 */
const SYNC_BLOCK_MS = 2;

/** Calls answered through the shared slot and through messages (tests check which path ran). */
export interface ProjStats {
  sync: number;
  messages: number;
  restarts: number;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/**
 * PROJ in a worker thread, started on the first call; each method is one message, except a transform when the
 * worker is idle: that one goes through shared memory and Atomics, synchronously (see `trans`). When the thread
 * stops (a crash), every call waiting on it is rejected with a ProjError and the next call starts a new one:
 * `generation` then changes, and handles of the old one must not be used (nor released) any more.
 */
export class Proj {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private ctrl: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private steps: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private coords: Float64Array<ArrayBufferLike> = new Float64Array(0);
  /** A synchronous transform whose answer is awaited after blocking SYNC_BLOCK_MS (the worker was slow). */
  private late?: Pending;
  private gen = 0;
  readonly stats: ProjStats = { sync: 0, messages: 0, restarts: 0 };

  constructor(private readonly opts: ProjOptions = {}) {}

  /** Which worker thread handles belong to: changes when a worker stops (its handles are gone with it). */
  get generation(): number {
    return this.gen;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const buffer = new SharedArrayBuffer(SLOT_DATA_OFFSET + SLOT.maxDoubles * 8);
    this.ctrl = new Int32Array(buffer, 0, SLOT.ctrlInts);
    this.steps = new Int32Array(buffer, SLOT.ctrlInts * 4, SLOT.maxSteps);
    this.coords = new Float64Array(buffer, SLOT_DATA_OFFSET, SLOT.maxDoubles);
    const slot = { ...SLOT, buffer, dataOffset: SLOT_DATA_OFFSET };
    const worker = new Worker(join(__dirname, 'proj-worker.js'), { workerData: { projWasmDir: projWasmDir(), projDb: this.opts.db ?? join(projWasmDir(), 'proj.db'), gridFiles: this.opts.gridFiles ?? [], slot } });
    if (this.gen > 0) this.stats.restarts++;
    worker.unref();
    worker.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error !== undefined) p.reject(new ProjError(m.error));
      else p.resolve(m.result);
    });
    const fail = (err: Error): void => {
      if (this.worker && this.worker !== worker) return; // an earlier thread's late exit
      const stopped = new ProjStopped(`PROJ stopped: ${err.message}`);
      for (const p of this.pending.values()) p.reject(stopped);
      this.pending.clear();
      this.late?.reject(stopped);
      this.late = undefined;
      this.worker = undefined;
      this.gen++; // the handles of this thread are gone with it
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`exit ${code}`)));
    return (this.worker = worker);
  }

  private send<T>(op: string, ...args: unknown[]): Promise<T> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ id, op, args });
      // The worker waits on the slot's sequence word, not on its port: wake it.
      Atomics.add(this.ctrl, SLOT.SEQ, 1);
      Atomics.notify(this.ctrl, SLOT.SEQ);
    });
  }

  /** Stops the worker thread (tests, shutdown). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  /** An object of the EPSG database: a CRS, or a coordinate operation; null when PROJ has none of that code. */
  fromDatabase(code: number, category: 'crs' | 'operation'): Promise<ProjHandle | null> {
    return this.send('fromDatabase', code, category);
  }

  /** Of the operations `ids`, those this build cannot instantiate (see the header), with PROJ's message. */
  uninstantiable(ids: [string, string][]): Promise<{ auth: string; code: string; message: string }[]> {
    return this.send('uninstantiable', ids);
  }

  /** The CRS bound to WGS 84 as PROJ builds it (GDAL's TOWGS84) and its operation's id; null when there is none. */
  boundToWgs84(crs: ProjHandle): Promise<{ bound: ProjHandle; op: { auth: string; code: number } | null } | null> {
    return this.send('boundToWgs84', crs);
  }

  /**
   * PROJ's default transformation from `source` to `target` (proj_create_crs_to_crs, as cs2cs and pyproj choose it,
   * among the operations whose grids are here; several when parts of the area have their own, PROJ picking per
   * point), with its axes in GIS order (longitude/easting first); null when PROJ has none, with PROJ's message.
   * `best` (asked with `withBest`, or when there is no default): PROJ's best operation, when a missing grid
   * excluded it. `dynamic`: which end is a dynamic CRS (target first), taken at no epoch.
   */
  defaultOperation(
    source: ProjHandle,
    target: ProjHandle,
    withBest: boolean,
  ): Promise<{ op: ProjHandle | null; best: { id: ProjId | null; name: string; missing: string[] } | null; message: string; dynamic: 'source' | 'target' | null }> {
    return this.send('defaultOperation', source, target, withBest);
  }

  /** The grids an operation needs (none for a Helmert or a conversion), each with whether it is here. */
  gridsOf(op: ProjHandle): Promise<GridUse[]> {
    return this.send('gridsOf', op);
  }

  /** The operation (or CRS) with its axes in GIS order: longitude/easting first. */
  normalized(obj: ProjHandle): Promise<ProjHandle | null> {
    return this.send('normalized', obj);
  }

  /** The inverse of an operation. */
  inverse(op: ProjHandle): Promise<ProjHandle | null> {
    return this.send('inverse', op);
  }

  /** PROJ.4 string and WKT 2 of an object (empty when PROJ cannot express it that way). */
  exports(obj: ProjHandle): Promise<{ proj4: string; wkt: string; wkt1: string }> {
    return this.send('exports', obj);
  }

  /**
   * Transforms quadruples (x, y, z, t per point) through operations applied in order. When the worker is idle (no
   * message outstanding, PROJ loaded) and the call fits the shared slot, synchronously through shared memory: the
   * event loop blocks for PROJ's time (a warm 50-point transform: ~0.05 ms) plus the worker's wake-up, at most
   * SYNC_BLOCK_MS. Otherwise one message round trip. Either way a promise; a PROJ failure rejects with ProjError.
   */
  trans(steps: ProjHandle[], data: Float64Array): Promise<Float64Array> {
    const sync = this.transSync(steps, data, SLOT.OP_TRANS);
    if (sync !== undefined) return sync;
    this.stats.messages++;
    return this.send('trans', steps, data);
  }

  /** The synchronous path of `trans`; undefined when it cannot be taken (busy worker, too large a call). */
  private transSync(steps: ProjHandle[], data: Float64Array, op: number): Promise<Float64Array> | undefined {
    const ctrl = this.ctrl;
    if (!this.worker || this.pending.size > 0 || this.late || ctrl[SLOT.READY] !== 1 || ctrl[SLOT.STATE] !== SLOT.IDLE) return undefined;
    if (steps.length > SLOT.maxSteps || data.length > SLOT.maxDoubles) return undefined;
    this.steps.set(steps);
    this.coords.set(data);
    ctrl[SLOT.N] = data.length / 4;
    ctrl[SLOT.NSTEPS] = steps.length;
    ctrl[SLOT.OP] = op;
    Atomics.store(ctrl, SLOT.STATE, SLOT.REQUEST);
    Atomics.add(ctrl, SLOT.SEQ, 1);
    Atomics.notify(ctrl, SLOT.SEQ);
    const deadline = performance.now() + SYNC_BLOCK_MS;
    let state: number;
    for (;;) {
      state = Atomics.load(ctrl, SLOT.STATE);
      if (state === SLOT.DONE || state === SLOT.FAILED) break;
      const left = deadline - performance.now();
      if (left <= 0) break;
      Atomics.wait(ctrl, SLOT.STATE, state, left);
    }
    if (state === SLOT.REQUEST && Atomics.compareExchange(ctrl, SLOT.STATE, SLOT.REQUEST, SLOT.IDLE) === SLOT.REQUEST) {
      // Not taken yet (the worker was not scheduled): taken back, sent as a message instead, asking the same thing
      // (the restart's test asks for an exit: on a busy machine it was sent on as a plain transform, and answered).
      this.stats.messages++;
      return this.send(op === SLOT.OP_EXIT ? 'exit' : 'trans', steps, data);
    }
    state = Atomics.load(ctrl, SLOT.STATE);
    if (state === SLOT.DONE || state === SLOT.FAILED) return Promise.resolve(this.takeAnswer(state, data.length)).then(unwrap);
    // Taken, not finished: awaited without blocking; a worker that stops meanwhile rejects it (start's `fail`).
    return new Promise<Float64Array | ProjError>((resolve, reject) => {
      const late: Pending = { resolve: resolve as (v: unknown) => void, reject };
      this.late = late;
      const poll = (): void => {
        if (this.late !== late) return;
        const s = Atomics.load(ctrl, SLOT.STATE);
        if (s === SLOT.DONE || s === SLOT.FAILED) {
          this.late = undefined;
          resolve(this.takeAnswer(s, data.length));
          return;
        }
        // waitAsync is in Node 20's V8 but not in TypeScript's lib for ES2022.
        const w = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number, t?: number): { async: boolean; value: Promise<string> | string } }).waitAsync(ctrl, SLOT.STATE, s, 50);
        if (w.async) void (w.value as Promise<string>).then(poll);
        else poll();
      };
      poll();
    }).then(unwrap);
  }

  /** The answer in the slot (the slot is then free again). */
  private takeAnswer(state: number, doubles: number): Float64Array | ProjError {
    this.stats.sync++;
    const out = state === SLOT.DONE ? this.coords.slice(0, doubles) : new ProjError('PROJ failed to transform');
    Atomics.store(this.ctrl, SLOT.STATE, SLOT.IDLE);
    return out;
  }

  /** For the restart's test only: the worker exits in the middle of a synchronous transform. */
  crashForTest(steps: ProjHandle[], data: Float64Array): Promise<Float64Array> | undefined {
    return this.transSync(steps, data, SLOT.OP_EXIT);
  }

  async release(handles: (ProjHandle | null)[]): Promise<void> {
    const live = handles.filter((h): h is ProjHandle => h !== null);
    if (live.length) await this.send('release', live);
  }
}

function unwrap(v: Float64Array | ProjError): Float64Array {
  if (v instanceof ProjError) throw v;
  return v;
}
