// The mirror's errors, in one place. Each says what went wrong in words fit for the operator; the CLI maps them
// to exit codes (UsageError: 2) and a run records the others as its problems.

/** The request cannot be mirrored as asked (a bad resource, zoom range, area or flag): exit code 2. */
export class UsageError extends Error {}

/**
 * The upstream answered with an error (its HTTP status when there was one), after the retries; `permanent` when
 * asking again cannot help (the upstream answers the same: a 404 page, an OGC exception, another image format).
 */
export class UpstreamError extends Error {
  constructor(message: string, readonly status?: number, readonly permanent = false) {
    super(message);
  }
}

/** Another run holds the store's lock (defined with the lock, in src/store/data-dir/lock.ts). */
export { LockError } from '../store/data-dir/lock';

/** A run stops taking new work (interrupted, a fatal answer, the failure budget spent). */
export class RunStopped extends Error {}
