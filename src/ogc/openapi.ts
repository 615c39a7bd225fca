import { z } from 'zod';

// The OpenAPI 3.1.0 definition of the served API, built from the route table's descriptions (pattern, parameter
// schemas, summary, media types, statuses) and the public base URL. Pure: the same routes give the same document.
// Optional parts of a pattern (`[256/]`, `[:scale(@2x)]`, `[.:ext]`, `[/]`) expand to every concrete path they
// stand for; a parameter whose schema is one literal (`256`, `@2x`) is written as that literal in its path.

export const OPENAPI_MEDIA_TYPE = 'application/vnd.oai.openapi+json;version=3.1';

/** What the definition needs of one route (src/http/route-table.ts Route has this shape). */
export interface RouteDescription {
  /** `/maps/:mapId/[:size(256)/]:z/:x/:y[:scale(@\\d+x)].:format` */
  pattern: string;
  /** Path parameters (named in the pattern) and query parameters (every other key), as zod schemas of their raw text. */
  params: z.ZodObject<Record<string, z.ZodType>>;
  doc: { summary: string; tag: string; types: readonly string[]; statuses?: readonly number[] };
  public?: boolean;
  deprecated?: object;
  /** The one method it answers besides GET/HEAD (`POST`); absent: GET. */
  method?: 'POST';
  /**
   * How the route words its error answers (http's ErrorDialect). The definition has it word one and describes the
   * errors by what it made: its media type, and for JSON the members it wrote. Without one, errors are plain text.
   */
  dialect?: (answer: { status: number; message: string }) => { type?: string; body?: Buffer };
}

export interface ApiInfo {
  title: string;
  version: string;
  description?: string;
}

type Json = Record<string, unknown>;

type Token = { text: string } | { param: string } | { optional: Token[] };

/** Splits a pattern into literal text, parameters and optional groups. */
function tokenize(pattern: string): Token[] {
  const stack: Token[][] = [[]];
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i];
    const top = stack[stack.length - 1];
    if (c === ':') {
      const m = /^:([A-Za-z][A-Za-z0-9]*)(?:\(([^)]*)\))?/.exec(pattern.slice(i));
      if (!m) throw new Error(`bad pattern ${pattern}`);
      top.push({ param: m[1] });
      i += m[0].length;
    } else if (c === '[') {
      stack.push([]);
      i++;
    } else if (c === ']') {
      const group = stack.pop();
      if (!group || stack.length === 0) throw new Error(`bad pattern ${pattern}`);
      stack[stack.length - 1].push({ optional: group });
      i++;
    } else {
      top.push({ text: c });
      i++;
    }
  }
  if (stack.length !== 1) throw new Error(`bad pattern ${pattern}`);
  return stack[0];
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
  return s;
}

/** The one value of a literal parameter (`256`, `@2x`), else undefined. */
function literalOf(schema: z.ZodType | undefined): string | undefined {
  const s = schema && unwrap(schema);
  if (s instanceof z.ZodLiteral && s.values.size === 1) {
    const [v] = [...s.values];
    return typeof v === 'string' ? v : undefined;
  }
  return undefined;
}

export interface ConcretePath {
  /** OpenAPI path template: `/maps/{mapId}/256/{z}/{x}/{y}@2x.{format}` */
  path: string;
  /** Path parameters left as `{name}` in it. */
  params: string[];
}

/** Every concrete path a pattern stands for (each optional part present or absent), literal parameters written out. */
export function expandPattern(pattern: string, shape: Record<string, z.ZodType> = {}): ConcretePath[] {
  const expand = (tokens: Token[]): ConcretePath[] => {
    let out: ConcretePath[] = [{ path: '', params: [] }];
    for (const t of tokens) {
      let next: ConcretePath[];
      if ('text' in t) next = [{ path: t.text, params: [] }];
      else if ('param' in t) {
        const literal = literalOf(shape[t.param]);
        next = [literal !== undefined ? { path: literal, params: [] } : { path: `{${t.param}}`, params: [t.param] }];
      } else next = [{ path: '', params: [] }, ...expand(t.optional)];
      out = out.flatMap((a) => next.map((b) => ({ path: a.path + b.path, params: [...a.params, ...b.params] })));
    }
    return out;
  };
  return expand(tokenize(pattern));
}

/** JSON Schema (2020-12, as OpenAPI 3.1 uses it) of one parameter's raw text, with what `.meta()` says. */
function parameterSchema(schema: z.ZodType): Json {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      // A string pattern under a meta type of integer/number/boolean describes the raw text, not the value.
      if (jsonSchema.type !== undefined && jsonSchema.type !== 'string' && jsonSchema.type !== 'array') delete jsonSchema.pattern;
    },
  }) as Json;
  delete json.$schema;
  return json;
}

function parameter(name: string, where: 'path' | 'query', schema: z.ZodType): Json {
  const json = parameterSchema(schema);
  const { description, deprecated, ...rest } = json;
  const p: Json = { name, in: where, required: where === 'path' || !schema.safeParse(undefined).success, schema: rest };
  if (typeof description === 'string') p.description = description;
  if (deprecated === true) p.deprecated = true;
  if (rest.type === 'array') Object.assign(p, { style: 'form', explode: true });
  return p;
}

const STATUS_TEXT: Record<number, string> = {
  204: 'The tile is absent, presumed empty: empty body',
  304: 'Not modified: the If-None-Match header names the current ETag',
  400: 'Invalid parameter (the body names it), or out of bounds',
  403: 'Key missing, invalid or restricted (origin, user agent), or the plan does not include this operation',
  404: 'The item does not exist',
  409: 'Conflict: the job already runs (here or on another instance), or does not run here',
  414: 'URI too long (more than 8192 bytes)',
  429: "Not enough of the month's upstream requests left for the run (mirror.requestsPerMonth): the body names both figures, Retry-After the budget's renewal",
  507: 'Not enough space on the data volume for the run: the body names both figures',
  503: 'The service has no data to answer from here (an index not built, no terrain mirrored, no IP database): the body says what is missing',
};

const TEXT = { 'text/plain': { schema: { type: 'string' } } };
/** Media types of bytes that are no text: images, protocol buffers, vector tiles, anything else. */
const BINARY = /^image\/|octet|protobuf|vector-tile/;

/** JSON Schema of a value as an example shows it: an object's members are all required, each of its value's type. */
function schemaOfExample(value: unknown): Json {
  if (Array.isArray(value)) return { type: 'array' };
  if (value === null) return { type: 'null' };
  if (typeof value === 'object') {
    const members = Object.entries(value as Json);
    return { type: 'object', required: members.map(([k]) => k), properties: Object.fromEntries(members.map(([k, v]) => [k, schemaOfExample(v)])) };
  }
  if (typeof value === 'number') return { type: Number.isInteger(value) ? 'integer' : 'number' };
  return { type: typeof value };
}

/** The content of a route's error answers, from one answer its dialect words (a JSON body described member by member). */
function errorContent(route: RouteDescription): Json {
  if (!route.dialect) return TEXT;
  const sample = route.dialect({ status: 400, message: 'Invalid x: an example' });
  const type = (sample.type ?? 'text/plain').split(';')[0].trim();
  const json = /[/+]json$/.test(type) && sample.body ? schemaOfExample(JSON.parse(sample.body.toString('utf8'))) : { type: 'string' };
  return { [type]: { schema: json } };
}

function responses(route: RouteDescription, hasParams: boolean): Json {
  // A write (POST) is accepted, never cached.
  const post = route.method === 'POST';
  const out: Json = {
    [post ? 202 : 200]: { description: post ? 'Accepted' : 'OK', content: Object.fromEntries(route.doc.types.map((t) => [t, { schema: BINARY.test(t) ? { type: 'string', contentMediaType: t } : {} }])) },
  };
  const statuses = new Set<number>([...(post ? [] : [304]), 414, ...(route.doc.statuses ?? [])]);
  if (hasParams) statuses.add(400);
  if (!route.public) statuses.add(403);
  const errors = errorContent(route);
  for (const s of [...statuses].sort((a, b) => a - b)) out[s] = s === 204 || s === 304 ? { description: STATUS_TEXT[s] } : { description: STATUS_TEXT[s], content: errors };
  return out;
}

function operationId(path: string, method = 'get'): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return [method, ...words.map((w) => w[0].toUpperCase() + w.slice(1))].join('') + (path.endsWith('/') ? 'Slash' : '');
}

/** The OpenAPI 3.1.0 document of `routes`, served at `baseUrl`. */
export function buildOpenApi(routes: readonly RouteDescription[], baseUrl: string, info: ApiInfo): Json {
  const paths: Record<string, Json> = {};
  const tags: string[] = [];
  for (const r of routes) {
    const shape = r.params.shape;
    if (!tags.includes(r.doc.tag)) tags.push(r.doc.tag);
    const pathNames = new Set(expandPattern(r.pattern).flatMap((c) => c.params));
    const query = Object.keys(shape)
      .filter((k) => !pathNames.has(k))
      .map((k) => parameter(k, 'query', shape[k]));
    for (const concrete of expandPattern(r.pattern, shape)) {
      const method = r.method === 'POST' ? 'post' : 'get';
      if (paths[concrete.path]?.[method]) throw new Error(`two routes document ${concrete.path}`);
      const parameters = [...concrete.params.map((k) => parameter(k, 'path', shape[k])), ...query];
      const op: Json = {
        tags: [r.doc.tag],
        summary: r.doc.summary,
        operationId: operationId(concrete.path, method),
        ...(parameters.length && { parameters }),
        responses: responses(r, Object.keys(shape).length > 0),
      };
      if (r.public) op.security = [];
      if (r.deprecated) op.deprecated = true;
      paths[concrete.path] = { ...paths[concrete.path], [method]: op };
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, ...(info.description && { description: info.description }) },
    servers: [{ url: baseUrl }],
    tags: tags.map((name) => ({ name })),
    security: [{ key: [] }],
    paths,
    components: {
      securitySchemes: {
        key: { type: 'apiKey', in: 'query', name: 'key', description: 'The API key, sent with every request as the `key` query parameter' },
      },
    },
  };
}
