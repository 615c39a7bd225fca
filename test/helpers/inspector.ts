// A full garbage collection in a child Node process, from outside, so that a memory figure taken after it is what
// the process retains, not garbage V8 has not yet had a reason to collect (an idle process never collects: a
// server's RSS read right after a burst can be 100 MB above what it holds, or not, by GC timing alone).
// SIGUSR1 opens Node's inspector in the child; the child must have been started with `--inspect-port=0` (see
// INSPECT_ANY_PORT) so that it listens on a free loopback port, which it prints on stderr. The test then asks
// the DevTools protocol's HeapProfiler.collectGarbage over a WebSocket (undici's client).

import type { ChildProcess } from 'node:child_process';
import { WebSocket } from 'undici';
import { waitFor } from './wait';

/** The child's environment addition that makes SIGUSR1 open the inspector on a free port, not on 9229. */
export const INSPECT_ANY_PORT: NodeJS.ProcessEnv = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --inspect-port=0`.trim() };

export interface Inspector {
  /** A full, compacting collection; resolves once it has run. */
  collectGarbage(): Promise<void>;
  close(): void;
}

/** Opens the inspector of `child` (started with INSPECT_ANY_PORT) and connects to it; `output` reads its stderr so far. */
export async function openInspector(child: ChildProcess, output: () => string): Promise<Inspector> {
  const before = output().length;
  child.kill('SIGUSR1');
  const url = await waitFor('the child to open its inspector', () => /Debugger listening on (ws:\/\/\S+)/.exec(output().slice(before))?.[1]);
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve());
    ws.addEventListener('error', () => reject(new Error(`cannot connect to the inspector at ${url}`)));
  });
  let nextId = 1;
  const call = (method: string) =>
    new Promise<void>((resolve, reject) => {
      const id = nextId++;
      const onMessage = (event: { data: unknown }) => {
        const answer = JSON.parse(String(event.data)) as { id?: number; error?: { message: string } };
        if (answer.id !== id) return;
        ws.removeEventListener('message', onMessage);
        if (answer.error) reject(new Error(`${method}: ${answer.error.message}`));
        else resolve();
      };
      ws.addEventListener('message', onMessage);
      ws.send(JSON.stringify({ id, method }));
    });
  return { collectGarbage: () => call('HeapProfiler.collectGarbage'), close: () => ws.close() };
}
