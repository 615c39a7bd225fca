import { Writable } from 'node:stream';
import { statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { parseConfig } from '../../src/config/load';
import { startTilemirror, type Tilemirror } from '../../src/serve';
import { parseMetrics, select, total, type Sample } from '../helpers/prometheus';
import { getFrom, rawGet, SAMPLE_DIR, serverConfig, startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';

// /metrics over real HTTP: counters scraped before and after known requests move by exactly those requests;
// route labels are the route table's patterns (written out here by hand), never URLs or keys.

const KEY = 'metrics-test-key-31337';
const ADMIN = 'admin-key-for-metrics';
const TILE_ROUTE = '/tiles/:tilesId/:z/:x/:y([^/.@]+)[.:ext]';
const MAP_TILE_ROUTE = '/maps/:mapId/[:size(256)/]:z/:x/:y([^/.@]+)[:scale(@\\d+x)].:format';

const lines: string[] = [];
let srv: Tilemirror;

async function scrape(url = srv.url): Promise<Sample[]> {
  const r = await rawGet(`${url}/metrics`);
  expect(r.status).toBe(200);
  expect(String(r.headers['content-type'])).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseMetrics(r.body.toString('utf8'));
}

beforeAll(async () => {
  const capture = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      cb();
    },
  });
  const config = parseConfig(
    { server: { host: '127.0.0.1', port: 0, requestLog: true }, data: SAMPLE_DIR, render: { keep: false }, keys: [{ key: KEY, plan: 'paid' }], admin: { keys: [ADMIN] }, logLevel: 'info' },
    'metrics-test',
    process.cwd(),
    {},
  );
  srv = await startTilemirror(config, pino({ level: 'info', base: undefined }, capture));
});
afterAll(() => srv.close());

test('requests, bytes and latency move by exactly the requests made, by route pattern and status', async () => {
  const before = await scrape();
  const bodies: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await rawGet(`${srv.url}/tiles/sample-vector/0/0/0.pbf?key=${KEY}`, { 'Accept-Encoding': 'gzip' });
    expect(r.status).toBe(200);
    bodies.push(r.body.length);
  }
  for (let i = 0; i < 2; i++) expect((await rawGet(`${srv.url}/tiles/no-such-store/0/0/0.pbf?key=${KEY}`)).status).toBe(404);
  expect((await rawGet(`${srv.url}/tiles/sample-vector/0/0/0.pbf?key=wrong-key`)).status).toBe(403);
  expect((await rawGet(`${srv.url}/no/such/path?key=${KEY}`)).status).toBe(404);
  expect((await fetch(`${srv.url}/tiles/sample-vector/0/0/0.pbf?key=${KEY}`, { method: 'HEAD' })).status).toBe(200);
  const after = await scrape();

  const delta = (name: string, match: Record<string, string>) => total(after, name, match) - total(before, name, match);
  expect(delta('tilemirror_http_requests_total', { route: TILE_ROUTE, code: '200', class: '2xx' })).toBe(6);
  expect(delta('tilemirror_http_requests_total', { route: TILE_ROUTE, code: '404', class: '4xx' })).toBe(2);
  expect(delta('tilemirror_http_requests_total', { route: TILE_ROUTE, code: '403' })).toBe(1);
  expect(delta('tilemirror_http_requests_total', { route: 'none', code: '404' })).toBe(1);
  // The first scrape was counted when it was answered, under its own route.
  expect(delta('tilemirror_http_requests_total', { route: '/metrics', code: '200' })).toBe(1);
  // Bytes: the five bodies as received (the HEAD answer has none).
  expect(delta('tilemirror_http_response_bytes_total', { route: TILE_ROUTE, code: '200' })).toBe(bodies.reduce((a, b) => a + b, 0));
  // Latency: one observation per request, buckets cumulative up to +Inf = count.
  const h = (suffix: string, extra: Record<string, string> = {}) => delta(`tilemirror_http_request_duration_seconds_${suffix}`, { route: TILE_ROUTE, class: '2xx', ...extra });
  expect(h('count')).toBe(6);
  expect(h('bucket', { le: '+Inf' })).toBe(6);
  expect(h('sum')).toBeGreaterThan(0);
  const buckets = select(after, 'tilemirror_http_request_duration_seconds_bucket', { route: TILE_ROUTE, class: '2xx' }).map((s) => [s.labels.le, s.value] as const);
  expect(buckets.map(([le]) => le)).toEqual(['0.0005', '0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '+Inf']);
  for (let i = 1; i < buckets.length; i++) expect(buckets[i][1]).toBeGreaterThanOrEqual(buckets[i - 1][1]);
});

test("the viewer's static files count under one route, with their bytes", async () => {
  const before = await scrape();
  const r = await rawGet(`${srv.url}/assets/maplibre-gl/maplibre-gl.css`);
  expect(r.status).toBe(200);
  expect((await rawGet(`${srv.url}/assets/maplibre-gl/no-such-file.js`)).status).toBe(404);
  const after = await scrape();
  const delta = (name: string, match: Record<string, string>) => total(after, name, match) - total(before, name, match);
  expect(delta('tilemirror_http_requests_total', { route: '/assets/*', code: '200' })).toBe(1);
  expect(delta('tilemirror_http_response_bytes_total', { route: '/assets/*', code: '200' })).toBe(r.body.length);
  // A missing file falls through to the plain 404, counted under the same route.
  expect(delta('tilemirror_http_requests_total', { route: '/assets/*', code: '404' })).toBe(1);
  expect(delta('tilemirror_http_requests_total', { route: 'none' })).toBe(0);
});

test('the tile memory cache: a tile read five times is one miss and four hits', async () => {
  // A raster tile (the background label indexing reads vector tiles only) not requested before in this server.
  const path = `/maps/sample/256/2/1/1.png?key=${KEY}`;
  const before = await scrape();
  for (let i = 0; i < 5; i++) expect((await rawGet(`${srv.url}${path}`)).status).toBe(200);
  const after = await scrape();
  const delta = (result: string) => total(after, 'tilemirror_tile_cache_requests_total', { result }) - total(before, 'tilemirror_tile_cache_requests_total', { result });
  expect({ hit: delta('hit'), miss: delta('miss') }).toEqual({ hit: 4, miss: 1 });
  expect(total(after, 'tilemirror_http_requests_total', { route: MAP_TILE_ROUTE, code: '200' }) - total(before, 'tilemirror_http_requests_total', { route: MAP_TILE_ROUTE, code: '200' })).toBe(5);
  // 48 MB by default.
  expect(total(after, 'tilemirror_tile_cache_bytes', { state: 'capacity' })).toBe(48 * 1024 * 1024);
  expect(total(after, 'tilemirror_tile_cache_bytes', { state: 'used' })).toBeGreaterThan(0);
});

test('one store series per store file of the data directory, with its publication time', async () => {
  const samples = await scrape();
  const files: { key: string; mtime: number }[] = [];
  for (const kind of readdirSync(SAMPLE_DIR, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const f of readdirSync(join(SAMPLE_DIR, kind.name)).filter((n) => n.endsWith('.mbtiles'))) {
      files.push({ key: `${kind.name}/${f.slice(0, -'.mbtiles'.length)}`, mtime: statSync(join(SAMPLE_DIR, kind.name, f)).mtimeMs / 1000 });
    }
  }
  const info = select(samples, 'tilemirror_store_info');
  expect(info.map((s) => `${s.labels.kind}/${s.labels.id}`).sort()).toEqual(files.map((f) => f.key).sort());
  expect(info.every((s) => s.value === 1 && /^[A-Za-z0-9_-]{6,}$/.test(s.labels.version))).toBe(true);
  for (const f of files) {
    const [kind, id] = [f.key.slice(0, f.key.indexOf('/')), f.key.slice(f.key.indexOf('/') + 1)];
    const published = select(samples, 'tilemirror_store_published_timestamp_seconds', { kind, id });
    expect(published).toHaveLength(1);
    expect(Math.abs(published[0].value - f.mtime)).toBeLessThan(0.001);
  }
  expect(total(samples, 'tilemirror_stores', { state: 'open' })).toBe(files.length);
});

test("process metrics, the static-map queue and the failure counters are exposed", async () => {
  const samples = await scrape();
  for (const name of ['process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes', 'tilemirror_static_map_queue_waiting', 'tilemirror_handler_errors_total', 'tilemirror_store_open_failures_total']) {
    expect([name, select(samples, name).length]).toEqual([name, 1]);
  }
  expect(select(samples, 'tilemirror_static_map_renders_total').map((s) => s.labels.outcome).sort()).toEqual(['dropped', 'refused', 'started', 'stopped']);
  expect(total(samples, 'process_resident_memory_bytes')).toBeGreaterThan(10 * 1024 * 1024);
});

test('keys never reach the request log or /metrics (route labels are patterns)', async () => {
  const spellings = [`key=${KEY}`, `%6Bey=${KEY}`, `KEY=${KEY}`];
  for (const q of spellings) await rawGet(`${srv.url}/tiles/sample-vector/0/0/0.pbf?${q}`);
  await rawGet(`${srv.url}/metrics?key=${ADMIN}`);
  const text = (await rawGet(`${srv.url}/metrics?key=${ADMIN}`)).body.toString('utf8');
  expect(text).toContain('tilemirror_http_requests_total{route="/metrics"');
  for (const secret of [KEY, ADMIN, 'key=']) expect([secret, text.includes(secret)]).toEqual([secret, false]);
  // The log lines are JSON; the three spellings were logged, each with its value redacted.
  // pino writes asynchronously: wait for the lines of the requests above.
  await waitFor('the request log lines of the three spellings and /metrics', () => lines.some((l) => l.includes('%6Bey=***')) && lines.some((l) => l.includes('/metrics?key=***')));
  const parsed = lines.map((l) => JSON.parse(l) as { msg?: string; url?: string });
  const urls = parsed.filter((l) => l.msg === 'request').map((l) => l.url ?? '');
  expect(urls).toEqual(expect.arrayContaining(['/tiles/sample-vector/0/0/0.pbf?key=***', '/tiles/sample-vector/0/0/0.pbf?%6Bey=***', '/tiles/sample-vector/0/0/0.pbf?KEY=***', '/metrics?key=***']));
  for (const secret of [KEY, ADMIN]) expect([secret, lines.filter((l) => l.includes(secret))]).toEqual([secret, []]);
});

describe('who may read /metrics', () => {
  let open: TestServer;
  let proxied: TestServer;
  beforeAll(async () => {
    // Only 127.0.0.1, so other loopback addresses stand for remote clients.
    open = await startServer({ config: { ...serverConfig(), admin: { keys: [ADMIN] }, metrics: { allow: ['127.0.0.1'] } } });
    proxied = await startServer({ config: { ...serverConfig({ trustProxy: true, trustedProxies: ['127.0.0.9'] }), admin: { keys: [ADMIN] } } });
  });
  afterAll(async () => {
    await open.close();
    await proxied.close();
  });

  test('an allowed address reads it; another gets 403, unless it brings an admin key', async () => {
    expect((await getFrom(`${open.url}/metrics`, '127.0.0.1')).status).toBe(200);
    const denied = await getFrom(`${open.url}/metrics`, '127.0.0.2');
    expect(denied.status).toBe(403);
    expect(denied.text).not.toContain('tilemirror_');
    expect((await getFrom(`${open.url}/metrics?key=${KEY}`, '127.0.0.2')).status).toBe(403);
    expect((await getFrom(`${open.url}/metrics?key=${ADMIN}`, '127.0.0.2')).status).toBe(200);
  });

  test('a request forwarded by a proxy that is not trusted is not let in by the address of that proxy', async () => {
    expect((await getFrom(`${open.url}/metrics`, '127.0.0.1', { 'X-Forwarded-For': '203.0.113.7' })).status).toBe(403);
    expect((await getFrom(`${open.url}/metrics`, '127.0.0.1', { Forwarded: 'for=203.0.113.7' })).status).toBe(403);
    expect((await getFrom(`${open.url}/metrics?key=${ADMIN}`, '127.0.0.1', { 'X-Forwarded-For': '203.0.113.7' })).status).toBe(200);
  });

  test('through a trusted proxy, the client it names is checked (default allow: loopback)', async () => {
    expect((await getFrom(`${proxied.url}/metrics`, '127.0.0.9', { 'X-Forwarded-For': '203.0.113.7' })).status).toBe(403);
    expect((await getFrom(`${proxied.url}/metrics`, '127.0.0.9', { 'X-Forwarded-For': '127.0.0.3' })).status).toBe(200);
    // An untrusted peer's own header is ignored... and refused.
    expect((await getFrom(`${proxied.url}/metrics`, '127.0.0.4', { 'X-Forwarded-For': '127.0.0.3' })).status).toBe(403);
  });

  test('metrics.enabled: false: /metrics answers 404, tiles are served as ever', async () => {
    const off = await startServer({ config: { ...serverConfig(), metrics: { enabled: false } } });
    try {
      expect((await rawGet(`${off.url}/metrics`)).status).toBe(404);
      expect((await rawGet(`${off.url}/tiles/sample-vector/0/0/0.pbf?key=demo`)).status).toBe(200);
    } finally {
      await off.close();
    }
  });
});
