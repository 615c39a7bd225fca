import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import type { Config, Tier } from '../config/schema';
import type { Catalog } from '../store/catalog/catalog';
import type { ErrorKind } from '../errors';
import { cloudErrors, KIND_STATUS, type ErrorDialect } from './error-reply';
import { compileFastParser, FAIL, IDENTIFIER } from './params';
import { badRequest, SUCCESS_STATUS, type Reply, type Success } from './reply';
import type { Services } from './service-root';

/** What a handler knows about the request, after the key was checked. */
export interface RequestContext {
  catalog: Catalog;
  config: Config;
  /** The requester's own key, put into every URL of a generated document. */
  key: string;
  /** The tier of the requester's key (its `plan`); public routes (no key) count as `free`. Static maps need `paid`. */
  tier: Tier;
  /** Public base URL of this server, no trailing slash (configured, or from the request and X-Forwarded-*). */
  baseUrl: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The path as requested (raw, without the query). */
  path: string;
  /** Aborted when the client goes away (the connection closes) before the response was sent. */
  signal: AbortSignal;
  /**
   * The requester's IP address: the peer's (IPv4-mapped IPv6 as IPv4), or the client a trusted proxy names in
   * X-Forwarded-For (`server.trustProxy` and `server.trustedProxies`). '' when the connection is already gone.
   */
  clientAddress: string;
  /** The peer is a trusted proxy (`server.trustProxy` and `server.trustedProxies`): its X-Forwarded-* are believed. */
  trustedProxy: boolean;
  /**
   * Waits for room in the memory for answer bodies not yet sent (`server.answerMemoryMb`, answer-budget.ts); a
   * handler about to make a big new body (a static map render) asks first. `too-busy` when too many wait.
   */
  reserveAnswer(): Promise<void>;
  /**
   * Calls `listener` once with the status of the answer as it is written (what the edge made of the handler's reply
   * or error, a 304 included), before the client can read it; or with the `abandoned` status when the connection
   * closes before any answer was written. One listener per request (the admin API's audit line).
   */
  onAnswered(listener: (status: number) => void): void;
  /** Every service the handlers use, built in one place (service-root.ts). */
  services: Services;
  /** The route table this request was matched in (the API describes itself from it: `/openapi.json`). */
  routes: readonly Route[];
}

/**
 * The parameters of one route: path parameters (the names of the pattern) and query parameters (every other key),
 * as zod schemas of their raw text. The dispatcher validates them once; the handler gets the parsed values, and
 * the OpenAPI definition (ogc/openapi.ts) is built from the same schemas.
 */
export type ParamSchema = z.ZodObject<Record<string, z.ZodType>>;
/** Raw values before validation: a path segment or query value, all values of a repeated query parameter, or absent. */
export type RawParams = Record<string, string | string[] | undefined>;

export type Handler<P> = (ctx: RequestContext, params: P) => Reply | Promise<Reply>;

/** What the OpenAPI definition says of a route beyond its parameters. */
export interface RouteDoc {
  /** One line, as in the spec's endpoint tables. */
  summary: string;
  /** The spec's section: Maps, Static maps, Tiles, Data, Images, Weather, Sprites, Fonts, OGC API, WMTS, Admin, Server. */
  tag: string;
  /** Media types of the 200 answer; `*\/*` where the stored bytes decide (tiles). */
  types: readonly string[];
  /** Statuses besides 200, 304, 400 and 414 (which every route can answer): 204, 403, 404, 503. */
  statuses?: readonly number[];
}

/** What a route may answer besides its answer, as the OpenAPI definition lists it: an error kind, or a success of another status. */
export type Outcome = ErrorKind | Exclude<Success, 'answer'>;

/** The statuses of outcomes (error-reply.ts's and reply.ts's tables), for a route's documentation. */
export function outcomeStatuses(outcomes: readonly Outcome[]): number[] {
  return outcomes.map((o) => (o === 'empty' || o === 'accepted' ? SUCCESS_STATUS[o] : KIND_STATUS[o]));
}

export interface RouteOptions {
  /** Served without a key (static library files of the viewer, health). */
  public?: boolean;
  /** Marks a deprecated path: answers carry a Deprecation header (the handler may add a Link to the successor). */
  deprecated?: { successor?: string };
  /** How the route words its errors (error-reply.ts); default: the cloud API's plain text. */
  dialect?: ErrorDialect;
  /** The route answers POST, and only POST (the admin API's writes); every other route answers GET and HEAD. */
  method?: 'POST';
  /** No CORS header on its answers (the admin pages and API: a browser on another site must not read them). */
  noCors?: boolean;
  /**
   * Path parameters handed to the schema as sent, not percent-decoded: for a parameter whose verbatim characters
   * mean something an escaped one does not (batch geocoding's `;` between queries, where `%3B` is part of one).
   * Its schema decodes it.
   */
  rawParams?: readonly string[];
}

export interface Route extends RouteOptions {
  pattern: string;
  dialect: ErrorDialect;
  regex: RegExp;
  /** The pattern with numbered groups, the parameter name of each group in order, and the builder of a match's raw parameters (what matching uses). */
  indexed: { regex: RegExp; names: readonly string[]; build: (m: RegExpExecArray) => RawParams };
  params: ParamSchema;
  /** Keys of `params` that are path parameters; the others are query parameters. */
  pathParams: readonly string[];
  queryParams: readonly QueryParam[];
  /** The handler as registered (tests check which one a path reaches). */
  handler: Handler<never>;
  doc: RouteDoc;
  /** Validates the raw parameters (a 400 naming the first bad one) and runs the handler with the parsed values. */
  invoke(ctx: RequestContext, raw: RawParams): Reply | Promise<Reply>;
}

interface QueryParam {
  name: string;
  /** Repeatable (`?path=...&path=...`): the handler gets every value. */
  repeated: boolean;
}

/** Names of the parameters of a pattern, in order (`:name` and `:name(re)`). */
export function patternParams(pattern: string): string[] {
  return [...pattern.matchAll(/:([A-Za-z][A-Za-z0-9]*)/g)].map((m) => m[1]);
}

/**
 * Compiles the spec's path notation into an anchored RegExp with named groups:
 * `:name` is one path segment (at least one character, no `/`), `:name(re)` a segment matching `re`,
 * `[...]` an optional part. E.g. `/maps/:mapId/[:size(256)/]:z/:x/:y([^/.@]+)[:scale(@2x)].:format`.
 */
export function compilePattern(pattern: string): RegExp {
  return new RegExp(translate(pattern, true).source);
}

/**
 * The same pattern with numbered groups and their names in order: what matching uses (reading `m[i]` costs less
 * than the `groups` object a named match builds, on every tile request).
 */
export function compileIndexed(pattern: string, rawParams: readonly string[] = []): { regex: RegExp; names: string[]; build: (m: RegExpExecArray) => RawParams } {
  const { source, names } = translate(pattern, false);
  return { regex: new RegExp(source), names, build: paramsBuilder(names, rawParams) };
}

/** A path segment as matched, percent-decoded (throws URIError on bad encoding). */
function decodeSegment(v: string | undefined): string | undefined {
  return v === undefined || !v.includes('%') ? v : decodeURIComponent(v);
}

/**
 * The raw parameters of a match (group i + 1 is `names[i]`), built as one object literal generated for the
 * route: a loop (`params[names[i]] = …`) made every property a megamorphic keyed store, ~0.3 µs a tile request
 * in the serve profile. Names are identifiers by the pattern syntax (translate; checked again here), so the
 * generated code holds nothing else.
 */
function paramsBuilder(names: readonly string[], rawParams: readonly string[]): (m: RegExpExecArray) => RawParams {
  for (const n of names) if (!IDENTIFIER.test(n)) throw new Error(`bad parameter name ${n}`);
  const literal = names.map((n, i) => (rawParams.includes(n) ? `${n}: m[${i + 1}]` : `${n}: decode(m[${i + 1}])`)).join(', ');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from identifiers only (checked above)
  const make = new Function('decode', `return (m) => ({ ${literal} });`) as (decode: typeof decodeSegment) => (m: RegExpExecArray) => RawParams;
  return make(decodeSegment);
}

function translate(pattern: string, named: boolean): { source: string; names: string[] } {
  let out = '';
  const names: string[] = [];
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i];
    if (c === ':') {
      const m = /^:([A-Za-z][A-Za-z0-9]*)(?:\(([^)]*)\))?/.exec(pattern.slice(i));
      if (!m) throw new Error(`bad pattern ${pattern}`);
      // A segment's own expression cannot hold parentheses (`[^)]*`), so it never captures: numbers follow names.
      i += m[0].length;
      // Before a literal `/` a segment ends at that slash whatever the quantifier: greedy is the same match, cheaper.
      const segment = m[2] ?? (pattern[i] === '/' ? '[^/]+' : '[^/]+?');
      out += named ? `(?<${m[1]}>${segment})` : `(${segment})`;
      names.push(m[1]);
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
  return { source: `^${out}$`, names };
}

/** A schema with no parameters (besides the key, which the dispatcher reads). */
export const NO_PARAMS: ParamSchema = z.object({});

function isRepeated(schema: z.ZodType): boolean {
  let s: z.ZodType = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
  return s instanceof z.ZodArray;
}

/** The message of the first issue, naming the parameter. */
/**
 * zod's own messages that begin like ours but name no parameter ("Invalid string: must match pattern …", "Invalid
 * option: expected one of …").
 */
const ZOD_GENERIC = /^Invalid (input|option|string|type|number|element|key|union|date|value)\b/;

/** The message of a request's first bad parameter, naming it (`Invalid {name}: …`). */
export function issueMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  const name = issue.path.map(String).join('.');
  // Messages of our own schemas (params.ts) already name the parameter; zod's defaults do not.
  const generic = ZOD_GENERIC.exec(issue.message);
  const named = /^(Invalid|Out of bounds)\b/.test(issue.message) && !(generic && generic[1] !== String(issue.path[0]));
  return named ? issue.message : `Invalid ${name}: ${issue.message}`;
}

/**
 * One row of the route table: the path pattern, its parameter schema, the handler (typed by that schema), and what
 * the OpenAPI definition says of it. Every path parameter of the pattern must be a key of the schema.
 */
export function route<S extends ParamSchema>(pattern: string, params: S, handler: Handler<z.output<S>>, doc: RouteDoc, options: RouteOptions = {}): Route {
  const pathParams = patternParams(pattern);
  const keys = Object.keys(params.shape);
  const missing = pathParams.filter((n) => !keys.includes(n));
  if (missing.length) throw new Error(`route ${pattern}: no schema for path parameter(s) ${missing.join(', ')}`);
  const queryParams = keys.filter((k) => !pathParams.includes(k)).map((name) => ({ name, repeated: isRepeated(params.shape[name]) }));
  // Tile routes (path parameters only): valid input is parsed without zod (params.ts says why).
  const fast = queryParams.length ? undefined : compileFastParser(params);
  return {
    pattern,
    regex: compilePattern(pattern),
    indexed: compileIndexed(pattern, options.rawParams),
    params,
    pathParams,
    queryParams,
    handler: handler as Handler<never>,
    doc,
    ...options,
    dialect: options.dialect ?? cloudErrors,
    invoke(ctx, raw) {
      if (fast) {
        const value = fast(raw);
        if (value !== FAIL) return handler(ctx, value as z.output<S>);
      }
      if (queryParams.length) {
        const q = ctx.query;
        for (const { name, repeated } of queryParams) {
          if (repeated) raw[name] = q.getAll(name);
          else raw[name] = q.get(name) ?? undefined;
        }
      }
      const parsed = params.safeParse(raw);
      if (!parsed.success) throw badRequest(issueMessage(parsed.error));
      return handler(ctx, parsed.data);
    },
  };
}

/** The literal first path segment of a pattern (`maps` of `/maps/:id/…`), or undefined when it has a parameter or an optional part. */
function firstLiteral(pattern: string): string | undefined {
  const end = pattern.indexOf('/', 1);
  const seg = pattern.slice(1, end < 0 ? undefined : end);
  return /[:[\]()]/.test(seg) ? undefined : seg;
}

/**
 * Per route list, the routes a path can match by its first segment (those naming that segment, and those whose
 * first segment is a parameter), in the list's order: a tile request tries a few regular expressions, not all.
 */
const routeIndex = new WeakMap<readonly Route[], { bySegment: Map<string, readonly Route[]>; others: readonly Route[] }>();

function candidates(routes: readonly Route[], path: string): readonly Route[] {
  let index = routeIndex.get(routes);
  if (!index) {
    const literal = routes.map((r) => firstLiteral(r.pattern));
    const bySegment = new Map<string, readonly Route[]>();
    for (const seg of new Set(literal.filter((l): l is string => l !== undefined))) bySegment.set(seg, routes.filter((_, i) => literal[i] === seg || literal[i] === undefined));
    index = { bySegment, others: routes.filter((_, i) => literal[i] === undefined) };
    routeIndex.set(routes, index);
  }
  const end = path.indexOf('/', 1);
  return index.bySegment.get(path.slice(1, end < 0 ? undefined : end)) ?? index.others;
}

/** Finds the first route matching a raw path; parameters come back percent-decoded (undefined on bad encoding). */
export function matchRoute(routes: readonly Route[], path: string): { route: Route; params: RawParams } | { route: Route; badEncoding: true } | undefined {
  for (const r of candidates(routes, path)) {
    const m = r.indexed.regex.exec(path);
    if (!m) continue;
    let params: RawParams;
    try {
      params = r.indexed.build(m);
    } catch {
      return { route: r, badEncoding: true };
    }
    return { route: r, params };
  }
  return undefined;
}
