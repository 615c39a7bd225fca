// Issue 8, item 9: the key is whatever parameter URLSearchParams decodes to `key` (`%6Bey=`, `k%65y=`,
// `%6B%65%79=`), and whatever spelling was sent, the request log never holds it (the admin key neither); no
// redirect of the static assets repeats the query (serve-static's directory redirect put the key in Location and
// the body).

import { Writable } from 'node:stream';
import pino from 'pino';
import { parseConfig } from '../../src/config/load';
import { registerPlainLogger } from '../../src/http/request-log';
import { startTilemirror, type Tilemirror } from '../../src/serve';
import { rawGet, SAMPLE_DIR } from '../helpers/server';

const KEY = 'sekrit-tile-key-4711';
const ADMIN = 'sekrit-admin-key-0815';

let srv: Tilemirror;
const lines: string[] = [];

beforeAll(async () => {
  const config = parseConfig(
    {
      server: { host: '127.0.0.1', port: 0, requestLog: true },
      data: SAMPLE_DIR,
      render: { keep: false },
      keys: [{ key: KEY, plan: 'paid' }],
      admin: { keys: [ADMIN] },
      logLevel: 'info',
    },
    'test',
    process.cwd(),
    {},
  );
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  // Registered as createLogger registers its own: the request lines take the direct path (request-log.ts).
  const log = pino({ level: 'info', base: undefined }, sink);
  registerPlainLogger(log, sink);
  srv = await startTilemirror(config, log);
}, 30_000);
afterAll(() => srv.close());

/** Request log lines whose url starts with `path`. */
const logged = (path: string): string[] =>
  lines.filter((l) => (JSON.parse(l) as { msg?: string; url?: string }).msg === 'request' && ((JSON.parse(l) as { url?: string }).url ?? '').startsWith(path));

describe('spellings of the key parameter', () => {
  test.each([
    ['key', 200],
    ['%6Bey', 200],
    ['k%65y', 200],
    ['%6B%65%79', 200],
    ['%6b%65%79', 200],
    // Parameter names are case-sensitive: these are not the key.
    ['KEY', 403],
    ['Key', 403],
    ['%4Bey', 403],
  ])('?%s= answers %d, and the log line hides the value', async (name, status) => {
    const path = `/tiles/sample-vector/0/0/0?${name}=${KEY}`;
    const before = logged('/tiles/sample-vector/0/0/0').length;
    const r = await rawGet(`${srv.url}${path}`);
    expect(r.status).toBe(status);
    const mine = logged('/tiles/sample-vector/0/0/0').slice(before);
    expect(mine).toHaveLength(1);
    expect(JSON.parse(mine[0]).url).toBe(`/tiles/sample-vector/0/0/0?${name}=***`);
  });

  test('the first parameter that decodes to key is the key, on the fast path as on the general one', async () => {
    expect((await rawGet(`${srv.url}/tiles/sample-vector/0/0/0?%6Bey=${KEY}&key=wrong-key`)).status).toBe(200);
    expect((await rawGet(`${srv.url}/tiles/sample-vector/0/0/0?%6Bey=wrong-key&key=${KEY}`)).status).toBe(403);
    expect((await rawGet(`${srv.url}/tiles/sample-vector/0/0/0?x=1&key=${KEY}&key=wrong-key`)).status).toBe(200);
  });

  test('the admin key, however spelled, is accepted and never logged', async () => {
    for (const name of ['key', '%6Bey', '%6B%65%79']) {
      const r = await rawGet(`${srv.url}/admin/status.json?${name}=${ADMIN}`);
      expect(r.status).toBe(200);
    }
    const mine = logged('/admin/status.json');
    expect(mine).toHaveLength(3);
    expect(mine.map((l) => JSON.parse(l).url)).toEqual(['/admin/status.json?key=***', '/admin/status.json?%6Bey=***', '/admin/status.json?%6B%65%79=***']);
  });

  test('no log line anywhere holds either key', () => {
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.filter((l) => l.includes(KEY) || l.includes(ADMIN) || l.includes('sekrit'))).toEqual([]);
  });
});

describe('static assets never redirect with the query', () => {
  test.each([
    '/assets/maplibre-gl/x/..%2f',
    '/assets/maplibre-gl/x/..%2F',
    '/assets/maplibre-gl',
    '/assets/maplibre-gl/',
    '/assets/swagger-ui',
    '/assets/maplibre-gl/%2e%2e/',
  ])('%s?key=… answers without Location, and no body holds the key', async (path) => {
    const r = await rawGet(`${srv.url}${path}?key=${KEY}`);
    expect(r.status).not.toBe(301);
    expect(r.status).toBeLessThan(500);
    expect(r.headers.location).toBeUndefined();
    expect(r.body.toString('latin1')).not.toContain(KEY);
  });

  test('the asset files themselves are still served', async () => {
    const r = await rawGet(`${srv.url}/assets/maplibre-gl/maplibre-gl.css?key=${KEY}`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/css/);
  });
});
