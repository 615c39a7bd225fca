// What went wrong, in the words of the layer that found it. A service or a store throws a ServiceError with a
// kind; only http turns a kind into a status and a body (http/error-reply.ts). This module imports nothing, so
// every layer may throw it.

/**
 * - `invalid`: the request asks for something malformed or impossible (a bad coordinate pair, an unknown icon).
 * - `not-found`: what the request names exists in the API but not here (a map without raster tiles).
 * - `unavailable`: the service cannot answer now or on this server (an index not built, no terrain mirrored).
 * - `too-busy`: refused for load; `retryAfterSeconds` says when to ask again.
 * - `abandoned`: the client went away before the answer was ready; nobody reads what follows.
 * - `damaged`: stored data cannot be read (a tile whose gzip is broken); the store has reported it.
 */
export type ErrorKind = 'invalid' | 'not-found' | 'unavailable' | 'too-busy' | 'abandoned' | 'damaged';

export class ServiceError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** With `too-busy`: seconds after which a retry may succeed. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}
