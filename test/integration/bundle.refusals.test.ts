// Bundles that must not be applied: a corrupted part, a truncated part or file, a forged manifest (wrong
// signature), a key not trusted, an unsigned bundle when a key is trusted, and an incremental bundle whose base is
// not the version present. Each is refused with a message saying why, and the data directory is left exactly as
// it was (same files, same inodes and mtimes, no staging file).

import Database from 'better-sqlite3';
import { appendFileSync, cpSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { changeSourceStores, cli, fileStates, writeSourceStores } from '../fixtures/bundle-stores';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-bundle-refuse-');

let root: string;
let src: string;
let dst: string;
let folder: string;
let single: string;

beforeAll(() => {
  root = tempDir();
  src = join(root, 'src');
  dst = join(root, 'dst');
  writeSourceStores(src);
  for (const name of ['a', 'b']) expect(cli(['keygen', '--out', join(root, name)]).code).toBe(0);
  folder = join(root, 'full.parts');
  single = join(root, 'full.bundle');
  expect(cli(['export', '--data', src, '--out', folder, '--part-size', '16K', '--sign', join(root, 'a.key')]).code).toBe(0);
  expect(cli(['export', '--data', src, '--out', single, '--sign', join(root, 'a.key')]).code).toBe(0);
  // The importing side starts with the stores as they were; the source then moves on twice.
  expect(cli(['import', '--data', dst, single]).code).toBe(0);
});

afterAll(() => removeTempDirs());

/** Every file under the data directory with its inode, size and mtime. */
function snapshot(): string[] {
  const files = readdirSync(dst, { recursive: true, encoding: 'utf8' }).filter((f) => !f.startsWith('.tilemirror-bundles')).sort();
  return [...files, ...fileStates(dst)];
}

function expectRefused(args: string[], message: string | RegExp): void {
  const before = snapshot();
  const r = cli(['import', '--data', dst, ...args]);
  expect(r.stderr).toMatch(message);
  expect(r.code).toBe(1);
  expect(snapshot()).toEqual(before);
}

const copyOf = (from: string, name: string): string => {
  const to = join(root, name);
  cpSync(from, to, { recursive: true });
  return to;
};

test('a part with one byte changed is refused, naming the part', () => {
  const b = copyOf(folder, 'corrupt.parts');
  const part = join(b, 'part-000002');
  const bytes = readFileSync(part);
  bytes[100] ^= 0xff;
  writeFileSync(part, bytes);
  expectRefused([b], /part-000002: SHA-256 [0-9a-f]{64} does not match the manifest's [0-9a-f]{64}: the part is damaged/);
});

test('a truncated part, a missing part and a truncated single-file bundle are refused', () => {
  const b = copyOf(folder, 'truncated.parts');
  truncateSync(join(b, 'part-000003'), 1000);
  expectRefused([b], /part-000003 is 1000 bytes, the manifest says 16384: truncated or damaged/);
  rmSync(join(b, 'part-000003'));
  expectRefused([b], /part-000003 is missing/);
  const f = copyOf(single, 'truncated.bundle');
  truncateSync(f, 5000);
  expectRefused([f], /not a complete tilemirror bundle/);
  const g = copyOf(single, 'grown.bundle');
  appendFileSync(g, 'x');
  expectRefused([g], /not a complete tilemirror bundle/);
});

test('a changed manifest no longer matches its signature', () => {
  const b = copyOf(folder, 'forged.parts');
  const m = JSON.parse(readFileSync(join(b, 'manifest.json'), 'utf8')) as { created: string };
  m.created = '2000-01-01T00:00:00.000Z';
  writeFileSync(join(b, 'manifest.json'), JSON.stringify(m, null, 1));
  expectRefused([b, '--trust', join(root, 'a.pub')], /signature does not match its manifest .*refused/);
});

test('a bundle signed by a key not trusted, or not signed at all, is refused when a key is trusted', () => {
  expectRefused([folder, '--trust', join(root, 'b.pub')], /signed by key [0-9a-f]{16}, which is not trusted \(trusted: [0-9a-f]{16}\): refused/);
  const unsigned = copyOf(folder, 'unsigned.parts');
  rmSync(join(unsigned, 'manifest.sig'));
  expectRefused([unsigned, '--trust', join(root, 'a.pub')], /not signed, and a trusted key was given: refused/);
  // The environment names trusted keys too.
  const before = snapshot();
  const r = cli(['import', '--data', dst, folder], { TILEMIRROR_TRUST: join(root, 'b.pub') });
  expect(r.stderr).toMatch(/which is not trusted/);
  expect(r.code).toBe(1);
  expect(snapshot()).toEqual(before);
});

test('an incremental bundle whose base is not the version present is refused, naming both versions', () => {
  const versions = join(root, 'v0.json');
  writeFileSync(versions, cli(['status', '--versions', '--data', src]).stdout);
  const v0 = (JSON.parse(readFileSync(versions, 'utf8')) as { stores: Record<string, string> }).stores['maps/m'];
  // The source moves on twice: the bundle since v1 does not apply where v0 is present.
  changeSourceStores(src);
  const step1 = join(root, 'step1.bundle');
  expect(cli(['export', '--data', src, '--out', step1, '--since', versions]).code).toBe(0);
  const v1File = join(root, 'v1.json');
  writeFileSync(v1File, cli(['status', '--versions', '--data', src]).stdout);
  const v1 = (JSON.parse(readFileSync(v1File, 'utf8')) as { stores: Record<string, string> }).stores['maps/m'];
  const conn = new Database(join(src, 'maps', 'm.mbtiles'));
  conn.prepare('DELETE FROM tiles WHERE zoom_level = 0').run();
  conn.close();
  const step2 = join(root, 'step2.bundle');
  expect(cli(['export', '--data', src, '--out', step2, '--since', v1File]).code).toBe(0);
  expect(v1).not.toBe(v0);
  expectRefused([step2], new RegExp(`maps/m: the bundle changes version ${v1} into [0-9a-f]+, but this side has version ${v0}[^]*nothing was changed`));
  // In order, both apply.
  for (const b of [step1, step2]) expect(cli(['import', '--data', dst, b]).code).toBe(0);
});

/** A copy of the single-file bundle with one payload byte flipped at `at` (negative: from the payload's end). */
function flipped(name: string, at: number): string {
  const f = copyOf(single, name);
  const bytes = readFileSync(f);
  const mlen = bytes.readUInt32BE(bytes.length - 16);
  const slen = bytes.readUInt32BE(bytes.length - 12);
  const manifestAt = bytes.length - 16 - slen - mlen;
  const { payloadBytes } = JSON.parse(bytes.subarray(manifestAt, manifestAt + mlen).toString()) as { payloadBytes: number };
  bytes[at < 0 ? payloadBytes + at : at] ^= 0xff;
  writeFileSync(f, bytes);
  return f;
}

test('a damaged payload is refused even though the stores are staged while the hashes are checked: nothing is left behind', () => {
  // Bytes near the end damaged (the last store file's last page): the stores are staged, and the hash refuses them
  // all unpublished. The first bytes damaged (the first store file's SQLite header): its check fails at once, and
  // the message is still the hash's (a damaged part says best what is wrong).
  for (const [name, at] of [['late.bundle', -10], ['early.bundle', 0]] as const) {
    const damaged = flipped(name, at);
    const fresh = join(root, `fresh-${name}`);
    const r = cli(['import', '--data', fresh, damaged]);
    expect(r.stderr).toMatch(/\(bytes 0-\d+\): SHA-256 [0-9a-f]{64} does not match the manifest's [0-9a-f]{64}: the part is damaged/);
    expect(r.code).toBe(1);
    // Not even the folders the import made for its staging files and locks.
    expect({ name, left: readdirSync(root).includes(`fresh-${name}`) }).toEqual({ name, left: false });
    // Where the stores are present and current, the damaged bundle is refused all the same.
    expectRefused([damaged], /SHA-256 [0-9a-f]{64} does not match/);
  }
});
