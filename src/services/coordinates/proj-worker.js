// @ts-check
'use strict';
// The thread PROJ runs in (started by proj.ts; plain JavaScript, because a worker thread runs outside ts-jest and
// the same file must run from src/ under the tests and from dist/ in production: tsc copies it there).
//
// PROJ 9.9.0 compiled to WebAssembly is proj-wasm's `proj-emscripten.js`; it is loaded here directly, without
// proj-wasm's JavaScript binding. That binding runs PROJ in a pool of its own workers plus a fetch worker and
// installs network callbacks, so every call crossed two more threads (9 ms for a 50-point transform over HTTP) and
// PROJ believed it was online (see the offline workaround in proj.ts's header). Here PROJ gets a virtual file system
// holding `proj.db`, `proj.ini` (network = off) and the operator's grid files, `PROJ_DATA` naming it, and no
// network callbacks: it is offline and knows which grids are present.
//
// Messages: {id, op, args} in, {id, result} or {id, error} out; and a warm transform through shared memory (below). Handles are PROJ object pointers (numbers) into this
// thread's WebAssembly memory; proj.ts hands back only numbers it received.

const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

/**
 * @typedef {{ projWasmDir: string, projDb: string, gridFiles: string[], slot: Slot }} Data
 * @typedef {{ buffer: SharedArrayBuffer, ctrlInts: number, maxSteps: number, dataOffset: number, maxDoubles: number,
 *   SEQ: number, STATE: number, READY: number, N: number, NSTEPS: number, OP: number,
 *   REQUEST: number, WORKING: number, DONE: number, FAILED: number, OP_EXIT: number }} Slot
 */
/**
 * The parts of the emscripten module used here.
 * @typedef {{
 *   ccall: (name: string, ret: string | null, types: string[], args: unknown[]) => any,
 *   _malloc: (n: number) => number, _free: (p: number) => void,
 *   getValue: (p: number, type: string) => number,
 *   HEAPU8: Uint8Array, HEAPF64: Float64Array,
 *   FS: { mkdirTree: (p: string) => void, writeFile: (p: string, data: Uint8Array) => void },
 *   ENV: Record<string, string>,
 * } & Record<string, any>} Emscripten
 */

const DIR = '/proj';
// PROJ's enums (proj.h).
const PJ_CATEGORY_CRS = 3;
const PJ_CATEGORY_COORDINATE_OPERATION = 4;
const PJ_TYPE_BOUND_CRS = 19;
const PROJ_GRID_AVAILABILITY_IGNORED = 3;
const PROJ_SPATIAL_CRITERION_PARTIAL_INTERSECTION = 1;
const PJ_FWD = 1;
const PJ_PROJ_4 = 1;
const PJ_WKT2_2019 = 2;
const PJ_WKT1_GDAL = 4;

const data = /** @type {Data} */ (workerData);
/** @type {Emscripten} */
let M;
let ctx = 0;
/** The last message PROJ printed (its errors go to stderr): kept for the error answered, never printed. */
let lastMessage = '';

async function load() {
  const factory = (await import(pathToFileURL(path.join(data.projWasmDir, 'proj-emscripten.js')).href)).default;
  M = await factory({
    locateFile: (/** @type {string} */ name) => path.join(data.projWasmDir, name),
    // PROJ reads PROJ_DATA when it first looks for a file; the environment is fixed before its start.
    preRun: [(/** @type {Emscripten} */ m) => void (m.ENV.PROJ_DATA = DIR)],
    print: (/** @type {string} */ s) => void (lastMessage = s),
    printErr: (/** @type {string} */ s) => void (lastMessage = s),
  });
  M.FS.mkdirTree(DIR);
  M.FS.writeFile(`${DIR}/proj.db`, fs.readFileSync(data.projDb));
  M.FS.writeFile(`${DIR}/proj.ini`, fs.readFileSync(path.join(data.projWasmDir, 'proj.ini')));
  for (const file of data.gridFiles) M.FS.writeFile(`${DIR}/${path.basename(file)}`, fs.readFileSync(file));
  ctx = M._proj_context_create();
  M._proj_context_set_enable_network(ctx, 0);
}

/** A NUL-terminated string at `ptr` of the WebAssembly memory ('' for NULL). */
function utf8(/** @type {number} */ ptr) {
  if (!ptr) return '';
  const heap = M.HEAPU8;
  let end = ptr;
  while (heap[end]) end++;
  return Buffer.from(heap.buffer, ptr, end - ptr).toString('utf8');
}

/** A PROJ call that may throw a C++ exception (this build lets some escape its C API): null instead. */
function orNull(/** @type {() => number} */ f) {
  try {
    return f() || null;
  } catch {
    return null;
  }
}

const nameOf = (/** @type {number} */ pj) => M.ccall('proj_get_name', 'string', ['number'], [pj]);

function idOf(/** @type {number} */ pj) {
  const auth = M.ccall('proj_get_id_auth_name', 'string', ['number', 'number'], [pj, 0]);
  const code = M.ccall('proj_get_id_code', 'string', ['number', 'number'], [pj, 0]);
  return auth && code ? { auth, code } : null;
}

/** The grids an operation needs, each with whether PROJ finds it here. */
function gridsOf(/** @type {number} */ op) {
  const n = M._proj_coordoperation_get_grid_used_count(ctx, op);
  const out = [];
  const slots = M._malloc(7 * 4);
  try {
    for (let i = 0; i < n; i++) {
      // short name, full name, package name, url (char**), direct download, open licence, available (int*)
      const ptrs = [0, 1, 2, 3, 4, 5, 6].map((k) => slots + 4 * k);
      if (!M.ccall('proj_coordoperation_get_grid_used', 'number', Array(10).fill('number'), [ctx, op, i, ...ptrs])) continue;
      out.push({ name: utf8(M.getValue(ptrs[0], '*')), available: M.getValue(ptrs[6], 'i32') === 1 });
    }
  } finally {
    M._free(slots);
  }
  return out;
}

/** The names of the grids an operation needs that are not here. */
const missingGrids = (/** @type {number} */ op) => gridsOf(op).filter((g) => !g.available).map((g) => g.name);

/**
 * PROJ's best operation from `source` to `target` whether its grids are here or not (null when PROJ has none), the
 * first of the list proj_create_crs_to_crs would make (operations whose area of use meets the CRS's, not only those
 * containing it: with PROJ's default of containment, a CRS whose area is larger than every operation's, such as
 * ETRS89 / LAEA Europe against ETRS89 to WGS 84, makes PROJ throw "empty intersection of area of validity"), and
 * whether it is the only one. Only the first is taken out of the list: proj_list_get instantiates the operation it
 * returns.
 */
function bestOperation(/** @type {number} */ source, /** @type {number} */ target) {
  const factory = M.ccall('proj_create_operation_factory_context', 'number', ['number', 'number'], [ctx, 0]);
  try {
    M._proj_operation_factory_context_set_grid_availability_use(ctx, factory, PROJ_GRID_AVAILABILITY_IGNORED);
    M._proj_operation_factory_context_set_spatial_criterion(ctx, factory, PROJ_SPATIAL_CRITERION_PARTIAL_INTERSECTION);
    const list = orNull(() => M._proj_create_operations(ctx, source, target, factory));
    if (!list) return null;
    try {
      // The first that PROJ can instantiate (this build may throw on one, as it may on any object).
      for (let i = 0, n = M._proj_list_get_count(list); i < n; i++) {
        const op = orNull(() => M._proj_list_get(ctx, list, i));
        if (op) return { op, only: n === 1 };
      }
      return null;
    } finally {
      M._proj_list_destroy(list);
    }
  } finally {
    M._proj_operation_factory_context_destroy(factory);
  }
}

const ops = {
  fromDatabase(/** @type {number} */ code, /** @type {'crs' | 'operation'} */ category) {
    const cat = category === 'crs' ? PJ_CATEGORY_CRS : PJ_CATEGORY_COORDINATE_OPERATION;
    return orNull(() =>
      M.ccall('proj_create_from_database', 'number', ['number', 'string', 'string', 'number', 'number', 'number'], [ctx, 'EPSG', String(code), cat, 0, 0]),
    );
  },

  /** The CRS bound to WGS 84 (GDAL's TOWGS84) and the id of its operation; null when PROJ builds no BoundCRS. */
  boundToWgs84(/** @type {number} */ crs) {
    const bound = orNull(() => M._proj_crs_create_bound_crs_to_WGS84(ctx, crs, 0));
    if (!bound) return null;
    if (M._proj_get_type(bound) !== PJ_TYPE_BOUND_CRS) {
      M._proj_destroy(bound);
      return null;
    }
    const op = orNull(() => M._proj_crs_get_coordoperation(ctx, bound));
    const id = op ? idOf(op) : null;
    if (op) M._proj_destroy(op);
    return { bound, op: id && /^\d+$/.test(id.code) ? { auth: id.auth, code: Number(id.code) } : null };
  },

  /**
   * PROJ's default transformation from `source` to `target`, with its axes in GIS order: what cs2cs and pyproj's
   * Transformer do (proj_create_crs_to_crs; offline, so among the operations whose grids are all here). When
   * several operations apply to parts of the area, it holds them all and PROJ picks per point the most accurate
   * one whose area contains it. Null when PROJ has none, with PROJ's message. `best` (asked with `withBest`, and
   * when there is no default: a listing that ignores grids): PROJ's best operation regardless of grids, when it
   * needs a grid that is missing (the default then does without it).
   */
  defaultOperation(/** @type {number} */ source, /** @type {number} */ target, /** @type {boolean} */ withBest) {
    lastMessage = '';
    // The listing that ignores grids first, when asked for: where it holds a single operation whose grids are all
    // here, that operation is PROJ's default too (proj_create_crs_to_crs lists the same operations, less those
    // missing a grid, and returns a list of one as it is), so PROJ's own listing, as long again, is not made.
    const first = withBest ? bestOperation(source, target) : null;
    const single = first !== null && first.only && missingGrids(first.op).length === 0;
    let raw = 0;
    if (single) raw = first.op;
    else {
      lastMessage = '';
      raw = orNull(() => M.ccall('proj_create_crs_to_crs_from_pj', 'number', ['number', 'number', 'number', 'number', 'number'], [ctx, source, target, 0, 0])) ?? 0;
    }
    const op = raw ? orNull(() => M._proj_normalize_for_visualization(ctx, raw)) : null;
    if (raw) M._proj_destroy(raw);
    const message = op ? '' : lastMessage;
    // PROJ's best operation when it needs a grid that is not here: as asked, or as why there is no default.
    const listed = single ? null : (first ?? (op ? null : bestOperation(source, target)));
    /** @type {{ id: { auth: string, code: string } | null, name: string, missing: string[] } | null} */
    let best = null;
    if (listed) {
      const missing = missingGrids(listed.op);
      if (missing.length) best = { id: idOf(listed.op), name: nameOf(listed.op), missing };
      M._proj_destroy(listed.op);
    }
    // As cs2cs warns: coordinates here carry no epoch, so a dynamic CRS (a datum with a frame epoch) is taken at none.
    const isDynamic = (/** @type {number} */ crs) => orNull(() => M._proj_crs_is_dynamic(ctx, crs)) !== null;
    const dynamic = !op ? null : isDynamic(target) ? 'target' : isDynamic(source) ? 'source' : null;
    return { op, best, message, dynamic };
  },

  gridsOf,

  /**
   * Of the operations `ids` ([auth, code] pairs), those this build cannot instantiate: creating one throws (a
   * method PROJ has no PROJ string for). Native PROJ passes over such an operation; this build cannot (see proj.ts).
   */
  uninstantiable(/** @type {[string, string][]} */ ids) {
    const out = [];
    for (const [auth, code] of ids) {
      let op = 0;
      try {
        op = M.ccall('proj_create_from_database', 'number', ['number', 'string', 'string', 'number', 'number', 'number'], [ctx, auth, code, PJ_CATEGORY_COORDINATE_OPERATION, 0, 0]);
      } catch (err) {
        out.push({ auth, code, message: (err instanceof Error ? err.message : String(err)).slice(0, 200) });
      }
      if (op) M._proj_destroy(op);
    }
    return out;
  },

  normalized: (/** @type {number} */ pj) => orNull(() => M._proj_normalize_for_visualization(ctx, pj)),

  inverse: (/** @type {number} */ op) => orNull(() => M._proj_coordoperation_create_inverse(ctx, op)),

  /** PROJ.4 string, WKT 2 and WKT 1 (GDAL's form) of an object; '' for what PROJ cannot express that way. */
  exports(/** @type {number} */ pj) {
    const as = (/** @type {string} */ fn, /** @type {number} */ type) => {
      try {
        return M.ccall(fn, 'string', ['number', 'number', 'number', 'number'], [ctx, pj, type, 0]) ?? '';
      } catch {
        return '';
      }
    };
    return { proj4: as('proj_as_proj_string', PJ_PROJ_4), wkt: as('proj_as_wkt', PJ_WKT2_2019), wkt1: as('proj_as_wkt', PJ_WKT1_GDAL) };
  },

  /** Transforms [x, y, z, t] quadruples (PJ_COORD is four doubles) through operations applied in order. */
  trans(/** @type {number[]} */ steps, /** @type {Float64Array} */ coords) {
    const n = coords.length / 4;
    const ptr = M._malloc(coords.byteLength);
    try {
      M.HEAPF64.set(coords, ptr / 8);
      for (const op of steps) M._proj_trans_array(op, PJ_FWD, n, ptr);
      return M.HEAPF64.slice(ptr / 8, ptr / 8 + coords.length);
    } finally {
      M._free(ptr);
    }
  },

  release(/** @type {number[]} */ handles) {
    for (const h of handles) if (h) M._proj_destroy(h);
    return null;
  },
};

// The shared slot (proj.ts's `SharedSlot` writes the other side; the layout is defined there and passed in
// workerData). After PROJ has loaded this thread never returns to its event loop: it blocks in Atomics.wait on the
// slot's sequence word, which proj.ts bumps for every message it posts and for every synchronous transform it asks.
// Messages are then taken with receiveMessageOnPort; a transform request is answered in the slot's own memory.
const slot = data.slot;
const ctrl = new Int32Array(slot.buffer, 0, slot.ctrlInts);
const stepsIn = new Int32Array(slot.buffer, slot.ctrlInts * 4, slot.maxSteps);
const coords = new Float64Array(slot.buffer, slot.dataOffset, slot.maxDoubles);

/** Transforms in place the `n` quadruples of the slot through its steps: the slot's synchronous transform. */
function transformSlot() {
  const n = ctrl[slot.N];
  const steps = Array.from(stepsIn.subarray(0, ctrl[slot.NSTEPS]));
  const result = ops.trans(steps, coords.subarray(0, n * 4));
  coords.set(result);
}

/** One message: {id, op, args} in, {id, result} or {id, error} out. */
function answer(/** @type {{ id: number, op: keyof typeof ops | 'exit', args: any[] }} */ { id, op, args }) {
  try {
    lastMessage = '';
    if (op === 'exit') process.exit(1); // a crash on purpose: proj.ts's restart is tested with it
    const fn = /** @type {(...a: any[]) => unknown} */ (ops[op]);
    port.postMessage({ id, result: fn(...args) });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    port.postMessage({ id, error: lastMessage ? `${message} (${lastMessage})` : message });
  }
}

/** The slot's request (taken: WORKING), answered in place: DONE, or FAILED when PROJ threw. */
function transformRequest() {
  let state = slot.DONE;
  try {
    if (ctrl[slot.OP] === slot.OP_EXIT) process.exit(1); // a crash mid-call on purpose (the restart's test)
    lastMessage = '';
    transformSlot();
  } catch {
    state = slot.FAILED;
  }
  Atomics.store(ctrl, slot.STATE, state);
  Atomics.notify(ctrl, slot.STATE);
}

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
load().then(
  () => {
    Atomics.store(ctrl, slot.READY, 1);
    for (;;) {
      // Read before looking at the port and the slot: a bump after it makes the wait below return at once.
      const seen = Atomics.load(ctrl, slot.SEQ);
      /** @type {{ message: any } | undefined} */
      let m;
      while ((m = receiveMessageOnPort(port))) answer(m.message);
      // A request proj.ts has not taken back (it does when this thread is slow to wake): answer it.
      if (Atomics.compareExchange(ctrl, slot.STATE, slot.REQUEST, slot.WORKING) === slot.REQUEST) transformRequest();
      Atomics.wait(ctrl, slot.SEQ, seen);
    }
  },
  (err) => {
    // PROJ did not load: every message, now and later, is answered with why (proj.ts rejects its calls with it).
    const message = `PROJ could not be loaded: ${err instanceof Error ? err.message : String(err)}`;
    port.on('message', (/** @type {{ id: number }} */ { id }) => port.postMessage({ id, error: message }));
  },
);
