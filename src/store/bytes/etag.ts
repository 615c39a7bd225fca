import { hash } from 'node:crypto';

/** 22 base64url characters: 132 bits of SHA-1, plenty to tell versions of one resource apart. */
export const TAG_LENGTH = 22;

/**
 * The one digest behind every entity tag and store version: SHA-1 of the bytes (or of a string naming what the
 * answer depends on), base64url, TAG_LENGTH characters. Served tiles, generated documents, combined glyph
 * ranges and rendered static maps all tag with it.
 */
export function digestTag(data: string | Buffer): string {
  // The one-shot form: no Hash object per call (~2-3 µs of a tile read from the store, whose 15 KB take ~10 µs to hash).
  return hash('sha1', data, 'base64url').slice(0, TAG_LENGTH);
}
