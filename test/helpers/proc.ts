// What a (child) process holds, read from /proc: open file descriptors and resident memory.

import { readdirSync, readFileSync } from 'node:fs';

/** Number of entries in /proc/PID/fd: every open file, socket, pipe, epoll and event fd of the process. */
export function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** Resident set size in bytes (VmRSS of /proc/PID/status). */
export function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(m[1]) * 1024;
}
