// The mirror's own tables inside a store file (`tilemirror_mirror_*`): what a run remembers beside the content
// (its state and checkpoints, tiles known to be empty, each tile's validators). Not content: bundles neither carry
// nor compare them. Every statement on them is here, as sql.ts holds those on the content tables.

import type Database from 'better-sqlite3';

/** A row of the mirror's state table, or undefined (also when the file was not written by a mirror run). */
export function mirrorStateValue(db: Database.Database, name: string): string | undefined {
  try {
    return (db.prepare('SELECT value FROM tilemirror_mirror_state WHERE name = ?').pluck().get(name) as string | undefined) ?? undefined;
  } catch {
    // no state table: not written by a mirror run
    return undefined;
  }
}
