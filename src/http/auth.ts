import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiKey } from '../config/schema';

export type AuthResult = { ok: true; key: ApiKey; allowOrigin: string } | { ok: false; message: string };

interface HeldKey {
  digest: Buffer;
  key: ApiKey;
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** The host part of an origin pattern or origin, lower-cased, with scheme and port removed. */
function hostOf(value: string): string | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  try {
    return new URL(withScheme.replace('://*.', '://wildcard.')).hostname.replace(/^wildcard\./, '*.').toLowerCase();
  } catch {
    return undefined;
  }
}

/** `*.example.com` allows subdomains of example.com (not example.com itself); other patterns match exactly. */
export function originAllowed(patterns: readonly string[], origin: string): boolean {
  const host = hostOf(origin);
  if (!host) return false;
  return patterns.some((p) => {
    const pattern = hostOf(p);
    if (!pattern) return false;
    if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1));
    return host === pattern;
  });
}

/**
 * Checks the `key` query parameter against the configured keys. Keys are compared as SHA-256 digests with
 * timingSafeEqual over every configured key, so the time taken says nothing about how much of a key matched.
 */
export class KeyRing {
  private readonly keys: HeldKey[];
  /**
   * Keys already proven valid, so a hot client costs one Map lookup instead of a digest per request. Only
   * configured keys can enter, so it stays as small as the configuration; a miss (any unknown string) takes
   * the constant-time path.
   */
  private readonly proven = new Map<string, ApiKey>();

  constructor(keys: readonly ApiKey[]) {
    this.keys = keys.map((key) => ({ key, digest: digest(key.key) }));
  }

  private find(given: string): ApiKey | undefined {
    const known = this.proven.get(given);
    if (known) return known;
    const d = digest(given);
    let found: ApiKey | undefined;
    for (const held of this.keys) {
      if (timingSafeEqual(held.digest, d)) found = held.key;
    }
    if (found) this.proven.set(given, found);
    return found;
  }

  check(
    given: string | null | undefined,
    headers: { origin?: string; referer?: string; 'user-agent'?: string },
  ): AuthResult {
    if (!given) return { ok: false, message: 'Missing key' };
    const found = this.find(given);
    if (!found) return { ok: false, message: 'Invalid key' };
    const origin = headers.origin || headers.referer;
    if (found.allowedOrigins.length > 0) {
      if (!origin || !originAllowed(found.allowedOrigins, origin)) return { ok: false, message: 'Key not allowed from this origin' };
    }
    if (found.allowedUserAgent && !(headers['user-agent'] ?? '').includes(found.allowedUserAgent)) {
      return { ok: false, message: 'Key not allowed for this user agent' };
    }
    // Restricted keys echo the (checked) Origin so browsers accept the answer; open keys allow any origin.
    if (found.allowedOrigins.length > 0 && headers.origin) return { ok: true, key: found, allowOrigin: headers.origin };
    return { ok: true, key: found, allowOrigin: '*' };
  }
}
