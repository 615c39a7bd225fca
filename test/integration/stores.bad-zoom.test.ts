// A store whose zoom range no tile matrix set can describe (min above max, max above 30, negative min) used to be
// accepted, and then its own capabilities and every service-wide WMTS document answered 500. Now it is refused
// at open with one log line, and every other resource keeps being served.

import { join } from 'node:path';
import pino from 'pino';
import { Writable } from 'node:stream';
import { parseConfig } from '../../src/config/load';
import { startTilemirror, type Tilemirror } from '../../src/serve';
import { KEY, rawGet } from '../helpers/server';
import { BAD_ZOOM_RANGES, writeGoodVectorStore, writeHandMadeStore } from '../fixtures/hand-made-stores';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-zoom-');

let dir: string;
let srv: Tilemirror;
const lines: Record<string, unknown>[] = [];
const badIds = BAD_ZOOM_RANGES.map((_, i) => `bad-zoom-${i}`);

beforeAll(async () => {
  dir = tempDir();
  BAD_ZOOM_RANGES.forEach(([minzoom, maxzoom], i) => {
    writeHandMadeStore(join(dir, 'tiles', `${badIds[i]}.mbtiles`), { metadata: { format: 'png', minzoom, maxzoom } });
    writeHandMadeStore(join(dir, 'maps', `${badIds[i]}.mbtiles`), { metadata: { format: 'png', minzoom, maxzoom } });
  });
  writeGoodVectorStore(join(dir, 'tiles', 'good.mbtiles'));
  writeHandMadeStore(join(dir, 'maps', 'good-map.mbtiles'), { metadata: { format: 'png', minzoom: '0', maxzoom: '3' } });
  // A logger writing synchronously into memory: the lines are there as soon as the catalog has opened.
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const config = parseConfig({ server: { host: '127.0.0.1', port: 0, requestLog: false }, data: dir, keys: [{ key: KEY, plan: 'paid' }] }, 'test', process.cwd(), {});
  srv = await startTilemirror(config, pino({ level: 'info' }, sink));
});
afterAll(async () => {
  await srv?.close();
  removeTempDirs();
});

const get = (path: string) => rawGet(`${srv.url}${path}${path.includes('?') ? '&' : '?'}key=${KEY}`);

test('each bad store is refused at open with one log line naming its zoom range', () => {
  const skipped = lines.filter((l) => l.msg === 'store skipped');
  expect(skipped.map((l) => String(l.file).replace(`${dir}/`, '')).sort()).toEqual(
    badIds.flatMap((id) => [`maps/${id}.mbtiles`, `tiles/${id}.mbtiles`]).sort(),
  );
  expect(skipped.map((l) => l.err)).toEqual(expect.arrayContaining([expect.stringContaining('zoom range 12-10'), expect.stringContaining('zoom range 0-31'), expect.stringContaining('zoom range -1-5')]));
});

test.each(['/wmts/1.0.0/WMTSCapabilities.xml', '/wmts?SERVICE=WMTS&REQUEST=GetCapabilities'])('%s answers 200 with the good layers only', async (path) => {
  const r = await get(path);
  expect(r.status).toBe(200);
  const xml = r.body.toString();
  expect(xml).toContain('<ows:Identifier>tiles/good</ows:Identifier>');
  expect(xml).toContain('<ows:Identifier>maps/good-map/256</ows:Identifier>');
  for (const id of badIds) expect(xml).not.toContain(id);
});

test.each([
  ['/tiles/good/WMTSCapabilities.xml', 200],
  ['/tiles/good/tiles.json', 200],
  ['/tiles/good/0/0/0', 200],
  ['/maps/good-map/WMTSCapabilities.xml', 200],
  ['/ogc/collections', 200],
  ['/tiles/bad-zoom-0/WMTSCapabilities.xml', 404],
  ['/tiles/bad-zoom-1/tiles.json', 404],
  ['/maps/bad-zoom-2/WMTSCapabilities.xml', 404],
])('%s → %d', async (path, status) => {
  expect((await get(path)).status).toBe(status);
});
