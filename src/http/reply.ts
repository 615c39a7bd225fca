// A handler's answer, described as data so handlers can be tested without a socket and so the
// route table and Express's 404 and errors send it through the same code (headers.ts).

import { ServiceError } from '../errors';

/** How long a client may cache the answer: tiles long, documents briefly, errors not at all. */
export type CacheClass = 'tile' | 'document' | 'none';

export interface Reply {
  status: number;
  body?: Buffer;
  type?: string;
  /** The body is gzip-encoded as stored (vector tiles): sent as is to clients that accept gzip, else `plain`. */
  gzipped?: boolean;
  /**
   * With `gzipped`, for a client that does not accept gzip: the body decompressed. The handler inflates it (from
   * the store's cache), so a damaged tile fails inside the handler's error handling, never while sending.
   */
  plain?: Buffer;
  /** A text document worth compressing when the client accepts gzip. */
  compressible?: boolean;
  cache: CacheClass;
  /** Entity tag without quotes; derived from the body when absent. */
  etag?: string;
  headers?: Record<string, string>;
}

/** A machine-readable code of an error and what it concerns, for dialects that carry them (OWS exceptionCode, locator). */
export interface ErrorDetail {
  code: string;
  locator?: string;
}

/**
 * An error with a status of its own and a short plain-text message: an OWS exception, whose status the standard
 * gives its code (ows-errors.ts). Everything else says what happened as a kind (errors.ts).
 */
export class HttpError extends Error {
  constructor(readonly status: number, message: string, readonly headers?: Record<string, string>, readonly detail?: ErrorDetail) {
    super(message);
  }
}

/** A reply's parts but its status: what a route says of a success, leaving the status to these constructors. */
export type ReplyParts = Omit<Reply, 'status'>;

/** The statuses of success, by what a route means: as the error kinds' (error-reply.ts), chosen here and not in routes. */
export const SUCCESS_STATUS = {
  /** The answer to the request. */
  answer: 200,
  /** A write taken on and not yet done (a run started, a cancel asked for). */
  accepted: 202,
  /** Nothing to send (an absent tile inside the bounds). */
  empty: 204,
} as const;

export type Success = keyof typeof SUCCESS_STATUS;

export const answer = (parts: ReplyParts): Reply => ({ status: SUCCESS_STATUS.answer, ...parts });
export const accepted = (parts: ReplyParts): Reply => ({ status: SUCCESS_STATUS.accepted, ...parts });
export const noContent = (parts: ReplyParts): Reply => ({ status: SUCCESS_STATUS.empty, ...parts });

/** Whether a reply is a `noContent` one. */
export const isNoContent = (reply: Reply): boolean => reply.status === SUCCESS_STATUS.empty;

/** Bad input (a parameter, an address outside the pyramid, a format not held): the `invalid` kind. */
export const badRequest = (message: string): ServiceError => new ServiceError('invalid', message);
/** What the request names is not here (a store, a document, a tile set): the `not-found` kind. */
export const notFound = (message: string): ServiceError => new ServiceError('not-found', message);

export function textReply(status: number, message: string, headers?: Record<string, string>): Reply {
  return { status, body: Buffer.from(`${message}\n`), type: 'text/plain; charset=utf-8', cache: 'none', headers };
}

export function jsonReply(value: unknown, etag?: string): Reply {
  return {
    status: 200,
    body: Buffer.from(JSON.stringify(value)),
    type: 'application/json; charset=utf-8',
    compressible: true,
    cache: 'document',
    etag,
  };
}

export function documentReply(body: Buffer | string, type: string, etag?: string): Reply {
  return {
    status: 200,
    body: typeof body === 'string' ? Buffer.from(body) : body,
    type,
    compressible: !type.startsWith('image/'),
    cache: 'document',
    etag,
  };
}
