import { Registry } from 'prom-client';
import { parseConfig } from '../../src/config/load';
import { DURATION_BUCKETS, RequestMetrics } from '../../src/http/metrics';
import { parseMetrics, total } from '../helpers/prometheus';

// The request slots as Prometheus reads them, and the metrics section of the configuration.

test('slots export as counters and a cumulative histogram, by route pattern, code and class', async () => {
  const requests = new RequestMetrics();
  const registry = new Registry();
  requests.register(registry);
  // Arrived 3 ms ago or more: never in the buckets up to 2.5 ms, whatever the machine's load.
  for (let i = 0; i < 3; i++) requests.record('/a/:id', 200, 100, performance.now() - 3);
  requests.record('/a/:id', 304, 0, performance.now() - 3);
  requests.record('none', 404, 10, performance.now() - 3);
  const samples = parseMetrics(await registry.metrics());
  expect(total(samples, 'tilemirror_http_requests_total', { route: '/a/:id', code: '200', class: '2xx' })).toBe(3);
  expect(total(samples, 'tilemirror_http_requests_total', { route: '/a/:id', code: '304', class: '3xx' })).toBe(1);
  expect(total(samples, 'tilemirror_http_requests_total', { route: 'none', code: '404', class: '4xx' })).toBe(1);
  expect(total(samples, 'tilemirror_http_response_bytes_total', { route: '/a/:id' })).toBe(300);
  const bucket = (le: string, cls = '2xx') => total(samples, 'tilemirror_http_request_duration_seconds_bucket', { route: '/a/:id', class: cls, le });
  expect([bucket('0.0005'), bucket('0.001'), bucket('0.0025')]).toEqual([0, 0, 0]);
  expect([bucket('+Inf'), bucket('+Inf', '3xx')]).toEqual([3, 1]);
  expect(total(samples, 'tilemirror_http_request_duration_seconds_sum', { route: '/a/:id', class: '2xx' })).toBeGreaterThanOrEqual(0.009);
  expect(DURATION_BUCKETS[0]).toBe(0.0005);
  expect(DURATION_BUCKETS[DURATION_BUCKETS.length - 1]).toBe(5);
});

test('metrics.allow takes addresses and CIDR ranges; a bad one is refused at load, naming it', () => {
  const c = parseConfig({ metrics: { allow: ['10.0.0.0/8', 'fd00::/8', '192.0.2.7'] } }, 't', process.cwd(), {});
  expect(c.metrics).toEqual({ enabled: true, allow: ['10.0.0.0/8', 'fd00::/8', '192.0.2.7'] });
  expect(parseConfig({}, 't', process.cwd(), {}).metrics).toEqual({ enabled: true, allow: ['127.0.0.0/8', '::1'] });
  expect(() => parseConfig({ metrics: { allow: ['10.0.0.1/8'] } }, 't', process.cwd(), {})).toThrow(/metrics\.allow\[0\].*did you mean 10\.0\.0\.0\/8/);
  expect(() => parseConfig({ metrics: { alow: [] } }, 't', process.cwd(), {})).toThrow(/alow/);
});
