// The one module that talks to PROJ (PROJ 9.8.1 compiled to WebAssembly, shipped by the `proj-wasm` package, pinned:
// an alpha). Everything else in the coordinates service asks this module, never PROJ itself, so a change of the
// build (or of its version) stays here and in proj-worker.js.
//
// How it is loaded: lazily, on the first call, in a worker thread (proj-worker.js) so that PROJ's slow calls (listing
// the operations between two CRS reads proj.db: 150 ms the first time) never block the server's event loop, and so
// that its ES module loads under Jest (whose module sandbox cannot import ES modules) as under `node dist`. Each
// method below is one message to that thread; a transform is one round trip.
//
// OFFLINE WORKAROUND (keep it with this module): proj-wasm's own JavaScript binding (0.1.0-alpha9) installs network
// callbacks, so PROJ reports the network as enabled whatever `contextCreate({network: false})` says, picks operations
// that need grids (OSTN15, BETA2007, NTv2 …), tries to download them from cdn.proj.org, returns Infinity on an
// air-gapped machine and reports every grid as `available`; and it gives no access to PROJ's file system, so no grid
// can be added. So that binding is not used: proj-worker.js loads proj-wasm's emscripten module
// (`dist/proj-emscripten.js`, which exports its file system) itself, with no network callbacks, `proj.ini`'s
// `network = off`, and the operator's grid files written beside `proj.db`. PROJ then knows which grids are here.
// Still, `proj_create_crs_to_crs` is not used: operations are listed with
// PROJ_GRID_AVAILABILITY_DISCARD_OPERATION_IF_MISSING_GRID and the first one is taken (for EPSG:27700 without
// grids that equals `cs2cs`), so the strategy can say which better operation a missing grid excluded.
// This build lets some C++ exceptions escape PROJ's C API (an unknown code in proj_create_from_database): the
// worker turns them into null, and callers check codes against the registry index before asking PROJ.

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
}

export class ProjError extends Error {}

/** proj-wasm's `dist` folder: proj-emscripten.js, its .wasm, proj.db and proj.ini. */
export function projWasmDir(): string {
  return dirname(require.resolve('proj-wasm'));
}

/** PROJ in a worker thread, started on the first call; each method is one message. */
export class Proj {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor(private readonly opts: ProjOptions = {}) {}

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(join(__dirname, 'proj-worker.js'), { workerData: { projWasmDir: projWasmDir(), gridFiles: this.opts.gridFiles ?? [] } });
    worker.unref();
    worker.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.error !== undefined) p.reject(new ProjError(m.error));
      else p.resolve(m.result);
    });
    const fail = (err: Error): void => {
      for (const p of this.pending.values()) p.reject(new ProjError(`PROJ stopped: ${err.message}`));
      this.pending.clear();
      this.worker = undefined;
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

  /** The CRS bound to WGS 84 as PROJ builds it (GDAL's TOWGS84) and its operation's id; null when there is none. */
  boundToWgs84(crs: ProjHandle): Promise<{ bound: ProjHandle; op: { auth: string; code: number } | null } | null> {
    return this.send('boundToWgs84', crs);
  }

  /**
   * PROJ's first operation from `source` to `target` whose grids are all here, with its axes in GIS order
   * (longitude/easting first); null when there is none. `best`: PROJ's best operation, when a missing grid
   * excluded it.
   */
  firstUsable(source: ProjHandle, target: ProjHandle): Promise<{ op: ProjHandle | null; best: { id: ProjId | null; name: string; missing: string[] } | null }> {
    return this.send('firstUsable', source, target);
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
  exports(obj: ProjHandle): Promise<{ proj4: string; wkt: string }> {
    return this.send('exports', obj);
  }

  /** Transforms quadruples (x, y, z, t per point) through operations applied in order, in one round trip. */
  trans(steps: ProjHandle[], data: Float64Array): Promise<Float64Array> {
    return this.send('trans', steps, data);
  }

  async release(handles: (ProjHandle | null)[]): Promise<void> {
    const live = handles.filter((h): h is ProjHandle => h !== null);
    if (live.length) await this.send('release', live);
  }
}
