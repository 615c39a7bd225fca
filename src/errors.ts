// What went wrong, in the words of the layer that found it. A service, a store or a route throws a ServiceError
// with a kind; only http turns a kind into a status and a body (http/error-reply.ts). This module imports nothing,
// so every layer may throw it.

/**
 * - `invalid`: the request asks for something malformed or impossible (a bad coordinate pair, an unknown icon).
 * - `not-found`: what the request names exists in the API but not here (a map without raster tiles, a job not
 *   configured), or the part of the API is switched off here (no admin key configured, metrics disabled).
 * - `forbidden`: the requester may not have it (a free key asking for a static map, a write without an admin key).
 * - `not-acceptable`: none of the representations the request accepts is offered (its Accept header).
 * - `conflict`: the request cannot be done in the state things are in (a job already running, or not running).
 * - `no-space`: the data volume has not the room the request needs (a run whose plan does not fit).
 * - `over-quota`: a budget would be overspent (a run whose upstream requests do not fit what is left of the
 *   month); `retryAfterSeconds` says when it renews.
 * - `unavailable`: the service cannot answer now or on this server (an index not built, no terrain mirrored).
 * - `too-busy`: refused for load; `retryAfterSeconds` says when to ask again.
 * - `abandoned`: the client went away before the answer was ready; nobody reads what follows.
 * - `damaged`: stored data cannot be read (a tile whose gzip is broken); the store has reported it.
 */
export type ErrorKind = 'invalid' | 'not-found' | 'forbidden' | 'not-acceptable' | 'conflict' | 'no-space' | 'over-quota' | 'unavailable' | 'too-busy' | 'abandoned' | 'damaged';

export class ServiceError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** With `too-busy` and `over-quota`: seconds after which a retry may succeed. */
    readonly retryAfterSeconds?: number,
    /**
     * Facts the answer carries beside the message, for a dialect that has room for them (the admin API's JSON:
     * the instance a conflicting run is on, the plan that does not fit). Never a path, a stack or a key.
     */
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}
