// Liveness and readiness. Liveness (`/health/live`, and its alias `/health`) says the process answers: no I/O.
// Readiness (`/health/ready`) says this instance should get traffic: the data directory was scanned and serves at
// least one store, and the scheduler (when this process runs the schedules) started.
// Running or failed mirror jobs do not make it unready: the stores already published keep serving.
// The answer names states only, never paths, messages or keys: it is public.

import type { Catalog } from '../store/catalog/catalog';

export interface Check {
  ok: boolean;
  /** A short state word (`running`, `failed`, ...) and, for stores, counts. */
  [detail: string]: unknown;
}

/** Checks contributed by whoever wires the server (`serve`: the scheduler, the indexes), read on every probe. */
export type ExtraChecks = () => Record<string, Check>;

export interface Readiness {
  ready: boolean;
  checks: Record<string, Check>;
}

/** The stores: ready once the data directory serves at least one store (e.g. a shared volume is mounted and holds stores). */
export function storesCheck(catalog: Catalog): Check {
  const s = catalog.status();
  return { ok: s.open > 0, open: s.open, failed: s.failed, unreadableFolders: s.unreadableDirs.length };
}

/** What the wiring knows about the scheduler: none runs here, it runs, or it could not start. */
export type SchedulerState = 'none' | 'running' | 'failed';

export function schedulerCheck(state: SchedulerState): Check {
  return { ok: state !== 'failed', state };
}

/** Readiness of the server: every check passes. */
export function readiness(catalog: Catalog, extra?: ExtraChecks): Readiness {
  const checks: Record<string, Check> = {
    stores: storesCheck(catalog),
    ...extra?.(),
  };
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}
