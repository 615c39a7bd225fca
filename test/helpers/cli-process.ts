// The built CLI as a child process: its output collected, its end awaited, killable at any moment.

import { spawn, type ChildProcess } from 'node:child_process';
import { built, ROOT } from './dist';

export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** stdout and stderr, interleaved as they came. */
  out: string;
}

export interface CliProcess {
  child: ChildProcess;
  /** The output so far. */
  out(): string;
  done: Promise<CliExit>;
}

/** Starts `node dist/cli.js ...args` in the repository with the environment plus `env`. */
export function startCli(args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, [built('cli.js'), ...args], { env: { ...process.env, ...env }, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const done = new Promise<CliExit>((res) => child.once('exit', (code, signal) => res({ code, signal, out })));
  return { child, out: () => out, done };
}
