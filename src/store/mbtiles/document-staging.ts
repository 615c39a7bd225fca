// Document stores on disk for the mirror: a fresh staging file with every document, verified (integrity_check,
// every document read back byte for byte) and published by one rename; and reading one document of the
// published store (the weather catalog compares its keyframes with the previous one).

import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { DocumentTable } from './sql';
import { publishFile } from './publish';
import { createMirrorTables, STATE, writeMirrorState } from './mirror-sql';
import { removeStaging, type storePaths } from './staging';
import { StoreWriter, type StoreHeader } from './writer';

/**
 * Writes the documents into a fresh staging file, verifies it and publishes it by one rename. Returns the
 * problems that kept it from being published (the staging file is removed then; the published store is untouched).
 */
export function publishDocuments(
  paths: ReturnType<typeof storePaths>,
  header: StoreHeader,
  documents: readonly { path: string; contentType: string; data: Buffer }[],
  provenance: { fingerprint: string; upstream: string },
): string[] {
  removeStaging(paths.staging);
  const writer = new StoreWriter(paths.staging, header);
  let ok = false;
  try {
    createMirrorTables(writer.db);
    writer.batch(() => {
      writeMirrorState(writer.db, [
        [STATE.fingerprint, provenance.fingerprint],
        [STATE.upstream, provenance.upstream],
        [STATE.publishedAt, new Date().toISOString()],
      ]);
      for (const d of documents) writer.putDocument(d.path, d.contentType, d.data);
    });
    // Verify: SQLite's integrity check, and every document reads back as written (nothing more, nothing less).
    const problems: string[] = [];
    const rows = writer.db.pragma('integrity_check') as { integrity_check: string }[];
    if (!(rows.length === 1 && rows[0].integrity_check === 'ok')) problems.push(`integrity_check: ${rows.map((r) => r.integrity_check).slice(0, 5).join('; ')}`);
    const count = writer.documents.count();
    if (count !== documents.length) problems.push(`${count} documents stored, ${documents.length} expected`);
    for (const d of documents) {
      const back = writer.documents.get(d.path)?.data;
      if (!back || !back.equals(d.data)) problems.push(`${d.path} does not read back as written`);
    }
    if (problems.length) return problems;
    ok = true;
  } finally {
    writer.close();
    if (!ok) removeStaging(paths.staging);
  }
  publishFile(paths.staging, paths.published);
  return [];
}

/** The documents of a published document store (empty when there is none or it cannot be read). */
export function readPublishedDocument(file: string | undefined, path: string): Buffer | undefined {
  if (!file || !existsSync(file)) return undefined;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return new DocumentTable(db).get(path)?.data;
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
}
