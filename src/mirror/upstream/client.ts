// The one way the mirror talks to the upstream: GET over keep-alive connections (transport.ts: undici, HTTP/1.1;
// HTTP/2 when asked and the upstream offers it), as many in flight as the adaptive limit allows (concurrency.ts:
// up to the run's concurrency), throttled by the token bucket, with a per-attempt timeout and retries.
// Not fetch: fetch decodes Content-Encoding transparently, and the mirror needs the bytes as sent (gzip vector
// tiles are stored as they come, Content-Length is checked against the raw body).
// The key is added here, at the last moment, so every URL the rest of the mirror holds is key-free.

import { gunzipSync } from 'node:zlib';
import { AdaptiveLimit, type LoadSignal, type Slot } from './concurrency';
import { RecentLatencies, hedgeAfterMs } from './hedging';
import { TokenBucket, abortableSleep } from './rate-limit';
import type { Redactor } from './redact';
import { DEFAULT_RETRY, decideRetry, isRetryable, parseRetryAfter, type AttemptOutcome, type RetryPolicy } from './retry';
import type { RawResponse } from './validate';
import { UpstreamError } from '../errors';
import { RequestTimeout, Transport, type Cancel } from './transport';
import { RequestBudgetReached, type RequestBudget } from './request-budget';

/** Largest body accepted (a tile or document bigger than this is an upstream fault). */
const MAX_BODY = 64 * 1024 * 1024;

export interface ClientOptions {
  /** Upstream base URL without key, e.g. https://api.maptiler.com */
  base: string;
  key?: string;
  /** Other origins the key goes to (an XYZ template's subdomain hosts): the base's origin always gets it. */
  keyOrigins?: string[];
  /** Most requests in flight at once (the adaptive limit's ceiling; also the connections per origin). */
  connections?: number;
  /** Offer HTTP/2 to a TLS upstream (default: HTTP/1.1 only). */
  http2?: boolean;
  /** Requests per second (0 or Infinity: unlimited); requests start at least 1/rate seconds apart. */
  rate?: number;
  /** Per-attempt timeout, headers and body (ms). */
  timeoutMs?: number;
  retry?: RetryPolicy;
  redact: Redactor;
  userAgent?: string;
  /** Called before each wait for a retry: progress output counts them. */
  onRetry?: (url: string, reason: string, delayMs: number) => void;
  /** Hedging of stalled requests: on by default; `minMs` lowers the least wait before a hedge (tests), false turns it off. */
  hedge?: false | { minMs: number };
  /** Spent before every request on the wire; once it is spent, no request goes out (RequestBudgetReached). */
  budget?: RequestBudget;
}

/** How often requests in flight are looked at for hedging (ms). */
const HEDGE_SWEEP_MS = 100;
/** Most requests of one attempt: the first and two hedges (a hedge meets the same tail as the first, now and then). */
const MAX_LEGS = 3;

/** The reason given to the loser of a hedged attempt. */
const LOST = new Error('another request for the same URL answered first');

/** One request of an attempt: the first, or its hedge. */
interface Leg {
  slot: Slot;
  hedge: boolean;
  done: boolean;
  cancel: Cancel;
}

/** An attempt whose request may be hedged. */
interface Watch {
  slot: Slot;
  hedge: () => void;
}


/** What the caller makes of a response: a value, or a failed attempt (which may be retried). */
export type Judgement<T> = { ok: true; value: T } | { ok: false; outcome: AttemptOutcome };

export interface ClientStats {
  /** Requests sent, hedges included. */
  requests: number;
  bytes: number;
  retries: number;
  /** Second requests sent for a request that waited far past the others (see sweepStalled). */
  hedges: number;
  /** Of those, the ones that answered first. */
  hedgesWon: number;
  /** Times a Retry-After closed the gate for every request. */
  pauses: number;
}

/** Removes credential query parameters from a URL or URL template (braces kept as they are). */
export function stripKey(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const [path, rest] = [url.slice(0, q), url.slice(q + 1)];
  const hashAt = rest.indexOf('#');
  const query = hashAt < 0 ? rest : rest.slice(0, hashAt);
  const fragment = hashAt < 0 ? '' : rest.slice(hashAt);
  const kept = query.split('&').filter((p) => p && !CREDENTIAL_PARAM.test(paramName(p)));
  return (kept.length ? `${path}?${kept.join('&')}` : path) + fragment;
}

const CREDENTIAL_PARAM = /^(key|access_token|api_key|apikey|token)$/i;

/** A query parameter's name, percent-decoded (`%6Bey` is `key` to every server). */
function paramName(param: string): string {
  const name = param.split('=')[0].replace(/\+/g, ' ');
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

function originOf(url: string): string {
  const m = /^(https?:\/\/[^/?#]+)/i.exec(url);
  return m ? m[1].toLowerCase() : '';
}

export class UpstreamClient {
  readonly base: string;
  readonly stats: ClientStats = { requests: 0, bytes: 0, retries: 0, hedges: 0, hedgesWon: 0, pauses: 0 };
  readonly limiter: TokenBucket;
  /** Requests in flight: grows while the upstream answers faster for it, halves when it says it is overloaded. */
  readonly inFlight: AdaptiveLimit;
  private readonly transport: Transport;
  private readonly retry: RetryPolicy;
  /** Sent with every request (built once: lowercase names, as undici sends them). */
  private readonly headers: Record<string, string>;

  constructor(private readonly opts: ClientOptions) {
    this.base = stripKey(opts.base).replace(/\/+$/, '');
    if (!/^https?:\/\//i.test(this.base)) throw new UpstreamError(`the upstream must be an http(s) URL, got ${opts.redact(opts.base)}`);
    // Requests beyond `connections` to one origin queue inside the transport's pool.
    const connections = opts.connections ?? 8;
    this.transport = new Transport({ connections, http2: opts.http2, timeoutMs: opts.timeoutMs ?? 30_000, maxBody: MAX_BODY });
    this.headers = { 'accept-encoding': 'gzip', 'user-agent': opts.userAgent ?? 'tilemirror-mirror/0.1', accept: '*/*' };
    // A burst of 1: no second of the run sees more than `rate` requests start (a bucket of one second's worth
    // would let a second see twice as many).
    this.limiter = new TokenBucket(opts.rate ?? 0, 1);
    this.inFlight = new AdaptiveLimit(connections);
    this.retry = opts.retry ?? DEFAULT_RETRY;
  }

  /** Absolute, key-free URL of an upstream path ('/tiles/x/tiles.json') or of an absolute URL. */
  resolve(pathOrUrl: string): string {
    if (/^https?:\/\//i.test(pathOrUrl)) return stripKey(pathOrUrl);
    return `${this.base}${pathOrUrl.startsWith('/') ? '' : '/'}${stripKey(pathOrUrl)}`;
  }

  /** Origins the upstream's own documents send the key to (tiles on a CDN host name): learned by trustKeyIn. */
  private readonly learnedKeyOrigins = new Set<string>();

  /**
   * Notes that an upstream document names `url` with our key in it (a TileJSON whose tiles are on another host, as
   * the cloud writes them): that origin gets the key too. The stored documents stay key-free (rewrite.ts); a URL
   * with another key, or none, teaches nothing, so the key never goes where the upstream did not send it.
   */
  trustKeyIn(url: string): void {
    const key = this.opts.key;
    const origin = originOf(url);
    if (!key || !origin) return;
    const query = url.split('#')[0].split('?')[1] ?? '';
    const carries = query.split('&').some((p) => {
      if (!CREDENTIAL_PARAM.test(paramName(p))) return false;
      try {
        return decodeURIComponent(p.slice(p.indexOf('=') + 1).replace(/\+/g, ' ')) === key;
      } catch {
        return false;
      }
    });
    if (carries) this.learnedKeyOrigins.add(origin);
  }

  /** The URL actually requested: with the key when it goes to the upstream's origin (never to a third party). */
  private withKey(url: string): string {
    if (!this.opts.key) return url;
    const origin = originOf(url);
    if (origin !== originOf(this.base) && !this.learnedKeyOrigins.has(origin) && !(this.opts.keyOrigins ?? []).some((o) => originOf(o) === origin)) return url;
    return `${url}${url.includes('?') ? '&' : '?'}key=${encodeURIComponent(this.opts.key)}`;
  }

  /** One GET, no retry: the raw bytes and headers, or a thrown network error (message already redacted). */
  async getOnce(url: string, signal?: AbortSignal, extraHeaders?: Record<string, string>): Promise<RawResponse> {
    try {
      return await this.send(url, signal, extraHeaders);
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (err instanceof RequestBudgetReached) throw err;
      throw new UpstreamError(this.opts.redact(describeNetworkError(err)));
    }
  }

  /** One GET on the wire (every request of the client goes through here); the transport's errors as they are. */
  private async send(url: string, signal?: AbortSignal, extraHeaders?: Record<string, string>, cancel?: Cancel): Promise<RawResponse> {
    this.opts.budget?.spend();
    this.stats.requests++;
    const res = await this.transport.get(this.withKey(url), extraHeaders ? { ...this.headers, ...extraHeaders } : this.headers, signal, cancel);
    this.stats.bytes += res.body.length;
    return res;
  }

  /**
   * GET with throttling, retries and hedging: `judge` turns each response into a value or a failed attempt;
   * network errors are failed attempts too. Throws an UpstreamError (redacted) when retries are exhausted.
   */
  async request<T>(
    url: string,
    judge: (res: RawResponse) => Judgement<T>,
    signal?: AbortSignal,
    beforeAttempt?: () => void,
    headers?: Record<string, string>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      // The slot first, then the token: a request starts the moment it has its token, so the starts keep the
      // rate's spacing however long the slots keep them waiting.
      const slot = await this.inFlight.acquire(signal);
      try {
        await this.limiter.take(signal);
        // Lets a graceful stop keep new requests from starting while those in flight finish.
        beforeAttempt?.();
      } catch (err) {
        this.inFlight.release(slot, 'failed');
        throw err;
      }
      const answer = await this.race(url, judge, slot, signal, beforeAttempt, headers);
      if (answer.ok) return answer.value;
      const outcome = answer.outcome;
      const reason = describeOutcome(outcome);
      const decision = decideRetry(attempt, outcome, this.retry);
      if (!decision.retry) {
        throw new UpstreamError(
          this.opts.redact(`${url}: ${reason}${attempt > 1 ? ` (after ${attempt} attempts)` : ''}`),
          outcome.kind === 'status' ? outcome.status : undefined,
          !isRetryable(outcome),
        );
      }
      this.stats.retries++;
      if (outcome.kind === 'status' && (outcome.status === 429 || outcome.status === 503) && this.inFlight.pressure.high) {
        // The upstream refuses the run, not one request: every worker waits the time it named. (A refusal among
        // healthy answers delays only its own request: decideRetry waits at least its Retry-After.)
        const asked = parseRetryAfter(outcome.retryAfter);
        if (asked !== undefined && asked > 0) {
          this.stats.pauses++;
          this.limiter.pauseFor(asked);
        }
      }
      this.opts.onRetry?.(this.opts.redact(url), this.opts.redact(reason), decision.delayMs);
      await abortableSleep(decision.delayMs, signal);
      beforeAttempt?.();
    }
  }

  /**
   * One attempt: the request on `slot`, and a hedge if it waits past the latencies seen (see sweepStalled). The
   * first good answer wins and the other request is cancelled; a failed request ends the attempt unless the other
   * is still on its way and not stalled. Rejects only when the run's signal aborts or its request budget is spent.
   */
  private race<T>(
    url: string,
    judge: (res: RawResponse) => Judgement<T>,
    first: Slot,
    signal: AbortSignal | undefined,
    beforeAttempt: (() => void) | undefined,
    headers: Record<string, string> | undefined,
  ): Promise<Judgement<T>> {
    return new Promise<Judgement<T>>((resolve, reject) => {
      const legs: Leg[] = [];
      let settled = false;
      const end = (then: () => void): void => {
        if (settled) return;
        settled = true;
        this.watching.delete(watch);
        hedgeWait?.abort(LOST);
        for (const leg of legs) if (!leg.done) leg.cancel.cancel?.(LOST);
        then();
      };
      const failed = (leg: Leg, outcome: AttemptOutcome): void => {
        // Another request may still win, unless all that are left are the stalled ones a hedge was meant to beat.
        if (!legs.some((l) => !l.done && !l.slot.stalled)) end(() => resolve({ ok: false, outcome }));
      };
      const start = (slot: Slot, hedge: boolean): void => {
        const leg: Leg = { slot, hedge, done: false, cancel: {} };
        legs.push(leg);
        this.inFlight.sending(slot);
        // The newest request is the one watched: a hedge that stalls too is hedged again, up to MAX_LEGS requests.
        watch.slot = slot;
        if (legs.length < MAX_LEGS) this.watching.add(watch);
        this.send(url, signal, headers, leg.cancel).then(
          (res) => {
            leg.done = true;
            const overloaded = res.status === 429 || res.status === 503;
            if (settled) return this.inFlight.release(slot, overloaded ? 'overloaded' : 'failed');
            let j: Judgement<T>;
            try {
              j = judge(res);
            } catch (err) {
              j = { ok: false, outcome: { kind: 'invalid', message: this.opts.redact((err as Error).message) } };
            }
            const load: LoadSignal = overloaded ? 'overloaded' : j.ok ? 'answered' : 'failed';
            this.noteLoad(slot, load);
            if (j.ok) {
              if (hedge) this.stats.hedgesWon++;
              end(() => resolve(j));
            } else failed(leg, j.outcome);
          },
          (err: unknown) => {
            leg.done = true;
            if (signal?.aborted) {
              this.inFlight.release(slot, 'failed');
              return end(() => reject(signal.reason));
            }
            if (settled) return this.inFlight.release(slot, 'failed');
            if (err instanceof RequestBudgetReached) {
              // No request went out: a hedge is not sent (the request it would have doubled goes on); a first
              // request ends the attempt, and the run stops.
              this.inFlight.release(slot, 'failed');
              if (!legs.some((l) => !l.done)) end(() => reject(err));
              return;
            }
            const timeout = err instanceof RequestTimeout;
            this.noteLoad(slot, timeout ? 'overloaded' : 'failed');
            failed(leg, { kind: 'network', message: this.opts.redact(describeNetworkError(err)), ...(timeout && { timeout }) });
          },
        );
      };
      let hedgeWait: AbortController | undefined;
      const watch: Watch = {
        slot: first,
        hedge: () => {
          hedgeWait = new AbortController();
          const wait = hedgeWait.signal;
          void (async () => {
            const slot = await this.inFlight.acquire(wait, true);
            try {
              if (settled) throw LOST;
              await this.limiter.take(wait);
              beforeAttempt?.();
              if (settled) throw LOST;
            } catch {
              return this.inFlight.release(slot, 'failed');
            }
            this.stats.hedges++;
            start(slot, true);
          })().catch(() => undefined);
        },
      };
      start(first, false);
      this.sweepSoon();
    });
  }

  /** Records what an answer said of the load: the limit, the overload share, and a latency sample of a healthy answer. */
  private noteLoad(slot: Slot, load: LoadSignal): void {
    if (load === 'answered' && !slot.stalled) this.latencies.add(performance.now() - slot.started);
    this.inFlight.release(slot, load);
  }

  /** Requests waiting to be hedged, watched by one timer while there are any. */
  private readonly watching = new Set<Watch>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly latencies = new RecentLatencies();

  private sweepSoon(): void {
    if (this.sweeper || this.opts.hedge === false) return;
    this.sweeper = setInterval(() => this.sweepStalled(), HEDGE_SWEEP_MS);
    this.sweeper.unref();
  }

  /**
   * The requests that have waited past max(4 x p95, 1 s) of the recent healthy answers are stalled: each gives up
   * its place under the adaptive limit (it keeps its connection) and is hedged, once, unless the upstream is
   * signalling overload (a Retry-After pause in force, or many refusals among recent answers): then a second
   * request would only add to the load, and the hedge waits until the signal has passed.
   */
  private sweepStalled(): void {
    if (this.watching.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
      return;
    }
    const after = hedgeAfterMs(this.latencies.p95(), this.opts.hedge ? this.opts.hedge.minMs : undefined);
    const quiet = !this.inFlight.pressure.high && this.limiter.pausedFor() === 0;
    const now = performance.now();
    for (const w of this.watching) {
      if (now - w.slot.started < after) continue;
      this.inFlight.leave(w.slot);
      if (!quiet) continue;
      this.watching.delete(w);
      w.hedge();
    }
  }

  /** A JSON document (decoded from gzip when sent so); 404 gives undefined when `optional`. */
  async getJson<T = unknown>(url: string, signal?: AbortSignal, optional = false): Promise<T | undefined> {
    // Parsed inside the judgement: a body cut short or mangled on the way is a failed attempt, tried again.
    return this.request<T | undefined>(
      url,
      (res) => {
        if (optional && res.status === 404) return { ok: true, value: undefined };
        if (res.status !== 200) {
          const text = res.body.subarray(0, 200).toString('utf8').trim();
          return { ok: false, outcome: { kind: 'status', status: res.status, retryAfter: headerOf(res, 'retry-after'), ...(text && { message: text }) } };
        }
        const declared = headerOf(res, 'content-length');
        if (declared !== undefined && Number(declared) !== res.body.length) {
          return { ok: false, outcome: { kind: 'invalid', message: `body of ${res.body.length} bytes, Content-Length says ${declared}` } };
        }
        const type = (headerOf(res, 'content-type') ?? '').split(';')[0].trim().toLowerCase();
        // Lenient (some servers say text/plain for JSON), but an HTML page is an error page or a captive portal.
        if (type === 'text/html') return { ok: false, outcome: { kind: 'invalid', message: `Content-Type ${type} is not JSON` } };
        try {
          return { ok: true, value: JSON.parse(decodeBody(res).toString('utf8')) as T };
        } catch (err) {
          return { ok: false, outcome: { kind: 'invalid', message: `not JSON: ${(err as Error).message}` } };
        }
      },
      signal,
    );
  }

  close(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.transport.close();
  }
}

/**
 * A network error in words an operator can act on: undici names the cause in `code` and `cause` (ECONNREFUSED,
 * "other side closed") more than in its message.
 */
function describeNetworkError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  const code = (err as { code?: string }).code;
  if (cause instanceof Error && cause.message && !err.message.includes(cause.message)) return `${err.message}: ${cause.message}`;
  if (code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED') return `connection closed before the response was complete (${err.message})`;
  return err.message;
}

function headerOf(res: RawResponse, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The body with its Content-Encoding (gzip) undone: for documents, which are stored decoded. */
export function decodeBody(res: RawResponse): Buffer {
  const enc = (headerOf(res, 'content-encoding') ?? '').toLowerCase();
  if (enc === 'gzip' || enc === 'x-gzip') return gunzipSync(res.body);
  if (enc && enc !== 'identity') throw new Error(`unsupported Content-Encoding ${enc}`);
  return res.body;
}

export function describeOutcome(o: AttemptOutcome): string {
  if (o.kind === 'network') return o.message;
  if (o.kind === 'invalid') return o.message;
  return `HTTP ${o.status}${o.message ? ` ${o.message}` : ''}`;
}
