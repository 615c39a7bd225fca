// Handler tests without a socket: the route table called in this process over a data directory (the bundled sample
// unless told otherwise), as the dispatcher calls it once the key is checked. A path in, a Reply (data) out.
//
// The services come from the server's own composition root (createServices) and errors become answers through
// its one mapping (errorReply, in the route's dialect), so the test files under test/unit/routes assert on
// Replies only (status, type, cache class, ETag, headers, body).

import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import { parseConfig } from '../../src/config/load';
import type { Config } from '../../src/config/schema';
import { KeyRing } from '../../src/http/auth';
import { errorReply } from '../../src/http/error-reply';
import { schedulerCheck } from '../../src/http/health';
import { createServerMetrics } from '../../src/http/metrics';
import { textReply, type Reply } from '../../src/http/reply';
import { matchRoute, type RequestContext, type Route } from '../../src/http/route-table';
import { routes } from '../../src/http/routes';
import { createServices, type ServiceRoot, type Services } from '../../src/http/service-root';
import { persistedJobStatus } from '../../src/mirror/jobs/job-status';
import { Catalog } from '../../src/store/catalog/catalog';
import { SAMPLE_DIR, sampleRender, sampleWms } from './server';
import { tempDirs } from './temp-dirs';

export { SAMPLE_DIR };

/** The base URL every request is "asked through" (what a Host header would give the dispatcher). */
export const BASE_URL = 'https://maps.example.org';
/** A paid key (static maps allowed) and a free one, as configured by default. */
export const PAID_KEY = 'demo';
export const FREE_KEY = 'freekey';
/** The peer address of a request unless told otherwise: loopback, as the integration tests' client. */
export const LOOPBACK = '127.0.0.1';

/** A service the server may run without; its endpoints then answer as the server does without it. */
export type ServiceName = 'jobStatus' | 'elevation' | 'coordinates' | 'geocoding' | 'geolocation' | 'metrics' | 'readiness';

export interface InProcessOptions {
  /** The data directory (default: the bundled sample). */
  dataDir?: string;
  /** Merged over the default configuration (same shape as the YAML file): keys `demo` paid and `freekey` free. */
  config?: Record<string, unknown>;
  /** Services left out, as when the server runs without them. */
  without?: readonly ServiceName[];
  /**
   * Index the labels of the data directory's vector tile sets (into a temporary folder, not the data directory)
   * before the first request answers, so geocoding knows their label ids. Off by default: it takes a while.
   */
  labels?: boolean;
}

export interface GetOptions {
  /** More query parameters (the key is added unless `key` is null). */
  query?: string | Record<string, string | string[]>;
  /** Request headers (names in any case). */
  headers?: Record<string, string>;
  /** The `key` query parameter: default the paid key; null for none. */
  key?: string | null;
  /** The requester's address as the dispatcher works it out (peer, or the client a trusted proxy names). */
  clientAddress?: string;
  /** The peer is a trusted proxy. */
  trustedProxy?: boolean;
  /** Fires when the client goes away (default: never). */
  signal?: AbortSignal;
}

export interface InProcess {
  /** Answers a GET of `path` (which may carry its own `?query`) as the server would, without a socket. */
  get(path: string, opts?: GetOptions): Promise<Reply>;
  /** The route patterns requests reached so far (whatever they answered). */
  readonly reached: ReadonlySet<string>;
  /** Errors with neither a status nor a kind, each answered 500 'Internal error' (a test can say there were none). */
  readonly failures: readonly unknown[];
  readonly config: Config;
  close(): Promise<void>;
}

/**
 * Builds, once per test file, the catalog over the data directory and the services, as `tilemirror serve` does
 * (src/serve.ts, src/http/server.ts): a catalog that is not watched (the files do not change under a test), no
 * scheduler, and the jobs' status read from the persisted state.
 */
export function inProcess(options: InProcessOptions = {}): InProcess {
  const dataDir = options.dataDir ?? SAMPLE_DIR;
  const config = parseConfig(
    { data: dataDir, keys: [{ key: PAID_KEY, plan: 'paid' }, { key: FREE_KEY, plan: 'free' }], logLevel: 'silent', ...options.config, render: sampleRender(dataDir, options.config?.render), wms: sampleWms(dataDir, options.config?.wms) },
    'in-process test',
    process.cwd(),
    {},
  );
  const without = new Set(options.without ?? []);
  const catalog = new Catalog(config.data, { tileCacheBytes: config.cache.memoryMb * 1024 * 1024 });
  const temp = tempDirs('tilemirror-in-process-labels-');
  const labelsDir = temp.tempDir();
  const built = buildServices(config, catalog, labelsDir, without);
  // The labels are indexed only when asked for: without, geocoding knows no label of the tile sets.
  const labelsReady = options.labels ? built.root.labels.start().idle() : Promise.resolve();
  const keys = new KeyRing(config.keys);
  const reached = new Set<string>();
  const failures: unknown[] = [];

  // What the listener and Dispatcher.run do with a matched path: the key check (public routes skip it and count as
  // the free plan), a 400 for a bad percent-encoding, the handler, a thrown error turned into its answer, and the
  // Deprecation header of a deprecated path.
  async function get(target: string, opts: GetOptions = {}): Promise<Reply> {
    await labelsReady;
    const q = target.indexOf('?');
    const path = q < 0 ? target : target.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : target.slice(q + 1));
    const key = opts.key === undefined ? PAID_KEY : opts.key;
    if (key !== null) query.set('key', key);
    const extra = typeof opts.query === 'string' ? new URLSearchParams(opts.query) : Object.entries(opts.query ?? {}).flatMap(([n, v]) => [v].flat().map((x) => [n, x]));
    for (const [n, v] of extra) query.append(n, v);
    const headers: IncomingHttpHeaders = Object.fromEntries(Object.entries(opts.headers ?? {}).map(([n, v]) => [n.toLowerCase(), v]));

    const found = matchRoute(routes, path);
    // As the listener: no route is Express's plain 404.
    if (!found) return textReply(404, 'Not found');
    const { route } = found;
    reached.add(route.pattern);
    let tier: RequestContext['tier'] = 'free';
    if (!route.public) {
      const auth = keys.check(query.get('key') ?? undefined, headers);
      if (!auth.ok) return route.dialect({ status: 403, message: auth.message });
      tier = auth.key.plan;
    }
    if ('badEncoding' in found) return withRouteHeaders(route, route.dialect({ status: 400, message: 'Invalid percent-encoding in the path' }));
    const answered: ((status: number) => void)[] = [];
    const ctx = context(built, { catalog, config, key: query.get('key') ?? '', tier, path, query, headers, opts, answered });
    let reply: Reply;
    try {
      reply = withRouteHeaders(route, await route.invoke(ctx, found.params));
    } catch (err) {
      reply = withRouteHeaders(route, errorReply(err, route.dialect, (unexpected) => failures.push(unexpected)));
    }
    // As the dispatcher once it writes the answer: its status to whoever asked (no socket here, so no 304).
    for (const listener of answered) listener(reply.status);
    return reply;
  }

  return {
    get,
    reached,
    failures,
    config,
    async close() {
      await labelsReady.catch(() => undefined);
      built.root.stop();
      await built.root.close();
      catalog.close();
      temp.removeTempDirs();
    },
  };
}

interface Built {
  root: ServiceRoot;
  /** The root's services less the ones left out. */
  services: Services;
}

/** The services as `tilemirror serve` builds them (the composition root), less those the test leaves out. */
function buildServices(config: Config, catalog: Catalog, labelsDir: string, without: ReadonlySet<ServiceName>): Built {
  const metrics = config.metrics.enabled && !without.has('metrics') ? createServerMetrics() : undefined;
  const root = createServices(config, catalog, pino({ level: 'silent' }), {
    jobStatus: persistedJobStatus(config),
    metrics,
    checks: () => ({ scheduler: schedulerCheck('none') }),
    labelsDir,
  });
  const services: { -readonly [K in keyof Services]: Services[K] } = { ...root.services };
  for (const name of without) delete services[name];
  return { root, services };
}

/** The context the dispatcher hands a handler (src/http/dispatch.ts, class Context). */
function context(
  built: Built,
  r: {
    catalog: Catalog;
    config: Config;
    key: string;
    tier: RequestContext['tier'];
    path: string;
    query: URLSearchParams;
    headers: IncomingHttpHeaders;
    opts: GetOptions;
    answered: ((status: number) => void)[];
  },
): RequestContext {
  return {
    catalog: r.catalog,
    config: r.config,
    key: r.key,
    tier: r.tier,
    baseUrl: BASE_URL,
    query: r.query,
    headers: r.headers,
    path: r.path,
    signal: r.opts.signal ?? new AbortController().signal,
    clientAddress: r.opts.clientAddress ?? LOOPBACK,
    trustedProxy: r.opts.trustedProxy ?? false,
    services: built.services,
    routes,
    // No socket here, so no answer bodies held: room at once.
    reserveAnswer: () => Promise.resolve(),
    onAnswered: (listener) => void r.answered.push(listener),
  };
}

/** The headers the dispatcher adds for a deprecated path (Deprecation; a Link to the successor if the route names one); the reply's own headers win, as when they are written. */
function withRouteHeaders(route: Route, reply: Reply): Reply {
  if (!route.deprecated) return reply;
  const { successor } = route.deprecated;
  return { ...reply, headers: { Deprecation: 'true', ...(successor && { Link: `<${successor}>; rel="successor-version"` }), ...reply.headers } };
}

// ---- the route table ----

/** The patterns of the route table whose handler is one of a route module's exports (the routes "of that file"). */
export function patternsOf(module: Record<string, unknown>): string[] {
  const handlers = new Set(Object.values(module));
  return routes.filter((r) => handlers.has(r.handler)).map((r) => r.pattern);
}

// ---- reading replies ----

/** The body as UTF-8 text ('' when there is none). */
export function text(reply: Reply): string {
  return reply.body?.toString('utf8') ?? '';
}

/** A plain-text answer's message, without its line end (what the integration tests compare after trim()). */
export function message(reply: Reply): string {
  return text(reply).trim();
}

/** The body parsed as JSON. */
export function json<T = unknown>(reply: Reply): T {
  return JSON.parse(text(reply)) as T;
}

/** The bytes a client that does not accept gzip receives (a stored gzip tile decompressed). */
export function plainBody(reply: Reply): Buffer | undefined {
  return reply.gzipped ? reply.plain : reply.body;
}

/** Status and message of an error answer, for one `toEqual`. */
export function failure(reply: Reply): { status: number; type: string | undefined; message: string } {
  return { status: reply.status, type: reply.type, message: message(reply) };
}

// ---- the stored data, read apart from the code under test ----

/** A document (style.json, sprite.png, 0-255.pbf, features.json, ...) as stored, read with SQL. */
export function readStoredDocument(file: string, path: string): Buffer {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare('SELECT data FROM tilemirror_documents WHERE path = ?').get(path) as { data: Buffer } | undefined;
    if (!row) throw new Error(`no document ${path} in ${file}`);
    return row.data;
  } finally {
    db.close();
  }
}

/** The path of a store of the data directory, e.g. storeFile('maps', 'sample'). */
export function storeFile(kind: string, id: string, dataDir = SAMPLE_DIR): string {
  return join(dataDir, kind, `${id}.mbtiles`);
}
