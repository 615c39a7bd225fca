import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Logger } from 'pino';

// Every connection holds a file descriptor; so does every open store, watched folder and log stream. Once the
// process runs out, listing a data folder, opening a store and accepting fail alike (EMFILE). Capping connections
// below the limit keeps descriptors for the stores: beyond the cap, Node closes new connections at once.

/** The process's soft open-file limit (RLIMIT_NOFILE) from /proc/self/limits; undefined where unknown or unlimited. */
export function openFileLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(text);
  if (!m || m[1] === 'unlimited') return undefined;
  return Number(m[1]);
}

/**
 * The default connection cap for an open-file limit: 80% of it, keeping at least 64 descriptors for stores, logs
 * and the runtime (never below 16). Without a known limit there is no cap (Node's default).
 */
export function defaultMaxConnections(fdLimit: number | undefined): number | undefined {
  if (fdLimit === undefined) return undefined;
  const reserve = Math.max(64, Math.ceil(fdLimit * 0.2));
  return Math.max(16, fdLimit - reserve);
}

/** Applies the cap (configured, else derived from the fd limit) and logs refused connections at most once a minute. */
export function limitConnections(server: Server, configured: number | undefined, log: Logger): number | undefined {
  const fdLimit = openFileLimit();
  const max = configured ?? defaultMaxConnections(fdLimit);
  if (max === undefined) return undefined;
  server.maxConnections = max;
  let dropped = 0;
  let loggedAt = -Infinity;
  server.on('drop', () => {
    dropped += 1;
    const now = performance.now();
    if (now - loggedAt < 60_000) return;
    log.warn({ maxConnections: max, fdLimit, dropped }, 'connection limit reached: new connections are closed (server.maxConnections)');
    loggedAt = now;
    dropped = 0;
  });
  return max;
}
