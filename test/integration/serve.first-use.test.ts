// `tilemirror serve` keeps out of memory what serving stored tiles does not use, and loads it on first use
// (docs/decisions/0021): sharp (static maps, derived raster tiles, terrain heights), the country names of every
// language (the coordinates index's build), the Redis lock client (schedules shared through Redis), undici (a
// mirror run), the terminal progress bar, PROJ, the IP database and the time zones. The real server over the
// sample, the files it has required read from the process itself (test/fixtures/loaded-modules.cjs, on SIGUSR2):
// after a pass over tiles, none of them; after a height and a static map, sharp and nothing else.

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startChildServer, type ChildServer } from '../helpers/child-server';
import { KEY, SAMPLE_DIR } from '../helpers/server';
import { tempDirs } from '../helpers/temp-dirs';
import { waitFor } from '../helpers/wait';

const PRELOAD = resolve(__dirname, '../fixtures/loaded-modules.cjs');
const { tempDir, removeTempDirs } = tempDirs('tilemirror-first-use-');

/** The packages, by the folder of node_modules they load from. */
const HEAVY = ['sharp', 'i18n-iso-countries', 'ioredis', '@sesamecare-oss/redlock', 'undici', 'cli-progress', 'proj-wasm', 'maxmind', 'geo-tz'];

let srv: ChildServer | undefined;
let out = '';
afterAll(async () => {
  await srv?.stop();
  removeTempDirs();
});

/** The packages of HEAVY the server has loaded now. */
async function loadedNow(): Promise<string[]> {
  const before = readLines().length;
  srv!.child.kill('SIGUSR2');
  const files = await waitFor('the server to list its modules', () => readLines()[before]);
  return HEAVY.filter((p) => files.some((f) => f.includes(`/node_modules/${p}/`)));
}

function readLines(): string[][] {
  try {
    return readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as string[]);
  } catch {
    return [];
  }
}

async function get(path: string): Promise<number> {
  const res = await fetch(`${srv!.url}${path}${path.includes('?') ? '&' : '?'}key=${KEY}`);
  await res.arrayBuffer();
  return res.status;
}

test('serving stored tiles loads none of them; a height and a static map load sharp', async () => {
  out = join(tempDir(), 'modules.jsonl');
  srv = await startChildServer(SAMPLE_DIR, {
    env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${PRELOAD}`.trim(), TILEMIRROR_TEST_MODULES_OUT: out },
  });
  for (const path of ['/maps/sample/0/0/0.png', '/maps/sample/3/4/2.png', '/tiles/sample-vector/0/0/0', '/health/ready']) {
    expect([path, await get(path)]).toEqual([path, 200]);
  }
  expect(await loadedNow()).toEqual([]);

  // A height decodes a terrain tile with sharp; a static map renders with it.
  expect(await get('/elevation/8,46.json')).toBe(200);
  expect(await loadedNow()).toEqual(['sharp']);
  expect(await get('/maps/sample/static/8.5,47.3,5/200x100.png')).toBe(200);
  expect(await loadedNow()).toEqual(['sharp']);
});
