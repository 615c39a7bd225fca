// `tilemirror serve` as a child process (the built CLI), for what only a separate process can show: that it
// survives (no crash takes the test runner down with it), or how it behaves under its own resource limits
// (e.g. `prlimit --nofile=N:N`). Its JSON log lines are collected as they come.

import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { built } from './dist';
import { KEY } from './server';
import { waitFor } from './wait';
import { tempDirs } from './temp-dirs';

/** glibc's malloc settings the Docker image and `npm start` run the server with (docs/operations.md). */
export const GLIBC_MALLOC_ENV: NodeJS.ProcessEnv = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' };

export interface ChildServer {
  url: string;
  port: number;
  child: ChildProcess;
  /** Every JSON log line so far, parsed. */
  logs: Record<string, unknown>[];
  /** Log lines whose `msg` contains the text. */
  logged(text: string): Record<string, unknown>[];
  /** Everything written to stdout and stderr so far, as text. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts `tilemirror serve` on a free loopback port over `dataDir` (key `demo`, request log off), with `server`
 * settings merged in; `wrap` runs it under another command (e.g. ['prlimit', '--nofile=64:64']); `args` are
 * added to `serve`'s (e.g. ['--workers', '2']); `config` adds top-level sections (e.g. `mirror`, `scheduler`);
 * `env` is added to the child's environment.
 */
export async function startChildServer(
  dataDir: string,
  opts: { server?: Record<string, unknown>; wrap?: string[]; args?: string[]; config?: Record<string, unknown>; env?: NodeJS.ProcessEnv } = {},
): Promise<ChildServer> {
  // The config goes to a folder of its own (never beside the data, which may be the repository's mirror/).
  const temp = tempDirs('tilemirror-child-');
  const configDir = temp.tempDir();
  const config = join(configDir, 'serve.json');
  const server = { host: '127.0.0.1', port: 0, requestLog: false, ...opts.server };
  writeFileSync(config, JSON.stringify({ server, data: dataDir, keys: [{ key: KEY, plan: 'paid' }], logLevel: 'info', ...opts.config }));
  const argv = [...(opts.wrap ?? []), process.execPath, built('cli.js'), 'serve', '--config', config, ...(opts.args ?? [])];
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } });
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  let stdout = '';
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // Not a log line.
      }
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const logged = (text: string) => logs.filter((l) => String(l.msg ?? '').includes(text));
  const serving = await waitFor(`the server to listen (stderr: ${stderr})`, () => {
    if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}: ${stderr}`);
    return logged('tilemirror serving')[0];
  });
  const url = String(serving.url);
  return {
    url,
    port: Number(new URL(url).port),
    child,
    logs,
    logged,
    output: () => stdout + stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        await exited;
      }
      temp.removeTempDirs();
    },
  };
}

/**
 * One kept-alive HTTP/1.1 connection, opened before a test floods the server: requests go over this socket
 * only (an agent would open a new one, which a saturated server cannot accept). One request at a time.
 */
export class KeptConnection {
  private buffered = Buffer.alloc(0);
  private waiting?: () => void;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.waiting?.();
    });
    socket.on('close', () => this.waiting?.());
  }

  static open(port: number): Promise<KeptConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(new KeptConnection(socket)));
      socket.once('error', reject);
    });
  }

  async get(path: string): Promise<{ status: number; body: Buffer }> {
    this.buffered = Buffer.alloc(0);
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    for (;;) {
      const end = this.buffered.indexOf('\r\n\r\n');
      if (end >= 0) {
        const head = this.buffered.subarray(0, end).toString('latin1');
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (this.buffered.length >= end + 4 + length) {
          return { status: Number(head.split(' ')[1]), body: this.buffered.subarray(end + 4, end + 4 + length) };
        }
      }
      if (this.socket.destroyed) throw new Error(`connection closed before the answer to ${path}`);
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Opens `count` connections and leaves them idle (the server may refuse or close some: errors are ignored). */
export async function flood(port: number, count: number): Promise<Socket[]> {
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve) => {
          const s = connect(port, '127.0.0.1');
          s.on('error', () => undefined);
          s.once('connect', () => resolve(s));
          s.once('close', () => resolve(s));
        }),
    ),
  );
  return sockets;
}
