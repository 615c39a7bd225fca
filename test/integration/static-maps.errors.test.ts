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

test.each([
  // area: out of bounds and malformed numbers
  ['/maps/sample/static/0,86,1/100x100.png', /latitude 86/],
  ['/maps/sample/static/181,0,1/100x100.png', /longitude 181/],
  ['/maps/sample/static/0,0,-1/100x100.png', /zoom -1/],
  ['/maps/sample/static/0,0,7.5/100x100.png', /zoom 7.5 is outside/],
  ['/maps/sample/static/1e400,0,1/100x100.png', /Invalid longitude: "1e400"/],
  ['/maps/sample/static/NaN,0,1/100x100.png', /Invalid longitude/],
  ['/maps/sample/static/0,Infinity,1/100x100.png', /Invalid latitude/],
  ['/maps/sample/static/0x10,0,1/100x100.png', /Invalid longitude/],
  ['/maps/sample/static/0,0/100x100.png', /Invalid area/],
  ['/maps/sample/static/10,0,5,10/100x100.png', /minx 10 must be less than maxx 5/],
  ['/maps/sample/static/0,10,5,10/100x100.png', /miny 10 must be less than maxy 10/],
  ['/maps/sample/static/-10,-86,10,0/100x100.png', /latitude -86/],
  // size, scale, format
  ['/maps/sample/static/0,0,1/0x100.png', /width 0/],
  ['/maps/sample/static/0,0,1/100x2049.png', /height 2049/],
  ['/maps/sample/static/0,0,1/10.5x100.png', /Invalid image size/],
  ['/maps/sample/static/0,0,1/100x100@3x.png', /only @2x/],
  ['/maps/sample/static/0,0,1/100x100.gif', /Invalid format "gif"/],
  ['/maps/sample/static/0,0,1/100x100.pbf', /Invalid format/],
  // path grammar
  ['/maps/sample/static/0,0,1/100x100.png?path=1,1', /Invalid path: expected at least two coordinate pairs/],
  ['/maps/sample/static/0,0,1/100x100.png?path=', /Invalid path: expected at least two coordinate pairs/],
  ['/maps/sample/static/0,0,1/100x100.png?path=bar:1|1,1|2,2', /Invalid path prefix "bar"/],
  ['/maps/sample/static/0,0,1/100x100.png?path=stroke:notacolour|1,1|2,2', /Invalid path stroke "notacolour"/],
  ['/maps/sample/static/0,0,1/100x100.png?path=width:-1|1,1|2,2', /Invalid path width -1/],
  ['/maps/sample/static/0,0,1/100x100.png?path=width:1|width:2|1,1|2,2', /prefix "width" given twice/],
  ['/maps/sample/static/0,0,1/100x100.png?path=1,1|2', /not a coordinate pair/],
  ['/maps/sample/static/0,0,1/100x100.png?path=1,1|2,abc', /Invalid path coordinate: "abc"/],
  ['/maps/sample/static/0,0,1/100x100.png?path=1,1|200,2', /longitude 200/],
  ['/maps/sample/static/0,0,1/100x100.png?path=enc:%20%20', /not an encoded polyline/],
  ['/maps/sample/static/0,0,1/100x100.png?path=enc:_p~iF~ps|U_', /not an encoded polyline/],
  ['/maps/sample/static/0,0,1/100x100.png?encodedpath=_p', /Invalid encodedpath/],
  // markers grammar
  ['/maps/sample/static/0,0,1/100x100.png?markers=foo:1|1,1', /Invalid markers prefix "foo"/],
  ['/maps/sample/static/0,0,1/100x100.png?markers=icon:x', /expected at least one marker entry/],
  ['/maps/sample/static/0,0,1/100x100.png?markers=1', /Invalid markers entry "1"/],
  ['/maps/sample/static/0,0,1/100x100.png?markers=1,90', /latitude 90/],
  ['/maps/sample/static/0,0,1/100x100.png?markers=anchor:middle|1,1', /Invalid markers anchor "middle"/],
  ['/maps/sample/static/0,0,1/100x100.png?markers=scale:0|1,1', /Invalid markers scale 0/],
  ['/maps/sample/static/0,0,1/100x100.png?markers=icon:https://example.com/pin.png|1,1', /never fetched from URLs/],
  ['/maps/sample/static/0,0,1/100x100.png?markers=icon:nosuchicon|1,1', /Invalid markers icon "nosuchicon"/],
  ['/maps/sample/static/0,0,1/100x100.png?markers=icon:images/nosuchimage|1,1', /no mirrored image/],
  // other query parameters
  ['/maps/sample/static/auto/100x100.png', /give at least one path or marker/],
  ['/maps/sample/static/auto/100x100.png?padding=0.5&markers=1,1', /Invalid padding 0.5/],
  ['/maps/sample/static/auto/100x100.png?padding=1e-1&markers=1,1', /Invalid padding/],
  ['/maps/sample/static/0,0,1/100x100.png?attribution=middle', /Invalid attribution "middle"/],
  ['/maps/sample/static/0,0,1/100x100.png?latlng=maybe', /Invalid latlng/],
  ['/maps/sample/static/0,0,1/100x100.png?shortest=2', /Invalid shortest/],
  ['/maps/sample/static/0,0,1/100x100.png?stroke=nope', /Invalid stroke "nope"/],
  ['/maps/sample/static/0,0,1/100x100.png?width=1e3', /Invalid width/],
])('%s is 400 (%s)', async (path, message) => {
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
