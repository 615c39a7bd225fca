// `/coordinates/transform/{coordinates}.json`: which operation transforms s_srs to t_srs, and running it.
//
// Rules, in order (the strategy names are epsg.io's, whose API the cloud's grew out of):
//   - `ops` given ("listed"): those operations by code, applied in order, each in GIS axis order; from s_srs to
//     the first one's source and from the last one's target to t_srs PROJ's default transformation links them.
//     An operation that needs a grid not in the grid directory is a TransformError naming the grid.
//   - else, when either CRS has a default transformation ("boundcrs"): the CRS bound to WGS 84, as PROJ builds
//     it (the TOWGS84 GDAL uses): 4326 → 5514 goes through EPSG:15965 and reproduces the spec's example.
//   - else ("auto"): PROJ's default transformation, as cs2cs and pyproj choose it (proj_create_crs_to_crs, among
//     the operations whose grids are here). When PROJ's best operation needs a grid that is missing, the strategy
//     says which was skipped: `auto (skipped EPSG:1234: needs grid x.tif)`. Where either CRS is dynamic (a datum
//     with a frame epoch), the strategy carries cs2cs's warning: the coordinates given have no epoch.
// Each direction is built on its own, as PROJ chooses it: where several operations cover parts of the area, PROJ's
// choice from t_srs to s_srs is not always the inverse of its choice the other way (ONGD14 → WGS 84).
// Pipelines are built on any of the pool's PROJ threads, several at once; each keeps the thread it was built on
// (its handles are valid there only), and its transforms run there.

import { ServiceError } from '../../errors';
import { Proj, ProjError, ProjStopped, type ProjHandle } from './proj';
import { ProjPool } from './proj-pool';
import type { ObjRow } from './registry-sql';
import type { RegistrySearch } from './search';

/** Coordinates, a reference system or an operation that cannot be transformed here: `invalid`, the message names the part. */
export class TransformError extends ServiceError {
  constructor(message: string) {
    super('invalid', message);
  }
}

export const MAX_POINTS = 50;

export type Point = [number, number, number | undefined];

const NUMBER = String.raw`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`;
/** One well-formed pair: two or three numbers, blanks around each allowed (the grammar of `badPair`'s checks). */
const PAIR = new RegExp(String.raw`^\s*(${NUMBER})\s*,\s*(${NUMBER})\s*(?:,\s*(${NUMBER})\s*)?$`);

/** `x,y[,z];…` → points; throws TransformError naming the bad pair. One regular expression per pair. */
export function parsePoints(text: string): Point[] {
  const pairs = text.split(';');
  if (pairs.length > MAX_POINTS) throw new TransformError(`Invalid coordinates: ${pairs.length} pairs, at most ${MAX_POINTS}`);
  const points: Point[] = new Array(pairs.length);
  for (let i = 0; i < pairs.length; i++) {
    const m = PAIR.exec(pairs[i]);
    if (!m) throw badPair(pairs[i], i);
    const x = Number(m[1]);
    const y = Number(m[2]);
    const z = m[3] === undefined ? undefined : Number(m[3]);
    if (!Number.isFinite(x) || !Number.isFinite(y) || (z !== undefined && !Number.isFinite(z))) throw badPair(pairs[i], i);
    points[i] = [x, y, z];
  }
  return points;
}

/** What is wrong with a pair PAIR refused or whose numbers overflow. */
function badPair(pair: string, i: number): TransformError {
  const parts = pair.split(',');
  if (parts.length < 2 || parts.length > 3) return new TransformError(`Invalid coordinates: pair ${i + 1} "${pair}" is not x,y or x,y,z`);
  return new TransformError(`Invalid coordinates: pair ${i + 1} "${pair}" is not made of finite numbers`);
}

/** cs2cs's warning, in its words: the coordinates given carry no epoch and that end's CRS is dynamic. */
function epochNote(end: 'source' | 'target'): string {
  return `input coordinates lack a coordinate epoch, whereas the ${end === 'target' ? 'destination' : 'source'} CRS is dynamic: results might be inaccurate`;
}

/** A strategy with its notes: `auto (skipped …; input coordinates lack …)`. */
function withNotes(strategy: string, notes: string[]): string {
  return notes.length ? `${strategy} (${notes.join('; ')})` : strategy;
}

/** Operations as built: PROJ handles applied in order, and the rule that chose them. */
type Built = Pick<Pipeline, 'steps' | 'strategy'>;

interface Pipeline {
  steps: ProjHandle[];
  strategy: string;
  /** Transforms running through it: an evicted pipeline's PROJ objects are freed when the last one ends. */
  users?: number;
  evicted?: boolean;
  /** The PROJ thread the steps live in, and its worker (Proj.generation) when built. */
  proj: Proj;
  generation: number;
}

/** A pipeline's handles died with its worker (it crashed since): they must not be used nor released. */
const stale = (p: Pipeline): boolean => p.generation !== p.proj.generation;

export interface TransformAnswer {
  results: { x: number; y: number; z: number }[];
  transformer_selection_strategy: string;
}

/** Transformations by (s_srs, t_srs, ops), built once each; a few hundred kept. */
export class Transformer {
  private readonly cache = new Map<string, Promise<Pipeline>>();
  /** The cache's pipelines that are built: a warm transform takes its pipeline from here without awaiting. */
  private readonly built = new Map<string, Pipeline>();
  private static readonly MAX_CACHED = 500;

  private readonly pool: ProjPool;

  /** PROJ: a pool of threads, or one thread. */
  constructor(proj: ProjPool | Proj, private readonly registry: RegistrySearch) {
    this.pool = proj instanceof ProjPool ? proj : new ProjPool(proj);
  }

  /** The CRS of a code for `param`: a TransformError when unknown or deprecated. */
  private crsRow(code: number, param: string): ObjRow {
    const row = this.registry.crs(code);
    if (!row) throw new TransformError(`Invalid ${param}: EPSG:${code} is not a coordinate reference system known here`);
    if (row.deprecated) throw new TransformError(`Invalid ${param}: EPSG:${code} (${row.name}) is deprecated`);
    if (row.kind === 'CRS-ENGCRS' || row.kind === 'CRS-VERTCRS') throw new TransformError(`Invalid ${param}: EPSG:${code} (${row.name}) has no horizontal coordinates to transform`);
    return row;
  }

  /** Drops the oldest pipeline and frees its PROJ objects. */
  private evictOldest(): void {
    const [key, oldest] = this.cache.entries().next().value as [string, Promise<Pipeline>];
    this.cache.delete(key);
    this.built.delete(key);
    oldest
      .then((p) => {
        p.evicted = true;
        if (!p.users) this.release(p);
      })
      .catch(() => undefined);
  }

  async transform(points: Point[], s: number, t: number, ops?: number[]): Promise<TransformAnswer> {
    const input = new Float64Array(points.length * 4);
    for (let i = 0; i < points.length; i++) {
      const [x, y, z] = points[i];
      input[i * 4] = x;
      input[i * 4 + 1] = y;
      input[i * 4 + 2] = z ?? 0;
      // No time given: PROJ's "unknown" (HUGE_VAL), so a time-dependent operation stays at its reference epoch
      // (as cs2cs and pyproj do); 0 would be the year 0, metres away through plate motion (ATRF2014 → ITRF2014).
      input[i * 4 + 3] = Infinity;
    }
    const { data, p } = await this.runPoints(input, s, t, ops);
    const results: TransformAnswer['results'] = new Array(points.length);
    for (let i = 0; i < points.length; i++) {
      const r = { x: data[i * 4], y: data[i * 4 + 1], z: data[i * 4 + 2] };
      if (!Number.isFinite(r.x) || !Number.isFinite(r.y) || !Number.isFinite(r.z)) {
        throw new TransformError(`Invalid coordinates: pair ${i + 1} cannot be transformed from EPSG:${s} to EPSG:${t} (outside the area PROJ can transform)`);
      }
      results[i] = r;
    }
    return { results, transformer_selection_strategy: p.strategy };
  }

  /**
   * Many points at once (a raster's sample grid), x and y in the CRS's usual order (longitude or easting first),
   * at height 0: NaN where PROJ cannot transform a point, instead of an error.
   */
  async transformXY(xs: Float64Array, ys: Float64Array, s: number, t: number): Promise<{ xs: Float64Array; ys: Float64Array }> {
    const n = xs.length;
    const input = new Float64Array(n * 4);
    for (let i = 0; i < n; i++) {
      input[i * 4] = xs[i];
      input[i * 4 + 1] = ys[i];
      input[i * 4 + 3] = Infinity;
    }
    const { data } = await this.runPoints(input, s, t);
    const out = { xs: new Float64Array(n), ys: new Float64Array(n) };
    for (let i = 0; i < n; i++) {
      const x = data[i * 4];
      const y = data[i * 4 + 1];
      const ok = Number.isFinite(x) && Number.isFinite(y);
      out.xs[i] = ok ? x : Number.NaN;
      out.ys[i] = ok ? y : Number.NaN;
    }
    return out;
  }

  /** Runs `input` (x, y, z, t per point) through the pipeline of (s, t, ops), built when not cached. */
  private async runPoints(input: Float64Array, s: number, t: number, ops?: number[]): Promise<{ data: Float64Array; p: Pipeline }> {
    const key = `${s}:${t}:${ops?.join('|') ?? ''}`;
    // A pipeline built means both codes passed crsRow: a warm transform asks the registry nothing.
    let p = this.built.get(key);
    if (p && stale(p)) {
      // Built in a PROJ worker that has stopped since: its handles are gone with it (never released).
      this.cache.delete(key);
      this.built.delete(key);
      p = undefined;
    }
    if (!p) p = await this.pipeline(key, s, t, ops);
    try {
      return { data: await this.run(p, input), p };
    } catch (err) {
      if (!(err instanceof ProjStopped)) throw err;
      // The worker crashed under this transform: once more, in a new worker (the pipeline built again there).
      this.cache.delete(key);
      this.built.delete(key);
      const again = await this.pipeline(key, s, t, ops);
      return { data: await this.run(again, input), p: again };
    }
  }

  /** The pipeline of `key`, built (once) when not cached. */
  private pipeline(key: string, s: number, t: number, ops?: number[]): Promise<Pipeline> {
    let pipeline = this.cache.get(key);
    if (!pipeline) {
      const src = this.crsRow(s, 's_srs');
      const tgt = this.crsRow(t, 't_srs');
      // The worker is started by the build's first call: its generation is read once the build is done.
      pipeline = this.pool.use(async (proj) => ({ ...(await new Build(proj, this.registry).build(src, tgt, ops)), proj, generation: proj.generation }));
      if (this.cache.size >= Transformer.MAX_CACHED) this.evictOldest();
      this.cache.set(key, pipeline);
      // A failed build (bad ops) is not kept: the message is rebuilt the next time, and the cache holds only answers.
      pipeline.then(
        (p) => void (this.cache.get(key) === pipeline && this.built.set(key, p)),
        () => this.cache.delete(key),
      );
    }
    return pipeline;
  }

  /** Runs a pipeline; PROJ failing on the points is a TransformError. */
  private async run(p: Pipeline, input: Float64Array): Promise<Float64Array> {
    p.users = (p.users ?? 0) + 1;
    try {
      return await p.proj.trans(p.steps, input);
    } catch (err) {
      if (err instanceof ProjError && !(err instanceof ProjStopped)) throw new TransformError(`Invalid coordinates: PROJ cannot transform them (${err.message})`);
      throw err;
    } finally {
      if (--p.users === 0 && p.evicted) this.release(p);
    }
  }

  /** Frees a pipeline's PROJ objects, unless they died with an earlier worker. */
  private release(p: Pipeline): void {
    if (!stale(p)) p.proj.release(p.steps).catch(() => undefined);
  }
}

/** Building one pipeline, on one PROJ thread (every handle it makes lives there). */
class Build {
  constructor(private readonly proj: Proj, private readonly registry: RegistrySearch) {}

  private async crs(code: number): Promise<ProjHandle> {
    const h = await this.proj.fromDatabase(code, 'crs');
    if (!h) throw new TransformError(`Invalid CRS: EPSG:${code} cannot be built by PROJ`);
    return h;
  }

  /**
   * PROJ's default transformation between two CRS (each bound to WGS 84 when asked), in GIS axis order; with
   * `withBest`, PROJ's best operation when it was skipped for a missing grid.
   */
  private async defaultOperation(
    sourceCode: number,
    targetCode: number,
    bind: { source: boolean; target: boolean } = { source: false, target: false },
    withBest = false,
  ): Promise<{ op: ProjHandle; notes: string[] }> {
    const made: (ProjHandle | null)[] = [];
    try {
      const end = async (code: number, bound: boolean): Promise<ProjHandle> => {
        const crs = await this.crs(code);
        made.push(crs);
        if (!bound) return crs;
        const b = await this.proj.boundToWgs84(crs);
        made.push(b?.bound ?? null);
        return b?.bound ?? crs;
      };
      const source = await end(sourceCode, bind.source);
      const target = await end(targetCode, bind.target);
      const { op, best, message, dynamic } = await this.proj.defaultOperation(source, target, withBest);
      const bestName = best ? (best.id ? `${best.id.auth}:${best.id.code}` : best.name) : '';
      if (!op && best) throw new TransformError(`No transformation from EPSG:${sourceCode} to EPSG:${targetCode} is usable with the grid files here (${bestName} needs ${best.missing.join(', ')})`);
      if (!op) throw new TransformError(`No transformation from EPSG:${sourceCode} to EPSG:${targetCode}: PROJ has none${message.trim() ? ` (${message.trim()})` : ''}`);
      const skipped = best ? `${bestName}: needs grid ${best.missing.join(', ')}` : undefined;
      const notes = [...(skipped ? [`skipped ${skipped}`] : []), ...(dynamic ? [epochNote(dynamic)] : [])];
      return { op, notes };
    } finally {
      await this.proj.release(made);
    }
  }

  async build(src: ObjRow, tgt: ObjRow, ops?: number[]): Promise<Built> {
    if (ops?.length) return this.listed(src, tgt, ops);
    // Same geodetic CRS on both sides (a projected CRS and its base, two projections of one datum): no datum change,
    // only the conversions. Binding one side to WGS 84 would route through WGS 84 and back, which PROJ may find no
    // grid-free way to do (ETRS89 ↔ ETRS89 / EPSG Arctic zone 5-13 in the Arctic), and gives the same answer when it does.
    if (src.base !== null && src.base === tgt.base) {
      const { op, notes } = await this.defaultOperation(src.code, tgt.code);
      return { steps: [op], strategy: withNotes(src.default_op !== null || tgt.default_op !== null ? 'boundcrs' : 'auto', notes) };
    }
    if (src.default_op !== null || tgt.default_op !== null) {
      const { op, notes } = await this.defaultOperation(src.code, tgt.code, { source: src.default_op !== null, target: tgt.default_op !== null });
      return { steps: [op], strategy: withNotes('boundcrs', notes) };
    }
    const { op, notes } = await this.defaultOperation(src.code, tgt.code, undefined, true);
    return { steps: [op], strategy: withNotes('auto', notes) };
  }

  /**
   * `ops` applied in order. Each operation runs forward when the current CRS (or its base geographic CRS) is its
   * source, inverse when it is its target; PROJ's default transformation links the current CRS to where an
   * operation starts (a projected CRS to its base: the inverse projection) and the last one's end to t_srs.
   */
  private async listed(src: ObjRow, tgt: ObjRow, ops: number[]): Promise<Built> {
    const steps: ProjHandle[] = [];
    try {
      let current = src;
      const at = (crs: ObjRow, code: number | null): boolean => code !== null && (code === crs.code || code === crs.base);
      for (const [i, code] of ops.entries()) {
        const row = this.registry.operation(code);
        if (!row || row.kind === 'COORDOP-COPCON') throw new TransformError(`Invalid ops: operation ${i + 1} EPSG:${code} is not a transformation known here`);
        const inverse = !at(current, row.src) && at(current, row.tgt);
        const [start, end] = inverse ? [row.tgt, row.src] : [row.src, row.tgt];
        const startRow = start === null ? undefined : this.registry.crs(start);
        const endRow = end === null ? undefined : this.registry.crs(end);
        if (!startRow || !endRow) throw new TransformError(`Invalid ops: EPSG:${code} has no source and target CRS known here`);
        if (startRow.code !== current.code) steps.push((await this.defaultOperation(current.code, startRow.code)).op);
        steps.push(await this.operation(code, row.name, inverse));
        current = endRow;
      }
      if (current.code !== tgt.code) steps.push((await this.defaultOperation(current.code, tgt.code)).op);
      return { steps, strategy: 'listed' };
    } catch (err) {
      await this.proj.release(steps);
      throw err;
    }
  }

  /** Operation `code` (inverted when asked) in GIS axis order: a TransformError when it needs a grid that is not here. */
  private async operation(code: number, name: string, inverse: boolean): Promise<ProjHandle> {
    const made: (ProjHandle | null)[] = [];
    try {
      const op = await this.proj.fromDatabase(code, 'operation');
      made.push(op);
      if (!op) throw new TransformError(`Invalid ops: EPSG:${code} cannot be built by PROJ`);
      const missing = (await this.proj.gridsOf(op)).filter((g) => !g.available).map((g) => g.name);
      if (missing.length) throw new TransformError(`Invalid ops: EPSG:${code} (${name}) needs grid ${missing.join(', ')}, which is not available here`);
      const oriented = inverse ? await this.proj.inverse(op) : op;
      if (inverse) made.push(oriented);
      if (!oriented) throw new TransformError(`Invalid ops: EPSG:${code} cannot be inverted by PROJ`);
      const normalized = await this.proj.normalized(oriented);
      if (!normalized) throw new TransformError(`Invalid ops: EPSG:${code} cannot be instantiated by PROJ`);
      return normalized;
    } finally {
      await this.proj.release(made);
    }
  }
}

export { ProjError };
