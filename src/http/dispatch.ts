import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Config, Tier } from '../config/schema';
import type { Catalog } from '../store/catalog/catalog';
import { AnswerBudget } from './answer-budget';
import type { KeyRing } from './auth';
import { baseUrlOf, FORWARDED_HEADERS, ProxyTrust } from './base-url';
import { cloudErrors, errorReply, KIND_STATUS, type ErrorDialect } from './error-reply';
import { sendReply, type CachePolicy } from './headers';
import { NO_ROUTE } from './metrics';
import { ReplyBatch } from './reply-batch';
import type { Reply } from './reply';
import { requestLineWriter, type RequestLine } from './request-log';
import type { RawParams, RequestContext, Route } from './route-table';
import type { Services } from './service-root';

/**
 * Runs one matched route: key check, handler, errors (error-reply.ts, in the route's dialect), and the reply.
 * Express's 404 and error answers are sent through `send` too, so headers, logging and metrics are the same code
 * for every answer.
 */
export class Dispatcher {
  private readonly keys: KeyRing;
  private readonly policy: CachePolicy;
  readonly proxies: ProxyTrust;

  private readonly requestLine: RequestLine | undefined;
  private readonly batch = new ReplyBatch(this.write.bind(this));
  /** The memory for big answers' bodies until they are sent (answer-budget.ts). */
  readonly answers: AnswerBudget;

  constructor(
    readonly config: Config,
    readonly catalog: Catalog,
    private readonly log: Logger,
    readonly services: Services,
    /** The route table requests are matched in (handlers read it through their context). */
    readonly routes: readonly Route[],
  ) {
    this.keys = services.apiKeys;
    this.policy = config.cache;
    this.proxies = new ProxyTrust(config.server.trustProxy, config.server.trustedProxies);
    this.requestLine = config.server.requestLog ? requestLineWriter(log) : undefined;
    // A refusal's Retry-After: by then the slow readers holding the budget are closed (stalled-sockets.ts).
    this.answers = new AnswerBudget(config.server.answerMemoryMb * 1024 * 1024, Math.ceil(config.server.minSendRateSeconds));
  }

  run(route: Route, params: RawParams | undefined, req: IncomingMessage, res: ServerResponse, path: string, rawQuery: string): void {
    (req as TimedRequest).route = route.pattern;
    const key = keyParam(rawQuery);
    let cors = route.noCors ? NO_HEADERS : ANY_ORIGIN;
    let tier: Tier = 'free';
    if (!route.public) {
      const auth = this.keys.check(key, req.headers);
      if (!auth.ok) return this.send(req, res, route.dialect({ status: 403, message: auth.message }), cors);
      tier = auth.key.plan;
      if (auth.allowOrigin !== '*') cors = { 'Access-Control-Allow-Origin': auth.allowOrigin, Vary: 'Origin' };
    }
    if (route.deprecated) {
      const { successor } = route.deprecated;
      cors = { ...cors, Deprecation: 'true', ...(successor && { Link: `<${successor}>; rel="successor-version"` }) };
    }
    if (!params) return this.send(req, res, route.dialect({ status: 400, message: 'Invalid percent-encoding in the path' }), cors);
    const ctx = new Context(this, req, res, key ?? '', tier, path, rawQuery);
    // A document whose links came from a trusted proxy's X-Forwarded-* differs by those headers: a shared cache
    // must not hand it to a request that sent others (or none).
    const headers = (): Record<string, string> => (ctx.forwarded ? withVary(cors, FORWARDED_HEADERS) : cors);
    let result: Reply | Promise<Reply>;
    try {
      result = route.invoke(ctx, params);
    } catch (err) {
      return this.send(req, res, this.errorReply(err, req, route.dialect), headers());
    }
    if (result instanceof Promise) {
      result.then(
        (reply) => this.send(req, res, reply, headers()),
        (err: unknown) => this.send(req, res, this.errorReply(err, req, route.dialect), headers()),
      );
    } else {
      this.send(req, res, result, headers());
    }
  }

  /** Expected errors answer with their status (error-reply.ts); anything else is logged, counted and answered 500 without details. */
  errorReply(err: unknown, req: IncomingMessage, dialect: ErrorDialect = cloudErrors): Reply {
    return errorReply(err, dialect, (unexpected) => {
      this.services.metrics?.failures.handler.inc();
      this.log.error({ err: unexpected, url: redactKey(req.url ?? '') }, 'handler failed');
    });
  }

  /** Answers with `reply`, written with the other answers of this turn of the event loop (reply-batch.ts says why). */
  send(req: IncomingMessage, res: ServerResponse, reply: Reply, extra?: Record<string, string>): void {
    this.batch.add(req, res, reply, extra);
  }

  /**
   * Writes, counts and logs one answer. Checked here, when it is written, not when queued: the first answer queued
   * for a response wins, and one for a response closed meanwhile is dropped.
   */
  private write(req: IncomingMessage, res: ServerResponse, reply: Reply, extra: Record<string, string> | undefined): void {
    if (res.headersSent || res.destroyed) return;
    const sent = sendReply(req, res, reply, this.policy, extra);
    const failed = typeof sent === 'number' ? undefined : sent;
    // The status as written, to whoever asked for it (an audit line), before the client can read the answer.
    if (res.headersSent) (res as AnsweredResponse).answered?.(res.statusCode);
    this.answers.written(res, failed ? 0 : (sent as number));
    // sendReply answered 500 (or dropped the connection) itself; say why once, for this request.
    if (failed) {
      this.services.metrics?.failures.handler.inc();
      this.log.error({ err: failed, url: redactKey(req.url ?? '') }, 'reply could not be written');
    }
    const requests = this.services.metrics?.requests;
    const started = (req as TimedRequest).startedAt;
    // One clock reading for the metrics and the log line.
    const now = started === undefined ? 0 : performance.now();
    // The status written (a 304 for a matching ETag), the route's pattern, never the URL.
    if (requests && started !== undefined) requests.record((req as TimedRequest).route ?? NO_ROUTE, res.statusCode, typeof sent === 'number' ? sent : 0, started, now);
    if (this.requestLine) this.logRequest(req, failed ? 500 : reply.status, now);
  }

  /** One line per request, keys redacted; `req.startedAt` is stamped by the listener, `now` (when given) is the clock as it was answered. */
  logRequest(req: IncomingMessage, status: number, now?: number): void {
    const started = (req as TimedRequest).startedAt;
    this.requestLine?.(req.method, redactKey(req.url ?? ''), status, started === undefined ? undefined : Math.round(((now ?? performance.now()) - started) * 1000) / 1000);
  }
}

/**
 * The context of one request. A class, not an object literal with getters: one allocation of a fixed shape per
 * request, the lazy parts (base URL, query, signal, client address) on the prototype and worked out on first
 * use — tiles never ask for them.
 */
class Context implements RequestContext {
  readonly catalog: Catalog;
  readonly config: Config;
  readonly headers: IncomingMessage['headers'];
  readonly services: Services;
  readonly routes: readonly Route[];
  /** The base URL came from a trusted proxy's X-Forwarded-* headers (known once `baseUrl` was read). */
  forwarded = false;
  private base: string | undefined = undefined;
  private params: URLSearchParams | undefined = undefined;
  private abort: AbortSignal | undefined = undefined;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly key: string,
    readonly tier: Tier,
    readonly path: string,
    private readonly rawQuery: string,
  ) {
    this.catalog = dispatcher.catalog;
    this.config = dispatcher.config;
    this.headers = req.headers;
    this.services = dispatcher.services;
    this.routes = dispatcher.routes;
  }

  get baseUrl(): string {
    if (this.base === undefined) {
      const { publicUrl } = this.config.server;
      this.forwarded = !publicUrl && this.dispatcher.proxies.trusts(this.req);
      this.base = baseUrlOf(this.req, publicUrl, this.forwarded);
    }
    return this.base;
  }

  get query(): URLSearchParams {
    return (this.params ??= new URLSearchParams(this.rawQuery));
  }

  // Only long work (static renders) asks; the listener is added on first use, not on every tile.
  get signal(): AbortSignal {
    return (this.abort ??= closedBeforeFinish(this.res));
  }

  // Only geolocation asks (and geocoding's `proximity=ip`): X-Forwarded-For is read then.
  get clientAddress(): string {
    return this.dispatcher.proxies.clientAddress(this.req);
  }

  get trustedProxy(): boolean {
    return this.dispatcher.proxies.trusts(this.req);
  }

  reserveAnswer(): Promise<void> {
    return this.dispatcher.answers.reserve(this.res, this.signal);
  }

  onAnswered(listener: (status: number) => void): void {
    const res = this.res as AnsweredResponse;
    let told = false;
    const tell = (status: number): void => {
      if (told) return;
      told = true;
      listener(status);
    };
    res.answered = tell;
    // Nothing written by the time the connection closes: the client went away first.
    res.once('close', () => tell(res.headersSent ? res.statusCode : KIND_STATUS.abandoned));
  }
}

/** A response whose written status someone waits for (Context.onAnswered); the dispatcher tells it once it writes the answer. */
type AnsweredResponse = ServerResponse & { answered?: (status: number) => void };

/** A signal aborted when the response closes (the client went away) before it finished. */
function closedBeforeFinish(res: ServerResponse): AbortSignal {
  const ac = new AbortController();
  if (res.destroyed || res.socket?.destroyed) ac.abort();
  else res.once('close', () => res.writableFinished || ac.abort());
  return ac.signal;
}

/** A request as the listener stamps it: when it arrived (for the log and metrics) and, once matched, its route's pattern. */
export type TimedRequest = IncomingMessage & { startedAt?: number; route?: string };

const ANY_ORIGIN: Record<string, string> = { 'Access-Control-Allow-Origin': '*' };
const NO_HEADERS: Record<string, string> = {};

function withVary(headers: Record<string, string>, names: string): Record<string, string> {
  return { ...headers, Vary: headers.Vary ? `${headers.Vary}, ${names}` : names };
}

/**
 * The key: the first query parameter whose name URLSearchParams decodes to `key` (so `%6Bey=` and `k%65y=` are
 * the key too; `KEY=` is not, names are case-sensitive). A query without `%` is read without building
 * URLSearchParams on the hot path; any `%` takes the general path, so both agree on which parameter is first.
 */
export function keyParam(rawQuery: string): string | null {
  if (rawQuery.includes('%')) return new URLSearchParams(rawQuery).get('key');
  let at = rawQuery.startsWith('key=') ? 0 : rawQuery.indexOf('&key=') + 1;
  if (at === 0 && !rawQuery.startsWith('key=')) return new URLSearchParams(rawQuery).get('key');
  at += 4;
  const end = rawQuery.indexOf('&', at);
  const raw = end < 0 ? rawQuery.slice(at) : rawQuery.slice(at, end);
  // `+` is a space to URLSearchParams: let it decode.
  return raw.includes('+') ? new URLSearchParams(rawQuery).get('key') : raw;
}

/** The decoded name of one `name=value` query segment, as URLSearchParams reads it. */
function paramName(segment: string): string {
  const eq = segment.indexOf('=');
  const raw = eq < 0 ? segment : segment.slice(0, eq);
  for (const [name] of new URLSearchParams(`${raw}=`)) return name;
  return '';
}

/**
 * Keys never reach a log line: the value of every query parameter whose decoded name is `key` in any letter case
 * (`key`, `%6Bey`, `%6B%65%79`, `KEY`) becomes `***`; everything else stays as sent. Redacting `KEY`, which is
 * not accepted as the key, costs nothing and keeps a mistyped secret out of the log too.
 */
export function redactKey(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url.slice(q + 1);
  if (!/%|key/i.test(query)) return url;
  // Tile requests differ by path and repeat their query (`key=…`): its redacted form is remembered.
  let redacted = redactedQueries.get(query);
  if (redacted === undefined) {
    redacted = redactQuery(query);
    if (redactedQueries.size >= 256) redactedQueries.clear();
    redactedQueries.set(query, redacted);
  }
  return `${url.slice(0, q)}?${redacted}`;
}

const redactedQueries = new Map<string, string>();

function redactQuery(query: string): string {
  // Without `%` a name decodes to itself (a `+` would make a space, never `key`): one replace, as on every tile request.
  if (!query.includes('%')) return query.replace(/(^|&)(key)=[^&]*/gi, '$1$2=***');
  const parts = query.split('&').map((segment) => {
    const eq = segment.indexOf('=');
    if (eq < 0 || paramName(segment).toLowerCase() !== 'key') return segment;
    return `${segment.slice(0, eq)}=***`;
  });
  return parts.join('&');
}
