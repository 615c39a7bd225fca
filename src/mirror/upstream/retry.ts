// When to try a request again and how long to wait: pure functions, so the policy is tested without a network.
// Network errors, timeouts, 5xx and 429 are worth retrying (the upstream or the path is briefly unwell);
// other 4xx are answers, not accidents. Waits grow exponentially with "full jitter" (a random delay up to the
// exponential cap) so many workers that failed together do not return together; Retry-After wins when longer.
// Two kinds of failure wait differently: an overload signal (429, 503, 408, a timeout) backs off from `baseMs` up
// to `maxMs`, as the upstream asked for less; an accident of one request (a 500, a reset, a body cut short or
// garbled) says nothing of the load, so its waits start at ACCIDENT_BASE_MS and stop growing at ACCIDENT_MAX_MS:
// a tile that meets several accidents in a row is asked again within seconds, not minutes.

export interface RetryPolicy {
  /** Further attempts after the first. */
  retries: number;
  /** Cap of the first wait (ms); doubled per attempt. */
  baseMs: number;
  /** Upper limit of any computed wait (ms). */
  maxMs: number;
  /** Upper limit of a server-requested Retry-After wait (ms); longer requests fail the attempt instead. */
  maxRetryAfterMs: number;
}

/**
 * Eight retries: at a quarter of all answers failing at random (a bad day of a cloud), a tile fails its nine
 * attempts with probability 0.25^9 (4e-6): a run of a million tiles loses a handful, not hundreds.
 */
export const DEFAULT_RETRY: RetryPolicy = { retries: 8, baseMs: 250, maxMs: 30_000, maxRetryAfterMs: 120_000 };

/** Cap of the first wait (ms) after an accident that is no overload signal (at most the policy's `baseMs`). */
export const ACCIDENT_BASE_MS = 100;
/** Longest wait (ms) between attempts after an accident. */
export const ACCIDENT_MAX_MS = 2000;

/** What came back from one attempt, as far as retrying cares. */
export type AttemptOutcome =
  | { kind: 'network'; message: string; timeout?: boolean }
  | { kind: 'status'; status: number; retryAfter?: string; message?: string }
  /** A response that is not usable; `retryable` false when asking again cannot help (e.g. a wrong Content-Encoding). */
  | { kind: 'invalid'; message: string; retryable?: boolean };

/** Statuses that describe a passing state of the upstream rather than the request. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || (status >= 500 && status <= 599 && status !== 501);
}

export function isRetryable(o: AttemptOutcome): boolean {
  if (o.kind === 'network') return true;
  // A corrupt or truncated body is usually a transfer accident: try again.
  if (o.kind === 'invalid') return o.retryable !== false;
  return isRetryableStatus(o.status);
}

/** Retry-After as milliseconds from `nowMs`: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** Whether an outcome says the upstream wants fewer requests (rather than that one request met an accident). */
export function isOverload(o: AttemptOutcome): boolean {
  if (o.kind === 'network') return o.timeout === true;
  return o.kind === 'status' && (o.status === 429 || o.status === 503 || o.status === 408);
}

/** Exponential backoff with full jitter for the n-th retry (1-based); an accident's waits stop at ACCIDENT_MAX_MS. */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random, overload = true): number {
  const base = overload ? policy.baseMs : Math.min(policy.baseMs, ACCIDENT_BASE_MS);
  const cap = Math.min(overload ? policy.maxMs : Math.min(policy.maxMs, ACCIDENT_MAX_MS), base * 2 ** (retry - 1));
  return Math.round(random() * cap);
}

export type RetryDecision = { retry: false; reason: string } | { retry: true; delayMs: number };

/**
 * Decides after a failed attempt number `attempt` (1 = the first request) whether to try again and after how long.
 */
export function decideRetry(
  attempt: number,
  outcome: AttemptOutcome,
  policy: RetryPolicy,
  nowMs = Date.now(),
  random: () => number = Math.random,
): RetryDecision {
  if (!isRetryable(outcome)) return { retry: false, reason: 'not retryable' };
  if (attempt > policy.retries) return { retry: false, reason: `gave up after ${attempt} attempts` };
  let delay = backoffDelay(attempt, policy, random, isOverload(outcome));
  if (outcome.kind === 'status' && (outcome.status === 429 || outcome.status === 503)) {
    const asked = parseRetryAfter(outcome.retryAfter, nowMs);
    if (asked !== undefined) {
      if (asked > policy.maxRetryAfterMs) return { retry: false, reason: `Retry-After ${Math.round(asked / 1000)} s is too long` };
      delay = Math.max(delay, asked);
    }
  }
  return { retry: true, delayMs: delay };
}
