// `tilemirror import`: checks the whole bundle before touching anything (signature when keys are trusted, the
// size and SHA-256 of every part, the base version of every incremental store), then applies each store into a
// hidden staging file and publishes it by one rename, which a running server's catalog notices (directory watch
// or its periodic rescan) and serves without a restart. Idempotent and resumable per store: a store already at
// the bundle's version is skipped; one interrupted mid-way (SIGKILL) was never published and is redone.

import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { storeName, type StoreRef } from '../store/content';
import { rememberVersion, storeVersion } from '../store/content-version';
import { patchPaths, StorePatch } from '../store/patch';
import { BundleError, type StoreEntry } from './manifest';
import { openBundle, PayloadReader, type OpenedBundle } from './parts';
import { decodeRecord, REC } from './records';
import { signerOf, verifyManifest } from './sign';
import { verifyParts } from './verify';

export interface ImportOptions {
  dataDir: string;
  bundle: string;
  /** Public keys (PEM files) trusted to sign bundles; when any is given, an unsigned or otherwise signed bundle is refused. */
  trust: string[];
  log?: (line: string) => void;
  /**
   * Test hook (TILEMIRROR_IMPORT_PAUSE_AFTER): after this many records applied, call `onPause` (which blocks), so a
   * test can kill the import at a known point instead of racing a timer.
   */
  pauseAfter?: number;
  onPause?: () => void;
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

function applyStore(dataDir: string, b: OpenedBundle, step: Step, tick: () => void): void {
  const { entry, ref } = step;
  mkdirSync(join(dataDir, entry.kind), { recursive: true });
  const averageTileBytes = entry.counts.tilesPut > 0 ? entry.bytes / entry.counts.tilesPut : 0;
  const patch = new StorePatch(patchPaths(dataDir, entry.kind, entry.id), entry.mode === 'incremental', { averageTileBytes });
  const reader = new PayloadReader(b, entry.payload.offset, entry.payload.length);
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
      tick();
    }
    const got = patch.counts();
    if (got.tiles !== entry.counts.tiles || got.documents !== entry.counts.documents) {
      throw new BundleError(
        `${storeName(ref)}: after applying the bundle the store holds ${got.tiles} tiles and ${got.documents} documents, ` +
          `the bundle says ${entry.counts.tiles} and ${entry.counts.documents}: not published`,
      );
    }
    patch.complete();
    patch.publish();
  } catch (err) {
    patch.abandon();
    throw err;
  } finally {
    reader.close();
  }
  rememberVersion(dataDir, ref, entry.version);
}

export async function importBundle(opts: ImportOptions): Promise<ImportResult> {
  const log = opts.log ?? (() => undefined);
  const b = openBundle(opts.bundle);
  if (opts.trust.length > 0) log(`signature: good, key ${verifyManifest(b.manifestBytes, b.signature, opts.trust)} is trusted`);
  else if (b.signature) log(`note: signed by key ${signerOf(b.signature)}, not checked (no trusted key given: --trust)`);
  await verifyParts(b);
  log(`parts: ${b.manifest.parts.length} checked (${b.manifest.payloadBytes} bytes, SHA-256)`);
  const steps = plan(opts.dataDir, b);
  let records = 0;
  const tick = (): void => {
    if (opts.pauseAfter !== undefined && ++records === opts.pauseAfter) opts.onPause?.();
  };
  const result: ImportResult = { applied: [], skipped: [] };
  for (const step of steps) {
    const name = storeName(step.ref);
    if (step.action === 'skip') {
      result.skipped.push(name);
      log(`${name}: already at version ${step.entry.version}`);
      continue;
    }
    applyStore(opts.dataDir, b, step, tick);
    result.applied.push(name);
    log(`${name}: now at version ${step.entry.version} (${step.entry.mode}${step.entry.base ? ` from ${step.entry.base}` : ''})`);
  }
  return result;
}
