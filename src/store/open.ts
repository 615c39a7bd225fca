// The one place that decides which reader opens a tile store file: `.pmtiles` is a PMTiles archive, anything else
// an MBTiles store. The catalog opens its stores here and the label build its own reader of the same file, so
// both read a file the same way. A file's signature (inode, size, modification time) names the version opened:
// the readers make their content version (the ETag base) from it.

import { statSync } from 'node:fs';
import { digestTag } from './bytes/etag';
import { MbtilesStore } from './mbtiles/reader';
import type { PmtilesStore } from './pmtiles/store';
import type { TileStore, TileStoreOptions } from './tile-reader';
import type { ResourceKind } from './types';

/** Identifies one version of a file (inode, size, mtime); `gone` when it no longer exists, `error` when stat fails otherwise. */
export function signatureOf(file: string): { signature: string } | { gone: true } | { error: Error } {
  try {
    const s = statSync(file, { bigint: true });
    return { signature: `${s.ino}:${s.size}:${s.mtimeNs}` };
  } catch (err) {
    return (err as { code?: unknown } | null)?.code === 'ENOENT' ? { gone: true } : { error: err as Error };
  }
}

/** The modification time (ms since the epoch) in a signature made by signatureOf. */
export function signatureMtimeMs(signature: string): number {
  return Number(BigInt(signature.slice(signature.lastIndexOf(':') + 1)) / 1_000_000n);
}

/** The version a server opening the file now gives it (its readers' `info.version`), or undefined when it is gone. */
export function servedVersionOf(file: string): string | undefined {
  const s = signatureOf(file);
  return 'signature' in s ? digestTag(s.signature) : undefined;
}

export const isPmtilesFile = (file: string): boolean => file.endsWith('.pmtiles');

/**
 * Opens the tile store in `file` read-only, as the version `signature` names (what signatureOf said of it).
 * Throws when the file cannot be served (not a store, a bad zoom range, a truncated archive...).
 */
export function openTileStore(file: string, kind: ResourceKind, id: string, signature: string, options: TileStoreOptions = {}): TileStore {
  return isPmtilesFile(file) ? new (pmtilesStore())(file, id, signature, options) : new MbtilesStore(file, kind, id, signature, options);
}

/**
 * The PMTiles reader, loaded when the first .pmtiles file opens: the mirror and the bundle commands load the
 * catalog's modules for their helpers, and would otherwise load the pmtiles package (~20 ms) at every start.
 */
function pmtilesStore(): typeof PmtilesStore {
  return (require('./pmtiles/store') as typeof import('./pmtiles/store')).PmtilesStore;
}
