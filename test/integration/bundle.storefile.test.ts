// Whole stores travel as their SQLite file (layout `sqlite`, bundle format 2), through the real CLI:
//  - what the exporting side's file holds besides content (the mirror's state with the upstream's address, a view,
//    a trigger, a table of its own) does not reach the other side, and every content row does;
//  - a bundle whose hashes match but whose store file is damaged, or disagrees with its manifest, is refused and
//    nothing changes (such a bundle is crafted here: the parts' SHA-256 recomputed after the damage, as an attacker
//    would, unsigned);
//  - a store in WAL mode, and MBTiles files made elsewhere (a `tiles` view over de-duplicated tables, a plain table
//    without the unique index), travel as records and arrive in our schema; a format-1 bundle (records only, no
//    `layout`) still imports; a manifest that claims an incremental store file is refused.

import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bytesFor, cli, contentRows, expectSameStores, writeSourceStores } from '../fixtures/bundle-stores';
import { openMapTilesStyle } from '../fixtures/foreign-mbtiles';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-bundle-file-');

let root: string;
let src: string;

beforeAll(() => {
  root = tempDir();
  src = join(root, 'src');
  writeSourceStores(src);
  // What a mirrored store carries besides its content, and what a hand-made file could.
  const db = new Database(join(src, 'maps', 'm.mbtiles'));
  db.exec(`
    CREATE TABLE tilemirror_mirror_state (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    INSERT INTO tilemirror_mirror_state VALUES ('upstream', 'https://upstream.example/internal/maps/m');
    CREATE TABLE notes (t TEXT);
    CREATE VIEW every_tile AS SELECT * FROM tiles;
    CREATE TRIGGER no_delete BEFORE DELETE ON tiles BEGIN SELECT RAISE(ABORT, 'no'); END;
  `);
  db.close();
});

afterAll(() => removeTempDirs());

const objectsOf = (file: string): string[] => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT type || ' ' || name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY 1").pluck().all() as string[]);
  } finally {
    db.close();
  }
};

interface FolderManifest {
  formatVersion: number;
  partSize: number;
  parts: { name: string; size: number; sha256: string }[];
  stores: { kind: string; id: string; mode: string; layout?: string; header: { metadata: [string, string | null][] }; payload: { offset: number; length: number } }[];
}

const manifestOf = (folder: string): FolderManifest => JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as FolderManifest;

/** Writes the manifest back with every part's SHA-256 recomputed (node:crypto over the files as they are now). */
function rehash(folder: string, m: FolderManifest): void {
  for (const p of m.parts) p.sha256 = createHash('sha256').update(readFileSync(join(folder, p.name))).digest('hex');
  writeFileSync(join(folder, 'manifest.json'), JSON.stringify(m));
}

/** Overwrites payload bytes at `pos` (across parts) with `bytes`. */
function overwrite(folder: string, m: FolderManifest, pos: number, bytes: Buffer): void {
  for (let i = 0; i < bytes.length; i++) {
    const at = pos + i;
    const part = join(folder, m.parts[Math.floor(at / m.partSize)].name);
    const data = readFileSync(part);
    data[at % m.partSize] = bytes[i];
    writeFileSync(part, data);
  }
}

const exportFolder = (name: string, resources: string[], env: Record<string, string> = {}): { folder: string; stderr: string } => {
  const folder = join(root, name);
  const r = cli(['export', '--data', src, '--out', folder, '--part-size', '16K', ...resources], env);
  expect(r.code).toBe(0);
  return { folder, stderr: r.stderr };
};

test('a full bundle carries each store as its file; only content reaches the other side', () => {
  const { folder, stderr } = exportFolder('full.parts', []);
  expect(stderr).toMatch(/maps\/m: \w+ whole \(its SQLite file\): 106 tiles, 1 documents/);
  const m = manifestOf(folder);
  expect(m.formatVersion).toBe(2);
  expect(m.stores.map((s) => `${s.kind}/${s.id} ${s.mode} ${s.layout}`)).toEqual(['tiles/t full sqlite', 'maps/m full sqlite', 'fonts/Test Sans full sqlite']);
  const dst = join(root, 'dst');
  const r = cli(['import', '--data', dst, folder]);
  expect(r.stderr).toContain("maps/m: now at version");
  expect(r.code).toBe(0);
  expectSameStores(src, dst);
  expect(objectsOf(join(dst, 'maps', 'm.mbtiles'))).toEqual([
    'index metadata_name',
    'index tile_index',
    'table metadata',
    'table tilemirror_documents',
    'table tilemirror_pyramids',
    'table tilemirror_tiles',
    'table tiles',
  ]);
  expect(readFileSync(join(dst, 'maps', 'm.mbtiles')).includes('upstream.example')).toBe(false);
  expect(readdirSync(join(dst, 'maps'))).toEqual(['m.mbtiles']);
});

/** Imports `folder` into a new data directory: expects `message`, and nothing left behind (not even the folder). */
function expectRefused(folder: string, message: RegExp): void {
  const dst = join(root, `refused-${Math.random().toString(36).slice(2)}`);
  const r = cli(['import', '--data', dst, folder]);
  expect(r.stderr).toMatch(message);
  expect(r.code).toBe(1);
  expect(existsSync(dst)).toBe(false);
}

test('a store file damaged inside (hashes recomputed, as a forger would) is refused by quick_check: nothing changes', () => {
  const { folder } = exportFolder('damaged.parts', ['tiles/t']);
  const m = manifestOf(folder);
  // The first byte of the tiles table's root page (its page type): a count of the tiles goes through the index and
  // never sees it; SQLite's quick_check does.
  const db = new Database(join(src, 'tiles', 't.mbtiles'), { readonly: true });
  const root = db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'tiles'").pluck().get() as number;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  db.close();
  overwrite(folder, m, m.stores[0].payload.offset + (root - 1) * pageSize, Buffer.from([0x00]));
  rehash(folder, m);
  expectRefused(folder, /tiles\/t: the store file in the bundle is refused: the database is damaged \(quick_check: .+\); not published/);
});

test('a store file that is not a database, or disagrees with its manifest, is refused: nothing changes', () => {
  const garbage = exportFolder('garbage.parts', ['tiles/t']);
  const g = manifestOf(garbage.folder);
  overwrite(garbage.folder, g, g.stores[0].payload.offset, Buffer.from('not a database at all'));
  rehash(garbage.folder, g);
  expectRefused(garbage.folder, /tiles\/t: the store file in the bundle is refused: not a SQLite database|tiles\/t: the store file in the bundle is refused: it cannot be read as a store/);

  const renamed = exportFolder('renamed.parts', ['tiles/t']);
  const r = manifestOf(renamed.folder);
  r.stores[0].header.metadata = r.stores[0].header.metadata.map(([k, v]) => [k, k === 'name' ? 'another name' : v]);
  rehash(renamed.folder, r);
  expectRefused(renamed.folder, /tiles\/t: the store file in the bundle is refused: its metadata, pyramids or tables differ from the manifest; not published/);
});

test('a manifest claiming an incremental store file, or a store file in format 1, is refused', () => {
  for (const [name, change] of [
    ['incremental-file.parts', (s: FolderManifest) => (s.stores[0].mode = 'incremental')],
    ['v1-file.parts', (s: FolderManifest) => (s.formatVersion = 1)],
  ] as const) {
    const { folder } = exportFolder(name, ['tiles/t']);
    const m = manifestOf(folder);
    change(m);
    writeFileSync(join(folder, 'manifest.json'), JSON.stringify(m));
    expectRefused(folder, /tiles\/t: a store as its SQLite file is always a full copy, of format 2 or later/);
  }
});

test('a store in WAL mode travels as records, and a format-1 bundle (records, no layout) still imports', () => {
  const wal = new Database(join(src, 'tiles', 't.mbtiles'));
  wal.pragma('journal_mode = WAL');
  try {
    const { folder, stderr } = exportFolder('wal.parts', ['tiles/t']);
    expect(stderr).toMatch(/tiles\/t: \w+ whole: 64 tiles/);
    const m = manifestOf(folder);
    expect(m.stores[0].layout).toBe('records');
    // The same bundle as an exporter of format 1 would have written it.
    m.formatVersion = 1;
    delete m.stores[0].layout;
    writeFileSync(join(folder, 'manifest.json'), JSON.stringify(m));
    const dst = join(root, 'dst-v1');
    const r = cli(['import', '--data', dst, folder]);
    expect(r.stderr).toContain('tiles/t: now at version');
    expect(r.code).toBe(0);
    expect(contentRows(join(dst, 'tiles', 't.mbtiles'))).toEqual(contentRows(join(src, 'tiles', 't.mbtiles')));
  } finally {
    wal.pragma('journal_mode = DELETE');
    wal.close();
  }
  // Written back to rollback mode, the store travels as its file again (the empty -wal SQLite leaves behind is no
  // obstacle).
  expect(exportFolder('after-wal.parts', ['tiles/t']).stderr).toMatch(/tiles\/t: \w+ whole \(its SQLite file\)/);
});

test('MBTiles files made elsewhere travel as records and arrive in our schema, every row equal', () => {
  const foreign = join(root, 'foreign');
  mkdirSync(join(foreign, 'tiles'), { recursive: true });
  const rows = [0, 1, 2, 3].map((i) => ({ z: 1, x: i % 2, r: Math.floor(i / 2), data: bytesFor(`omt/${i % 3}`, 700) }));
  openMapTilesStyle(join(foreign, 'tiles', 'dedup.mbtiles'), { rows, vectorLayers: [] });
  openMapTilesStyle(join(foreign, 'tiles', 'plain.mbtiles'), { rows, vectorLayers: [] }, {}, 'plain');
  const out = join(root, 'foreign.parts');
  const ex = cli(['export', '--data', foreign, '--out', out, '--part-size', '16K']);
  expect(ex.stderr).toMatch(/tiles\/dedup: \w+ whole: 4 tiles/);
  expect(ex.stderr).toMatch(/tiles\/plain: \w+ whole: 4 tiles/);
  expect(ex.code).toBe(0);
  expect(manifestOf(out).stores.map((st) => st.layout)).toEqual(['records', 'records']);
  const dst = join(root, 'dst-foreign');
  const im = cli(['import', '--data', dst, out]);
  expect(im.code).toBe(0);
  for (const id of ['dedup', 'plain']) {
    expect(contentRows(join(dst, 'tiles', `${id}.mbtiles`))).toEqual(contentRows(join(foreign, 'tiles', `${id}.mbtiles`)));
    expect(objectsOf(join(dst, 'tiles', `${id}.mbtiles`))).toContain('table tiles');
  }
});
