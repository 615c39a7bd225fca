// PROJ threads (proj-pool.ts) under the Transformer: threads start only when the work needs them, pipelines asked
// for at once are built on different threads, each pipeline keeps running on the thread it was built on, and one
// thread crashing drops only its own pipelines. Real PROJ (proj-wasm), real registry index.

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { DEFAULT_INDEX_DIR } from '../../src/config/load';
import { type ProjHandle } from '../../src/services/coordinates/proj';
import { ProjPool } from '../../src/services/coordinates/proj-pool';
import { COORDINATES_INDEX } from '../../src/services/coordinates/registry-sql';
import { RegistrySearch } from '../../src/services/coordinates/search';
import { parsePoints, Transformer } from '../../src/services/coordinates/transform';

jest.setTimeout(120_000);

let db: Database.Database;
beforeAll(() => {
  db = new Database(join(DEFAULT_INDEX_DIR, COORDINATES_INDEX), { readonly: true, fileMustExist: true });
});
afterAll(() => db.close());

// The spec's documented example (4326 → 5514), and IOGP GN 7-2's LAEA example (4326 → 3035), to 1 cm.
const S_JTSK = { text: '17,50', x: -560595.699, y: -1074706.257 };
const LAEA = { text: '5,50', x: 3962799.45, y: 2999718.85 };

async function expectAnswer(transformer: Transformer, t: number, want: { text: string; x: number; y: number }): Promise<void> {
  const [r] = (await transformer.transform(parsePoints(want.text), 4326, t)).results;
  expect(Math.abs(r.x - want.x)).toBeLessThan(0.01);
  expect(Math.abs(r.y - want.y)).toBeLessThan(0.01);
}

test('one thread for work one at a time; a second one only when two pipelines are built at once', async () => {
  const pool = new ProjPool({ threads: 2 });
  try {
    const transformer = new Transformer(pool, new RegistrySearch(db));
    expect(pool.threads.length).toBe(0); // nothing started before the first call
    await expectAnswer(transformer, 5514, S_JTSK);
    await expectAnswer(transformer, 3035, LAEA);
    expect(pool.threads.length).toBe(1);
    // Two new pipelines at once (ETRS89 / LCC Europe, WGS 84 / UTM 33N): the second starts a second thread.
    const answers = await Promise.all([3034, 32633].map((t) => transformer.transform(parsePoints('17,50'), 4326, t)));
    expect(answers.map((a) => a.results.length)).toEqual([1, 1]);
    expect(pool.threads.length).toBe(2);
  } finally {
    await pool.close();
  }
});

test('a thread that crashes drops only its own pipelines: the other thread keeps answering from its own', async () => {
  const pool = new ProjPool({ threads: 2 });
  try {
    const transformer = new Transformer(pool, new RegistrySearch(db));
    // Built at once: the first on thread 0, the second on thread 1 (thread 0 is busy when it is asked for).
    await Promise.all([expectAnswer(transformer, 5514, S_JTSK), expectAnswer(transformer, 3035, LAEA)]);
    const [a, b] = pool.threads;
    expect(b).toBeDefined();
    const generations = [a.generation, b.generation];
    // Thread 0 exits in the middle of a synchronous transform (one of its own operations: 4326 → 4326).
    const wgs84 = (await a.fromDatabase(4326, 'crs')) as ProjHandle;
    const { op } = await a.defaultOperation(wgs84, wgs84, false);
    await a.release([wgs84]);
    await expect(a.crashForTest([op as ProjHandle], new Float64Array([17, 50, 0, 0]))).rejects.toThrow('PROJ stopped');
    expect(a.generation).toBe(generations[0] + 1);
    // Thread 1's pipeline is still there: answered by thread 1 (through its slot), nothing rebuilt; a rebuild would
    // have taken the idle thread 0 (the first of the least busy) and restarted it.
    const calls = b.stats.sync + b.stats.messages;
    for (let i = 0; i < 10; i++) await expectAnswer(transformer, 3035, LAEA);
    expect(b.stats.sync + b.stats.messages).toBe(calls + 10);
    expect(a.stats.restarts).toBe(0);
    expect(b.generation).toBe(generations[1]);
    // Thread 0's pipeline died with it: built again (thread 0 restarts, idle and first), and answers as before.
    await expectAnswer(transformer, 5514, S_JTSK);
    expect(a.stats.restarts).toBe(1);
    expect(b.generation).toBe(generations[1]);
  } finally {
    await pool.close();
  }
});
