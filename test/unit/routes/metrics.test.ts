// src/http/routes/metrics.ts in process: /metrics in the Prometheus text format for an allowed address (default
// loopback) or an admin key, 403 for anyone else (a request forwarded by an untrusted proxy included), 404 when
// metrics are off; the store series name every store file of the sample.

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as metrics from '../../../src/http/routes/metrics';
import { parseMetrics, select, total } from '../../helpers/prometheus';
import { failure, inProcess, patternsOf, PAID_KEY, SAMPLE_DIR, text } from '../../helpers/in-process';

const ADMIN = 'admin-key-for-metrics';
const TEXT = 'text/plain; charset=utf-8';
const DENIED = { status: 403, type: TEXT, message: 'Metrics are readable from the addresses of metrics.allow, or with an admin key' };

const app = inProcess({ config: { admin: { keys: [ADMIN] } } });
const only1 = inProcess({ config: { admin: { keys: [ADMIN] }, metrics: { allow: ['127.0.0.1'] } } });
const off = inProcess({ config: { metrics: { enabled: false } } });
afterAll(async () => {
  for (const a of [app, only1, off]) await a.close();
});

test('the route table gives metrics.ts its one pattern', () => {
  expect(patternsOf(metrics)).toEqual(['/metrics']);
});

test('from loopback: the Prometheus text format, never cached; one store series per store file, with its publication time', async () => {
  const r = await app.get('/metrics', { key: null });
  expect(r).toMatchObject({ status: 200, cache: 'none', headers: { 'Cache-Control': 'no-store' } });
  expect(r.type).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples = parseMetrics(text(r));
  const files: { kind: string; id: string; mtime: number }[] = [];
  for (const kind of readdirSync(SAMPLE_DIR, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const f of readdirSync(join(SAMPLE_DIR, kind.name)).filter((n) => n.endsWith('.mbtiles'))) {
      files.push({ kind: kind.name, id: f.slice(0, -'.mbtiles'.length), mtime: statSync(join(SAMPLE_DIR, kind.name, f)).mtimeMs / 1000 });
    }
  }
  expect(select(samples, 'tilemirror_store_info').map((s) => `${s.labels.kind}/${s.labels.id}`).sort()).toEqual(files.map((f) => `${f.kind}/${f.id}`).sort());
  for (const f of files) expect(Math.abs(total(samples, 'tilemirror_store_published_timestamp_seconds', { kind: f.kind, id: f.id }) - f.mtime)).toBeLessThan(0.001);
  expect(select(samples, 'tilemirror_static_map_renders_total').map((s) => s.labels.outcome).sort()).toEqual(['dropped', 'refused', 'started', 'stopped']);
  for (const name of ['process_resident_memory_bytes', 'tilemirror_handler_errors_total', 'tilemirror_store_open_failures_total']) expect([name, select(samples, name).length]).toEqual([name, 1]);
});

test('an address outside metrics.allow gets 403 unless it brings an admin key (an API key is not one)', async () => {
  expect((await only1.get('/metrics', { key: null, clientAddress: '127.0.0.1' })).status).toBe(200);
  expect(failure(await only1.get('/metrics', { key: null, clientAddress: '127.0.0.2' }))).toEqual(DENIED);
  expect(failure(await only1.get('/metrics', { key: PAID_KEY, clientAddress: '127.0.0.2' }))).toEqual(DENIED);
  expect((await only1.get('/metrics', { key: ADMIN, clientAddress: '127.0.0.2' })).status).toBe(200);
});

test('a request forwarded by a proxy that is not trusted is not let in by its address; through a trusted one the client it names is checked', async () => {
  expect(failure(await app.get('/metrics', { key: null, headers: { 'X-Forwarded-For': '203.0.113.7' } }))).toEqual(DENIED);
  expect(failure(await app.get('/metrics', { key: null, headers: { Forwarded: 'for=203.0.113.7' } }))).toEqual(DENIED);
  expect((await app.get('/metrics', { key: ADMIN, headers: { 'X-Forwarded-For': '203.0.113.7' } })).status).toBe(200);
  expect(failure(await app.get('/metrics', { key: null, trustedProxy: true, clientAddress: '203.0.113.7', headers: { 'X-Forwarded-For': '203.0.113.7' } }))).toEqual(DENIED);
  expect((await app.get('/metrics', { key: null, trustedProxy: true, clientAddress: '127.0.0.3', headers: { 'X-Forwarded-For': '127.0.0.3' } })).status).toBe(200);
});

test('metrics.enabled: false: /metrics answers 404', async () => {
  expect(failure(await off.get('/metrics', { key: null }))).toEqual({ status: 404, type: TEXT, message: 'Not found' });
});

test('every route of metrics.ts was reached, and nothing failed unexpectedly', () => {
  expect([...app.reached]).toEqual(expect.arrayContaining(patternsOf(metrics)));
  expect([app, only1, off].flatMap((a) => a.failures)).toEqual([]);
});
