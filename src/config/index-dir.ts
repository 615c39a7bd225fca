import { resolve } from 'node:path';

/** Where `npm run indexes` builds the derived indexes: `dist/indexes` in the package (this file is in src|dist/config). */
export const DEFAULT_INDEX_DIR = resolve(__dirname, '..', '..', 'dist', 'indexes');
