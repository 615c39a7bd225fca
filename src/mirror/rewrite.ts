// Stored documents must not point at the upstream (serving never reaches the network, and the upstream's key
// must not be published): every URL under the upstream base becomes `tilemirror://path`, which the server
// resolves to its own public URL and the requester's key when it serves the document (ogc/style.ts).

import { LOCAL_SCHEME } from '../ogc/style';
import { stripKey } from './upstream/client';

function normaliseBase(base: string): string {
  return stripKey(base).replace(/\/+$/, '');
}

/** `tilemirror://path` for a URL (or URL template) under the upstream base; undefined for any other string. */
export function toLocalUrl(url: string, upstreamBase: string): string | undefined {
  const base = normaliseBase(upstreamBase);
  if (url.length <= base.length || url.slice(0, base.length).toLowerCase() !== base.toLowerCase()) return undefined;
  const rest = url.slice(base.length);
  if (!rest.startsWith('/')) return undefined;
  return LOCAL_SCHEME + stripKey(rest.slice(1));
}

/** A copy of a JSON document with `f` applied to every string in it. */
function mapStrings<T>(doc: T, f: (s: string) => string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return f(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(doc) as T;
}

const ABSOLUTE_URL = /^(https?:)?\/\//i;

/** A copy of a JSON document with credentials removed from every absolute URL in it, whatever its host. */
export function withoutKeys<T>(doc: T): T {
  return mapStrings(doc, (s) => (ABSOLUTE_URL.test(s) ? stripKey(s) : s));
}

/**
 * A copy of a JSON document with every upstream URL rewritten to a local one (templates' braces kept), and
 * credentials removed from URLs of any other host: the cloud's documents point at several hosts (tiles, fonts
 * and sprites on their own CDN names), each URL carrying the key.
 */
export function rewriteDocument<T>(doc: T, upstreamBase: string): T {
  return mapStrings(doc, (s) => toLocalUrl(s, upstreamBase) ?? (ABSOLUTE_URL.test(s) ? stripKey(s) : s));
}

/** Last guard before anything is written: refuses bytes that hold the key (raw or percent-encoded). */
export function assertNoSecret(data: string | Buffer, key: string | undefined, what: string): void {
  if (!key) return;
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  for (const form of new Set([key, encodeURIComponent(key)])) {
    if (buf.includes(form)) throw new Error(`refusing to store ${what}: it still contains the upstream key`);
  }
}

export interface StyleReferences {
  /** Resources the style's sources use, e.g. `tiles/v3`, in the CLI's RESOURCE form. */
  resources: string[];
  /** The glyphs template (rewritten), when the style has one. */
  glyphs?: string;
  /** The sprite URL(s) (rewritten), when the style has one. */
  sprites: string[];
  /** Absolute URLs that point somewhere else than the upstream: not mirrored, the style needs the network for them. */
  external: string[];
}

const RESOURCE_PATH = /^tilemirror:\/\/(tiles|maps|data|images)\/([^/?#]+)/;

/** What a (rewritten) style refers to: what the operator may want to mirror next. */
export function styleReferences(style: unknown): StyleReferences {
  const out: StyleReferences = { resources: [], sprites: [], external: [] };
  const s = (style ?? {}) as { sources?: Record<string, { url?: unknown; tiles?: unknown; data?: unknown }>; glyphs?: unknown; sprite?: unknown };
  const add = (url: unknown): void => {
    if (typeof url !== 'string') return;
    const m = RESOURCE_PATH.exec(url);
    if (m) {
      const r = `${m[1]}/${decodeURIComponent(m[2])}`;
      if (!out.resources.includes(r)) out.resources.push(r);
    } else if (/^https?:\/\//i.test(url) && !out.external.includes(stripKey(url))) out.external.push(stripKey(url));
  };
  for (const src of Object.values(s.sources ?? {})) {
    add(src.url);
    if (Array.isArray(src.tiles)) src.tiles.forEach(add);
    add(src.data);
  }
  if (typeof s.glyphs === 'string') out.glyphs = s.glyphs;
  if (typeof s.sprite === 'string') out.sprites.push(s.sprite);
  else if (Array.isArray(s.sprite)) for (const sp of s.sprite as { url?: unknown }[]) if (typeof sp?.url === 'string') out.sprites.push(sp.url);
  for (const u of [out.glyphs, ...out.sprites]) if (u && /^https?:\/\//i.test(u)) out.external.push(stripKey(u));
  return out;
}
