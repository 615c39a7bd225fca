// The manifest of a bundle: what it holds (stores, their base and new versions, counts, where their records are
// in the payload) and the size and SHA-256 of every part. The signature covers the manifest's exact bytes, so it
// covers every part through their hashes.
//
// A store travels in one of two layouts. `records`: a stream of tile and document puts and deletes (records.ts),
// for incremental bundles (and every store of format 1). `sqlite`: a whole store as its SQLite file, byte for byte
// as it was published on the exporting side (format 2): a full copy is then written at the disk's speed instead of
// row by row, and checked (quick_check, schema, header, counts) before it is published.

import { z } from 'zod';
import { CONTENT_TABLES } from '../store/mbtiles/sql';
import { KIND_DIRS } from '../store/catalog/catalog';
import { isStoreId, type StoreKind } from '../store/types';

export const BUNDLE_FORMAT = 'tilemirror-bundle';
export const BUNDLE_FORMAT_VERSION = 2;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a hex SHA-256');
const count = z.number().int().nonnegative();

const StoreEntrySchema = z.object({
  kind: z.enum(KIND_DIRS as readonly [StoreKind, ...StoreKind[]]),
  id: z.string().refine(isStoreId, 'a store id'),
  mode: z.enum(['full', 'incremental']),
  /** How the payload carries the store (absent in format 1: records). */
  layout: z.enum(['records', 'sqlite']).default('records'),
  /** The version the receiving side must have (incremental), null for a full copy. */
  base: z.string().nullable(),
  version: z.string(),
  header: z.object({
    tables: z.array(z.enum(CONTENT_TABLES)),
    metadata: z.array(z.tuple([z.string(), z.string().nullable()])),
    pyramids: z.array(z.record(z.string(), z.unknown())),
  }),
  /** Tile table keys, indexed by the records' `table` field ('' is the main `tiles` table). */
  tables: z.array(z.string()),
  counts: z.object({
    tilesPut: count,
    tilesDeleted: count,
    documentsPut: count,
    documentsDeleted: count,
    /** Tiles and documents of the store once the bundle is applied. */
    tiles: count,
    documents: count,
  }),
  /** Tile and document bytes carried for this store (layout `sqlite`: the bytes its tiles and documents hold). */
  bytes: count,
  payload: z.object({ offset: count, length: count }),
});

const ManifestSchema = z.object({
  format: z.literal(BUNDLE_FORMAT),
  /** Versions this side reads: 1 had only the `records` layout. */
  formatVersion: z.union([z.literal(1), z.literal(BUNDLE_FORMAT_VERSION)]),
  created: z.string(),
  payloadBytes: count,
  /** Bytes per part of a folder bundle; null for a single file. */
  partSize: count.nullable(),
  parts: z.array(z.object({ name: z.string(), size: count, sha256 })),
  stores: z.array(StoreEntrySchema),
});

export type Manifest = z.infer<typeof ManifestSchema>;
export type StoreEntry = z.infer<typeof StoreEntrySchema>;

export class BundleError extends Error {}

/** Parses and checks a manifest: a clear message naming the first bad field. */
export function parseManifest(bytes: Buffer, where: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new BundleError(`${where}: the manifest is not JSON (${(err as Error).message})`);
  }
  const r = ManifestSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new BundleError(`${where}: bad manifest at ${issue.path.join('.') || '(top)'}: ${issue.message}`);
  }
  const m = r.data;
  const total = m.parts.reduce((n, p) => n + p.size, 0);
  if (total !== m.payloadBytes) throw new BundleError(`${where}: the parts add up to ${total} bytes, the payload is ${m.payloadBytes}`);
  for (const s of m.stores) {
    if (s.payload.offset + s.payload.length > m.payloadBytes) throw new BundleError(`${where}: ${s.kind}/${s.id} lies outside the payload`);
    if (s.layout === 'sqlite' && (s.mode !== 'full' || m.formatVersion < 2)) {
      throw new BundleError(`${where}: ${s.kind}/${s.id}: a store as its SQLite file is always a full copy, of format 2 or later`);
    }
  }
  return m;
}

export function encodeManifest(m: Manifest): Buffer {
  return Buffer.from(JSON.stringify(m, null, 1));
}
