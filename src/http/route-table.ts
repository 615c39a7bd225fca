import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from '../config/schema';
import type { Catalog } from '../store/catalog';
import type { JobStatusSource } from '../store/job-state';
import type { Reply } from './reply';

/** What a handler knows about the request, after the key was checked. */
export interface RequestContext {
  catalog: Catalog;
  config: Config;
  /** The requester's own key, put into every URL of a generated document. */
  key: string;
  /** The plan of the requester's key; public routes (no key) count as `free`. Static maps need `paid`. */
  plan: 'free' | 'paid';
  /** Public base URL of this server, no trailing slash (configured, or from the request and X-Forwarded-*). */
  baseUrl: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The path as requested (raw, without the query). */
  path: string;
  /** The mirror jobs' status, wired by `cli` (absent: the server knows of no jobs). */
  jobStatus?: JobStatusSource;
}

export type Params = Record<string, string | undefined>;
export type Handler = (ctx: RequestContext, params: Params) => Reply | Promise<Reply>;

export interface RouteOptions {
  /** Also matched by the fast dispatcher in front of Express (tile routes). */
  hot?: boolean;
  /** Served without a key (static library files of the viewer, health). */
  public?: boolean;
  /** Marks a deprecated path: answers carry a Deprecation header (the handler may add a Link to the successor). */
  deprecated?: { successor?: string };
}

export interface Route extends RouteOptions {
  pattern: string;
  regex: RegExp;
  handler: Handler;
}

/**
 * Compiles the spec's path notation into an anchored RegExp with named groups:
 * `:name` is one path segment (at least one character, no `/`), `:name(re)` a segment matching `re`,
 * `[...]` an optional part. E.g. `/maps/:mapId/[:size(256)/]:z/:x/:y[:scale(@2x)].:format`.
 */
export function compilePattern(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i];
    if (c === ':') {
      const m = /^:([A-Za-z][A-Za-z0-9]*)(?:\(([^)]*)\))?/.exec(pattern.slice(i));
      if (!m) throw new Error(`bad pattern ${pattern}`);
      out += m[2] !== undefined ? `(?<${m[1]}>${m[2]})` : `(?<${m[1]}>[^/]+?)`;
      i += m[0].length;
    } else if (c === '[') {
      out += '(?:';
      i++;
    } else if (c === ']') {
      out += ')?';
      i++;
    } else {
      out += c.replace(/[.*+?^${}()|\\]/g, '\\$&');
      i++;
    }
  }
  return new RegExp(`^${out}$`);
}

export function route(pattern: string, handler: Handler, options: RouteOptions = {}): Route {
  return { pattern, regex: compilePattern(pattern), handler, ...options };
}

/** Finds the first route matching a raw path; parameters come back percent-decoded (undefined on bad encoding). */
export function matchRoute(routes: readonly Route[], path: string): { route: Route; params: Params } | { route: Route; badEncoding: true } | undefined {
  for (const r of routes) {
    const m = r.regex.exec(path);
    if (!m) continue;
    const params: Params = {};
    try {
      for (const [k, v] of Object.entries(m.groups ?? {})) params[k] = v === undefined ? undefined : decodeURIComponent(v);
    } catch {
      return { route: r, badEncoding: true };
    }
    return { route: r, params };
  }
  return undefined;
}
