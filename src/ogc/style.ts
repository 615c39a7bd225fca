import { withKey } from './urls';

/** Prefix of URLs inside stored documents that point at this server, whatever its public address. */
export const LOCAL_SCHEME = 'tilemirror://';

/** The `glyphs` value of a stored style whose fonts are mirrored here. */
export const LOCAL_GLYPHS_URL = `${LOCAL_SCHEME}fonts/{fontstack}/{range}.pbf`;

/** The `sprite` value of a stored style whose sprite `id` is mirrored here. */
export function localSpriteUrl(id: string): string {
  return `${LOCAL_SCHEME}sprites/${encodeURIComponent(id)}/sprite`;
}

/** This server's glyphs URL template with the key: `{baseUrl}/fonts/{fontstack}/{range}.pbf?key=K`. */
export function glyphsUrl(baseUrl: string, key: string): string {
  return withKey(baseUrl, '/fonts/{fontstack}/{range}.pbf', key);
}

/**
 * Resolves every `tilemirror://path` string in a stored style (sources, glyphs, sprite, tiles templates)
 * to `{baseUrl}/path?key=K`, so MapLibre loads everything from this server with the requester's own key.
 * Template braces ({z}, {fontstack}, {range}) are kept as they are. A sprite URL becomes
 * `{baseUrl}/sprites/{id}/sprite?key=K`: MapLibre inserts `@2x.png` / `.json` into the path, before the query.
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

/**
 * The id of the mirrored sprite a stored style uses (`sprite: "tilemirror://sprites/{id}/sprite"`), or undefined
 * when it has none or it is not local. With several sprites (style spec v8 array form) the one named `default`
 * counts, else the first.
 */
export function localSpriteId(style: unknown): string | undefined {
  if (!style || typeof style !== 'object') return undefined;
  let sprite = (style as { sprite?: unknown }).sprite;
  if (Array.isArray(sprite)) {
    const entries = sprite.filter((s): s is { id?: unknown; url: string } => !!s && typeof s === 'object' && typeof (s as { url?: unknown }).url === 'string');
    sprite = (entries.find((s) => s.id === 'default') ?? entries[0])?.url;
  }
  if (typeof sprite !== 'string') return undefined;
  const m = /^tilemirror:\/\/sprites\/([^/?#]+)\/sprite$/.exec(sprite);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return undefined;
  }
}
