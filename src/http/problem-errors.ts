// The OGC API routes' error dialect: problem details (RFC 9457, which obsoletes RFC 7807), as OGC API - Common
// recommends (/rec/json/problem-details: `application/problem+json`, the members of its exception schema). The
// problem type is `about:blank`: the status says all there is to say of the kind of problem, so the title is the
// status's own phrase (RFC 9457 §4.2.1) and the detail is the answer's message (which names the parameter).

import { STATUS_CODES } from 'node:http';
import type { ErrorDialect } from './error-reply';
import type { Reply } from './reply';

export const PROBLEM_JSON = 'application/problem+json';

/** A problem details document with the four members every answer of this dialect carries. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
}

/** 499 is nginx's, not in Node's table: nobody reads it, but it gets a phrase like any other. */
const PHRASES: Readonly<Record<number, string>> = { 499: 'Client Closed Request' };

/** The problem details of one error answer. */
export function problemDetails(status: number, detail: string): ProblemDetails {
  return { type: 'about:blank', title: STATUS_CODES[status] ?? PHRASES[status] ?? 'Error', status, detail };
}

/** Problem details in JSON, never cached; the answer's headers (Retry-After) kept. */
export const problemErrors: ErrorDialect = ({ status, message, headers }): Reply => ({
  status,
  body: Buffer.from(JSON.stringify(problemDetails(status, message))),
  type: PROBLEM_JSON,
  cache: 'none',
  headers,
});
