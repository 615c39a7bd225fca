import { withKey } from './urls';

/** Prefix of URLs inside stored documents that point at this server, whatever its public address. */
export const LOCAL_SCHEME = 'tilemirror://';

/**
 * Resolves every `tilemirror://path` string in a stored style (sources, glyphs, sprite, tiles templates)
 * to `{baseUrl}/path?key=K`, so MapLibre loads everything from this server with the requester's own key.
 * Template braces ({z}, {fontstack}, {range}) are kept as they are.
 */
export function resolveLocalUrls<T>(doc: T, baseUrl: string, key: string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.startsWith(LOCAL_SCHEME) ? withKey(baseUrl, `/${v.slice(LOCAL_SCHEME.length)}`, key) : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(doc) as T;
}
