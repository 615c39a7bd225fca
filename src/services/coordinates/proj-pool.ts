// Several PROJ threads (each a `Proj`: its own worker, its own PROJ, its own copy of proj.db) so that pipelines are
// built side by side: PROJ builds one at a time per thread (proj_create_crs_to_crs: 30-45 ms each in this build).
// A PROJ object lives in the thread that made it, so a caller takes one thread (`pick`) and does a whole piece of
// work there (a pipeline, an export), and whatever keeps handles keeps that thread with them.
//
// Threads start lazily: the first piece of work starts one, and another starts only when every started thread is
// busy, up to `threads`. Each PROJ thread costs its own memory (proj.db and PROJ's caches, ~100 MB), so a server
// that transforms now and then keeps one; one that is asked for many new pipelines at once grows to `threads`.

import { availableParallelism } from 'node:os';
import { Proj, type ProjOptions } from './proj';

export interface ProjPoolOptions extends ProjOptions {
  /** PROJ threads at most (default: the CPU cores, at most 4). */
  threads?: number;
}

/** The default number of PROJ threads: one per core, at most 4 (each holds its own PROJ and proj.db). */
export function defaultProjThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

export class ProjPool {
  private readonly projs: Proj[] = [];
  /** Pieces of work (`use`) running on each thread. */
  private readonly load = new Map<Proj, number>();
  private readonly makeProj: () => Proj;
  readonly max: number;

  /** A pool of PROJ threads started on demand, or (a `Proj` given) a pool of that one thread. */
  constructor(opts: ProjPoolOptions | Proj = {}) {
    if (opts instanceof Proj) {
      this.max = 1;
      this.add(opts);
      this.makeProj = () => opts;
    } else {
      this.max = Math.max(1, opts.threads ?? defaultProjThreads());
      this.makeProj = () => new Proj({ gridFiles: opts.gridFiles, db: opts.db });
    }
  }

  private add(proj: Proj): Proj {
    this.projs.push(proj);
    this.load.set(proj, 0);
    return proj;
  }

  /** The threads made so far (each starts its worker on its first call). */
  get threads(): readonly Proj[] {
    return this.projs;
  }

  /** The thread for a new piece of work: an idle one, else a new one while fewer than `max`, else the least busy. */
  pick(): Proj {
    let best: Proj | undefined;
    for (const p of this.projs) if (best === undefined || (this.load.get(p) ?? 0) < (this.load.get(best) ?? 0)) best = p;
    if (best !== undefined && (this.load.get(best) === 0 || this.projs.length >= this.max)) return best;
    return this.add(this.makeProj());
  }

  /** Runs `work` on one thread (`pick`), counted as busy there until it settles. */
  async use<T>(work: (proj: Proj) => Promise<T>): Promise<T> {
    const proj = this.pick();
    this.load.set(proj, (this.load.get(proj) ?? 0) + 1);
    try {
      return await work(proj);
    } finally {
      this.load.set(proj, (this.load.get(proj) ?? 1) - 1);
    }
  }

  /** Stops every thread (tests, shutdown). */
  async close(): Promise<void> {
    await Promise.all(this.projs.map((p) => p.close()));
  }
}
