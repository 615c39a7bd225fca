// The one place an error becomes an answer, for every route. Handlers let errors through, or throw a kind
// themselves (errors.ts): an error with a kind gets the status of its kind (KIND_STATUS, the one table); an
// HttpError (an OWS exception, whose status its standard gives: ows-errors.ts) keeps its status;
// anything else is a bug, logged by the caller and answered 500 without details. The route's dialect then words
// the answer (each API family answers errors in its own form).

import { ServiceError, type ErrorKind } from '../errors';
import { DamagedTileError } from '../store/bytes/plain-tiles';
import { HttpError, textReply, type Reply, type ReplyParts } from './reply';

/** An error answer before a dialect words it. */
export interface ErrorAnswer {
  status: number;
  /** Short, for the client: never a path, a stack or a key. */
  message: string;
  headers?: Record<string, string>;
  /** The kind, when the error had one. */
  kind?: ErrorKind;
  /** Facts beside the message (ServiceError's `details`), for a dialect that carries them (the admin API's JSON). */
  details?: Readonly<Record<string, unknown>>;
  /** A code of the route's standard and the parameter it concerns, when the handler named them (OWS exceptionCode and locator). */
  code?: string;
  locator?: string;
}

/** How a route words its error answers (a route-table row picks one; the cloud API's is the default). */
export type ErrorDialect = (answer: ErrorAnswer) => Reply;

/** The cloud API's errors: the status, and the message as one line of plain text, never cached. */
export const cloudErrors: ErrorDialect = ({ status, message, headers }) => textReply(status, message, headers);

/**
 * The status of each kind: the one table of statuses for errors, so no route names one. `abandoned` is nginx's 499
 * "client closed request": nobody reads it, and it is no server error. `no-space` is WebDAV's 507 "Insufficient
 * Storage" (RFC 4918 §11.5), the status the admin API's Run now has answered a plan that does not fit.
 */
export const KIND_STATUS: Readonly<Record<ErrorKind, number>> = {
  invalid: 400,
  forbidden: 403,
  'not-found': 404,
  'not-acceptable': 406,
  conflict: 409,
  'over-quota': 429,
  abandoned: 499,
  damaged: 500,
  unavailable: 503,
  'too-busy': 503,
  'no-space': 507,
};

/**
 * A reply with the status of a kind and a body the route makes itself, for a route whose failure is an answer of
 * its own form (the readiness report: which checks failed).
 */
export function kindReply(kind: ErrorKind, parts: ReplyParts): Reply {
  return { status: KIND_STATUS[kind], ...parts };
}

/** What a client is told of damaged data: the error's own message (which tile, zlib's words) is for the log. */
export const DAMAGED_MESSAGE = 'Damaged tile: the stored tile cannot be decompressed';

/** The answer to an error nobody expected. */
export const INTERNAL_ERROR: ErrorAnswer = { status: 500, message: 'Internal error' };

/** The kind of an error: its own, or the store's damaged tile (by its class); undefined for anything else. */
export function errorKind(err: unknown): ErrorKind | undefined {
  if (err instanceof ServiceError) return err.kind;
  if (err instanceof DamagedTileError) return 'damaged';
  return undefined;
}

/** The answer to an expected error; undefined for any other (a bug: the caller logs it and answers INTERNAL_ERROR). */
export function errorAnswer(err: unknown): ErrorAnswer | undefined {
  if (err instanceof HttpError) {
    const answer: ErrorAnswer = { status: err.status, message: err.message, headers: err.headers };
    if (err.detail) {
      answer.code = err.detail.code;
      if (err.detail.locator !== undefined) answer.locator = err.detail.locator;
    }
    return answer;
  }
  const kind = errorKind(err);
  if (kind === undefined) return undefined;
  const status = KIND_STATUS[kind];
  if (kind === 'damaged') return { status, message: DAMAGED_MESSAGE, kind };
  const answer: ErrorAnswer = { status, message: (err as Error).message, headers: headersOf(err, kind), kind };
  if (err instanceof ServiceError && err.details) answer.details = err.details;
  return answer;
}

/** What the kind adds to the answer's headers: when to retry (`too-busy`, `over-quota`), that it depends on Accept (`not-acceptable`). */
function headersOf(err: unknown, kind: ErrorKind): Record<string, string> | undefined {
  if (kind === 'not-acceptable') return { Vary: 'Accept' };
  const retryAfter = err instanceof ServiceError ? err.retryAfterSeconds : undefined;
  return (kind === 'too-busy' || kind === 'over-quota') && retryAfter !== undefined ? { 'Retry-After': String(retryAfter) } : undefined;
}

/**
 * The reply to any error a handler threw, in `dialect`. `unexpected` is told of an error without a kind or
 * status (to log and count it) before it is answered 500 "Internal error".
 */
export function errorReply(err: unknown, dialect: ErrorDialect = cloudErrors, unexpected?: (err: unknown) => void): Reply {
  const answer = errorAnswer(err);
  if (answer) return dialect(answer);
  unexpected?.(err);
  return dialect(INTERNAL_ERROR);
}
