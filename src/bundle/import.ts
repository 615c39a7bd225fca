// `tilemirror import`: refuses a bundle that does not fit before anything is written (signature when keys are
// trusted, checked first; the size of every part; the store locks; the base version of every incremental store),
// then writes each store into a hidden staging file (`.{id}.mbtiles.import`, skipped by the catalog) while worker
// threads check the SHA-256 of every part, and publishes nothing before every hash agrees: a damaged part
// removes the staging file and leaves the data directory as it was (no file added, changed or left behind).
// A store carried as records is applied row by row (onto a copy of the present version when incremental); one
// carried as its SQLite file is copied, then checked (store/bundle/file-copy.ts) before it may be published.
// Each store is published by one rename, which a running server's catalog notices (directory watch or its
// periodic rescan) and serves without a restart. Idempotent and resumable per store: a store already at the
// bundle's version is skipped; one interrupted mid-way (SIGKILL) was never published and is redone.
// An import holds each store's writer lock (src/store/data-dir/lock.ts) from before its version is read until it is
// published, so a mirror run and an import of the same store never overlap: whichever comes second is refused.

import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { acquireLock, LockError, type Lock } from '../store/data-dir/lock';
import { storeName, type StoreRef } from '../store/bundle/content';
import { StoreFileCopy, StoreFileError } from '../store/bundle/file-copy';
import { rememberVersion, storeVersion } from '../store/bundle/content-version';
import { patchPaths, StorePatch } from '../store/bundle/patch';
import { storePaths } from '../store/mbtiles/staging';
import { BundleError, type StoreEntry } from './manifest';
import { openBundle, PayloadReader, type OpenedBundle } from './parts';
import { decodeRecord, REC } from './records';
import { signerOf, verifyManifest } from './sign';
import { checkPartSizes, startHashing, StreamHashing, type Hashing } from './verify';

export interface ImportOptions {
  dataDir: string;
  bundle: string;
  /** Public keys (PEM files) trusted to sign bundles; when any is given, an unsigned or otherwise signed bundle is refused. */
  trust: string[];
  log?: (line: string) => void;
}

export interface ImportResult {
  applied: string[];
  skipped: string[];
}

type Step = { entry: StoreEntry; ref: StoreRef; action: 'apply' | 'skip' };

/** What to do with each store, or every reason the bundle does not fit this side (nothing is touched then). */
function plan(dataDir: string, b: OpenedBundle): Step[] {
  const problems: string[] = [];
  const steps: Step[] = [];
  for (const entry of b.manifest.stores) {
    const ref: StoreRef = { kind: entry.kind, id: entry.id, file: join(dataDir, entry.kind, `${entry.id}.mbtiles`) };
    const present = existsSync(ref.file) ? storeVersion(dataDir, ref) : undefined;
    if (present === entry.version) steps.push({ entry, ref, action: 'skip' });
    else if (entry.mode === 'incremental' && present !== entry.base) {
      problems.push(
        `${storeName(ref)}: the bundle changes version ${entry.base} into ${entry.version}, but this side has ` +
          `${present ? `version ${present}` : 'no such store'}: it needs a bundle made --since ${present ? `${storeName(ref)}=${present}` : 'nothing (a full export)'}`,
      );
    } else steps.push({ entry, ref, action: 'apply' });
  }
  if (problems.length > 0) throw new BundleError(`${problems.join('\n')}\nnothing was changed`);
  return steps;
}

/** Bytes per read when a store's file is copied (the payload reader's buffers are twice this). */
const COPY_STEP = 2 * 1024 * 1024;

/**
 * Copies a store carried as its SQLite file into its staging file and checks it; the caller publishes or abandons
 * it. `vouched`: a trusted key signed the bundle (checked before anything else), so SQLite's quick_check is left
 * out (store/bundle/file-copy.ts says why).
 */
function stageStoreFile(dataDir: string, b: OpenedBundle, step: Step, vouched: boolean): StoreFileCopy {
  const { entry, ref } = step;
  const copy = new StoreFileCopy(patchPaths(dataDir, entry.kind, entry.id), entry.payload.length);
  const reader = new PayloadReader(b, entry.payload.offset, entry.payload.length);
  try {
    for (let left = entry.payload.length; left > 0; ) {
      const n = Math.min(COPY_STEP, left);
      copy.write(reader.read(n));
      left -= n;
    }
    copy.complete({ header: entry.header, tiles: entry.counts.tiles, documents: entry.counts.documents, quickCheck: !vouched });
    return copy;
  } catch (err) {
    copy.abandon();
    if (err instanceof StoreFileError) throw new BundleError(`${storeName(ref)}: the store file in the bundle is refused: ${err.message}; not published`);
    throw err;
  } finally {
    reader.close();
  }
}

/** Builds the store's staging file from its records and checks its counts; the caller publishes or abandons it. */
function stageStore(dataDir: string, b: OpenedBundle, step: Step, hashing: StreamHashing | undefined): StorePatch {
  const { entry, ref } = step;
  const averageTileBytes = entry.counts.tilesPut > 0 ? entry.bytes / entry.counts.tilesPut : 0;
  const patch = new StorePatch(patchPaths(dataDir, entry.kind, entry.id), entry.mode === 'incremental', { averageTileBytes, bytes: entry.bytes });
  const reader = new PayloadReader(b, entry.payload.offset, entry.payload.length, hashing);
  try {
    patch.setHeader(entry.header);
    const table = (i: number): string => {
      if (i >= entry.tables.length) throw new BundleError(`damaged bundle payload: table ${i} of ${storeName(ref)} does not exist`);
      return entry.tables[i];
    };
    while (!reader.done) {
      const r = decodeRecord(reader.read);
      if (r.type === REC.tilePut) patch.putTile(table(r.table), r.z, r.x, r.row, r.data);
      else if (r.type === REC.tileDelete) patch.deleteTile(table(r.table), r.z, r.x, r.row);
      else if (r.type === REC.documentPut) patch.putDocument(r.path, r.contentType, r.data);
      else patch.deleteDocument(r.path);
    }
    const got = patch.counts();
    if (got.tiles !== entry.counts.tiles || got.documents !== entry.counts.documents) {
      throw new BundleError(
        `${storeName(ref)}: after applying the bundle the store holds ${got.tiles} tiles and ${got.documents} documents, ` +
          `the bundle says ${entry.counts.tiles} and ${entry.counts.documents}: not published`,
      );
    }
    patch.complete();
    return patch;
  } catch (err) {
    patch.abandon();
    throw err;
  } finally {
    reader.close();
  }
}

/** Creates `dir` (and missing parents) and notes each folder it made, so a refusal can take them away again. */
function makeDir(dir: string, made: string[]): void {
  const first = mkdirSync(dir, { recursive: true });
  if (first === undefined) return;
  for (let d = dir; d.length >= first.length; d = join(d, '..')) made.push(d);
}

/** Takes the mirror lock of every store of the bundle, or none: a store being mirrored (or imported) is refused. */
function lockStores(dataDir: string, b: OpenedBundle, made: string[]): Lock[] {
  const locks: Lock[] = [];
  try {
    for (const entry of b.manifest.stores) {
      const paths = storePaths(dataDir, entry.kind, entry.id);
      makeDir(paths.dir, made);
      try {
        locks.push(acquireLock(paths.lock, 'import'));
      } catch (err) {
        if (!(err instanceof LockError)) throw err;
        throw new BundleError(`${entry.kind}/${entry.id} is busy: ${err.message}; nothing was changed: import again once it is done`);
      }
    }
  } catch (err) {
    for (const l of locks) l.release();
    throw err;
  }
  return locks;
}

export async function importBundle(opts: ImportOptions): Promise<ImportResult> {
  const log = opts.log ?? (() => undefined);
  const b = openBundle(opts.bundle);
  if (opts.trust.length > 0) log(`signature: good, key ${verifyManifest(b.manifestBytes, b.signature, opts.trust)} is trusted`);
  else if (b.signature) log(`note: signed by key ${signerOf(b.signature)}, not checked (no trusted key given: --trust)`);
  checkPartSizes(b);
  const made: string[] = [];
  let locks: Lock[] = [];
  // The hashes are checked beside the staging work (two ways, chosen below); verify() hashes whatever is left
  // (with shared buffers: the bytes no store read, stores skipped or left after a damaged record), then waits for
  // every hash.
  let hashing: Hashing | undefined;
  let verified = false;
  const verify = async (): Promise<void> => {
    if (verified) return;
    hashing ??= new StreamHashing(b);
    hashing.finish();
    await hashing.result;
    verified = true;
    log(`parts: ${b.manifest.parts.length} checked (${b.manifest.payloadBytes} bytes, SHA-256)`);
  };
  let published = false;
  try {
    locks = lockStores(opts.dataDir, b, made);
    const steps = plan(opts.dataDir, b);
    // From here every store this import could write is locked and fits: the hashing starts. Records are decoded
    // from the very buffers one thread hashes (the bundle is read once; SQLite's row writing is the slower side).
    // When a store file is copied, the copy runs at the disk's speed and the SHA-256 becomes the slower side: the
    // parts are then read and hashed by their own threads, in parallel, while this thread copies and checks.
    // (With store files, the calling thread joins the workers in verify(), once its copies and checks are done.)
    const copying = steps.some((s) => s.action === 'apply' && s.entry.layout === 'sqlite');
    const h = (hashing = copying ? startHashing(b, Math.max(1, availableParallelism() - 1)) : new StreamHashing(b));
    const stream = h instanceof StreamHashing ? h : undefined;
    // Settled (and reported) by verify() below; this only keeps an early rejection from counting as unhandled.
    h.result.catch(() => undefined);
    const result: ImportResult = { applied: [], skipped: [] };
    for (const step of steps) {
      const name = storeName(step.ref);
      if (step.action === 'skip') {
        result.skipped.push(name);
        log(`${name}: already at version ${step.entry.version}`);
        continue;
      }
      let patch: StorePatch | StoreFileCopy;
      try {
        patch = step.entry.layout === 'sqlite' ? stageStoreFile(opts.dataDir, b, step, opts.trust.length > 0) : stageStore(opts.dataDir, b, step, stream);
      } catch (err) {
        // A damaged part can break the records before its hash is known: the hash says best what is wrong.
        await verify();
        throw err;
      }
      try {
        await verify();
      } catch (err) {
        patch.abandon();
        throw err;
      }
      patch.publish();
      published = true;
      rememberVersion(opts.dataDir, step.ref, step.entry.version);
      result.applied.push(name);
      log(`${name}: now at version ${step.entry.version} (${step.entry.mode}${step.entry.base ? ` from ${step.entry.base}` : ''})`);
    }
    await verify();
    return result;
  } catch (err) {
    // Whatever stopped the import, the hashing is not left running behind it.
    hashing?.abort();
    await hashing?.result.catch(() => undefined);
    throw err;
  } finally {
    for (const l of locks) l.release();
    if (!published) {
      // Deepest first: a folder goes once the folders made inside it are gone.
      for (const d of made.sort((x, y) => y.length - x.length)) {
        try {
          rmdirSync(d);
        } catch {
          // not empty (a store was published into it) or gone: leave it
        }
      }
    }
  }
}
