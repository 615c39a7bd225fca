import Database from 'better-sqlite3';
import { digestTag } from '../bytes/etag';
import { DocumentTable, readMetadata } from './sql';
import type { StoredDocument } from '../tile-reader';
import type { DocumentKind } from '../types';

/**
 * A read-only store that holds documents only (a font's glyph ranges, a sprite sheet), in the same file
 * format as tile stores: MBTiles `metadata` plus the `tilemirror_documents` table, keyed by path.
 */
export class DocumentStore {
  /** Changes whenever the file changes: part of every ETag. */
  readonly version: string;
  readonly metadata: ReadonlyMap<string, string>;
  private readonly db: Database.Database;
  private readonly documents: DocumentTable;

  constructor(readonly file: string, readonly kind: DocumentKind, readonly id: string, readonly signature: string) {
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      this.documents = new DocumentTable(this.db);
      if (!this.documents.present) throw new Error('no such table: tilemirror_documents');
      this.metadata = readMetadata(this.db);
    } catch (err) {
      this.db.close();
      throw new Error(`${file} is not a document store: ${(err as Error).message}`);
    }
    this.version = digestTag(signature);
  }

  get name(): string {
    return this.metadata.get('name') || this.id;
  }

  document(path: string): StoredDocument | undefined {
    return this.documents.get(path);
  }

  paths(): string[] {
    return this.documents.paths();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
