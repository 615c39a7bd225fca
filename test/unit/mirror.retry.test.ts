import { conditionalHeaders, refreshAction } from '../../src/mirror/refresh';
import { backoffDelay, decideRetry, DEFAULT_RETRY, isRetryableStatus, parseRetryAfter, type RetryPolicy } from '../../src/mirror/upstream/retry';

const policy: RetryPolicy = { retries: 3, baseMs: 100, maxMs: 1000, maxRetryAfterMs: 60_000 };
const half = () => 0.5;

describe('retry decisions', () => {
  test('network errors, timeouts, 5xx, 408 and 429 are retried; other answers are not', () => {
    expect(decideRetry(1, { kind: 'network', message: 'ECONNRESET' }, policy, 0, half).retry).toBe(true);
    for (const s of [500, 502, 503, 504, 429, 408]) expect(decideRetry(1, { kind: 'status', status: s }, policy, 0, half).retry).toBe(true);
    for (const s of [400, 401, 403, 404, 410, 501]) expect(decideRetry(1, { kind: 'status', status: s }, policy, 0, half).retry).toBe(false);
    expect(decideRetry(1, { kind: 'invalid', message: 'truncated' }, policy, 0, half).retry).toBe(true);
    expect(decideRetry(1, { kind: 'invalid', message: 'brotli', retryable: false }, policy, 0, half).retry).toBe(false);
    expect(isRetryableStatus(599)).toBe(true);
  });

  test('gives up after the configured retries', () => {
    const o = { kind: 'network' as const, message: 'x' };
    expect(decideRetry(3, o, policy, 0, half).retry).toBe(true);
    expect(decideRetry(4, o, policy, 0, half)).toEqual({ retry: false, reason: 'gave up after 4 attempts' });
  });

  test('exponential backoff with full jitter, capped', () => {
    expect(backoffDelay(1, policy, () => 1)).toBe(100);
    expect(backoffDelay(2, policy, () => 1)).toBe(200);
    expect(backoffDelay(3, policy, () => 1)).toBe(400);
    expect(backoffDelay(10, policy, () => 1)).toBe(1000);
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
    expect(backoffDelay(3, policy, half)).toBe(200);
  });

  test('Retry-After in seconds or as an HTTP date is honoured when longer than the backoff', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(decideRetry(1, { kind: 'status', status: 429, retryAfter: '5' }, policy, now, half)).toEqual({ retry: true, delayMs: 5000 });
    expect(decideRetry(1, { kind: 'status', status: 503, retryAfter: '0' }, policy, now, half)).toEqual({ retry: true, delayMs: 50 });
    // A Retry-After longer than the policy allows fails the tile rather than stalling the run.
    expect(decideRetry(1, { kind: 'status', status: 429, retryAfter: '3600' }, policy, now, half).retry).toBe(false);
  });

  test('defaults are sane', () => {
    expect(DEFAULT_RETRY.retries).toBeGreaterThanOrEqual(3);
    expect(DEFAULT_RETRY.maxMs).toBeGreaterThan(DEFAULT_RETRY.baseMs);
  });
});

describe('refresh decisions', () => {
  const png = Buffer.from('png-bytes');
  test('conditional headers carry what the upstream sent, nothing when it sent nothing', () => {
    expect(conditionalHeaders({ etag: '"a"', lastModified: 'Wed, 21 Oct 2015 07:28:00 GMT' })).toEqual({
      'If-None-Match': '"a"',
      'If-Modified-Since': 'Wed, 21 Oct 2015 07:28:00 GMT',
    });
    expect(conditionalHeaders({ etag: 'W/"b"' })).toEqual({ 'If-None-Match': 'W/"b"' });
    expect(conditionalHeaders({})).toBeUndefined();
  });

  test('304, identical bytes and still-empty are unchanged; everything else is written', () => {
    expect(refreshAction('tile', png, { kind: 'not-modified' })).toBe('unchanged');
    expect(refreshAction('tile', png, { kind: 'tile', data: Buffer.from('png-bytes') })).toBe('unchanged');
    expect(refreshAction('tile', png, { kind: 'tile', data: Buffer.from('other') })).toBe('write');
    expect(refreshAction('tile', png, { kind: 'empty', status: 204 })).toBe('write-empty');
    expect(refreshAction('empty', undefined, { kind: 'empty', status: 404 })).toBe('unchanged');
    expect(refreshAction('empty', undefined, { kind: 'tile', data: png })).toBe('write');
    expect(refreshAction('absent', undefined, { kind: 'tile', data: png })).toBe('write');
  });
});
