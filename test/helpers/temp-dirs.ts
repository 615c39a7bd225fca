// Temporary folders of one test file: made under the system's temporary folder, all removed by the file's own
// afterAll (which calls `removeTempDirs` where it fits: after the servers using them have stopped).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDirs {
  /** A new empty folder named `<prefix><random>` (or `<other prefix><random>`). */
  tempDir(prefix?: string): string;
  /** Removes every folder made so far, with what is in it. */
  removeTempDirs(): void;
}

export function tempDirs(prefix: string): TempDirs {
  const made: string[] = [];
  return {
    tempDir: (other?: string) => {
      const d = mkdtempSync(join(tmpdir(), other ?? prefix));
      made.push(d);
      return d;
    },
    removeTempDirs: () => {
      for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}
