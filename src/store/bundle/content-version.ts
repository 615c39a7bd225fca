// The content version of a store: one digest of everything a bundle carries (header, every tile, every document),
// the same on both sides of an air gap for the same content whatever the file's bytes, inode or mtime. It is the
// `base` and `version` of bundles and what `status --versions` prints.
//
// Walking a store also yields its index: every tile key with 16 bytes of its SHA-256 (25 bytes a tile) and every
// document's hash. The exporting side keeps the index of each version it exported, so a versions file carried
// back (only version strings: no handshake) is enough to tell which tiles changed since.
//
// Computing a version reads the whole store; the result is cached per file version (inode, size, mtime, as the
// catalog tells versions apart) in `{data}/.tilemirror-bundles/versions.json`.

import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { signatureOf } from '../open';
import {
  documentHash,
  headerHash,
  iterateDocuments,
  iterateTiles,
  openReadOnly,
  readHeader,
  storeName,
  tileHash,
  tileTableKeys,
  type StoreHeader,
  type StoreRef,
} from './content';
import type { DocumentRow, TileRow } from '../mbtiles/sql';

/** Hidden from the catalog (it only reads the kind folders). */
export const BUNDLE_STATE_DIR = '.tilemirror-bundles';
export const VERSION_LENGTH = 24;
export const INDEX_RECORD = 25;
const INDEX_MAGIC = 'TMIDX1\n';

export interface IndexTable {
  key: string;
  count: number;
  /** Byte offset of the table's first record in the record area. */
  offset: number;
}

/** A store version's index: tile hashes (16 bytes each) per table, in key order; document hashes by path. */
export interface ContentIndex {
  version: string;
  tables: IndexTable[];
  /** [path, hex SHA-256 of content type and data] by path. */
  documents: [string, string][];
  records: Buffer;
}

export interface WalkVisitor {
  table?(key: string): void;
  tile?(key: string, tile: TileRow, hash: Buffer): void;
  tableEnd?(key: string): void;
  document?(doc: DocumentRow, hash: Buffer): void;
}

export interface WalkResult {
  header: StoreHeader;
  index: ContentIndex;
  tiles: number;
  documents: number;
  /** Bytes of tile and document data. */
  bytes: number;
}

/** Reads every row of the store once: the version, the index, and each row to the visitor (export writes them). */
export function walkStore(db: Database.Database, visitor: WalkVisitor = {}): WalkResult {
  const header = readHeader(db);
  const digest = createHash('sha256').update(headerHash(header));
  const tables: IndexTable[] = [];
  const chunks: Buffer[] = [];
  let offset = 0;
  let tiles = 0;
  let bytes = 0;
  for (const key of tileTableKeys(db, header)) {
    visitor.table?.(key);
    const start = offset;
    let count = 0;
    let chunk = Buffer.allocUnsafe(INDEX_RECORD * 4096);
    let at = 0;
    digest.update(`T${key}\0`);
    for (const t of iterateTiles(db, key)) {
      const hash = tileHash(t.data);
      visitor.tile?.(key, t, hash);
      if (at === chunk.length) {
        chunks.push(chunk);
        chunk = Buffer.allocUnsafe(INDEX_RECORD * 4096);
        at = 0;
      }
      chunk.writeUInt8(t.z, at);
      chunk.writeUInt32BE(t.x, at + 1);
      chunk.writeUInt32BE(t.row, at + 5);
      hash.copy(chunk, at + 9, 0, 16);
      digest.update(chunk.subarray(at, at + 9)).update(hash);
      at += INDEX_RECORD;
      count++;
      bytes += t.data?.length ?? 0;
    }
    chunks.push(chunk.subarray(0, at));
    offset += count * INDEX_RECORD;
    tiles += count;
    visitor.tableEnd?.(key);
    // An empty main table is still listed (every store has one); empty extra pyramids do not exist.
    tables.push({ key, count, offset: start });
  }
  const documents: [string, string][] = [];
  for (const d of iterateDocuments(db, header)) {
    const hash = documentHash(d.contentType, d.data);
    visitor.document?.(d, hash);
    digest.update(`D${d.path}\0`).update(hash);
    documents.push([d.path, hash.toString('hex')]);
    bytes += d.data.length;
  }
  const version = digest.digest('hex').slice(0, VERSION_LENGTH);
  return { header, index: { version, tables, documents, records: Buffer.concat(chunks) }, tiles, documents: documents.length, bytes };
}

export function indexPath(dataDir: string, ref: { kind: string; id: string }, version: string): string {
  return join(dataDir, BUNDLE_STATE_DIR, 'index', ref.kind, ref.id, `${version}.idx`);
}

/** Writes a file by rename, so a reader never sees half of it. */
export function writeFileAtomic(file: string, data: Buffer | string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

export function saveIndex(dataDir: string, ref: { kind: string; id: string }, index: ContentIndex): void {
  const head = Buffer.from(JSON.stringify({ version: index.version, tables: index.tables, documents: index.documents }));
  const len = Buffer.alloc(4);
  len.writeUInt32BE(head.length);
  writeFileAtomic(indexPath(dataDir, ref, index.version), Buffer.concat([Buffer.from(INDEX_MAGIC), len, head, index.records]));
}

/** The index of a version this side exported before, or undefined when it has none. */
export function loadIndex(dataDir: string, ref: { kind: string; id: string }, version: string): ContentIndex | undefined {
  const file = indexPath(dataDir, ref, version);
  if (!existsSync(file)) return undefined;
  const buf = readFileSync(file);
  if (buf.subarray(0, INDEX_MAGIC.length).toString() !== INDEX_MAGIC) throw new Error(`${file}: not a tilemirror index`);
  const len = buf.readUInt32BE(INDEX_MAGIC.length);
  const start = INDEX_MAGIC.length + 4;
  const head = JSON.parse(buf.subarray(start, start + len).toString()) as Omit<ContentIndex, 'records'>;
  return { ...head, records: buf.subarray(start + len) };
}

type VersionCache = Record<string, { signature: string; version: string }>;

function cachePath(dataDir: string): string {
  return join(dataDir, BUNDLE_STATE_DIR, 'versions.json');
}

function readCache(dataDir: string): VersionCache {
  try {
    return JSON.parse(readFileSync(cachePath(dataDir), 'utf8')) as VersionCache;
  } catch {
    return {};
  }
}

/**
 * Records the version of the store file as it is now (after an import published it), or as it was when a walk
 * began (`walked`): not at all when the file changed since.
 */
export function rememberVersion(dataDir: string, ref: StoreRef, version: string, walked?: string): void {
  const found = signatureOf(ref.file);
  if (!('signature' in found) || (walked !== undefined && walked !== found.signature)) return;
  const cache = readCache(dataDir);
  cache[storeName(ref)] = { signature: found.signature, version };
  writeFileAtomic(cachePath(dataDir), JSON.stringify(cache, null, 1));
}

/** The content version of a published store: from the cache when the file has not changed since, else computed. */
export function storeVersion(dataDir: string, ref: StoreRef): string {
  const found = signatureOf(ref.file);
  const cached = readCache(dataDir)[storeName(ref)];
  if ('signature' in found && cached?.signature === found.signature) return cached.version;
  const db = openReadOnly(ref.file);
  let version: string;
  try {
    version = walkStore(db).index.version;
  } finally {
    db.close();
  }
  if ('signature' in found) rememberVersion(dataDir, ref, version, found.signature);
  return version;
}

export const VERSIONS_FORMAT = 'tilemirror-versions';

/** What `status --versions` writes: the content version of every published store, by `kind/id`. */
export interface VersionsDocument {
  format: typeof VERSIONS_FORMAT;
  created: string;
  stores: Record<string, string>;
}

export function storeVersions(dataDir: string, stores: StoreRef[], onError: (ref: StoreRef, err: Error) => void): VersionsDocument {
  const out: Record<string, string> = {};
  for (const ref of stores) {
    try {
      out[storeName(ref)] = storeVersion(dataDir, ref);
    } catch (err) {
      onError(ref, err as Error);
    }
  }
  return { format: VERSIONS_FORMAT, created: new Date().toISOString(), stores: out };
}
