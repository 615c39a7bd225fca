import { z } from 'zod';
import { ServiceError } from '../../errors';
import { PLACE_TYPES, type FeatureCollection, type PlaceType } from '../../services/geocoding/features';
import { isLanguageCode } from '../../services/geocoding/languages';
import {
  classifyQuery,
  languagesFromHeader,
  MAX_BATCH,
  MAX_LANGUAGES,
  MAX_QUERY_LENGTH,
  type ForwardOptions,
  type GeocodingService,
} from '../../services/geocoding/service';
import { badRequest, jsonReply, type Reply } from '../reply';
import type { RequestContext } from '../route-table';

// Geocoding: forward, reverse, by id, batch (the four overlapping path shapes are told apart by the route table's
// patterns, in this order: `{lon},{lat}`, a `;` list, `{type}.{n}`, anything else). Parameters are validated by
// the schemas below (invalid, naming the parameter); the service answers from the gazetteer (`unavailable` until
// it is built).

/** A comma list of the raw text; `undefined` when the parameter is absent. */
function commaList(name: string, description: string, check: (item: string) => string | undefined, opts: { max?: number; meta?: Record<string, unknown> } = {}) {
  return z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      const items = v === '' ? [] : v.split(',').map((s) => s.trim());
      const fail = (message: string): undefined => {
        ctx.addIssue({ code: 'custom', message: `Invalid ${name}: ${message}`, input: v });
        return undefined;
      };
      if (opts.max !== undefined && items.length > opts.max) return fail(`at most ${opts.max} values`);
      if (new Set(items).size !== items.length) return fail('values must be unique');
      for (const item of items) {
        const problem = check(item);
        if (problem) return fail(problem);
      }
      return items;
    })
    .meta({ type: 'string', description, ...opts.meta });
}

const numberText = /^-?\d+(\.\d+)?$/;

function numbersOf(v: string, count: number): number[] | undefined {
  const parts = v.split(',');
  if (parts.length !== count || !parts.every((p) => numberText.test(p.trim()))) return undefined;
  return parts.map(Number);
}

const inRange = (lon: number, lat: number): boolean => lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90;

const language = commaList('language', `ISO 639-1 codes, at most ${MAX_LANGUAGES}, unique; the first prioritises; absent: the Accept-Language header; empty: no preference`, (l) =>
  isLanguageCode(l) ? undefined : `${JSON.stringify(l)} is not an ISO 639-1 code`, { max: MAX_LANGUAGES });

const types = commaList('types', `place types: ${PLACE_TYPES.join(', ')}`, (t) => ((PLACE_TYPES as readonly string[]).includes(t) ? undefined : `unknown type ${JSON.stringify(t)}`));

const limit = (max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!/^\d{1,3}$/.test(v) || n < 1 || n > max) {
        ctx.addIssue({ code: 'custom', message: `Invalid limit: expected an integer 1 to ${max}`, input: v });
        return undefined;
      }
      return n;
    })
    .meta({ type: 'integer', minimum: 1, maximum: max, description: 'number of results: 1 to 10; default 5 forward, 1 reverse' });

const flag = (name: string, description: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      if (v === 'true' || v === '1') return true;
      if (v === 'false' || v === '0') return false;
      ctx.addIssue({ code: 'custom', message: `Invalid ${name}: expected true or false`, input: v });
      return undefined;
    })
    .meta({ type: 'boolean', description });

const worldview = z
  .enum(['default', 'auto', 'ae', 'ch', 'jp', 'kr', 'us'], { error: 'Invalid worldview: expected default, auto, ae, ch, jp, kr or us' })
  .optional()
  .describe('accepted; the gazetteer has one view (Natural Earth de facto boundaries), so every value answers alike');

const bbox = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined) return undefined;
    const n = numbersOf(v, 4);
    if (!n || !inRange(n[0], n[1]) || !inRange(n[2], n[3]) || n[0] > n[2] || n[1] > n[3]) {
      ctx.addIssue({ code: 'custom', message: 'Invalid bbox: expected west,south,east,north in degrees (west <= east, south <= north)', input: v });
      return undefined;
    }
    return n as [number, number, number, number];
  })
  .meta({ type: 'string', description: 'west,south,east,north: only features inside' });

const proximity = z
  .string()
  .optional()
  .transform((v, ctx): [number, number] | 'ip' | undefined => {
    if (v === undefined) return undefined;
    if (v === 'ip') return 'ip';
    const n = numbersOf(v, 2);
    if (!n || !inRange(n[0], n[1])) {
      ctx.addIssue({ code: 'custom', message: 'Invalid proximity: expected lon,lat in degrees or ip', input: v });
      return undefined;
    }
    return [n[0], n[1]];
  })
  .meta({ type: 'string', description: 'lon,lat (or ip): results near it rank higher' });

const country = commaList('country', 'ISO 3166-1 alpha-2 codes: only features in these countries', (c) => (/^[A-Za-z]{2}$/.test(c) ? undefined : `${JSON.stringify(c)} is not an ISO 3166-1 alpha-2 code`));

const common = {
  language,
  types,
  excludeTypes: flag('excludeTypes', 'true: every type except those of `types`'),
  limit: limit(10),
  worldview,
};

const forwardQuery = {
  ...common,
  bbox,
  proximity,
  country,
  fuzzyMatch: flag('fuzzyMatch', 'false disables typo tolerance (default true)'),
  autocomplete: flag('autocomplete', 'false disables prefix matching of the last word (default true)'),
};

const queryText = (name: string, description: string) =>
  z
    .string()
    .refine((q) => q.trim().length > 0, { error: `Invalid ${name}: empty` })
    .refine((q) => q.length <= MAX_QUERY_LENGTH, { error: `Invalid ${name}: longer than ${MAX_QUERY_LENGTH} characters` })
    .describe(description);

const coordinate = (name: 'longitude' | 'latitude', max: number) =>
  z
    .string()
    .transform((v, ctx) => {
      const n = Number(v);
      if (!numberText.test(v) || n < -max || n > max) {
        ctx.addIssue({ code: 'custom', message: `Invalid ${name}: expected a number from -${max} to ${max}`, input: v });
        return 0;
      }
      return n;
    })
    .meta({ type: 'number', minimum: -max, maximum: max, description: `${name} in degrees (WGS 84)` });

export const forwardParams = z.object({ query: queryText('query', `place name, or a POI category alone or with a name; at most ${MAX_QUERY_LENGTH} characters`), ...forwardQuery });
export const reverseParams = z.object({ longitude: coordinate('longitude', 180), latitude: coordinate('latitude', 90), ...common });
export const byIdParams = z.object({
  id: z
    .string()
    .regex(/^[a-z_]+\.[0-9]{1,15}$/, { error: 'Invalid id: expected type.N with N at most 15 digits' })
    .describe('feature id `type.N` as returned by forward or reverse geocoding'),
  language,
  worldview,
});
/**
 * The queries of a batch: the path segment as sent (the route keeps it raw), split on its verbatim `;`, each query
 * then percent-decoded, so an escaped `%3B` stays inside its query.
 */
const batchQueries = z
  .string()
  .transform((raw, ctx) => {
    const fail = (message: string): never => {
      ctx.addIssue({ code: 'custom', message: `Invalid queries: ${message}`, input: raw });
      return z.NEVER;
    };
    const items: string[] = [];
    for (const item of raw.split(';')) {
      try {
        items.push(decodeURIComponent(item));
      } catch {
        return fail('bad percent-encoding');
      }
    }
    if (items.length > MAX_BATCH) return fail(`at most ${MAX_BATCH} queries per batch, got ${items.length}`);
    for (const [i, q] of items.entries()) {
      if (!q.trim()) return fail(`query ${i + 1} is empty`);
      if (q.length > MAX_QUERY_LENGTH) return fail(`query ${i + 1} is longer than ${MAX_QUERY_LENGTH} characters`);
    }
    return items;
  })
  .meta({ type: 'string', description: `up to ${MAX_BATCH} queries (forward, reverse or id) separated by a verbatim \`;\`` });

export const batchParams = z.object({ queries: batchQueries, ...forwardQuery });

type Common = { language?: string[]; types?: string[]; excludeTypes?: boolean; limit?: number };

function service(ctx: RequestContext): GeocodingService {
  const { geocoding } = ctx.services;
  if (!geocoding) throw new ServiceError('unavailable', 'Geocoding is not available on this server');
  return geocoding;
}

/** Absent `language`: the Accept-Language header; present but empty: none. */
function languages(ctx: RequestContext, p: { language?: string[] }): string[] {
  return p.language ?? languagesFromHeader(typeof ctx.headers['accept-language'] === 'string' ? ctx.headers['accept-language'] : undefined);
}

function forwardOptions(ctx: RequestContext, p: z.output<typeof batchParams> | z.output<typeof forwardParams>): ForwardOptions {
  return {
    language: languages(ctx, p),
    country: p.country,
    bbox: p.bbox,
    proximity: p.proximity,
    // Read only when asked: the address comes from X-Forwarded-For through a trusted proxy.
    clientIp: p.proximity === 'ip' ? ctx.clientAddress : undefined,
    types: p.types as PlaceType[] | undefined,
    excludeTypes: p.excludeTypes,
    limit: p.limit ?? 5,
    fuzzyMatch: p.fuzzyMatch ?? true,
    autocomplete: p.autocomplete ?? true,
  };
}

function checkReverseLimit(p: Common): void {
  if ((p.limit ?? 1) > 1 && (p.types?.length !== 1 || p.excludeTypes)) throw badRequest('Invalid limit: above 1, reverse geocoding needs exactly one value in types');
}

/** `/geocoding/{query}.json` */
export function geocodingForward(ctx: RequestContext, p: z.output<typeof forwardParams>): Reply {
  const geo = service(ctx);
  // A label id of the mirrored tiles (`tileset.N`) is answered by id.
  if (classifyQuery(p.query, geo.isLabelId).kind === 'id') return jsonReply(geo.byId(p.query.trim(), { language: languages(ctx, p) }));
  return perRequester(p, jsonReply(geo.forward(p.query, forwardOptions(ctx, p))));
}

/** An answer ranked near the requester's address (`proximity=ip`) is the requester's: no shared cache keeps it. */
function perRequester(p: { proximity?: [number, number] | 'ip' }, reply: Reply): Reply {
  return p.proximity === 'ip' ? { ...reply, headers: { ...reply.headers, 'Cache-Control': 'private, no-cache' } } : reply;
}

/** `/geocoding/{longitude},{latitude}.json` */
export function geocodingReverse(ctx: RequestContext, p: z.output<typeof reverseParams>): Reply {
  checkReverseLimit(p);
  const geo = service(ctx);
  return jsonReply(geo.reverse(p.longitude, p.latitude, { language: languages(ctx, p), types: p.types as PlaceType[] | undefined, excludeTypes: p.excludeTypes, limit: p.limit }));
}

/** `/geocoding/{id}.json` */
export function geocodingById(ctx: RequestContext, p: z.output<typeof byIdParams>): Reply {
  const geo = service(ctx);
  return jsonReply(geo.byId(p.id, { language: languages(ctx, p) }));
}

/** `/geocoding/{q1;q2;...}.json`: the queries as the schema read them (split on the verbatim `;`, then decoded). */
export function geocodingBatch(ctx: RequestContext, p: z.output<typeof batchParams>): Reply {
  const geo = service(ctx);
  const opts = forwardOptions(ctx, p);
  const parsed = p.queries.map((q, i) => {
    const item = classifyQuery(q, geo.isLabelId);
    if (item.kind === 'reverse') {
      if (!(item.lon >= -180 && item.lon <= 180 && item.lat >= -90 && item.lat <= 90)) throw badRequest(`Invalid queries: query ${i + 1} is outside -180..180, -90..90`);
      checkReverseLimit(p);
    }
    return item;
  });
  const results: FeatureCollection[] = parsed.map((item) =>
    item.kind === 'reverse'
      ? geo.reverse(item.lon, item.lat, { language: opts.language, types: opts.types, excludeTypes: opts.excludeTypes, limit: p.limit })
      : item.kind === 'id'
        ? geo.byId(item.id, { language: opts.language })
        : geo.forward(item.text, opts),
  );
  return perRequester(p, jsonReply(results));
}
