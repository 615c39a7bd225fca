// Temporary folders of one test file (or helper): made under the system's temporary folder (or `base`, e.g. inside
// a root filesystem a chroot'ed client sees), all removed by the file's own afterAll (which calls `removeTempDirs`
// where it fits: after the servers using them have stopped). The one way the suite makes temporary folders.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDirs {
  /** A new empty folder named `<prefix><random>` (or `<other prefix><random>`). */
  tempDir(prefix?: string): string;
  /** Removes every folder made so far, with what is in it. */
  removeTempDirs(): void;
}

export function tempDirs(prefix: string, base: string = tmpdir()): TempDirs {
  const made: string[] = [];
  return {
    tempDir: (other?: string) => {
      const d = mkdtempSync(join(base, other ?? prefix));
      made.push(d);
      return d;
    },
    removeTempDirs: () => {
      for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}
