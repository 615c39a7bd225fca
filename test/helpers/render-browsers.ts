// The renderer's browser processes, found from outside the renderer: the children of this process started with
// the renderer's own flag (services/renderer/browser.ts BROWSER_ARGS), and the memory of each with its helpers.
import { readdirSync, readFileSync } from 'node:fs';

/** The flag only the renderer's browsers are started with (the e2e suite's browsers use --enable-unsafe-swiftshader alone). */
const RENDERER_FLAG = '--use-angle=swiftshader';

interface Proc {
  pid: number;
  ppid: number;
  rss: number;
}

function processes(): Proc[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .flatMap((e) => {
      try {
        const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
        // The command name may hold spaces and parentheses: the fields after it follow the last ')'.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return [{ pid: Number(e), ppid: Number(fields[1]), rss: Number(fields[21]) * 4096 }];
      } catch {
        return [];
      }
    });
}

/** Pids of the renderer browsers this process started (the browser processes, not their helpers). */
export function rendererBrowserPids(parent = process.pid): number[] {
  return processes()
    .filter((p) => p.ppid === parent)
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0').includes(RENDERER_FLAG);
      } catch {
        return false;
      }
    })
    .map((p) => p.pid);
}

/** Resident memory (bytes) of `pid` and all its descendants. */
export function treeRss(pid: number): number {
  const all = processes();
  let total = 0;
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop() as number;
    total += all.find((q) => q.pid === p)?.rss ?? 0;
    stack.push(...all.filter((q) => q.ppid === p).map((q) => q.pid));
  }
  return total;
}
