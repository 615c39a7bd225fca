import Database from 'better-sqlite3';
import { digestTag } from './etag';
import type { DocumentKind } from './types';

export interface StoredDocument {
  contentType: string;
  data: Buffer;
}

/**
 * A read-only store that holds documents only (a font's glyph ranges, a sprite sheet), in the same file
 * format as tile stores: MBTiles `metadata` plus the `tilemirror_documents` table, keyed by path.
 */
export class DocumentStore {
  /** Changes whenever the file changes: part of every ETag. */
  readonly version: string;
  readonly metadata: ReadonlyMap<string, string>;
  private readonly db: Database.Database;
  private readonly byPath: Database.Statement<[string], { content_type: string; data: Buffer }>;
  private readonly listPaths: Database.Statement<[], { path: string }>;

  constructor(readonly file: string, readonly kind: DocumentKind, readonly id: string, readonly signature: string) {
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      this.byPath = this.db.prepare('SELECT content_type, data FROM tilemirror_documents WHERE path = ?');
      this.listPaths = this.db.prepare('SELECT path FROM tilemirror_documents ORDER BY path');
      this.metadata = new Map(
        this.db
          .prepare<[], { name: string; value: string | null }>('SELECT name, value FROM metadata')
          .all()
          .map((r) => [r.name, r.value ?? ''] as const),
      );
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
    const row = this.byPath.get(path);
    return row ? { contentType: row.content_type, data: row.data } : undefined;
  }

  paths(): string[] {
    return this.listPaths.all().map((r) => r.path);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
