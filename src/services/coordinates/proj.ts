// The one module that talks to PROJ (`proj-wasm`, PROJ 9.8.1 compiled to WebAssembly; pinned, alpha). Everything
// else in the coordinates service asks this module, never proj-wasm itself, so a change of the binding (or of its
// version) stays here.
//
// How it is loaded: lazily, on the first call, in a worker thread of our own. proj-wasm is an ES module that runs
// PROJ in a pool of its own workers; importing it from a worker thread keeps it out of the server's start-up
// (≈0.3-0.6 s) and works the same under Jest (whose module sandbox cannot import ES modules) and under `node dist`.
// The thread holds PROJ objects in a handle table; this side sends `{fn, args}` messages naming proj-wasm
// functions, with `{$h: n}` standing for an object it got back earlier.
//
// OFFLINE WORKAROUND (keep it with this module): proj-wasm 0.1.0-alpha9 reports the network as enabled whatever
// `contextCreate({network: false})` says, so `proj_create_crs_to_crs` picks operations that need grids (OSTN15,
// BETA2007, NTv2 …), tries to download them from cdn.proj.org, and returns Infinity on an air-gapped machine. It
// also reports every grid as `available`. It ships no grid files and exports no call to add grid files or search
// paths (no `proj_context_set_search_paths`, no file-system access to its in-memory FS). So:
//   - operations are listed with `proj_create_operations` under an operation-factory context set to
//     PROJ_GRID_AVAILABILITY_DISCARD_OPERATION_IF_MISSING_GRID (which, with no grid present, drops every grid
//     operation), and the first usable one is taken — for EPSG:27700 this equals `cs2cs` without grids;
//   - an operation asked for by code is used only when it needs no grid (`gridsOf` reads the grids it names);
//   - `proj_create_crs_to_crs` is never called.

import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';

/** A PROJ object held by the worker thread. */
export interface ProjHandle {
  $h: number;
}

type Arg = unknown;

// Runs in the worker thread (plain JavaScript: an eval worker cannot load TypeScript).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const handles = new Map();
let next = 1;
let proj;
let ctx;
function resolve(v) {
  if (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Float64Array)) {
    if (typeof v.$h === 'number') return handles.get(v.$h);
    if (v.$const) return proj[v.$const];
    const o = {};
    for (const [k, x] of Object.entries(v)) o[k] = resolve(x);
    return o;
  }
  return v;
}
function wrap(r) {
  if (r && typeof r === 'object' && typeof r.ptr === 'number') {
    if (!r.ptr) return null;
    const h = next++;
    handles.set(h, r);
    return { $h: h };
  }
  return r;
}
async function init() {
  proj = await import(workerData.url);
  await proj.init({ workers: 1 });
  ctx = await proj.contextCreate({ network: false });
}
const ready = init();
parentPort.on('message', async ({ id, fn, args }) => {
  try {
    await ready;
    let result;
    if (fn === '$trans') {
      const [h, direction, data] = args;
      const n = data.length / 4;
      const coords = await proj.coordArray(n);
      coords.buffer.set(data);
      await proj.projTransArray({ p: handles.get(h.$h), direction, n, coord: coords });
      result = Float64Array.from(coords.buffer);
    } else if (fn === '$release') {
      for (const h of args) handles.delete(h.$h);
      result = null;
    } else {
      const opts = resolve(args[0] ?? {});
      if (opts.context === undefined) opts.context = ctx;
      result = wrap(await proj[fn](opts));
    }
    parentPort.postMessage({ id, result });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message ? err.message : err) });
  }
});
`;

/** A proj-wasm constant, looked up by name in the worker (e.g. `PJ_PROJ_4`). */
export const projConst = (name: string): { $const: string } => ({ $const: name });

/** PROJ's PJ_TYPE_BOUND_CRS. */
const PJ_TYPE_BOUND_CRS = 19;

export class ProjError extends Error {}

/**
 * PROJ in a worker thread, started on the first call. Calls are proj-wasm's camelCase functions with one options
 * object; PROJ objects come back as handles. `trans` transforms [x, y, z, t] quadruples with one message.
 */
export class Proj {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private start(): Worker {
    if (this.worker) return this.worker;
    const url = pathToFileURL(require.resolve('proj-wasm')).href;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { url } });
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

  /** Calls a proj-wasm function; handles in `opts` are resolved in the worker. */
  call<T = unknown>(fn: string, opts: Record<string, Arg> = {}): Promise<T> {
    return this.send(fn, [opts]) as Promise<T>;
  }

  /** Transforms quadruples (x, y, z, t per point) through a transformation handle; `direction` 1 forward, -1 inverse. */
  trans(op: ProjHandle, data: Float64Array, direction: 1 | -1 = 1): Promise<Float64Array> {
    return this.send('$trans', [op, direction, data]) as Promise<Float64Array>;
  }

  private send(fn: string, args: unknown[]): Promise<unknown> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, fn, args });
    });
  }

  /** Stops the worker thread (tests, shutdown). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  // --- What the coordinates service needs, in PROJ's words ---

  /** An object from the EPSG database: a CRS, or a coordinate operation; null when there is none of that code. */
  async fromDatabase(code: number, category: 'crs' | 'operation'): Promise<ProjHandle | null> {
    try {
      return await this.call<ProjHandle | null>('projCreateFromDatabase', {
        auth_name: 'EPSG',
        code: String(code),
        category: projConst(category === 'crs' ? 'PJ_CATEGORY_CRS' : 'PJ_CATEGORY_COORDINATE_OPERATION'),
        use_proj_alternative_grid_names: 0,
        options: null,
      });
    } catch {
      return null;
    }
  }

  /** The operation PROJ uses for the CRS bound to WGS 84 (GDAL's TOWGS84): a BoundCRS, or null when there is none. */
  async boundToWgs84(crs: ProjHandle): Promise<{ bound: ProjHandle; op: { auth: string; code: number } | null } | null> {
    const bound = await this.call<ProjHandle | null>('projCrsCreateBoundCrsToWGS84', { crs, options: null });
    if (!bound) return null;
    if ((await this.call<number>('projGetType', { obj: bound })) !== PJ_TYPE_BOUND_CRS) return null;
    const op = await this.call<ProjHandle | null>('projCrsGetCoordoperation', { crs: bound });
    if (!op) return { bound, op: null };
    const auth = await this.call<string | null>('projGetIdAuthName', { obj: op, index: 0 });
    const code = await this.call<string | null>('projGetIdCode', { obj: op, index: 0 });
    return { bound, op: auth && code && /^\d+$/.test(code) ? { auth, code: Number(code) } : null };
  }

  /**
   * Operations from `source` to `target` that need no missing grid, PROJ's best first (the offline workaround
   * above). With `grids: 'ignored'` every operation is listed, the grid ones too.
   */
  async operations(source: ProjHandle, target: ProjHandle, grids: 'discard' | 'ignored' = 'discard'): Promise<ProjHandle[]> {
    const factory = await this.call<ProjHandle>('projCreateOperationFactoryContext', { authority: null });
    await this.call('projOperationFactoryContextSetGridAvailabilityUse', {
      factory_ctx: factory,
      use: projConst(grids === 'discard' ? 'PROJ_GRID_AVAILABILITY_DISCARD_OPERATION_IF_MISSING_GRID' : 'PROJ_GRID_AVAILABILITY_IGNORED'),
    });
    const list = await this.call<ProjHandle | null>('projCreateOperations', { source_crs: source, target_crs: target, operationContext: factory });
    if (!list) return [];
    const n = await this.call<number>('projListGetCount', { result: list });
    const out: ProjHandle[] = [];
    for (let i = 0; i < n; i++) {
      const op = await this.call<ProjHandle | null>('projListGet', { result: list, index: i });
      if (op) out.push(op);
    }
    return out;
  }

  /** Short names of the grids an operation needs (none for a Helmert or a conversion). */
  async gridsOf(op: ProjHandle): Promise<string[]> {
    const n = await this.call<number>('projCoordoperationGetGridUsedCount', { coordoperation: op });
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const g = await this.call<{ shortName: string } | null>('projCoordoperationGetGridUsed', { coordoperation: op, index: i });
      if (g?.shortName) out.push(g.shortName);
    }
    return out;
  }

  /** The operation (or CRS) with its axes in GIS order: longitude/easting first. */
  normalized(obj: ProjHandle): Promise<ProjHandle | null> {
    return this.call<ProjHandle | null>('projNormalizeForVisualization', { obj });
  }

  /** The identifier of an object as `{auth, code}` (first one), or null. */
  async idOf(obj: ProjHandle): Promise<{ auth: string; code: string } | null> {
    const auth = await this.call<string | null>('projGetIdAuthName', { obj, index: 0 });
    const code = await this.call<string | null>('projGetIdCode', { obj, index: 0 });
    return auth && code ? { auth, code } : null;
  }

  name(obj: ProjHandle): Promise<string> {
    return this.call<string>('projGetName', { obj });
  }

  /** PROJ.4 string (empty when PROJ cannot express it) and WKT 2 of an object. */
  async exports(obj: ProjHandle): Promise<{ proj4: string; wkt: string }> {
    const proj4 = await this.call<string | null>('projAsProjString', { pj: obj, type: projConst('PJ_PROJ_4'), options: null }).catch(() => null);
    const wkt = await this.call<string | null>('projAsWkt', { pj: obj, type: projConst('PJ_WKT2_2019'), options: null }).catch(() => null);
    return { proj4: proj4 ?? '', wkt: wkt ?? '' };
  }

  /** Source and target CRS of an operation. */
  async endsOf(op: ProjHandle): Promise<{ source: ProjHandle | null; target: ProjHandle | null }> {
    const source = await this.call<ProjHandle | null>('projGetSourceCrs', { pj: op });
    const target = await this.call<ProjHandle | null>('projGetTargetCrs', { pj: op });
    return { source, target };
  }

  /** The inverse of an operation. */
  async inverse(op: ProjHandle): Promise<ProjHandle | null> {
    return this.call<ProjHandle | null>('projCoordoperationCreateInverse', { obj: op });
  }

  async release(handles: ProjHandle[]): Promise<void> {
    if (handles.length) await this.send('$release', handles);
  }
}
