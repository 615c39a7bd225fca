// Who may use the admin pages and API, and how their answers look. Behind the configured admin keys
// (`admin.keys`): with none configured every /admin path answers 404, as if it did not exist. Reads take the key
// in `Authorization: Bearer <key>` (or, for curl and the old links, `?key=`); writes take it in the header only,
// refuse a request that also carries a key in its URL (a URL ends up in logs, history and Referer headers), and
// refuse cross-site requests (Sec-Fetch-Site, Origin): a page on another site cannot make a browser that holds
// the key start or stop a run. No answer under /admin carries a CORS header. Each write is one audit line.

import type { Config } from '../../config/schema';
import { KeyRing } from '../auth';
import type { ErrorDialect } from '../error-reply';
import { HttpError, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

/** Headers of every admin answer: never stored, never sniffed, never sent on as a Referer. */
export const PRIVATE: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON answer of the admin API (any status), never cached. */
export function adminJson(value: unknown, status = 200): Reply {
  return { status, body: Buffer.from(JSON.stringify(value, null, 1)), type: JSON_TYPE, compressible: true, cache: 'none', headers: { ...PRIVATE } };
}

/** The admin API's errors: `{"error": "..."}` (a message for people), never cached. */
export const adminErrors: ErrorDialect = ({ status, message, headers }) => {
  const reply = adminJson({ error: message }, status);
  return { ...reply, headers: { ...reply.headers, ...headers } };
};

const rings = new WeakMap<Config, KeyRing>();

function adminRing(config: Config): KeyRing | undefined {
  if (config.admin.keys.length === 0) return undefined;
  let ring = rings.get(config);
  if (!ring) {
    ring = new KeyRing(config.admin.keys.map((key) => ({ key, allowedOrigins: [], plan: 'free' as const })));
    rings.set(config, ring);
  }
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

/** A read: 404 without admin keys, 403 without a valid admin key in the header or the query. Returns who asked. */
export function checkAdminRead(ctx: RequestContext): string {
  const ring = adminRing(ctx.config);
  if (!ring) throw new HttpError(404, 'Not found');
  const given = bearerKey(ctx) ?? ctx.query.get('key');
  if (!given) throw new HttpError(403, 'Missing admin key (Authorization: Bearer <key>)');
  if (!ring.check(given, {}).ok) throw new HttpError(403, 'Not an admin key');
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
 * A write: 404 without admin keys; 403 for a key in the URL (even with the right header), a missing or wrong key
 * in the header, or a cross-site request. Returns who asked (for the audit line).
 */
export function checkAdminWrite(ctx: RequestContext): string {
  const ring = adminRing(ctx.config);
  if (!ring) throw new HttpError(404, 'Not found');
  if (ctx.query.has('key')) throw new HttpError(403, 'A key in the URL is refused on writes: send it in the Authorization header only');
  const site = ctx.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') throw new HttpError(403, `Cross-site request refused (Sec-Fetch-Site: ${String(site).slice(0, 40)})`);
  const origin = ctx.headers.origin;
  if (origin !== undefined && origin !== ownOrigin(ctx)) throw new HttpError(403, 'Cross-site request refused (Origin is not this server)');
  const given = bearerKey(ctx);
  if (!given) throw new HttpError(403, 'Missing admin key (Authorization: Bearer <key>)');
  if (!ring.check(given, {}).ok) throw new HttpError(403, 'Not an admin key');
  return keyLabel(ctx.config, given);
}

/**
 * Runs a write: the checks, then `act`; one audit line whatever happens (who: the key's label and the peer's
 * address, never the key; what; when; the status answered and why).
 */
export async function auditedWrite(ctx: RequestContext, what: string, act: () => Promise<Reply> | Reply): Promise<Reply> {
  const at = new Date().toISOString();
  let who = 'no admin key';
  try {
    who = checkAdminWrite(ctx);
    const reply = await act();
    const refusal = reply.status >= 300 && reply.body ? (JSON.parse(reply.body.toString('utf8')) as { error?: string }).error : undefined;
    ctx.services.audit?.({ who, from: ctx.clientAddress, what, at, status: reply.status, outcome: refusal ?? 'accepted' });
    return reply;
  } catch (err) {
    const status = err instanceof HttpError ? err.status : 500;
    ctx.services.audit?.({ who, from: ctx.clientAddress, what, at, status, outcome: err instanceof Error ? err.message : String(err) });
    throw err;
  }
}
