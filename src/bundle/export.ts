// `tilemirror export`: the chosen stores of a data directory into a bundle, whole or since the versions the other
// side has. Every row of each store is hashed (its new version and index). Since a base, the rows new or changed
// since it are written to the payload as records; deletions come from the base's index: keys it has that the store
// no longer has. Whole, a store travels as its SQLite file, byte for byte (layout `sqlite`: the other side writes
// it at the disk's speed), read in the same state as the rows hashed (store/bundle/snapshot.ts); a file that cannot travel
// whole (WAL mode) travels as records. The index of the exported version is kept, so the next export can start from it.

import { signatureOf } from '../store/open';
import { StoreSnapshot } from '../store/bundle/snapshot';
import { listStores, storeName, type StoreRef } from '../store/bundle/content';
import { loadIndex, rememberVersion, saveIndex, storeVersion, walkStore, INDEX_RECORD, type ContentIndex, type WalkVisitor } from '../store/bundle/content-version';
import { BUNDLE_FORMAT, BUNDLE_FORMAT_VERSION, BundleError, encodeManifest, type Manifest, type StoreEntry } from './manifest';
import { PayloadWriter } from './parts';
import { encodeDocumentDelete, encodeDocumentPut, encodeTileDelete, encodeTilePut } from './records';
import { signManifest } from './sign';

export interface ExportOptions {
  dataDir: string;
  out: string;
  /** `kind/id` of the stores to export; empty: all. */
  resources: string[];
  /** Versions the other side has, by `kind/id`. */
  since: Map<string, string>;
  /** Bytes per part (a folder of parts), or null for one file. */
  partSize: number | null;
  signKey?: string;
  log?: (line: string) => void;
}

export interface ExportResult {
  manifest: Manifest;
  /** Stores left out because the other side has their current version. */
  unchanged: string[];
}

type Counts = StoreEntry['counts'];

/** Chooses the stores: all, or those named (a name that is no store is an error). */
export function selectStores(dataDir: string, resources: string[]): StoreRef[] {
  const all = listStores(dataDir);
  if (resources.length === 0) return all;
  return resources.map((r) => {
    const found = all.find((s) => storeName(s) === r);
    if (!found) throw new BundleError(`${r}: no such store in ${dataDir} (have: ${all.map(storeName).join(', ') || 'none'})`);
    return found;
  });
}

/** Compares each store row with the base index as the walk goes (both in key order) and writes what differs. */
function diffVisitor(base: ContentIndex, write: (chunks: Buffer[]) => void, tableIndex: (key: string) => number, counts: Counts, bytes: { n: number }): WalkVisitor & { finish(): void } {
  const rec = base.records;
  const seenTables = new Set<string>();
  let pos = 0;
  let end = 0;
  const baseDocs = new Map(base.documents);
  const deleteUpTo = (limit: number, key: string): void => {
    for (; pos < limit; pos += INDEX_RECORD) {
      write(encodeTileDelete(tableIndex(key), rec[pos], rec.readUInt32BE(pos + 1), rec.readUInt32BE(pos + 5)));
      counts.tilesDeleted++;
    }
  };
  return {
    table(key) {
      seenTables.add(key);
      const t = base.tables.find((b) => b.key === key);
      pos = t ? t.offset : 0;
      end = t ? t.offset + t.count * INDEX_RECORD : 0;
    },
    tile(key, t, hash) {
      for (; pos < end; pos += INDEX_RECORD) {
        const cmp = rec[pos] - t.z || rec.readUInt32BE(pos + 1) - t.x || rec.readUInt32BE(pos + 5) - t.row;
        if (cmp > 0) break;
        if (cmp === 0) {
          const same = rec.compare(hash, 0, 16, pos + 9, pos + 25) === 0;
          pos += INDEX_RECORD;
          if (same) return;
          break;
        }
        write(encodeTileDelete(tableIndex(key), rec[pos], rec.readUInt32BE(pos + 1), rec.readUInt32BE(pos + 5)));
        counts.tilesDeleted++;
      }
      write(encodeTilePut(tableIndex(key), t.z, t.x, t.row, t.data));
      counts.tilesPut++;
      bytes.n += t.data?.length ?? 0;
    },
    tableEnd(key) {
      deleteUpTo(end, key);
    },
    document(d, hash) {
      const was = baseDocs.get(d.path);
      baseDocs.delete(d.path);
      if (was === hash.toString('hex')) return;
      write(encodeDocumentPut(d.path, d.contentType, d.data));
      counts.documentsPut++;
      bytes.n += d.data.length;
    },
    finish() {
      // Tables and documents the base had and the store no longer has.
      for (const t of base.tables) {
        if (seenTables.has(t.key)) continue;
        pos = t.offset;
        deleteUpTo(t.offset + t.count * INDEX_RECORD, t.key);
      }
      for (const path of baseDocs.keys()) {
        write(encodeDocumentDelete(path));
        counts.documentsDeleted++;
      }
    },
  };
}

/** Every row as a put; `write` null: only counted (the store travels as its file). */
function fullVisitor(write: ((chunks: Buffer[]) => void) | null, tableIndex: (key: string) => number, counts: Counts, bytes: { n: number }): WalkVisitor & { finish(): void } {
  return {
    tile(key, t) {
      write?.(encodeTilePut(tableIndex(key), t.z, t.x, t.row, t.data));
      counts.tilesPut++;
      bytes.n += t.data?.length ?? 0;
    },
    document(d) {
      write?.(encodeDocumentPut(d.path, d.contentType, d.data));
      counts.documentsPut++;
      bytes.n += d.data.length;
    },
    finish() {},
  };
}

/** The base index of each store exported since a version; refuses, before writing anything, a version this side never exported. */
function baseIndexes(dataDir: string, stores: StoreRef[], since: Map<string, string>): Map<string, ContentIndex | 'unchanged'> {
  const out = new Map<string, ContentIndex | 'unchanged'>();
  for (const ref of stores) {
    const version = since.get(storeName(ref));
    if (version === undefined) continue;
    const index = loadIndex(dataDir, ref, version);
    if (index) out.set(storeName(ref), index);
    else if (storeVersion(dataDir, ref) === version) out.set(storeName(ref), 'unchanged');
    else {
      throw new BundleError(
        `${storeName(ref)}: this side has no record of version ${version} (only versions it exported are known): ` +
          `export ${storeName(ref)} whole (leave it out of --since)`,
      );
    }
  }
  return out;
}

export function exportBundle(opts: ExportOptions): ExportResult {
  const log = opts.log ?? (() => undefined);
  const stores = selectStores(opts.dataDir, opts.resources);
  if (stores.length === 0) throw new BundleError(`${opts.dataDir} holds no stores to export`);
  for (const name of opts.since.keys()) {
    if (opts.resources.length > 0 && !opts.resources.includes(name)) continue;
    if (!stores.some((s) => storeName(s) === name)) log(`note: --since names ${name}, which this side does not have`);
  }
  // A bad signing key fails now, not after the payload is written.
  if (opts.signKey) signManifest(Buffer.alloc(0), opts.signKey);
  const bases = baseIndexes(opts.dataDir, stores, opts.since);
  const writer = new PayloadWriter(opts.out, opts.partSize);
  const entries: StoreEntry[] = [];
  const unchanged: string[] = [];
  try {
    for (const ref of stores) {
      const name = storeName(ref);
      const base = bases.get(name);
      if (base === 'unchanged') {
        unchanged.push(name);
        log(`${name}: unchanged since ${opts.since.get(name)}`);
        continue;
      }
      const tables: string[] = [];
      const tableIndex = (key: string): number => {
        let i = tables.indexOf(key);
        if (i < 0) i = tables.push(key) - 1;
        return i;
      };
      const counts: Counts = { tilesPut: 0, tilesDeleted: 0, documentsPut: 0, documentsDeleted: 0, tiles: 0, documents: 0 };
      const bytes = { n: 0 };
      const offset = writer.offset;
      const write = (chunks: Buffer[]): void => writer.write(chunks);
      const signature = signatureOf(ref.file);
      const snapshot = new StoreSnapshot(ref.file);
      let walked;
      let layout: StoreEntry['layout'] = 'records';
      try {
        if (!base && snapshot.fileBytes !== undefined) layout = 'sqlite';
        const visitor = base ? diffVisitor(base, write, tableIndex, counts, bytes) : fullVisitor(layout === 'sqlite' ? null : write, tableIndex, counts, bytes);
        walked = walkStore(snapshot.db, visitor);
        visitor.finish();
        // The caller's buffer is reused after each call: written out at once.
        if (layout === 'sqlite') snapshot.copyFile((b) => writer.writeNow(b));
      } finally {
        snapshot.close();
      }
      const version = walked.index.version;
      saveIndex(opts.dataDir, ref, walked.index);
      if ('signature' in signature) rememberVersion(opts.dataDir, ref, version, signature.signature);
      if (base && base.version === version) {
        unchanged.push(name);
        log(`${name}: unchanged since ${version}`);
        continue;
      }
      counts.tiles = walked.tiles;
      counts.documents = walked.documents;
      entries.push({
        kind: ref.kind,
        id: ref.id,
        mode: base ? 'incremental' : 'full',
        layout,
        base: base ? base.version : null,
        version,
        header: walked.header,
        tables,
        counts,
        bytes: bytes.n,
        payload: { offset, length: writer.offset - offset },
      });
      log(
        base
          ? `${name}: ${base.version} → ${version}: ${counts.tilesPut} tiles put, ${counts.tilesDeleted} removed, ${counts.documentsPut} documents put, ${counts.documentsDeleted} removed`
          : `${name}: ${version} whole${layout === 'sqlite' ? ' (its SQLite file)' : ''}: ${counts.tilesPut} tiles, ${counts.documentsPut} documents`,
      );
    }
    const parts = writer.endPayload();
    const manifest: Manifest = {
      format: BUNDLE_FORMAT,
      formatVersion: BUNDLE_FORMAT_VERSION,
      created: new Date().toISOString(),
      payloadBytes: writer.offset,
      partSize: opts.partSize,
      parts,
      stores: entries,
    };
    const bytes = encodeManifest(manifest);
    writer.finish(bytes, opts.signKey ? signManifest(bytes, opts.signKey) : undefined);
    return { manifest, unchanged };
  } catch (err) {
    writer.abandon();
    throw err;
  }
}
