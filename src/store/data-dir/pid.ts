// Whether the process a file of the data directory names is still alive: a lock's holder, a job's `running`
// record. Only meaningful for a process of this host.

/** True while `pid` names a live process (of any user); false for a gone one or a number that is no pid. */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
