// `serve --workers 2`: connections land on either worker, yet every scrape answers with the whole cluster's counts
// (the primary gathers both workers' registries), so counters do not jump with the worker that answers.

import { get } from 'node:http';
import { startChildServer, type ChildServer } from '../helpers/child-server';
import { parseMetrics, select, total } from '../helpers/prometheus';
import { KEY, SAMPLE_DIR } from '../helpers/server';
import { waitFor } from '../helpers/wait';

const TILE_ROUTE = '/tiles/:tilesId/:z/:x/:y([^/.@]+)[.:ext]';
let srv: ChildServer;

/** A GET on a connection of its own (no agent): the primary hands each new connection to the next worker. */
function freshGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

beforeAll(async () => {
  srv = await startChildServer(SAMPLE_DIR, { args: ['--workers', '2'] });
  await waitFor('both workers to serve', () => srv.logged('tilemirror serving').length === 2);
}, 60_000);
afterAll(() => srv?.stop());

test('every scrape, whichever worker answers it, counts the requests of both workers', async () => {
  for (let i = 0; i < 20; i++) expect((await freshGet(`${srv.url}/tiles/sample-vector/0/0/0.pbf?key=${KEY}`)).status).toBe(200);
  const scrapes = [];
  for (let i = 0; i < 4; i++) {
    const r = await freshGet(`${srv.url}/metrics`);
    expect(r.status).toBe(200);
    scrapes.push(parseMetrics(r.body));
  }
  for (const s of scrapes) {
    expect(total(s, 'tilemirror_http_requests_total', { route: TILE_ROUTE, code: '200' })).toBe(20);
    expect(total(s, 'tilemirror_http_request_duration_seconds_count', { route: TILE_ROUTE, class: '2xx' })).toBe(20);
    // One series per store, valued 1 (taken once, not summed over the workers).
    const info = select(s, 'tilemirror_store_info', { kind: 'tiles', id: 'sample-vector' });
    expect(info.map((x) => x.value)).toEqual([1]);
  }
  // The scrapes themselves are counted too, by the cluster: the last one saw the three before it.
  expect(total(scrapes[3], 'tilemirror_http_requests_total', { route: '/metrics', code: '200' })).toBe(3);
}, 60_000);
