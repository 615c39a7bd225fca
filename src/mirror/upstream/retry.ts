// When to try a request again and how long to wait: pure functions, so the policy is tested without a network.
// Network errors, timeouts, 5xx and 429 are worth retrying (the upstream or the path is briefly unwell);
// other 4xx are answers, not accidents. Waits grow exponentially with "full jitter" (a random delay up to the
// exponential cap) so many workers that failed together do not return together; Retry-After wins when longer.

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

export const DEFAULT_RETRY: RetryPolicy = { retries: 5, baseMs: 250, maxMs: 30_000, maxRetryAfterMs: 120_000 };

/** What came back from one attempt, as far as retrying cares. */
export type AttemptOutcome =
  | { kind: 'network'; message: string }
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

/** Exponential backoff with full jitter for the n-th retry (1-based). */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const cap = Math.min(policy.maxMs, policy.baseMs * 2 ** (retry - 1));
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
  let delay = backoffDelay(attempt, policy, random);
  if (outcome.kind === 'status' && (outcome.status === 429 || outcome.status === 503)) {
    const asked = parseRetryAfter(outcome.retryAfter, nowMs);
    if (asked !== undefined) {
      if (asked > policy.maxRetryAfterMs) return { retry: false, reason: `Retry-After ${Math.round(asked / 1000)} s is too long` };
      delay = Math.max(delay, asked);
    }
  }
  return { retry: true, delayMs: delay };
}
