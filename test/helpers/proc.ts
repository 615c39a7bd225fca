// What a (child) process holds, read from /proc: open file descriptors and resident memory.

import { readdirSync, readFileSync } from 'node:fs';

/** Number of entries in /proc/PID/fd: every open file, socket, pipe, epoll and event fd of the process. */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/**
 * TCP connections still held open by a process on the server side: local port `serverPort`, remote port one of
 * `clientPorts`, owned by a socket (inode ≠ 0; a side closed by its owner is released or orphaned with inode 0).
 * From /proc/net/tcp and tcp6, so the server's other descriptors (store files a rescan opens and closes, an idle
 * keep-alive connection) do not count.
 */
export function serverConnections(serverPort: number, clientPorts: ReadonlySet<number>): number {
  let n = 0;
  for (const port of heldClientPorts(serverPort)) if (clientPorts.has(port)) n++;
  return n;
}

/**
 * The client ports of the connections to `serverPort` that the server's side still holds (see serverConnections):
 * a client that reads slowly sees the server's close only once it has read what came before it, this sees it at once.
 */
export function heldClientPorts(serverPort: number): number[] {
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const local = parseInt(f[1].split(':')[1], 16);
      if (local === serverPort && f[9] !== '0') ports.push(parseInt(f[2].split(':')[1], 16));
    }
  }
  return ports;
}

/** Resident set size in bytes (VmRSS of /proc/PID/status). */
export function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(m[1]) * 1024;
}
