import { STATIC_MAP_400S } from '../fixtures/bad-requests';
import { rawGet, startServer, type TestServer } from '../helpers/server';

// Every rule of the static map endpoints answers with the spec's status and a plain-text message naming the bad part.

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ config: { keys: [{ key: 'demo', plan: 'paid' }, { key: 'freekey1', plan: 'free' }] } });
});
afterAll(() => srv.close());

async function get(path: string, key = 'demo') {
  const r = await rawGet(`${srv.url}${path}${path.includes('?') ? '&' : '?'}key=${key}`);
  return { status: r.status, type: r.headers['content-type'], text: r.body.toString('utf8') };
}

const OK = '/maps/sample/static/0,0,1/100x100.png';

test('a paid key renders; a free key gets 403; a missing or unknown key 403', async () => {
  expect((await get(OK)).status).toBe(200);
  const free = await get(OK, 'freekey1');
  expect(free.status).toBe(403);
  expect(free.text).toMatch(/free plan/);
  expect((await get(OK, 'nope1234')).status).toBe(403);
  expect((await rawGet(`${srv.url}${OK}`)).status).toBe(403);
});

test('an unknown map is 404', async () => {
  const r = await get('/maps/nowhere/static/0,0,1/100x100.png');
  expect(r.status).toBe(404);
  expect(r.text).toMatch(/Unknown map: nowhere/);
});

test('a URI above 8192 bytes is 414', async () => {
  const r = await get(`${OK}?path=${'1,1|'.repeat(2100)}1,1`);
  expect(r.status).toBe(414);
});

test.each(STATIC_MAP_400S)('%s is 400 (%s)', async (path, message) => {
  const r = await get(path);
  expect(r.status).toBe(400);
  expect(r.type).toMatch(/^text\/plain/);
  expect(r.text).toMatch(message);
});

test('at most 100 path and markers parameters', async () => {
  const many = await get(`${OK}?${Array.from({ length: 101 }, (_, i) => `markers=${i % 90},1`).join('&')}`);
  expect(many.status).toBe(400);
  expect(many.text).toMatch(/Too many path and markers parameters: 101/);
  // The 10,000-coordinate cap lies beyond what fits in 8192 bytes of URI; the unit tests check it directly.
});

test('latlng swaps the order of query coordinates', async () => {
  // lat 60 is fine as latitude; as a longitude/latitude pair "60,170" is latitude 170 -> 400 without latlng.
  expect((await get(`${OK}?markers=60,170`)).status).toBe(400);
  expect((await get(`${OK}?markers=60,170&latlng=true`)).status).toBe(200);
});
