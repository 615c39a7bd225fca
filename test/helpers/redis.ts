// A redis-server of the test's own (Debian's redis-server on a free loopback port, nothing persisted, a password),
// and the small network helpers the topology tests share.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { waitFor } from './wait';

export const REDIS_SERVER = existsSync('/usr/bin/redis-server') ? '/usr/bin/redis-server' : 'redis-server';

/** A TCP port free on 127.0.0.1 now (the caller binds it soon after). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** True when something accepts connections on 127.0.0.1:port. */
export const tcpOpen = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });

export interface TestRedis {
  port: number;
  /** `redis://:PASSWORD@127.0.0.1:PORT` */
  url: string;
  stop(): Promise<void>;
}

/** Starts redis-server requiring `password`; resolves once it accepts connections. */
export async function startRedis(password: string, limitMs?: number): Promise<TestRedis> {
  const port = await freePort();
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--requirepass', password], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  await waitFor('redis-server to accept connections', () => {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${stderr}`);
    return tcpOpen(port);
  }, { limitMs });
  return {
    port,
    url: `redis://:${password}@127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
