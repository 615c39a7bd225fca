// Readers during a refresh: while a mirror run revalidates and republishes a store whose upstream changed, clients
// keep reading tiles from a server on the same data directory. Every answer is a complete version: 200 with
// either the old or the new bytes of that tile, never an error or a 404; once a reader has seen a new tile it
// never sees an old one again (readers walk all changed tiles in turn, so a half-switched store would show as
// old after new).

import { createHash } from 'node:crypto';
import { runMirror } from '../../src/mirror/engine/run';
import type { MirrorOptions } from '../../src/mirror/engine/options';
import { startSimulator, type UpstreamSimulator } from '../fixtures/upstream-simulator';
import { KEY, rawGet, startServer, type TestServer } from '../helpers/server';
import { waitFor, waitForStatus } from '../helpers/wait';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-readers-');

let upstream: TestServer;
let sim: UpstreamSimulator;
let served: TestServer;
let data: string;

beforeAll(async () => {
  upstream = await startServer();
  sim = await startSimulator(upstream.url);
  data = tempDir();
  served = await startServer({ dataDir: data });
});
afterAll(async () => {
  await served?.close();
  await sim?.close();
  await upstream?.close();
  removeTempDirs();
});

const opts = (extra: Partial<MirrorOptions> = {}): MirrorOptions => ({
  upstream: sim.url,
  key: KEY,
  dataDir: data,
  resource: 'maps/sample',
  zoom: [0, 3],
  concurrency: 4,
  ...extra,
});
const hash = (b: Buffer): string => createHash('sha1').update(b).digest('hex').slice(0, 12);

// The changed upstream: every z2 and z3 tile of the 512 px pyramid shows its horizontally mirrored neighbour.
const changed: string[] = [];
for (const z of [2, 3]) for (let x = 0; x < 2 ** z; x++) for (let y = 0; y < 2 ** z; y++) changed.push(`/maps/sample/${z}/${x}/${y}.png`);
const source = (p: string): string => {
  const [z, x, y] = p.replace('/maps/sample/', '').replace('.png', '').split('/').map(Number);
  return `/maps/sample/${z}/${2 ** z - 1 - x}/${y}.png`;
};

test('a client reading during a refresh only ever sees complete versions', async () => {
  expect((await runMirror(opts())).status).toBe('published');
  const oldBytes = new Map<string, string>();
  const newBytes = new Map<string, string>();
  for (const p of changed) {
    oldBytes.set(p, hash((await rawGet(`${upstream.url}${p}?key=${KEY}`)).body));
    newBytes.set(p, hash((await rawGet(`${upstream.url}${source(p)}?key=${KEY}`)).body));
  }
  // Only tiles whose bytes really change tell versions apart (ocean tiles may equal their neighbours).
  const telling = changed.filter((p) => oldBytes.get(p) !== newBytes.get(p));
  expect(telling.length).toBeGreaterThan(20);
  // Serving the first version already.
  await waitForStatus(`${served.url}${telling[0]}?key=${KEY}`);

  sim.options.override = (p) => (changed.includes(p) ? { from: source(p) } : undefined);
  type Seen = { reader: number; seq: number; path: string; status: number; which: 'old' | 'new' | 'other' };
  const seen: Seen[] = [];
  let stop = false;
  const reader = async (id: number): Promise<void> => {
    for (let seq = 0, i = id; !stop; seq++, i += 7) {
      const path = telling[i % telling.length];
      const res = await rawGet(`${served.url}${path}?key=${KEY}`);
      const h = res.status === 200 ? hash(res.body) : '';
      const which = h === oldBytes.get(path) ? 'old' : h === newBytes.get(path) ? 'new' : 'other';
      seen.push({ reader: id, seq, path, status: res.status, which });
    }
  };
  const readers = Array.from({ length: 4 }, (_, i) => reader(i));
  // Slow enough (rate-limited) that readers read all through the run.
  const result = await runMirror(opts({ maxAge: 0, rate: 300 }));
  expect(result).toMatchObject({ status: 'published', failed: 0 });
  expect(result.writes).toBe(telling.length);
  // Until every reader has read the new version (the catalog reloads in the background): counted, not timed.
  await waitFor('every reader to see the new version', () =>
    [0, 1, 2, 3].every((id) => seen.some((x) => x.reader === id && x.which === 'new')),
  );
  stop = true;
  await Promise.all(readers);
  sim.options.override = undefined;

  expect(seen.filter((s) => s.status !== 200 || s.which === 'other')).toEqual([]);
  // Per reader: old ... old, new ... new.
  for (let id = 0; id < 4; id++) {
    const mine = seen.filter((s) => s.reader === id).map((s) => s.which);
    const firstNew = mine.indexOf('new');
    expect(firstNew).toBeGreaterThan(0);
    expect(mine.slice(firstNew).includes('old')).toBe(false);
  }
  const olds = seen.filter((s) => s.which === 'old').length;
  // eslint-disable-next-line no-console
  console.log(`readers: ${seen.length} reads (${olds} old, ${seen.length - olds} new) during a ${result.elapsedMs} ms refresh of ${result.planned} tiles`);
  expect(olds).toBeGreaterThan(50);
});
