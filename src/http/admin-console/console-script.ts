import { readFileSync } from 'node:fs';
import { digestTag } from '../../store/bytes/etag';
import { CONSOLE_SCRIPT_FILE } from './console-bundle';

// The console's script as /admin/console.js serves it: the file `npm run build` makes from browser/console.ts and
// the modules it imports (console-bundle.ts). Read once, on the first request for it: it changes only with a build.

export interface ConsoleScript {
  body: Buffer;
  etag: string;
}

let script: ConsoleScript | undefined;

/** The built script and its entity tag; throws when the build has not made it (`npm run build`). */
export function consoleScript(): ConsoleScript {
  if (!script) {
    let body: Buffer;
    try {
      body = readFileSync(CONSOLE_SCRIPT_FILE);
    } catch (err) {
      throw new Error(`the console's script has not been built (npm run build): ${(err as Error).message}`);
    }
    script = { body, etag: digestTag(body) };
  }
  return script;
}
