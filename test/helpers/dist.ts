// The built CLI (dist/), which some tests run as a child process. The suite assumes dist/ is current:
// test/run.sh builds it once before jest starts (no test rebuilds it: two jest workers would race).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');

/** Absolute path of a built file, e.g. built('cli.js'); throws a clear error when dist/ has not been built. */
export function built(rel: string): string {
  const file = join(ROOT, 'dist', rel);
  if (!existsSync(file)) {
    throw new Error(`${file} is missing: build dist/ first (npm run build; bash test/run.sh does it before jest)`);
  }
  return file;
}
