// A staging file written without fsync (journal_mode = PERSIST, synchronous = OFF) is resumed only in the boot of
// the machine that wrote it: after a machine crash it may be torn in ways quick_check cannot see.

import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { planPyramid } from '../../src/mirror/plan';
import { tilesOf } from '../../src/geo/tile-bands';
import { bootId, StagingStore, STATE, storePaths } from '../../src/store/mbtiles/staging';
import type { Bounds } from '../../src/store/types';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-staging-boot-');

const bounds: Bounds = [-180, -85, 180, 85];
const header = { kind: 'tiles' as const, name: 't', pyramids: [{ name: 'main', tileSize: 256, scale: 1, format: 'png' as const, minzoom: 0, maxzoom: 2, bounds }] };
const plan = planPyramid('main', header.pyramids[0], [bounds], [0, 2]);
const png = Buffer.from('89504e470d0a1a0a', 'hex');

let dir = '';
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => removeTempDirs());

function open(): StagingStore {
  const paths = storePaths(dir, 'tiles', 't');
  mkdirSync(paths.dir, { recursive: true });
  return StagingStore.open({ paths, header, fingerprint: 'f', upstream: 'u', plans: [plan], planSignature: 'p' });
}

/** A first run that stores a few tiles and stops without publishing (as after SIGKILL: nothing settled). */
async function interruptedRun(): Promise<string> {
  const st = open();
  expect(st.origin).toBe('new');
  const some = [...tilesOf(plan)].slice(0, 5);
  await Promise.all(some.map((t) => st.record(t, { data: png }, { checkedAt: 1 })));
  st.close();
  return st.file;
}

const journalMode = (file: string): string => {
  const db = new Database(file);
  try {
    return db.pragma('journal_mode', { simple: true }) as string;
  } finally {
    db.close();
  }
};

describe('staging file and the boot of the machine', () => {
  const boot = bootId();

  test('this machine tells its boot (Linux), so the staging file is written with a persistent journal and the boot recorded', async () => {
    expect(boot).toMatch(/^[0-9a-f-]{36}$/);
    const file = await interruptedRun();
    // PERSIST belongs to the connection, not the file: what shows is the journal kept beside it, and no WAL.
    expect({ journal: existsSync(`${file}-journal`), wal: existsSync(`${file}-wal`) }).toEqual({ journal: true, wal: false });
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT value FROM tilemirror_mirror_state WHERE name = ?').pluck().get(STATE.unsyncedBoot)).toBe(boot);
    } finally {
      db.close();
    }
  });

  test('in the same boot an interrupted run is resumed with its tiles', async () => {
    await interruptedRun();
    const st = open();
    expect(st.origin).toBe('resumed');
    expect(st.countAll()).toBe(5);
    st.close();
  });

  test('written in another boot, it is discarded and the run starts again', async () => {
    const file = await interruptedRun();
    const db = new Database(file);
    db.prepare('UPDATE tilemirror_mirror_state SET value = ? WHERE name = ?').run('00000000-0000-0000-0000-000000000000', STATE.unsyncedBoot);
    db.close();
    const st = open();
    expect(st.origin).toBe('new');
    expect(st.countAll()).toBe(0);
    st.close();
  });

  test('settling leaves one self-contained file: plain rollback journal, no journal file beside it', async () => {
    const st = open();
    await st.record([...tilesOf(plan)][0], { data: png }, { checkedAt: 1 });
    expect(existsSync(`${st.file}-journal`)).toBe(true);
    st.settle();
    st.close();
    expect(existsSync(`${st.file}-journal`)).toBe(false);
    expect(journalMode(st.file)).toBe('delete');
  });
});
