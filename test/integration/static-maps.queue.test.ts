import { connect, type Socket } from 'node:net';
import sharp from 'sharp';
import { DEFAULTS, overlaySegments, overlaySvg, parsePath } from '../../src/services/static-maps';
import { rawGet, startServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';

// The static-map render queue: renders whose client went away do not run, the wait is bounded (503 with
// Retry-After), and a later small map waits for at most the render in progress. Asserted on counted work (renders
// started, dropped, refused), never on wall time.

let srv: TestServer;
let port: number;
beforeAll(async () => {
  srv = await startServer({ config: { staticMaps: { queue: 16 } } });
  port = Number(new URL(srv.url).port);
});
afterAll(() => srv.close());
const renderCounts = () => srv.server.services.staticMaps.renderCounts();

// Each takes the whole pixel budget (4096 x 4096 device pixels), so they run one at a time.
const HEAVY = '/maps/sample/static/0,0,1/2048x2048@2x.png?key=demo&attribution=false';
const SMALL = '/maps/sample/static/0,0,1/256x256.png?key=demo';

function openRequest(path: string): Socket {
  const s = connect(port, '127.0.0.1');
  s.on('error', () => undefined);
  s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  return s;
}

async function until(cond: () => boolean, what: string): Promise<void> {
  await waitFor(`${what} (render counts: ${JSON.stringify(renderCounts())} at the start)`, cond, { intervalMs: 10 });
}

test('abandoned renders: clients that sent heavy renders and left cost a later small map at most the render in progress', async () => {
  const before = renderCounts();
  const sockets = Array.from({ length: 8 }, () => openRequest(HEAVY));
  // All eight reached the queue: started (one, or more if one finished already) plus waiting.
  await until(() => renderCounts().started - before.started + renderCounts().waiting === 8, 'the 8 heavy renders to queue');
  const atLeave = renderCounts();
  expect(atLeave.waiting).toBeGreaterThanOrEqual(6); // the test means something: most of them were waiting
  for (const s of sockets) s.destroy();
  await until(() => renderCounts().waiting === 0, 'the queue to empty');

  const small = await rawGet(`${srv.url}${SMALL}`);
  expect(small.status).toBe(200);
  const after = renderCounts();
  // Those waiting when their clients left never started (at most one got its turn in the instant before its
  // close was seen); the small map is the only render started since, besides that one.
  expect(after.dropped - before.dropped).toBeGreaterThanOrEqual(atLeave.waiting - 1);
  expect(after.started - atLeave.started).toBeLessThanOrEqual(2);
  expect(after.started - atLeave.started).toBeGreaterThanOrEqual(1);
  expect(after.started - before.started + (after.dropped - before.dropped)).toBe(9);
}, 60_000);

test('beyond the queue bound a render is refused with 503 and Retry-After, the others are rendered', async () => {
  const tight = await startServer({ config: { staticMaps: { queue: 1 } } });
  const renderCounts = () => tight.server.services.staticMaps.renderCounts();
  try {
    const before = renderCounts();
    const answers = await Promise.all(Array.from({ length: 4 }, () => rawGet(`${tight.url}${HEAVY}`)));
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(answers.filter((a) => a.status === 200).length).toBe(4 - refused.length);
    for (const r of refused) {
      expect(r.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(r.body.toString()).toMatch(/Too many static maps waiting/);
    }
    expect(renderCounts().refused - before.refused).toBe(refused.length);
  } finally {
    await tight.close();
  }
}, 60_000);

test('a 900-vertex self-intersecting filled path of width 100 on a 4096 px image is drawn, at a bounded cost', async () => {
  // A deterministic zigzag across the world: every segment crosses many others.
  const pts = Array.from({ length: 900 }, (_, i) => `${((i * 37) % 121) - 60},${((i * 53) % 121) - 60}`);
  const path = `fill:red|width:100|${pts.join('|')}`;
  const r = await rawGet(`${srv.url}/maps/sample/static/0,0,1/2048x2048@2x.png?key=demo&path=${path}`);
  expect(r.status).toBe(200);
  const meta = await sharp(r.body).metadata();
  expect([meta.width, meta.height]).toEqual([4096, 4096]);
  // The path is drawn: compared with the same map without it, its area changed (the path spans a third of the
  // world, which fills half the image in height; ~10% measured).
  const plain = await rawGet(`${srv.url}/maps/sample/static/0,0,1/2048x2048@2x.png?key=demo`);
  const small = (b: Buffer) => sharp(b).resize(256, 256).removeAlpha().raw().toBuffer();
  const [a, b] = await Promise.all([small(r.body), small(plain.body)]);
  let changed = 0;
  for (let i = 0; i < a.length; i += 3) if (Math.max(Math.abs(a[i] - b[i]), Math.abs(a[i + 1] - b[i + 1]), Math.abs(a[i + 2] - b[i + 2])) > 60) changed++;
  expect(changed / (256 * 256)).toBeGreaterThan(0.05);
  // Many segments: the overlay is rasterized at most 1024 px across and scaled up (measured: 2.8 s instead of 19.7 s).
  const svg = overlaySvg({ x0: 0, y0: 0, world: 4096, width: 4096, height: 4096, scale: 2 }, [parsePath(path, false, { stroke: DEFAULTS.stroke, fill: DEFAULTS.fill, width: 1, shortest: false })], [], []);
  expect(overlaySegments(svg ?? '')).toBeGreaterThan(256);
}, 60_000);
