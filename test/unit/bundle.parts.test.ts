// The payload layer on real files: records written through PayloadWriter (one file, or parts of an odd size so
// records straddle part boundaries) read back through PayloadReader byte for byte, including tiles bigger than
// half its buffer and runs long enough to cross many buffer refills; sizes as people type them.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BundleError, encodeManifest, type Manifest } from '../../src/bundle/manifest';
import { openBundle, parseSize, PayloadReader, PayloadWriter } from '../../src/bundle/parts';
import { decodeRecord, encodeDocumentDelete, encodeDocumentPut, encodeTileDelete, encodeTilePut, type BundleRecord } from '../../src/bundle/records';
import { startHashing, StreamHashing, verifyParts } from '../../src/bundle/verify';
import { bytesFor } from '../fixtures/bundle-stores';
import { tempDirs } from '../helpers/temp-dirs';

const { tempDir, removeTempDirs } = tempDirs('tm-parts-');

let dir: string;
beforeAll(() => (dir = tempDir()));
afterAll(() => removeTempDirs());

/** 600 records: small tiles, a NULL and an empty tile, 3 tiles of 3 MB (over half the 4 MB buffer), documents, deletes. */
function records(): BundleRecord[] {
  const out: BundleRecord[] = [];
  for (let i = 0; i < 590; i++) out.push({ type: 1, table: i % 3, z: 12, x: i, row: 4095 - i, data: bytesFor(`r${i}`, 1000 + ((i * 7919) % 20000)) });
  out.push({ type: 1, table: 0, z: 0, x: 0, row: 0, data: null });
  out.push({ type: 1, table: 0, z: 1, x: 0, row: 0, data: Buffer.alloc(0) });
  for (let i = 0; i < 3; i++) out.push({ type: 1, table: 1, z: 20, x: 1 << 19, row: i, data: bytesFor(`big${i}`, 3 * 1024 * 1024 + i) });
  out.push({ type: 2, table: 2, z: 30, x: 2 ** 30 - 1, row: 5 });
  out.push({ type: 3, path: 'fonts/Noto Sans/0-255.pbf', contentType: 'application/x-protobuf', data: bytesFor('doc', 5000) });
  out.push({ type: 4, path: 'gone.json' });
  return out;
}

function encode(r: BundleRecord): Buffer[] {
  if (r.type === 1) return encodeTilePut(r.table, r.z, r.x, r.row, r.data);
  if (r.type === 2) return encodeTileDelete(r.table, r.z, r.x, r.row);
  if (r.type === 3) return encodeDocumentPut(r.path, r.contentType, r.data);
  return encodeDocumentDelete(r.path);
}

async function roundTrip(name: string, partSize: number | null): Promise<void> {
  const want = records();
  const out = join(dir, name);
  const w = new PayloadWriter(out, partSize);
  for (const r of want) w.write(encode(r));
  const parts = w.endPayload();
  const manifest: Manifest = { format: 'tilemirror-bundle', formatVersion: 1, created: 'now', payloadBytes: w.offset, partSize, parts, stores: [] };
  w.finish(encodeManifest(manifest), undefined);
  const b = openBundle(out);
  await verifyParts(b);
  const reader = new PayloadReader(b, 0, b.manifest.payloadBytes);
  let i = 0;
  while (!reader.done) {
    const got = decodeRecord(reader.read);
    // Compared before the next record is read (the reader's contract), data as base64 to name the record on failure.
    const norm = (r: BundleRecord): unknown => ({ ...r, ...('data' in r && { data: r.data === null ? null : r.data.toString('base64') }) });
    expect({ i, r: norm(got) }).toEqual({ i, r: norm(want[i]) });
    i++;
  }
  reader.close();
  expect(i).toBe(want.length);
}

test('one file (64 MB hash segments) reads back every record', () => roundTrip('one.bundle', null));

test('parts of 1,000,003 bytes (records straddle parts) read back every record', () => roundTrip('parts', 1_000_003));

test('a record that runs past the end of its range is refused as damaged', async () => {
  const out = join(dir, 'short');
  const w = new PayloadWriter(out, null);
  w.write(encodeTilePut(0, 1, 1, 1, bytesFor('x', 100)));
  const parts = w.endPayload();
  w.finish(encodeManifest({ format: 'tilemirror-bundle', formatVersion: 1, created: 'now', payloadBytes: w.offset, partSize: null, parts, stores: [] }), undefined);
  const reader = new PayloadReader(openBundle(out), 0, 50);
  expect(() => decodeRecord(reader.read)).toThrow(BundleError);
  reader.close();
});

test('sizes as typed', () => {
  expect(parseSize('100M')).toBe(100 * 1024 * 1024);
  expect(parseSize('4G')).toBe(4 * 1024 ** 3);
  expect(parseSize('1.5K')).toBe(1536);
  expect(parseSize('650MiB')).toBe(650 * 1024 * 1024);
  expect(parseSize('2048')).toBe(2048);
  for (const bad of ['', 'lots', '-5M', '10X', '100']) expect(() => parseSize(bad)).toThrow(/size/);
});

test('parts hashed by a worker and by the calling thread together: every part checked, a damaged one named', async () => {
  const out = join(dir, 'shared');
  const w = new PayloadWriter(out, 1_000_003);
  for (const r of records()) w.write(encode(r));
  const parts = w.endPayload();
  w.finish(encodeManifest({ format: 'tilemirror-bundle', formatVersion: 1, created: 'now', payloadBytes: w.offset, partSize: 1_000_003, parts, stores: [] }), undefined);
  expect(parts.length).toBeGreaterThan(8);
  const good = startHashing(openBundle(out), 1);
  good.finish();
  await expect(good.result).resolves.toBeUndefined();
  // Whichever thread takes it, the damaged part is named.
  for (const damaged of [1, parts.length - 1]) {
    const file = join(out, parts[damaged].name);
    const bytes = readFileSync(file);
    bytes[7] ^= 1;
    writeFileSync(file, bytes);
    const h = startHashing(openBundle(out), 1);
    h.finish();
    await expect(h.result).rejects.toThrow(new RegExp(`^${parts[damaged].name}: SHA-256 [0-9a-f]{64} does not match the manifest's ${parts[damaged].sha256}`));
    bytes[7] ^= 1;
    writeFileSync(file, bytes);
  }
});

test('the import reader feeds its own reads to one hashing thread: bytes read, skipped before and left after are all checked', async () => {
  const out = join(dir, 'stream');
  const w = new PayloadWriter(out, 1_000_003);
  const want = records();
  const offsets: number[] = [];
  for (const r of want) {
    offsets.push(w.offset);
    w.write(encode(r));
  }
  const parts = w.endPayload();
  w.finish(encodeManifest({ format: 'tilemirror-bundle', formatVersion: 1, created: 'now', payloadBytes: w.offset, partSize: 1_000_003, parts, stores: [] }), undefined);
  // The reader reads records 200..592 (the three 3 MB tiles included): a gap before it and a tail after it.
  const from = offsets[200];
  const to = offsets[593];
  expect(from).toBeGreaterThan(2 * 1_000_003);
  expect(w.offset - to).toBeGreaterThan(0);
  const readRange = (compare: boolean): StreamHashing => {
    const b = openBundle(out);
    const h = new StreamHashing(b);
    h.result.catch(() => undefined);
    const reader = new PayloadReader(b, from, to - from, h);
    for (let i = 200; !reader.done; i++) {
      const got = decodeRecord(reader.read);
      const data = (r: BundleRecord): string | null | undefined => ('data' in r ? r.data?.toString('base64') ?? null : undefined);
      if (compare) expect({ i, data: data(got) }).toEqual({ i, data: data(want[i]) });
    }
    reader.close();
    h.finish();
    return h;
  };
  await expect(readRange(true).result).resolves.toBeUndefined();
  // A damaged byte in the gap before the range, inside the range (in a tile's data, so the records still decode),
  // and in the tail after it: each part named.
  const partAt = (pos: number): { index: number; at: number } => {
    let start = 0;
    const index = parts.findIndex((p) => (start += p.size) > pos);
    return { index, at: pos - (start - parts[index].size) };
  };
  const inside = partAt(offsets[300] + 100);
  for (const [damaged, at] of [[0, 7], [inside.index, inside.at], [parts.length - 1, parts[parts.length - 1].size - 1]]) {
    const file = join(out, parts[damaged].name);
    const bytes = readFileSync(file);
    bytes[at] ^= 1;
    writeFileSync(file, bytes);
    const h = readRange(false);
    await expect(h.result).rejects.toThrow(new RegExp(`^${parts[damaged].name}: SHA-256 [0-9a-f]{64} does not match the manifest's ${parts[damaged].sha256}`));
    bytes[at] ^= 1;
    writeFileSync(file, bytes);
  }
});
