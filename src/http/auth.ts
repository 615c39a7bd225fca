import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiKey } from '../config/schema';

export type AuthResult = { ok: true; key: KeyRule; allowOrigin: string } | { ok: false; message: string };

interface HeldKey {
  digest: Buffer;
  key: KeyRule;
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

interface Origin {
  scheme: string;
  /** Lower-cased; `*.example.org` for a wildcard pattern. */
  host: string;
  /** Always explicit: the scheme's default when none is written. */
  port: string;
}

const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443' };

/** Scheme, host and port of an origin, a URL (a Referer) or a pattern; a pattern without scheme is https. */
function parseOrigin(value: string, isPattern: boolean): Origin | undefined {
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
  if (!hasScheme && !isPattern) return undefined;
  const withScheme = hasScheme ? value : `https://${value}`;
  try {
    const url = new URL(isPattern ? withScheme.replace('://*.', '://wildcard.') : withScheme);
    const host = url.hostname.toLowerCase();
    return {
      scheme: url.protocol,
      host: isPattern && withScheme.includes('://*.') ? host.replace(/^wildcard\./, '*.') : host,
      port: url.port || DEFAULT_PORT[url.protocol] || '',
    };
  } catch {
    return undefined;
  }
}

function hostMatches(pattern: string, host: string): boolean {
  return pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : host === pattern;
}

/**
 * Whether an Origin (or Referer) is allowed by the patterns. `exact` (the default): scheme, host and port all
 * match; a pattern without scheme means https, without port the scheme's default, and `*.example.com` allows
 * subdomains of example.com (not example.com itself) on that scheme and port. `host`: the host alone.
 */
export function originAllowed(patterns: readonly string[], origin: string, match: OriginMatch = 'exact'): boolean {
  const given = parseOrigin(origin, false);
  if (!given) return false;
  return patterns.some((p) => {
    const pattern = parseOrigin(p, true);
    if (!pattern || !hostMatches(pattern.host, given.host)) return false;
    return match === 'host' || (pattern.scheme === given.scheme && pattern.port === given.port);
  });
}

/** The product names of a User-Agent (`Mozilla/5.0 (X11) QGIS/3.34` → Mozilla, QGIS); comments are not products. */
export function productNames(userAgent: string): string[] {
  let depth = 0;
  let text = '';
  for (const ch of userAgent) {
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else text += depth === 0 ? ch : '';
    if (ch === '(' || ch === ')') text += ' ';
  }
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((product) => product.split('/')[0]);
}

/**
 * Whether the User-Agent satisfies a key's rule. `product` (the default): one of its product tokens is named
 * exactly `rule` (case-sensitive), so `QGIS` passes `QGIS/3.34` and `Mozilla/5.0 QGIS/33400/Linux` but not
 * `NOTQGIS/1`, `qgis/3` or `curl (QGIS)`. `substring`: the User-Agent contains `rule` anywhere.
 */
export function userAgentAllowed(rule: string, userAgent: string, match: UserAgentMatch = 'product'): boolean {
  return match === 'substring' ? userAgent.includes(rule) : productNames(userAgent).includes(rule);
}

export type OriginMatch = ApiKey['originMatch'];
export type UserAgentMatch = ApiKey['userAgentMatch'];

/** A key as the ring needs it: the match modes default to the exact ones. */
export type KeyRule = Omit<ApiKey, 'originMatch' | 'userAgentMatch'> & Partial<Pick<ApiKey, 'originMatch' | 'userAgentMatch'>>;

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
  private readonly proven = new Map<string, KeyRule>();

  constructor(keys: readonly KeyRule[]) {
    this.keys = keys.map((key) => ({ key, digest: digest(key.key) }));
  }

  private find(given: string): KeyRule | undefined {
    const known = this.proven.get(given);
    if (known) return known;
    const d = digest(given);
    let found: KeyRule | undefined;
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
      if (!origin || !originAllowed(found.allowedOrigins, origin, found.originMatch)) return { ok: false, message: 'Key not allowed from this origin' };
    }
    if (found.allowedUserAgent && !userAgentAllowed(found.allowedUserAgent, headers['user-agent'] ?? '', found.userAgentMatch)) {
      return { ok: false, message: 'Key not allowed for this user agent' };
    }
    // Restricted keys echo the (checked) Origin so browsers accept the answer; open keys allow any origin.
    if (found.allowedOrigins.length > 0 && headers.origin) return { ok: true, key: found, allowOrigin: headers.origin };
    return { ok: true, key: found, allowOrigin: '*' };
  }
}
