// A mirror run's staging file is flushed to disk behind its commits (flush-behind.ts: a thread calling fdatasync),
// so the fsync before the publishing rename has little left to write. What the disk receives when cannot be read
// per file without timing it (/proc/self/io counts bytes as they are dirtied, not written); what is checked is
// when the flushing thread runs: not below FLUSH_BEHIND_BYTES committed, from then on, and no longer after close.
// The effect is measured by `npm run bench -- mirror` (the time from the last tile to the published store).

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { planPyramid } from '../../src/mirror/plan';
import { tilesOf } from '../../src/geo/tile-bands';
import { FLUSH_BEHIND_BYTES } from '../../src/store/flush-behind';
import { bootId, StagingStore, storePaths } from '../../src/store/staging';
import type { Bounds } from '../../src/store/types';

const bounds: Bounds = [-180, -85, 180, 85];
const header = { kind: 'tiles' as const, name: 't', pyramids: [{ name: 'main', tileSize: 256, scale: 1, format: 'png' as const, minzoom: 0, maxzoom: 6, bounds }] };
const plan = planPyramid('main', header.pyramids[0], [bounds], [0, 6]);
const TILE_BYTES = 20_000;

function threadCount(): number {
  return Number(/^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
}

async function threadsDownTo(count: number, withinMs: number): Promise<number> {
  const until = Date.now() + withinMs;
  while (threadCount() > count && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return threadCount();
}

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tm-flush-behind-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('flushing a staging file behind the commits', () => {
  test('this machine runs the journal mode that uses it (the boot can be told)', () => {
    expect(bootId()).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('below FLUSH_BEHIND_BYTES committed nothing starts; past it a thread flushes the file while the run goes on, until close', async () => {
    const paths = storePaths(dir, 'tiles', 't');
    mkdirSync(paths.dir, { recursive: true });
    const st = StagingStore.open({ paths, header, fingerprint: 'f', upstream: 'u', plans: [plan], planSignature: 'p' });
    try {
      const tiles = [...tilesOf(plan)];
      const below = Math.floor((FLUSH_BEHIND_BYTES * 0.5) / TILE_BYTES);
      const enough = Math.ceil((FLUSH_BEHIND_BYTES * 1.25) / TILE_BYTES);
      expect(tiles.length).toBeGreaterThan(enough);
      const data = randomBytes(TILE_BYTES);

      // Half the threshold: no thread is started to flush.
      const threads = threadCount();
      for (const t of tiles.slice(0, below)) void st.record(t, { data });
      st.flush();
      expect(threadCount()).toBe(threads);

      // Past it: a thread flushes.
      for (const t of tiles.slice(below, enough)) void st.record(t, { data });
      st.flush();
      expect(threadCount()).toBeGreaterThan(threads);

      // Closing stops it: the thread ends.
      st.close();
      expect(await threadsDownTo(threads, 10_000)).toBe(threads);
    } finally {
      st.close();
    }
  });
});
