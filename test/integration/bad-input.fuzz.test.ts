import { rawGet, startServer, type TestServer } from '../helpers/server';

// Bad input never hurts: thousands of malformed requests over every route shape (seeded, so a failure replays)
// get an answer below 500, and the server still serves a good request afterwards.

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(() => srv.close());

/** mulberry32: a tiny seeded PRNG, so the same requests go out on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const JUNK = ['', 'a', '-1', '1.5', '1e9', '%00', '%E0%A4%A', '..', '%2e%2e', '99999999999999999999', 'NaN', 'Infinity', '0x10',
  '%20', 'sample', '@2x', '@3x', '256', '{z}', '%3Cscript%3E', "'", '%22', '%5C', '%2F', ';', ',', '0,0,0', '1,2,3,4', 'auto', '512x512',
  '0x0', '3000x3000', 'enc:_p~iF~ps|U', 'icon:http://x/y.png', 'fill:red|0,0', 'png', 'json', 'pbf', 'basis', 'webp'];
type Shape = (a: string, b: string, c: string, d: string) => string;
const SHAPES: Shape[] = [
  (a, b, c, d) => `/maps/${a}/${b}/${c}/${d}.png`,
  (a, b, c, d) => `/maps/sample/${a}/${b}/${c}${d}.png`,
  (a, b, c, d) => `/maps/sample/256/${a}/${b}/${c}.${d}`,
  (a, b, c, d) => `/tiles/${a}/${b}/${c}/${d}`,
  (a, b, c, d) => `/tiles/sample-vector/${a}/${b}/${c}.${d}`,
  (a, b, c) => `/images/sample-image/${a}/${b}/${c}`,
  (a, b, c) => `/fonts/${a}/${b}-${c}.pbf`,
  (a, b, c) => `/sprites/${a}/sprite${b}.${c}`,
  (a, b, c, d) => `/maps/sample/static/${a}/${b}${c}.${d}`,
  (a, b, c, d) => `/maps/sample/static/auto/256x256.png?path=${a}|${b}&markers=${c},${d}`,
  (a, b, c, d) => `/maps/sample/static/0,0,${a}/64x64.png?markers=icon:${b}|${c},${d}&padding=${a}&attribution=${b}`,
  (a, b, c, d) => `/wmts?SERVICE=WMTS&REQUEST=${a}&LAYER=${b}&TILEMATRIXSET=${c}&TILEMATRIX=${d}&TILEROW=0&TILECOL=0&FORMAT=${a}`,
  (a, b, c, d) => `/ogc/collections/${a}/map/tiles/${b}/${c}/${d}/0`,
  (a) => `/ogc/tileMatrixSets/${a}`,
  (a) => `/data/${a}/features.json`,
  (a) => `/maps/${a}/style.json`,
  (a, b) => `/maps/sample/sprite${a}.${b}`,
  (a, b, c, d) => `/${a}/${b}/${c}/${d}`,
  (a, b) => `/maps/${a}/${b}/tiles.json`,
  (a, b) => `/${a}/${b}/WMTSCapabilities.xml?request=${a}`,
];

test('2,000 malformed requests over every route shape: no 5xx, no dropped connection, the server still serves', async () => {
  const random = rng(20261121);
  const pick = (): string => JUNK[Math.floor(random() * JUNK.length)];
  const failures: string[] = [];
  for (let i = 0; i < 2000; i++) {
    const path = SHAPES[i % SHAPES.length](pick(), pick(), pick(), pick());
    const url = `${srv.url}${path}${path.includes('?') ? '&' : '?'}key=demo`;
    try {
      const r = await rawGet(url);
      if (r.status >= 500) failures.push(`${r.status} ${path}`);
    } catch (err) {
      failures.push(`${(err as Error).message} ${path}`);
    }
  }
  expect(failures).toEqual([]);
  expect((await rawGet(`${srv.url}/maps/sample/0/0/0.png?key=demo`)).status).toBe(200);
}, 120_000);
