// The answers of a slow oracle (a reference implementation run as a program) kept between runs, outside the
// repository: computed once per version of everything that decides them (the caller names those: the oracle's
// script, the data it reads, the versions of the programs it runs), and read back by every later run with the same
// inputs. Kept under /var/cache/tilemirror, beside the root filesystem of test/setup/gdal-trixie.sh (it survives
// `npm ci` and `git clean` and serves every clone and worktree of the machine), or under node_modules/.cache when
// that cannot be written (override: TILEMIRROR_ORACLE_CACHE).

import { createHash } from 'node:crypto';
import { appendFileSync, createReadStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './helpers';

const CANDIDATES = [process.env.TILEMIRROR_ORACLE_CACHE, '/var/cache/tilemirror/oracles', path.join(REPO_ROOT, 'node_modules', '.cache', 'tilemirror', 'oracles')];

/** The first cache folder that exists or can be made. */
function cacheDir(): string {
  for (const dir of CANDIDATES) {
    if (!dir) continue;
    try {
      mkdirSync(dir, { recursive: true });
      return dir;
    } catch {
      // not writable here: the next one
    }
  }
  throw new Error(`no oracle cache folder can be made (${CANDIDATES.filter(Boolean).join(', ')})`);
}

/** A key for the inputs that decide an oracle's answers: SHA-256 over each part. */
export function cacheKey(parts: (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(createHash('sha256').update(p).digest());
  return h.digest('hex').slice(0, 32);
}

/**
 * Hands each line of the oracle's output to `onLine`, in order: from the cache when `name`-`key` is there,
 * otherwise from `produce` (which runs the oracle, giving each line as it comes and resolving once the oracle
 * has ended well), kept for later runs only when `produce` resolved. Returns whether the cache answered.
 */
export async function cachedLines(
  name: string,
  key: string,
  produce: (line: (text: string) => Promise<void>) => Promise<void>,
  onLine: (text: string) => Promise<void>,
): Promise<{ cached: boolean; file: string }> {
  const file = path.join(cacheDir(), `${name}-${key}.jsonl`);
  if (existsSync(file)) {
    for await (const line of createInterface({ input: createReadStream(file) })) await onLine(line);
    return { cached: true, file };
  }
  const partial = `${file}.${process.pid}.partial`;
  try {
    await produce(async (text) => {
      appendFileSync(partial, `${text}\n`);
      await onLine(text);
    });
    renameSync(partial, file);
  } finally {
    rmSync(partial, { force: true });
  }
  return { cached: false, file };
}
