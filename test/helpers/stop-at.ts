// Stopping a child process at a point the test observes, not after a time and not through a hook in the product:
// the child runs in short turns and is stopped (SIGSTOP) between them; at each stop the test looks at what the
// child has left so far (its files). The child is stopped while the test looks, so what the test sees is exactly
// the state a SIGKILL then leaves behind.

import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { waitFor } from './wait';

/** True when every thread of `pid` is stopped (or the process has ended): its files no longer change. */
function stopped(pid: number): boolean {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return true; // gone
  }
  return tasks.every((t) => {
    try {
      // The state is the first field after the command name in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      return /^[TtZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
    } catch {
      return true; // that thread has ended
    }
  });
}

const ended = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

/**
 * Lets `child` run until a look while it is stopped finds `reached()` true, and leaves it stopped there (the caller
 * kills it, or resumes it with SIGCONT). Returns false when the child ended first: the point passed between two
 * looks (a busy machine can give the child a long turn), and the caller starts again.
 */
export async function stopAt(child: ChildProcess, what: string, reached: () => boolean): Promise<boolean> {
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${what}: the child did not start`);
  return waitFor(
    `the child to reach ${what}`,
    async () => {
      if (ended(child)) return 'ended' as const;
      child.kill('SIGSTOP');
      await waitFor(`process ${pid} to stop`, () => stopped(pid), { intervalMs: 1 });
      if (reached()) return 'reached' as const;
      child.kill('SIGCONT');
      return false;
    },
    { intervalMs: 1 },
  ).then((r) => r === 'reached');
}
