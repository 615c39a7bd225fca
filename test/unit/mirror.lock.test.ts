import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLock, LockError } from '../../src/mirror/lock';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tm-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('one holder at a time; released locks can be taken again', () => {
  const file = join(dir, '.x.lock');
  const lock = acquireLock(file);
  expect(readFileSync(file, 'utf8')).toContain(String(process.pid));
  expect(() => acquireLock(file)).toThrow(LockError);
  lock.release();
  expect(existsSync(file)).toBe(false);
  acquireLock(file).release();
});

test('a lock of a live process is refused, a lock of a dead one is taken over', () => {
  const file = join(dir, '.y.lock');
  // pid 1 is alive (or at least exists) in any container.
  writeFileSync(file, `1 ${hostname()}\n`);
  expect(() => acquireLock(file)).toThrow(/another mirror/);
  // A pid that has exited: a finished child's.
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  writeFileSync(file, `${child.stdout.toString()} ${hostname()}\n`);
  const lock = acquireLock(file);
  expect(readFileSync(file, 'utf8')).toContain(String(process.pid));
  lock.release();
});
