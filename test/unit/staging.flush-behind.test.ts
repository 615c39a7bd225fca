// A mirror run's staging file is flushed to disk behind its commits (flush-behind.ts: a thread calling fdatasync),
// so the fsync before the publishing rename has little left to write. What the disk receives when cannot be read
// per file without timing it (/proc/self/io counts bytes as they are dirtied, not written); what is checked is
// when the flushing thread runs: not below FLUSH_BEHIND_BYTES committed, from then on, and no longer after close.
// The effect is measured by `npm run bench -- mirror` (the time from the last tile to the published store).
//
// Threads are counted in a fresh child process running the built code: in a jest worker, a thread left by an
// earlier test file could end in the middle and move the count.

import { execFileSync } from 'node:child_process';
import { built } from '../helpers/dist';
import { bootId } from '../../src/store/mbtiles/staging';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-flush-behind-');

const PROBE = `
const { readFileSync, mkdirSync } = require('node:fs');
const { randomBytes } = require('node:crypto');
const { planPyramid } = require(process.env.DIST + '/mirror/plan.js');
const { tilesOf } = require(process.env.DIST + '/geo/tile-bands.js');
const { FLUSH_BEHIND_BYTES } = require(process.env.DIST + '/store/mbtiles/flush-behind.js');
const { StagingStore, storePaths } = require(process.env.DIST + '/store/mbtiles/staging.js');
const threads = () => Number(/^Threads:\\s+(\\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
const bounds = [-180, -85, 180, 85];
const header = { kind: 'tiles', name: 't', pyramids: [{ name: 'main', tileSize: 256, scale: 1, format: 'png', minzoom: 0, maxzoom: 6, bounds }] };
const plan = planPyramid('main', header.pyramids[0], [bounds], [0, 6]);
const paths = storePaths(process.env.DIR, 'tiles', 't');
mkdirSync(paths.dir, { recursive: true });
const st = StagingStore.open({ paths, header, fingerprint: 'f', upstream: 'u', plans: [plan], planSignature: 'p' });
const TILE = 20000;
const data = randomBytes(TILE);
const tiles = [...tilesOf(plan)];
const half = Math.floor(FLUSH_BEHIND_BYTES / 2 / TILE);
const past = Math.ceil((FLUSH_BEHIND_BYTES * 1.25) / TILE);
const out = { tiles: tiles.length, past, start: threads() };
for (const t of tiles.slice(0, half)) void st.record(t, { data });
st.flush();
out.belowThreshold = threads();
for (const t of tiles.slice(half, past)) void st.record(t, { data });
st.flush();
out.pastThreshold = threads();
st.close();
const until = Date.now() + 10000;
(function wait() {
  out.afterClose = threads();
  if (out.afterClose > out.start && Date.now() < until) return setTimeout(wait, 50);
  process.stdout.write(JSON.stringify(out));
})();
`;

let dir = '';
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => removeTempDirs());

describe('flushing a staging file behind the commits', () => {
  test('this machine runs the journal mode that uses it (the boot can be told)', () => {
    expect(bootId()).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('below FLUSH_BEHIND_BYTES committed nothing starts; past it a thread flushes the file while the run goes on, until close', () => {
    const dist = built('store/mbtiles/staging.js').replace(/\/store\/mbtiles\/staging\.js$/, '');
    const out = JSON.parse(execFileSync(process.execPath, ['-e', PROBE], { env: { ...process.env, DIST: dist, DIR: dir }, encoding: 'utf8', timeout: 60_000 })) as {
      tiles: number;
      past: number;
      start: number;
      belowThreshold: number;
      pastThreshold: number;
      afterClose: number;
    };
    expect(out.tiles).toBeGreaterThan(out.past);
    expect(out.belowThreshold).toBe(out.start);
    expect(out.pastThreshold).toBe(out.start + 1);
    expect(out.afterClose).toBe(out.start);
  });
});
