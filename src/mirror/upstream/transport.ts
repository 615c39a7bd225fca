// One GET on the wire, for the mirror's client: undici's Agent (keep-alive pools per origin) through its low-level
// dispatch API. node:http's client cost ~200-280 µs of CPU per 20 KB tile on this machine, undici's dispatch ~100-110
// (bench: 12,294 tiles, 32 in flight, the same upstream): the mirror is CPU-bound on one core, so that is its rate.
// At 256 in flight the two cost about the same (83-119 µs). A bare net.Socket client costs ~30 µs, and with one
// the mirror bench reached 50-51 % of its ceiling instead of 35-36 %; undici stays for TLS, chunked bodies,
// keep-alive races and limits against a hostile server, kept by Node's team (README: Which HTTP client).
// Raw bytes as sent (no decoding of Content-Encoding): gzip vector tiles are stored as they come.
// HTTP/1.1 by default: one request per connection at a time, as many connections as requests in flight. HTTP/2
// only when asked (`http2`) and the upstream offers it (TLS ALPN): undici then puts every request in flight on one
// connection (up to the server's stream limit, which overrides undici's own `maxConcurrentStreams`), and through a
// 50 ms link that one connection ran the mirror at 292 tiles/s where HTTP/1.1 reached 888-1,142, with twice the
// client CPU per request (decision 0030). Its flow control windows are widened: undici's 512 KB per connection
// would cap a connection 50 ms away at ~10 MB/s.
//
// Per request there is no timer, AbortController or event listener: one sweep per transport enforces every
// request's deadline (headers and body together, counted from the call), and one listener per run signal aborts
// that run's requests.

import type { Agent as UndiciAgent, Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * undici's Agent alone: its index loads fetch, WebSocket, caches and more (~110 ms at every mirror start, against
 * ~30 ms for the Agent). The package has no `exports` map, so the file is reachable; should a release move it,
 * the index still works (and test/integration/mirror.transport.test.ts runs whichever loaded). Loaded with the
 * first transport, not with this module: a server whose jobs never run keeps it out of memory.
 */
function loadAgent(): typeof UndiciAgent {
  try {
    return require('undici/lib/dispatcher/agent') as typeof UndiciAgent;
  } catch {
    return (require('undici') as typeof import('undici')).Agent;
  }
}
let Agent: typeof UndiciAgent | undefined;

/** HTTP/2 receive windows: 32 MB per connection (~650 MB/s at 50 ms), 4 MB per stream (a big tile in one round trip). */
const H2_CONNECTION_WINDOW = 32 * 1024 * 1024;
const H2_STREAM_WINDOW = 4 * 1024 * 1024;

export interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export class RequestTimeout extends Error {}

/** Filled by `get` with a way to end that one request (a hedged request's loser): the caller hears the reason. */
export interface Cancel {
  cancel?: (reason: Error) => void;
}

export interface TransportOptions {
  /** Connections per origin. */
  connections: number;
  /** Per-request deadline, headers and body (ms). */
  timeoutMs: number;
  /** Largest body accepted (bytes). */
  maxBody: number;
  /** Offer HTTP/2 (ALPN) to TLS origins; HTTP/1.1 only when false or absent. */
  http2?: boolean;
}

/** One request in flight: collects the answer, and can be aborted before or after it reaches a socket. */
class Exchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined = undefined;
  private chunks: Buffer[] = [];
  private size = 0;
  private status = 0;
  private headers: IncomingHttpHeaders = {};
  private settled = false;
  private stopped: Error | undefined = undefined;

  constructor(
    private readonly transport: Transport,
    readonly signal: AbortSignal | undefined,
    readonly deadline: number,
    private readonly resolve: (r: RawReply) => void,
    private readonly reject: (e: Error) => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.stopped) controller.abort(this.stopped);
  }

  onResponseStart(_c: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    // 1xx informational answers come before the real one.
    if (status < 200) return;
    this.status = status;
    this.headers = headers;
    this.chunks = [];
    this.size = 0;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.transport.maxBody) controller.abort(new Error(`response larger than ${this.transport.maxBody} bytes`));
    else this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.finish(undefined);
  }

  onResponseError(_c: Dispatcher.DispatchController, error: Error): void {
    this.finish(error);
  }

  /** Ends the request now with `reason` (a timeout, the run's stop): the caller hears at once, the socket is freed. */
  abort(reason: Error): void {
    if (this.settled) return;
    this.stopped = reason;
    this.controller?.abort(reason);
    this.finish(reason);
  }

  private finish(error: Error | undefined): void {
    if (this.settled) return;
    this.settled = true;
    this.transport.inflight.delete(this);
    if (error) this.reject(error);
    else this.resolve({ status: this.status, headers: this.headers, body: this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size) });
  }
}

export class Transport {
  readonly inflight = new Set<Exchange>();
  readonly maxBody: number;
  private readonly agent: UndiciAgent;
  private readonly timeoutMs: number;
  private readonly sweeper: NodeJS.Timeout;
  /** Run signals listened to (one listener each, not one per request), removed at close. */
  private readonly watched = new Map<AbortSignal, () => void>();

  constructor(opts: TransportOptions) {
    this.timeoutMs = opts.timeoutMs;
    this.maxBody = opts.maxBody;
    // undici's own timeouts are idle timeouts (between body chunks): a backstop behind the sweep's total deadline.
    const backstop = opts.timeoutMs + 5_000;
    // No `pipelining`: HTTP/1.1 connections take one request at a time (undici's default), HTTP/2 ones many.
    Agent ??= loadAgent();
    this.agent = new Agent({
      connections: opts.connections,
      ...(opts.http2 && { allowH2: true, connectionWindowSize: H2_CONNECTION_WINDOW, initialWindowSize: H2_STREAM_WINDOW }),
      headersTimeout: backstop,
      bodyTimeout: backstop,
    });
    // A deadline is kept to within a tenth of the timeout (at most 1 s late).
    this.sweeper = setInterval(() => this.sweep(), Math.max(20, Math.min(1000, Math.floor(opts.timeoutMs / 10))));
    this.sweeper.unref();
  }

  /**
   * GET `url` (absolute http(s)) with `headers`; rejects on network trouble, a timeout (RequestTimeout), the signal
   * or a `cancel`.
   */
  get(url: string, headers: Record<string, string>, signal?: AbortSignal, cancel?: Cancel): Promise<RawReply> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (signal) this.watch(signal);
    const u = new URL(url);
    return new Promise<RawReply>((resolve, reject) => {
      const exchange = new Exchange(this, signal, Date.now() + this.timeoutMs, resolve, reject);
      this.inflight.add(exchange);
      if (cancel) cancel.cancel = (reason) => exchange.abort(reason);
      try {
        this.agent.dispatch({ origin: u.origin, path: `${u.pathname}${u.search}`, method: 'GET', headers }, exchange);
      } catch (err) {
        exchange.abort(err as Error);
      }
    });
  }

  private watch(signal: AbortSignal): void {
    if (this.watched.has(signal)) return;
    const onAbort = (): void => {
      for (const e of this.inflight) if (e.signal === signal) e.abort(signal.reason as Error);
    };
    this.watched.set(signal, onAbort);
    signal.addEventListener('abort', onAbort, { once: true });
  }

  private sweep(): void {
    if (this.inflight.size === 0) return;
    const now = Date.now();
    for (const e of this.inflight) if (e.deadline <= now) e.abort(new RequestTimeout(`timed out after ${this.timeoutMs} ms`));
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const [signal, onAbort] of this.watched) signal.removeEventListener('abort', onAbort);
    this.watched.clear();
    for (const e of this.inflight) e.abort(new Error('the client was closed'));
    this.agent.destroy().catch(() => undefined);
  }
}
