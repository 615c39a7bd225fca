// Who may use the admin pages and API, and how their answers look. Behind the configured admin keys
// (`admin.keys`): with none configured every /admin path is not found, as if it did not exist. Reads take the key
// in `Authorization: Bearer <key>` (or, for curl and the old links, `?key=`); writes take it in the header only,
// refuse a request that also carries a key in its URL (a URL ends up in logs, history and Referer headers), and
// refuse cross-site requests (Sec-Fetch-Site, Origin): a page on another site cannot make a browser that holds
// the key start or stop a run. No answer under /admin carries a CORS header. Each write is one audit line.

import type { Config } from '../../config/schema';
import { ServiceError } from '../../errors';
import type { KeyRing } from '../auth';
import type { ErrorDialect } from '../error-reply';
import { accepted, answer, type Reply, type ReplyParts } from '../reply';
import type { RequestContext } from '../route-table';

/** Headers of every admin answer: never stored, never sniffed, never sent on as a Referer. */
export const PRIVATE: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON answer of the admin API, never cached. */
export function adminJson(value: unknown): Reply {
  return answer(privateJson(value));
}

/** A write the admin API has taken on and not finished (a run started, a cancel asked for). */
export function adminAccepted(value: unknown): Reply {
  return accepted(privateJson(value));
}

function privateJson(value: unknown): ReplyParts {
  return { body: Buffer.from(JSON.stringify(value, null, 1)), type: JSON_TYPE, compressible: true, cache: 'none', headers: { ...PRIVATE } };
}

/**
 * The admin API's errors: `{"error": "..."}` (a message for people) and the error's details beside it (the
 * instance a conflicting run is on, the plan that does not fit), never cached.
 */
export const adminErrors: ErrorDialect = ({ status, message, headers, details }) => {
  const parts = privateJson({ error: message, ...details });
  return { status, ...parts, headers: { ...parts.headers, ...headers } };
};

/** The admin keys (built once in the composition root); a refusal as if /admin did not exist when none is configured. */
function adminRing(ctx: RequestContext): KeyRing {
  const ring = ctx.services.adminKeys;
  if (!ring) throw new ServiceError('not-found', 'Not found');
  return ring;
}

/** The key of `Authorization: Bearer <key>` (the scheme in any letter case), or undefined. */
export function bearerKey(ctx: Pick<RequestContext, 'headers'>): string | undefined {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(ctx.headers.authorization ?? '');
  return m?.[1];
}

/** Which admin key it is, for the audit (its position in `admin.keys`, from 1): never the key itself. */
function keyLabel(config: Config, key: string): string {
  return `admin key #${config.admin.keys.indexOf(key) + 1}`;
}

/** A read: not found without admin keys, forbidden without a valid admin key in the header or the query. Returns who asked. */
export function checkAdminRead(ctx: RequestContext): string {
  const ring = adminRing(ctx);
  const given = bearerKey(ctx) ?? ctx.query.get('key');
  if (!given) throw new ServiceError('forbidden', 'Missing admin key');
  if (!ring.check(given, {}).ok) throw new ServiceError('forbidden', 'Not an admin key');
  return keyLabel(ctx.config, given);
}

/** The origin (scheme://host[:port]) this server answers as: the configured public URL's, else the request's. */
function ownOrigin(ctx: RequestContext): string | undefined {
  try {
    return new URL(ctx.baseUrl).origin;
  } catch {
    return undefined;
  }
}

/**
 * A write: not found without admin keys; forbidden for a key in the URL (even with the right header), a missing or wrong key
 * in the header, or a cross-site request. Returns who asked (for the audit line).
 */
export function checkAdminWrite(ctx: RequestContext): string {
  const ring = adminRing(ctx);
  if (ctx.query.has('key')) throw new ServiceError('forbidden', 'A key in the URL is refused on writes: send it in the Authorization header only');
  const site = ctx.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') throw new ServiceError('forbidden', `Cross-site request refused (Sec-Fetch-Site: ${String(site).slice(0, 40)})`);
  const origin = ctx.headers.origin;
  if (origin !== undefined && origin !== ownOrigin(ctx)) throw new ServiceError('forbidden', 'Cross-site request refused (Origin is not this server)');
  const given = bearerKey(ctx);
  if (!given) throw new ServiceError('forbidden', 'Missing admin key');
  if (!ring.check(given, {}).ok) throw new ServiceError('forbidden', 'Not an admin key');
  return keyLabel(ctx.config, given);
}

/**
 * Runs a write: the checks, then `act`; one audit line whatever happens (who: the key's label and the peer's
 * address, never the key; what; when; why it was refused, if it was). The line is written once the answer is,
 * with the status as sent: whatever the edge made of the error (error-reply.ts), not a guess of it here.
 */
export async function auditedWrite(ctx: RequestContext, what: string, act: () => Promise<Reply> | Reply): Promise<Reply> {
  const at = new Date().toISOString();
  const from = ctx.clientAddress;
  let who = 'no admin key';
  let outcome = 'accepted';
  ctx.onAnswered((status) => ctx.services.audit?.({ who, from, what, at, status, outcome }));
  try {
    who = checkAdminWrite(ctx);
    return await act();
  } catch (err) {
    outcome = err instanceof Error ? err.message : String(err);
    throw err;
  }
}
